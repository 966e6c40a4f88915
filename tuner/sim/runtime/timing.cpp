// The chip-level replay of the timing model: the blocks of one wave run their recorded timing graphs
// together, and the GM copies in flight at each moment share the chip's GM bandwidth.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <queue>
#include <unordered_map>
#include <utility>

#include "state.h"

namespace tuner_sim {

namespace {

constexpr uint32_t kWriteBack = UINT32_MAX;  // a Copy that is an L2 write-back, no node of any block

struct Copy {
    uint32_t node;
    double bytes;
    double own_cap;    // bytes per cycle on its own (the single-core curve)
    double cap = own_cap;  // and under its core's port's share
    double remaining = bytes;
    double rate = 0;   // bytes per cycle now
};

// Max-min fair shares: copies capped below the equal share keep their cap, the rest split what is left.
void share_bandwidth(std::vector<Copy>& copies, double total) {
    std::vector<Copy*> order;
    order.reserve(copies.size());
    for (auto& c : copies) order.push_back(&c);
    std::sort(order.begin(), order.end(), [](const Copy* a, const Copy* b) { return a->cap < b->cap; });
    double left = total;
    size_t n = order.size();
    for (Copy* c : order) {
        c->rate = std::min(c->cap, left / double(n));
        left -= c->rate;
        --n;
    }
}

// Calls f(k) for every `unit`-byte piece of GM (k = address / unit) a copy's bursts cover, burst by burst.
template <class F>
void each_piece(const TimingNode& n, uint64_t unit, F&& f) {
    for (uint32_t i = 0; i < n.gm_bursts; ++i) {
        const uintptr_t lo = n.gm_first + i * n.gm_step;
        for (uint64_t k = lo / unit; k <= (lo + n.gm_burst_bytes - 1) / unit; ++k) f(k);
    }
}

// How many copies in flight touch each GM request region. Counting is cheap while no region holds two; once one
// does, every copy in flight is weighed again at the next share (`changed`).
class RegionLoad {
public:
    void add(const TimingNode& n) {
        each_region(n, [&](uint64_t r) { changed_ |= ++count_[r] > 1; });
    }
    void remove(const TimingNode& n) {
        each_region(n, [&](uint64_t r) {
            auto it = count_.find(r);
            changed_ |= it->second > 1;
            if (--it->second == 0) count_.erase(it);
        });
    }
    // The mean, over the copy's regions, of the other copies in flight on each.
    double others(const TimingNode& n) const {
        double sum = 0, regions = 0;
        each_region(n, [&](uint64_t r) {
            sum += double(count_.at(r) - 1);
            ++regions;
        });
        return regions > 0 ? sum / regions : 0;
    }
    bool take_changed() { return std::exchange(changed_, false); }

private:
    template <class F>
    static void each_region(const TimingNode& n, F&& f) {
        uint64_t last = UINT64_MAX;
        each_piece(n, kGmRequestBytes, [&](uint64_t r) {
            if (r != last) f(r);
            last = r;
        });
    }
    std::unordered_map<uint64_t, uint32_t> count_;
    bool changed_ = false;
};

constexpr uint64_t kL2Line = 128;

}  // namespace

std::pair<uint64_t, uint64_t> L2Lines::touch(const TimingNode& n) {
    uint64_t there = 0, lines = 0;
    each_piece(n, kL2Line, [&](uint64_t k) {
        auto [it, fresh] = last_.try_emplace(k, clock_);
        there += !fresh && clock_ - it->second <= capacity_;
        it->second = clock_;
        ++lines;
    });
    clock_ += double(n.gm_bursts) * n.gm_burst_bytes;
    if (last_.size() > 4 * (uint64_t(capacity_) / kL2Line + 1)) {
        for (auto it = last_.begin(); it != last_.end();) {
            it = clock_ - it->second > capacity_ ? last_.erase(it) : std::next(it);
        }
    }
    return {there, lines};
}

bool L2Lines::read(const TimingNode& n) {
    const auto [there, lines] = touch(n);
    return 2 * there > lines;
}

void L2Lines::write(const TimingNode& n) { touch(n); }

std::vector<BlockTiming> replay(const std::vector<const TimingGraph*>& graphs,
                                const std::array<double, 2>& pool_bytes_per_cycle, double port_bytes_per_cycle,
                                double l2_share_bytes, double same_address_cycles, L2Lines& l2, bool with_trace) {
    // One index space over every block's nodes.
    std::vector<uint32_t> offset(graphs.size() + 1, 0);
    for (size_t b = 0; b < graphs.size(); ++b) offset[b + 1] = offset[b] + uint32_t(graphs[b]->nodes.size());
    const uint32_t total = offset.back();
    std::vector<uint32_t> block_of(total), waiting(total), succ_start(total + 1, 0), succ;
    std::vector<const TimingNode*> node(total);
    for (size_t b = 0; b < graphs.size(); ++b) {
        const TimingGraph& g = *graphs[b];
        for (uint32_t i = 0; i < g.nodes.size(); ++i) {
            const uint32_t id = offset[b] + i;
            node[id] = &g.nodes[i];
            block_of[id] = uint32_t(b);
            waiting[id] = g.nodes[i].n_preds;
            for (uint32_t k = 0; k < g.nodes[i].n_preds; ++k) {
                ++succ_start[offset[b] + g.preds[g.nodes[i].first_pred + k] + 1];
            }
        }
    }
    // Edges between blocks of this wave (a cross-core wait after its set); a set in an earlier wave is done.
    std::vector<std::pair<uint32_t, uint32_t>> cross;  // (from, to)
    {
        std::map<int64_t, size_t> by_block;
        for (size_t b = 0; b < graphs.size(); ++b) by_block[graphs[b]->block] = b;
        for (size_t b = 0; b < graphs.size(); ++b) {
            for (const auto& e : graphs[b]->ext) {
                auto it = by_block.find(e.block);
                if (it == by_block.end() || e.pred < 0 || size_t(e.pred) >= graphs[it->second]->nodes.size()) continue;
                const uint32_t from = offset[it->second] + uint32_t(e.pred), to = offset[b] + e.node;
                cross.push_back({from, to});
                ++waiting[to];
                ++succ_start[from + 1];
            }
        }
    }
    for (uint32_t i = 0; i < total; ++i) succ_start[i + 1] += succ_start[i];
    succ.resize(succ_start[total]);
    {
        std::vector<uint32_t> fill(succ_start.begin(), succ_start.end() - 1);
        for (const auto& [from, to] : cross) succ[fill[from]++] = to;
        for (size_t b = 0; b < graphs.size(); ++b) {
            const TimingGraph& g = *graphs[b];
            for (uint32_t i = 0; i < g.nodes.size(); ++i) {
                for (uint32_t k = 0; k < g.nodes[i].n_preds; ++k) {
                    succ[fill[offset[b] + g.preds[g.nodes[i].first_pred + k]]++] = offset[b] + i;
                }
            }
        }
    }
    // SyncAll: how many blocks reach each epoch's barrier, and when the last one did.
    std::vector<int> sync_expected;
    for (const TimingGraph* g : graphs) {
        for (const auto& n : g->nodes) {
            if (n.sync_epoch < 0) continue;
            if (sync_expected.size() <= size_t(n.sync_epoch)) sync_expected.resize(n.sync_epoch + 1, 0);
            ++sync_expected[n.sync_epoch];
        }
    }
    std::vector<std::vector<uint32_t>> sync_arrived(sync_expected.size());
    std::vector<double> start(total, 0), end(total, -1);
    std::vector<bool> hit(total, false);  // a cold read through L2 that found its lines there (both its nodes)
    const auto cycles_of = [&](uint32_t id) { return hit[id] ? double(node[id]->hit_cycles) : node[id]->cycles; };

    using Event = std::pair<double, uint32_t>;
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> fixed;
    std::array<std::vector<Copy>, 2> pools;  // GM copies in flight, by the bandwidth they share
    bool reshare = false;
    double now = 0;
    std::vector<double> on_port(graphs.size(), 0);
    RegionLoad regions;
    const bool contend = same_address_cycles > 0;

    std::function<void(uint32_t, double)> begin = [&](uint32_t id, double t) {
        start[id] = t;
        const TimingNode& n = *node[id];
        if (n.sync_epoch >= 0) {
            auto& arrived = sync_arrived[n.sync_epoch];
            arrived.push_back(id);
            if (int(arrived.size()) == sync_expected[n.sync_epoch]) {
                for (uint32_t a : arrived) fixed.push({t + node[a]->cycles, a});
            }
        } else if (n.gm_bytes > 0 && n.cycles > 0) {
            if (n.l2_read) {
                hit[id] = l2.read(n);
            } else if (n.l2_write) {
                l2.write(n);
            }
            pools[hit[id] ? 1 : n.pool].push_back({id, n.gm_bytes, n.gm_bytes / cycles_of(id)});
            if (contend) regions.add(n);
            reshare = true;
        } else {
            hit[id] = n.l2_read && hit[id - 1];  // a copy's latency node follows its bytes' node
            fixed.push({t + cycles_of(id), id});
        }
    };
    auto finish = [&](uint32_t id) {
        const TimingNode& n = *node[id];
        if (n.l2_write && graphs[block_of[id]]->l2_bytes > l2_share_bytes) {
            pools[0].push_back({kWriteBack, n.gm_bytes, INFINITY});
            reshare = true;
        }
        end[id] = now;
        for (uint32_t k = succ_start[id]; k < succ_start[id + 1]; ++k) {
            if (--waiting[succ[k]] == 0) begin(succ[k], now);
        }
    };
    for (uint32_t id = 0; id < total; ++id) {
        if (waiting[id] == 0) begin(id, 0);
    }
    auto in_flight = [&] { return !pools[0].empty() || !pools[1].empty(); };
    while (!fixed.empty() || in_flight()) {
        if (reshare) {
            // A copy sharing its regions waits for the other copies' requests there: its own rate over its bytes
            // plus same_address_cycles for each other copy (regions are served in parallel).
            if (contend && regions.take_changed()) {
                for (auto& copies : pools) {
                    for (Copy& c : copies) {
                        if (c.node == kWriteBack) continue;
                        const TimingNode& n = *node[c.node];
                        c.cap = c.own_cap = c.bytes / (cycles_of(c.node) + same_address_cycles * regions.others(n));
                    }
                }
            }
            // A core's copies in flight together, in either pool, split its port evenly; one alone keeps its own rate.
            if (port_bytes_per_cycle > 0) {
                for (const auto& copies : pools) {
                    for (const Copy& c : copies) {
                        if (c.node != kWriteBack) ++on_port[block_of[c.node]];
                    }
                }
                for (auto& copies : pools) {
                    for (Copy& c : copies) {
                        if (c.node == kWriteBack) continue;
                        const double n = on_port[block_of[c.node]];
                        c.cap = n > 1 ? std::min(c.own_cap, port_bytes_per_cycle / n) : c.own_cap;
                    }
                }
                std::fill(on_port.begin(), on_port.end(), 0);
            }
            for (int p = 0; p < 2; ++p) share_bandwidth(pools[p], pool_bytes_per_cycle[p]);
            reshare = false;
        }
        double next = fixed.empty() ? INFINITY : fixed.top().first;
        for (const auto& copies : pools) {
            for (const Copy& c : copies) next = std::min(next, now + c.remaining / c.rate);
        }
        for (auto& copies : pools) {
            for (Copy& c : copies) c.remaining -= c.rate * (next - now);
        }
        now = next;
        while (!fixed.empty() && fixed.top().first <= now) {
            const uint32_t id = fixed.top().second;
            fixed.pop();
            finish(id);
        }
        for (auto& copies : pools) {
            for (size_t i = 0; i < copies.size();) {
                const uint32_t id = copies[i].node;
                if (copies[i].remaining <= 1e-9 * copies[i].bytes) {
                    copies[i] = copies.back();
                    copies.pop_back();
                    reshare = true;
                    if (id != kWriteBack) {
                        if (contend) regions.remove(*node[id]);
                        finish(id);
                    }
                } else {
                    ++i;
                }
            }
        }
    }

    // A pipe is busy while any of its nodes is (a copy's start-up latency may overlap the next copy's bytes).
    std::vector<BlockTiming> out(graphs.size());
    std::vector<std::array<std::vector<std::pair<double, double>>, kPipes>> spans(graphs.size());
    for (uint32_t id = 0; id < total; ++id) {
        if (end[id] < 0) continue;  // never ran: its block stopped at a fault
        BlockTiming& r = out[block_of[id]];
        const TimingNode& n = *node[id];
        r.time_cycles = std::max(r.time_cycles, end[id]);
        if (n.busy && end[id] > start[id]) {
            spans[block_of[id]][n.pipe].push_back({start[id], end[id]});
            if (with_trace) r.trace.push_back({n.pipe, start[id], end[id], n.site});
        }
    }
    for (size_t b = 0; b < graphs.size(); ++b) {
        for (int p = 0; p < kPipes; ++p) {
            auto& s = spans[b][p];
            std::sort(s.begin(), s.end());
            double covered = -INFINITY;
            for (const auto& [lo, hi] : s) {
                if (hi > covered) out[b].busy[p] += hi - std::max(lo, covered);
                covered = std::max(covered, hi);
            }
        }
    }
    return out;
}

}  // namespace tuner_sim

// The simulator runtime: per-block state, faults, the ordering (sync-hazard) checker, the per-block timing
// graphs (replayed by timing.cpp), GM buffers behind guard pages, block launch in waves, SyncAll, the report.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <deque>
#include <tuple>
#include <functional>
#include <thread>

#include "../include/tuner_sim/fp16.h"
#include "state.h"

thread_local int64_t block_idx = 0;
thread_local int64_t block_num = 1;

namespace tuner_sim {

namespace {

const char* kFaultNames[] = {"ub-overflow", "misaligned", "out-of-bounds", "queue-misuse", "sync-hazard",
                             "gm-race",     "deadlock",   "timeout",       "unsupported",  "crash"};
const char* kPipeNames[] = {"S", "V", "MTE2", "MTE3"};

struct FaultRecord {
    FaultClass cls;
    std::string message;
    int64_t block;
    uint32_t site;
    int blocks = 1;                 // distinct blocks that hit it
    std::vector<int64_t> block_ids;  // those blocks (a fault repeated in a loop counts once per block)
};

struct GmBuffer {
    uintptr_t lo, hi;  // user bytes
    void* map_base;
    size_t map_len;
    std::string name;
    bool without_data = false;  // gm_mark_without_data
};

// GM bytes a block read or wrote in one SyncAll epoch, gathered from every block after the launch.
struct RaceAccess {
    uintptr_t lo, hi;
    int64_t block;
    int epoch;
    uint32_t site;
    uint32_t phase = 0;   // the block's cross-core phase (BlockCtx::xknown)
    bool atomic = false;  // an atomic DataCopy to GM: atomic writes of several blocks to the same bytes add up
    std::vector<uint8_t> bytes;  // a write's stored bytes over [lo, hi) (GmAccess::bytes); empty: not known
};

// A cross-core flag: kind (XKind), an id (a GM address or flag id), and the block it belongs to (-1: any).
enum XKind : int { kCrossCoreFlag = 0, kIbFlag, kNextBlock, kGroupArrive, kSoftSync };
using XKey = std::tuple<int, uint64_t, int64_t>;
inline XKey xkey(XKind kind, uint64_t id, int64_t block) { return {int(kind), id, block}; }
// One set of a cross-core flag: the node the waiters follow, when the setter reached it, and what it knew.
struct XSet {
    int64_t block;
    int32_t node;
    double time;
    std::vector<uint32_t> known;
};

struct BlockResult {
    int64_t idx;
    uint64_t gm_to_ub, ub_to_gm;
    uint32_t ub_peak;
    TimingGraph graph;
    BlockTiming timing;  // from the replay of its wave
};

struct Launch {
    std::string kernel;
    int64_t block_dim = 0;
    int64_t active_blocks = 1;
    bool waves = false;
    std::mutex mu;
    std::vector<FaultRecord> faults;
    std::vector<std::string> warnings;
    std::vector<RaceAccess> race_writes, race_reads;
    std::vector<BlockResult> results;
    // SyncAll barrier
    std::condition_variable cv;
    int64_t arrived = 0, finished = 0;
    uint64_t generation = 0;
    double barrier_max = 0;
    double barrier_release = 0;
    bool any_abort = false;
    std::vector<BlockCtx*> running;  // blocks of the current wave (for the watchdog's message)
    // Blocks of the current wave still running, and how many of them wait (SyncAll or a cross-core wait),
    // with what each waits for: when every running block waits and none can go on, the launch is deadlocked.
    int64_t wave_live = 0, blocked = 0;
    std::vector<const std::function<bool()>*> waiters;
    bool deadlocked = false;
    int64_t dead_arrived = 0, dead_finished = 0, dead_live = 0;  // SyncAll's counts when the deadlock was found
    std::map<XKey, std::vector<XSet>> xsets;     // cross-core sets, in the order they happened
    std::map<XKey, uint64_t> xconsumed;          // IBWait: sets consumed so far, by any block
    std::map<uintptr_t, std::vector<uint32_t>> released;  // WriteGmByPassDCache: what its writers knew, by address
    // GM addresses a block set with SetValue and has not cleaned out of its data cache yet: that block
    std::map<uintptr_t, int64_t> unpublished;
    std::vector<std::vector<std::vector<uint32_t>>> xknown;  // per block: BlockCtx::xknown at its end
};

std::mutex g_sites_mu;
std::deque<Site> g_sites(1);  // a deque: site() hands out references that interning must not move
std::mutex g_gm_mu;
std::vector<GmBuffer> g_gm;
Launch* g_launch = nullptr;
thread_local BlockCtx* t_ctx = nullptr;
LaunchOptions g_options;

std::string vformat(const char* fmt, va_list ap) {
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    return buf;
}

void record_fault(FaultClass cls, std::string msg) {
    BlockCtx* c = t_ctx;
    const uint32_t s = c ? c->site : 0;
    const int64_t block = c ? c->idx : -1;
    if (!g_launch) {
        fprintf(stderr, "error: [%s] %s\n", kFaultNames[int(cls)], msg.c_str());
        return;
    }
    std::lock_guard<std::mutex> lock(g_launch->mu);
    for (auto& f : g_launch->faults) {
        if (f.cls == cls && f.site == s && (f.site != 0 || f.message == msg)) {
            if (std::find(f.block_ids.begin(), f.block_ids.end(), block) == f.block_ids.end()) {
                f.block_ids.push_back(block);
                f.blocks = int(f.block_ids.size());
            }
            if (block >= 0 && block < f.block) {  // name the lowest block, whatever the thread schedule
                f.block = block;
                f.message = std::move(msg);
            }
            return;
        }
    }
    g_launch->faults.push_back({cls, std::move(msg), block, s, 1, {block}});
}

const GmBuffer* find_gm(uintptr_t p) {
    for (const auto& b : g_gm) {
        if (p >= b.lo && p < b.hi) return &b;
    }
    return nullptr;
}
const GmBuffer* nearest_gm(uintptr_t p) {
    const GmBuffer* best = nullptr;
    uintptr_t best_d = ~uintptr_t(0);
    for (const auto& b : g_gm) {
        const uintptr_t d = p < b.lo ? b.lo - p : (p >= b.hi ? p - b.hi : 0);
        if (d < best_d) best_d = d, best = &b;
    }
    return best;
}

std::string where_gm(uintptr_t lo, uint64_t bytes) {
    std::lock_guard<std::mutex> lock(g_gm_mu);
    const GmBuffer* b = nearest_gm(lo);
    if (!b) return "no GM buffer is allocated";
    char buf[256];
    if (lo >= b->lo && lo < b->hi) {
        snprintf(buf, sizeof buf, "GM buffer '%s' holds %llu bytes; the access covers bytes [%llu, %llu)",
                 b->name.c_str(), (unsigned long long)(b->hi - b->lo), (unsigned long long)(lo - b->lo),
                 (unsigned long long)(lo - b->lo + bytes));
    } else if (lo >= b->hi) {
        snprintf(buf, sizeof buf, "the access starts %llu bytes past the end of GM buffer '%s' (%llu bytes)",
                 (unsigned long long)(lo - b->hi), b->name.c_str(), (unsigned long long)(b->hi - b->lo));
    } else {
        snprintf(buf, sizeof buf, "the access starts %llu bytes before GM buffer '%s' (%llu bytes)",
                 (unsigned long long)(b->lo - lo), b->name.c_str(), (unsigned long long)(b->hi - b->lo));
    }
    return buf;
}

// The GM copy whose cost copy_cycles just computed, for the next pipe_op of this block to record.
struct PendingCopy {
    double gm_bytes = 0;   // bytes of its pool's bandwidth it takes (misaligned bursts take more than they move)
    double occupancy = 0;  // cycles it holds its queue on its own
    double latency = 0;    // cycles after that until it completes
    uint8_t pool = 0;
    bool l2_write = false;
    bool l2_read = false;    // a cold read through L2, and its occupancy and latency if it hits (TimingNode)
    double hit_occupancy = 0, hit_latency = 0;
    uintptr_t gm_first = 0;  // its bursts, as TimingNode records them
    uint64_t gm_step = 0;
    uint32_t gm_bursts = 0, gm_burst_bytes = 0;
};
thread_local PendingCopy t_pending;
// Whether this launch's GM data is taken as resident in L2 (--l2 warm and it fits).
bool g_l2_warm = false;
// The bytes of L2 each block of this launch has to itself: an even share.
uint64_t g_l2_share = 0;

// ---- kernel scalar code ----------------------------------------------------------------------------------
// KERNEL_FLAGS (tuner/sim/build.py) compile a kernel with GCC's instrumentation: a call in every basic block
// (-fsanitize-coverage=trace-pc), and a call with the address and size of every load and store
// (-fsanitize=kernel-address through calls, stack and globals not instrumented). The callbacks at the end of
// this file count, per block thread, the basic blocks executed and the accesses to the block's UB and to the
// launch's GM buffers (GM through a model of the scalar data cache); accesses to anything else (the stack, the
// kernel's own objects) are register work, inside a basic block's cost. The simulator's headers are not
// instrumented (tuner_sim/uncharged.h): each API call charges its own cost. What the code did is charged to
// the block's scalar pipe before its next API call, so the count decides the time, never the host's speed.

// The launch's GM buffers, fixed while its blocks run (read without a lock by the access callbacks), each with
// the address the data-cache model sees for its first byte: its place in allocation order and its offset in
// its page (which gm_alloc fixes for a buffer of a given size), so that which lines share a cache set never
// depends on where the buffers happened to be mapped.
struct LaunchGm {
    uintptr_t lo, hi;
    uint64_t cache_base;
};
std::vector<LaunchGm> g_launch_gm;
uintptr_t g_launch_gm_lo = 0, g_launch_gm_hi = 0;

// The data-cache model's address of GM byte `a`, or 0 when `a` is in no GM buffer of the launch.
uint64_t gm_cache_address(uintptr_t a) {
    if (a < g_launch_gm_lo || a >= g_launch_gm_hi) return 0;
    for (const auto& b : g_launch_gm) {
        if (a >= b.lo && a < b.hi) return b.cache_base + (a - b.lo);
    }
    return 0;
}

void dcache_init(DataCache& d) {
    d.line_bytes = std::max<uint64_t>(uint64_t(soc_config.dcache_line_bytes), 1);
    d.ways = std::max<uint64_t>(uint64_t(soc_config.dcache_ways), 1);
    d.sets = std::max<uint64_t>(uint64_t(soc_config.dcache_bytes) / (d.line_bytes * d.ways), 1);
    d.tags.assign(d.sets * d.ways, 0);
    d.used.assign(d.sets * d.ways, 0);
    d.clock = 0;
}

// Touches the lines of bytes [a, a + n) (data-cache addresses): the number of them the cache had to bring in
// from GM (LRU replacement).
uint64_t dcache_touch(DataCache& d, uint64_t a, uint64_t n) {
    uint64_t fills = 0;
    const uint64_t last = (a + std::max<uint64_t>(n, 1) - 1) / d.line_bytes;
    for (uint64_t line = a / d.line_bytes; line <= last; ++line) {
        uint64_t* tags = &d.tags[(line % d.sets) * d.ways];
        uint64_t* used = &d.used[(line % d.sets) * d.ways];
        uint64_t way = 0;
        bool hit = false;
        for (uint64_t w = 0; w < d.ways && !hit; ++w) {
            if (tags[w] == line + 1) way = w, hit = true;
            else if (used[w] < used[way]) way = w;
        }
        if (!hit) {
            tags[way] = line + 1;
            ++fills;
        }
        used[way] = ++d.clock;
    }
    return fills;
}

void dcache_invalidate(DataCache& d, uint64_t a) {
    const uint64_t line = a / d.line_bytes;
    uint64_t* tags = &d.tags[(line % d.sets) * d.ways];
    for (uint64_t w = 0; w < d.ways; ++w) {
        if (tags[w] == line + 1) tags[w] = 0;
    }
}

// A scalar load or store of GM bytes [a, a + bytes), `a` a data-cache address.
void count_gm_access(BlockCtx& c, uint64_t a, uint64_t bytes) {
    c.scalar.gm_accesses += (bytes + 7) / 8;
    c.scalar.gm_line_fills += dcache_touch(c.dcache, a, bytes);
}

// A load or store of the kernel's own code (an instrumentation callback).
void kernel_access(const void* addr, uint64_t bytes, bool write) {
    BlockCtx* c = t_ctx;
    if (!c) return;  // host code of a CPU-debug program, between launches
    const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    if (a - reinterpret_cast<uintptr_t>(c->ub.data()) < c->ub.size()) {
        (write ? c->scalar.ub_writes : c->scalar.ub_reads) += (bytes + 7) / 8;
    } else if (const uint64_t cached = gm_cache_address(a)) {
        count_gm_access(*c, cached, bytes);
    }
}

// Charges the scalar work counted since the last call to the block's scalar pipe, as one node.
void charge_scalar_work(BlockCtx& c) {
    const ScalarWork& w = c.scalar;
    const auto& cfg = soc_config;
    const double cycles = double(w.basic_blocks) * cfg.scalar_block_cycles + double(w.ub_reads) * cfg.get_value_cycles +
                          double(w.ub_writes) * cfg.set_value_cycles + double(w.gm_accesses) * cfg.dcache_hit_cycles +
                          double(w.gm_line_fills) * cfg.dcache_miss_cycles;
    c.scalar = ScalarWork{};
    if (cycles <= 0) return;
    const int s = int(Pipe::S);
    c.t[s] += cycles;
    c.graph.add(s, cycles, {c.graph.last[s]}, intern_site("kernel scalar code", "", 0));
}

// Same-pipe ordering: the DMA and scalar queues are in order; V->V needs a barrier unless auto-sync adds it,
// or unless V has since waited (through a flag or queue event) on a pipe that had itself waited for that
// V instruction: vc[V][V] is what V knows complete by such a chain.
bool same_pipe_ordered(const BlockCtx& c, int pipe, uint64_t earlier) {
    if (pipe != int(Pipe::V)) return true;
    return g_options.auto_sync || c.barrier_seq[pipe] >= earlier || c.vc[pipe][pipe] >= earlier;
}

// Whether the current instruction of `pipe` is ordered after instruction `earlier_seq` of `earlier_pipe`.
// The scalar unit issues every instruction in program order, so what the scalar pipe knows complete
// (vc[S], e.g. after a WaitFlag<V_S>) is complete before any later instruction of any pipe starts.
bool ordered(const BlockCtx& c, int pipe, int earlier_pipe, uint64_t earlier_seq) {
    if (earlier_seq == 0) return true;
    if (c.vc[int(Pipe::S)][earlier_pipe] >= earlier_seq) return true;
    if (earlier_pipe == pipe) {
        if (earlier_seq >= c.seq[pipe]) return true;  // the same instruction (e.g. two spans of one copy)
        return same_pipe_ordered(c, pipe, earlier_seq);
    }
    return c.vc[pipe][earlier_pipe] >= earlier_seq;
}

void report_hazard(BlockCtx& c, int pipe, const char* what, const char* operand, uint32_t off, int other_pipe,
                   uint32_t other_site, const char* other_what) {
    const Site& o = site(other_site);
    fault_soft(FaultClass::SyncHazard,
               "%s %s UB offset %u (%s) that %s %s at %s:%d with nothing ordering them; expected an "
               "EnQue/DeQue, SetFlag/WaitFlag or PipeBarrier between the two",
               kPipeNames[pipe], what, off, operand, kPipeNames[other_pipe], other_what, o.file, o.line);
}

void check_ub_span(BlockCtx& c, int pipe, uint64_t seq, const UbSpan& s) {
    if (s.bytes == 0) return;
    const uint32_t g0 = s.off / 32, g1 = uint32_t((s.off + s.bytes + 31) / 32);
    bool reported = false;
    for (uint32_t g = g0; g < g1; ++g) {
        Granule& gr = c.shadow[g];
        if (!reported && !ordered(c, pipe, gr.wpipe, gr.wseq)) {
            report_hazard(c, pipe, s.access == Access::Read ? "reads" : "overwrites", s.operand, g * 32, gr.wpipe,
                          gr.wsite, "wrote");
            reported = true;
        }
        if (s.access == Access::Write) {
            // A scalar read (GetValue) has completed when the scalar unit goes on to issue later
            // instructions, so a later write by any pipe cannot overtake it: no S->X flag is needed.
            for (int p = 0; p < kPipes && !reported; ++p) {
                if (p != pipe && p != int(Pipe::S) && !ordered(c, pipe, p, gr.rseq[p])) {
                    report_hazard(c, pipe, "overwrites", s.operand, g * 32, p, gr.rsite[p], "reads");
                    reported = true;
                }
            }
            gr.wpipe = uint8_t(pipe);
            gr.wseq = seq;
            gr.wsite = c.site;
            gr.rseq.fill(0);
        } else {
            gr.rseq[pipe] = seq;
            gr.rsite[pipe] = c.site;
        }
    }
}

// The bytes of GM writes kept for the race check (a launch's budget; past it, writes keep no content and any
// overlap between blocks is reported, as before content was compared).
constexpr uint64_t kRaceContentBudget = uint64_t(256) << 20;
std::atomic<uint64_t> g_race_content_bytes{0};
constexpr uint64_t kNoContent = uint64_t(1) << 62;  // GmAccess::unfilled of a write that keeps no content

// Extends the last range when this access continues or repeats it (a streamed input, a row of gamma read
// again for every row), so a block's ranges stay few. A plain write's record also keeps room for the bytes it
// stores, which race_write_bytes fills in once the copy has them (`unfilled` counts the bytes still owed).
void record_race_access(std::vector<GmAccess>& ranges, uintptr_t lo, uintptr_t hi, int epoch, uint32_t site,
                        uint32_t phase = 0, bool atomic = false, bool write = false) {
    GmAccess* rec = nullptr;
    if (!ranges.empty()) {
        GmAccess& last = ranges.back();
        if (last.epoch == epoch && last.phase == phase && last.atomic == atomic && lo <= last.hi && hi >= last.lo) {
            rec = &last;
        }
    }
    if (!rec) {
        ranges.push_back({lo, lo, epoch, site, phase, atomic});
        rec = &ranges.back();
    }
    const uintptr_t new_lo = std::min(rec->lo, lo), new_hi = std::max(rec->hi, hi);
    if (write && !atomic && rec->unfilled < kNoContent) {
        // rec->bytes covers [rec->lo, rec->hi) (nothing yet for a new record): grown to the new range
        const uint64_t grow = (new_hi - new_lo) - rec->bytes.size();
        if (g_race_content_bytes.fetch_add(grow) + grow <= kRaceContentBudget) {
            if (new_lo < rec->lo) rec->bytes.insert(rec->bytes.begin(), rec->lo - new_lo, uint8_t(0));
            rec->bytes.resize(new_hi - new_lo);
            rec->unfilled += hi - lo;
        } else {
            std::vector<uint8_t>().swap(rec->bytes);
            rec->unfilled = kNoContent;
        }
    }
    rec->lo = new_lo;
    rec->hi = new_hi;
}

void check_gm_span(BlockCtx& c, int pipe, uint64_t seq, const GmSpan& s) {
    const uintptr_t lo = reinterpret_cast<uintptr_t>(s.addr), hi = lo + s.bytes;
    if (s.bytes == 0) return;
    bool inside;
    {
        std::lock_guard<std::mutex> lock(g_gm_mu);
        const GmBuffer* b = find_gm(lo);
        inside = b && hi <= b->hi;
    }
    if (!inside) {
        fault(FaultClass::OutOfBounds, "%s (%s, %llu bytes) is outside GM: %s", s.operand,
              s.access == Access::Read ? "read" : "write", (unsigned long long)s.bytes, where_gm(lo, s.bytes).c_str());
    }
    if (pipe == int(Pipe::MTE2) || pipe == int(Pipe::MTE3)) {
        for (const auto& d : c.dcache_dirty) {
            if (d.hi > lo && d.lo < hi) {
                const Site& o = site(d.site);
                fault_soft(FaultClass::SyncHazard,
                           "%s %s GM bytes that %s at %s:%d left in the scalar data cache; a "
                           "DataCacheCleanAndInvalid on them is missing before the DMA",
                           kPipeNames[pipe], s.access == Access::Read ? "reads" : "overwrites", o.api, o.file,
                           o.line);
                break;
            }
        }
    }
    for (const auto& w : c.gm_writes) {
        if (w.hi > lo && w.lo < hi && !ordered(c, pipe, w.pipe, w.seq)) {
            const Site& o = site(w.site);
            fault_soft(FaultClass::SyncHazard,
                       "%s %s GM bytes that %s wrote at %s:%d with nothing ordering them; expected a "
                       "SetFlag/WaitFlag<HardEvent::%s_%s> (or a PipeBarrier<PIPE_ALL>) between the two",
                       kPipeNames[pipe], s.access == Access::Read ? "reads" : "overwrites", kPipeNames[w.pipe],
                       o.file, o.line, kPipeNames[w.pipe], kPipeNames[pipe]);
            break;
        }
    }
    if (s.access == Access::Write) {
        if (!c.gm_writes.empty() && c.gm_writes.back().hi == lo && c.gm_writes.back().pipe == pipe) {
            c.gm_writes.back().hi = hi;
            c.gm_writes.back().seq = seq;
        } else {
            c.gm_writes.push_back({lo, hi, uint8_t(pipe), seq, c.site});
        }
    }
    const bool atomic = (s.access == Access::Write && c.atomic_store) || c.sync_access;
    record_race_access(s.access == Access::Write ? c.race_writes : c.race_reads, lo, hi, c.epoch, c.site, c.xphase,
                       atomic, s.access == Access::Write);
}

void merge_clock(Clock& into, const Clock& from) {
    for (int q = 0; q < kPipes; ++q) into[q] = std::max(into[q], from[q]);
}

Clock snapshot_of(const BlockCtx& c, int pipe) {
    Clock s = c.vc[pipe];
    s[pipe] = c.seq[pipe];
    return s;
}

}  // namespace

// The bytes a DataCopy to GM stored at [gm, gm + n), from the block's own UB (GM itself may already hold another
// block's bytes): the last write record that covers them keeps them, so that two blocks storing identical bytes
// are not a race. Called after check_gm_span has recorded the write.
void race_write_bytes(BlockCtx& c, const void* gm, const uint8_t* src, uint64_t n) {
    const uintptr_t lo = reinterpret_cast<uintptr_t>(gm), hi = lo + n;
    for (auto it = c.race_writes.rbegin(); it != c.race_writes.rend(); ++it) {
        if (it->lo <= lo && hi <= it->hi && it->epoch == c.epoch) {
            if (it->unfilled < kNoContent && it->unfilled >= n && it->bytes.size() == it->hi - it->lo) {
                std::memcpy(it->bytes.data() + (lo - it->lo), src, n);
                it->unfilled -= n;
            }
            return;
        }
    }
}

// ---- block state -------------------------------------------------------------------------------------

BlockCtx& ctx() {
    if (!t_ctx) {
        fprintf(stderr, "error: [crash] an Ascend C API was called outside a kernel launch\n");
        std::exit(1);
    }
    return *t_ctx;
}

uint32_t intern_site(const char* api, const char* file, int line) {
    // Call sites are string literals and a line: a per-thread cache keyed by their addresses keeps the
    // shared table (and its lock) off the path of every API call.
    struct Key {
        const char* api;
        const char* file;
        int line;
        bool operator==(const Key& o) const { return api == o.api && file == o.file && line == o.line; }
    };
    struct KeyHash {
        size_t operator()(const Key& k) const {
            return std::hash<const void*>()(k.api) ^ (std::hash<const void*>()(k.file) << 1) ^ size_t(k.line) << 7;
        }
    };
    thread_local std::unordered_map<Key, uint32_t, KeyHash> cache;
    const Key key{api, file, line};
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    std::lock_guard<std::mutex> lock(g_sites_mu);
    uint32_t id = 0;
    for (uint32_t i = uint32_t(g_sites.size()); i-- > 1;) {
        const Site& s = g_sites[i];
        if (s.line == line && s.api == api && s.file == file) {
            id = i;
            break;
        }
    }
    if (id == 0) {
        g_sites.push_back({api, file, line});
        id = uint32_t(g_sites.size() - 1);
    }
    cache.emplace(key, id);
    return id;
}

const Site& site(uint32_t id) {
    std::lock_guard<std::mutex> lock(g_sites_mu);
    return g_sites[id < g_sites.size() ? id : 0];
}

double now_cycles(const BlockCtx& c) { return *std::max_element(c.t.begin(), c.t.end()); }

uint8_t* ub_base() { return ctx().ub.data(); }
int64_t block_idx() { return ctx().idx; }
int64_t block_num() { return ctx().num; }
int64_t max_live_tensors() { return soc_config.max_live_tensors; }
int64_t event_ids() { return soc_config.event_ids; }
void* current_tpipe() { return t_ctx ? t_ctx->tpipe : nullptr; }
void set_current_tpipe(void* pipe) {
    if (t_ctx) t_ctx->tpipe = pipe;
}
MaskState& mask_state() { return ctx().mask; }
LaunchOptions& launch_options() { return g_options; }

namespace {
// The descriptor of an "fd:N" spec, else -1; no allocation, no locale (called from the fault handler).
int handed_fd(const char* spec) {
    if (strncmp(spec, "fd:", 3) != 0 || !spec[3]) return -1;
    int fd = 0;
    for (const char* ch = spec + 3; *ch; ++ch) {
        if (*ch < '0' || *ch > '9' || fd > 100000) return -1;
        fd = fd * 10 + (*ch - '0');
    }
    return fd;
}
}  // namespace

int open_output_fd(const char* spec) {
    const int handed = handed_fd(spec);
    if (handed < 0) return open(spec, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int fd = dup(handed);
    if (fd < 0 || ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) return -1;
    return fd;
}

FILE* open_output(const char* spec) {
    if (handed_fd(spec) < 0) return fopen(spec, "w");
    const int fd = open_output_fd(spec);
    return fd < 0 ? nullptr : fdopen(fd, "w");
}

FILE* open_input(const char* spec) {
    const int handed = handed_fd(spec);
    if (handed < 0) return fopen(spec, "rb");
    const int fd = dup(handed);
    if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0) return nullptr;
    return fdopen(fd, "rb");
}

const char* position_name(int position) {
    switch (position) {  // AscendC::TPosition values
        case 0: return "GM";
        case 9: return "VECIN";
        case 10: return "VECOUT";
        case 11: return "VECCALC";
        default: return "non-vector";
    }
}

const char* hard_event_name(int event) {
    static const char* names[] = {
        "MTE2_MTE1", "MTE1_MTE2", "MTE1_M",   "M_MTE1",   "MTE2_V",    "V_MTE2",   "MTE3_V",   "V_MTE3",   "M_V",
        "V_M",       "V_V",       "MTE3_MTE1", "MTE1_MTE3", "MTE1_V",  "MTE2_M",   "M_MTE2",   "V_MTE1",   "M_FIX",
        "FIX_M",     "MTE3_MTE2", "MTE2_MTE3", "S_V",      "V_S",       "S_MTE2",   "MTE2_S",   "S_MTE3",   "MTE3_S"};
    return event >= 0 && event < int(sizeof names / sizeof *names) ? names[event] : "?";
}

void api_site(const char* api, Loc loc) {
    BlockCtx& c = ctx();
    c.site = intern_site(api, loc.file, loc.line);
    c.last_site.store(c.site, std::memory_order_relaxed);
}

void api_begin(const char* api, Loc loc) {
    api_site(api, loc);
    BlockCtx& c = ctx();
    charge_scalar_work(c);
    const double cost = soc_config.scalar_cycles_per_api_call;
    c.t[int(Pipe::S)] += cost;
    c.graph.add(int(Pipe::S), cost, {c.graph.last[int(Pipe::S)]}, c.site);
}

void fault(FaultClass cls, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string msg = vformat(fmt, ap);
    va_end(ap);
    record_fault(cls, std::move(msg));
    if (t_ctx) t_ctx->aborted = true;
    throw BlockAbort{};
}

void fault_soft(FaultClass cls, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string msg = vformat(fmt, ap);
    va_end(ap);
    record_fault(cls, std::move(msg));
}

void warn(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string msg = vformat(fmt, ap);
    va_end(ap);
    if (!g_launch) return;
    std::lock_guard<std::mutex> lock(g_launch->mu);
    if (std::find(g_launch->warnings.begin(), g_launch->warnings.end(), msg) == g_launch->warnings.end()) {
        g_launch->warnings.push_back(std::move(msg));
    }
}

// ---- kernel debugging output ------------------------------------------------------------------------

void debug_print(const char* text) {
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    const size_t n = strlen(text);
    printf("[block %lld] %s%s", t_ctx ? (long long)t_ctx->idx : -1LL, text, n && text[n - 1] == '\n' ? "" : "\n");
    fflush(stdout);
}

// The system counter GetSystemCycle reads, which ticks at its own rate (50 MHz on A2/A3), not the core's clock.
int64_t system_cycle() {
    BlockCtx& c = ctx();
    charge_scalar_work(c);
    return int64_t(now_cycles(c) * soc_config.system_counter_mhz / soc_config.clock_mhz);
}

// ---- UB allocation -------------------------------------------------------------------------------------

uint32_t ub_alloc(uint32_t bytes, const char* what) {
    BlockCtx& c = ctx();
    const uint64_t end = uint64_t(c.ub_used) + bytes;
    if (end > soc_config.ub_usable_bytes) {
        fault(FaultClass::UbOverflow,
              "%s: %u more bytes make %llu bytes of UB buffers; a TPipe on %s may allocate %u bytes", what, bytes,
              (unsigned long long)end, soc_config.name, soc_config.ub_usable_bytes);
    }
    const uint32_t off = c.ub_used;
    c.ub_used = uint32_t(end);
    c.ub_peak = std::max(c.ub_peak, c.ub_used);
    return off;
}

void check_reserved_scratch(const char* api, uint32_t bytes) {
    const BlockCtx& c = ctx();
    const uint32_t lo = soc_config.ub_scratch_offset;
    if (c.ub_used > lo) {
        fault(FaultClass::UbOverflow,
              "%s writes %u bytes of scratch at UB offset %u (the UB Ascend C reserves for it on %s), inside the "
              "kernel's buffers, which reach %u bytes: it overwrites their data. Keep UB from %u on free where "
              "this API is used",
              api, bytes, lo, soc_config.name, c.ub_used, lo);
    }
}

void ub_reset() {
    if (t_ctx) t_ctx->ub_used = 0;
}

void check_ub_aligned(uint32_t off, const char* operand) {
    if (off % 32 != 0) {
        fault(FaultClass::Misaligned, "%s starts at UB offset %u, which is not 32-byte aligned (offset %% 32 = %u)",
              operand, off, off % 32);
    }
}

// ---- one instruction on a pipe ---------------------------------------------------------------------------

void pipe_op(Pipe pipe, double cycles, const UbSpan* ub, int n_ub, const GmSpan* gm, int n_gm) {
    BlockCtx& c = ctx();
    for (int i = 0; i < n_ub; ++i) {
        const UbSpan& s = ub[i];
        if (uint64_t(s.off) + s.bytes > s.buf_end || s.buf_end > c.ub.size()) {
            fault(FaultClass::OutOfBounds,
                  "%s: %llu bytes from UB offset %u run past the end of its buffer by %llu bytes (buffer ends at %u)",
                  s.operand, (unsigned long long)s.bytes, s.off, (unsigned long long)(uint64_t(s.off) + s.bytes - s.buf_end),
                  s.buf_end);
        }
    }
    const int p = int(pipe);
    const uint64_t seq = ++c.seq[p];
    for (int i = 0; i < n_gm; ++i) check_gm_span(c, p, seq, gm[i]);
    // Reads before writes: an instruction reads its sources before it writes its destination, so an
    // in-place op (Exp(x, x, n)) must not see its own write as an unordered earlier one.
    for (int i = 0; i < n_ub; ++i) {
        if (ub[i].access == Access::Read) check_ub_span(c, p, seq, ub[i]);
    }
    for (int i = 0; i < n_ub; ++i) {
        if (ub[i].access == Access::Write) check_ub_span(c, p, seq, ub[i]);
    }
    const double start = std::max(c.t[p], c.t[int(Pipe::S)]);
    c.t[p] = start + cycles;
    if (t_pending.gm_bytes <= 0) {
        c.graph.add(p, cycles, {c.graph.last[p], c.graph.last[int(Pipe::S)]}, c.site);
        return;
    }
    // A GM copy holds its queue while its bytes move; its start-up latency then passes without holding it (the
    // next copy may start).
    const PendingCopy copy = t_pending;
    t_pending = PendingCopy{};
    const int32_t moving = c.graph.add(p, copy.occupancy, {c.graph.last[p], c.graph.last[int(Pipe::S)]}, c.site, true,
                                       copy.gm_bytes, -1, copy.pool);
    TimingNode& node = c.graph.nodes[moving];
    node.l2_write = copy.l2_write;
    node.l2_read = copy.l2_read;
    node.hit_cycles = float(copy.hit_occupancy);
    node.gm_first = copy.gm_first;
    node.gm_step = copy.gm_step;
    node.gm_bursts = copy.gm_bursts;
    node.gm_burst_bytes = copy.gm_burst_bytes;
    const int32_t done = c.graph.add(p, copy.latency, {moving}, c.site);  // the node after `moving`: timing.cpp
    c.graph.nodes[done].l2_read = copy.l2_read;
    c.graph.nodes[done].hit_cycles = float(copy.hit_latency);
    c.graph.last[p] = moving;
    c.graph.done[p] = done;
}

// ---- costs ---------------------------------------------------------------------------------------------

double vec_cycles(InstrClass cls, ElemType t, uint64_t repeats) {
    const auto& cfg = soc_config;
    double per = cfg.cycles_per_repeat[int(cls)][int(t)];
    double issue = cfg.issue_cycles[int(cls)][int(t)];
    if (per <= 0) {  // no row for this dtype: the float row stands in
        per = cfg.cycles_per_repeat[int(cls)][int(ElemType::F32)];
        issue = cfg.issue_cycles[int(cls)][int(ElemType::F32)];
    }
    return cfg.vector_startup_cycles + issue + double(repeats) * per;
}

double mask_cycles() { return soc_config.mask_setup_cycles; }

namespace {
// Piecewise linear in log2(bytes): the curves are measured at sizes doubling from 1 KB, and bandwidth
// grows with the size's order of magnitude. Clamped at both ends.
double curve_gbps(const CopyCurve& c, double bytes) {
    if (c.n == 0) return 1.0;
    const double* pts = c.points;
    if (bytes <= pts[0]) return pts[1];
    for (int i = 1; i < c.n; ++i) {
        const double x0 = pts[2 * (i - 1)], x1 = pts[2 * i];
        if (bytes <= x1) {
            const double y0 = pts[2 * (i - 1) + 1], y1 = pts[2 * i + 1];
            return y0 + (y1 - y0) * std::log2(bytes / x0) / std::log2(x1 / x0);
        }
    }
    return pts[2 * (c.n - 1) + 1];
}
}  // namespace

namespace {
bool l2_bypassed(const BlockCtx& c, const void* addr) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    for (auto it = c.l2_hints.rbegin(); it != c.l2_hints.rend(); ++it) {
        if (a >= it->lo && a < it->hi) return it->bypass;
    }
    return false;
}
}  // namespace

void l2_hint(const void* addr, uint64_t bytes, bool bypass) {
    if (!addr) return;
    BlockCtx& c = ctx();
    const uintptr_t lo = reinterpret_cast<uintptr_t>(addr);
    uintptr_t hi = lo + bytes;
    if (bytes == 0) {
        std::lock_guard<std::mutex> lock(g_gm_mu);
        const GmBuffer* b = find_gm(lo);
        hi = b ? b->hi : lo;
    }
    c.l2_hints.push_back({lo, hi, bypass});
}

double copy_cycles(CopyDir dir, uint64_t bytes, uint64_t bursts, const void* gm_addr, uint64_t gm_step) {
    const auto& cfg = soc_config;
    if (bytes == 0) return 1;
    const CopyCurve& curve = dir == CopyDir::GmToUb ? cfg.gm_to_ub : dir == CopyDir::UbToGm ? cfg.ub_to_gm : cfg.ub_to_ub;
    if (dir == CopyDir::UbToUb) {
        // Each burst of a strided copy pays the size-dependent efficiency of its own length.
        const double per_burst = double(bytes) / double(std::max<uint64_t>(bursts, 1));
        return double(bytes) / (curve_gbps(curve, per_burst) * 1e3) * cfg.clock_mhz;
    }
    // A GM copy: the single-core curve at its whole size (below the curve's first size, the first size's time:
    // start-up bound) is its time on its own; the plateau rate streams its bytes, and the rest is start-up
    // latency, which other copies do not share and the next copy of the queue may overlap. A burst whose GM start
    // is not 512-byte aligned moves its first gm_misalign_span_bytes at gm_align_512_factor of the rate
    // (gm_bypass_align_512_factor for a read that bypasses L2), taking as much more of the bandwidth.
    BlockCtx& c = ctx();
    const bool bypass = l2_bypassed(c, gm_addr);
    const bool write = dir == CopyDir::UbToGm;
    const uintptr_t first = reinterpret_cast<uintptr_t>(gm_addr);
    const uint64_t n = std::max<uint64_t>(bursts, 1);
    const uint64_t looked = std::min<uint64_t>(n, 512);
    uint64_t misaligned = 0;
    for (uint64_t i = 0; i < looked; ++i) misaligned += (first + i * gm_step) % kGmRequestBytes != 0;
    const double burst = double(bytes) / double(n);
    const double align = bypass && !write ? cfg.gm_bypass_align_512_factor : cfg.gm_align_512_factor;
    const double slow = std::min(burst, cfg.gm_misalign_span_bytes) * (1 / align - 1);
    const double factor = burst / (burst + slow * double(misaligned) / double(looked));
    // L2 is write-back: a write lands in L2. A read hits it when the data is resident (--l2 warm), or, cold, when
    // the replay finds its lines there (L2Lines, timing.cpp): its time either way is recorded.
    const bool cold_read = !bypass && !write && !g_l2_warm;
    const bool warm_hit = !bypass && !write && g_l2_warm;
    const double first_bytes = curve.n ? curve.points[0] : 1.0;
    const double alone_us = std::max(double(bytes), first_bytes) / (curve_gbps(curve, double(bytes)) * 1e3);
    const double plateau = curve_gbps(curve, INFINITY);  // the curve clamps at its largest size
    // The cycles the copy holds its queue and the latency after, moving at `speedup` times the curve's rate.
    const auto timed = [&](double speedup) {
        const double alone = alone_us * cfg.clock_mhz / (factor * speedup);
        const double stream = double(bytes) / (plateau * 1e3) * cfg.clock_mhz / (factor * speedup);
        const double occupancy = std::max(stream, cfg.dma_issue_cycles);
        return std::pair{occupancy, std::max(0.0, alone - occupancy)};
    };
    if (!bypass) c.graph.l2_bytes += double(bytes);
    t_pending.gm_bytes = double(bytes) / factor;  // the replay shares the pool's bandwidth between the blocks' copies
    std::tie(t_pending.occupancy, t_pending.latency) = timed(warm_hit ? cfg.l2_hit_speedup : 1.0);
    t_pending.l2_read = cold_read;
    if (cold_read) std::tie(t_pending.hit_occupancy, t_pending.hit_latency) = timed(cfg.l2_hit_speedup);
    t_pending.l2_write = write && !bypass;
    t_pending.pool = warm_hit || t_pending.l2_write ? 1 : 0;
    t_pending.gm_first = first;
    t_pending.gm_step = gm_step;
    t_pending.gm_bursts = uint32_t(n);
    t_pending.gm_burst_bytes = uint32_t(bytes / n);
    return t_pending.occupancy + t_pending.latency;
}

// ---- synchronisation -------------------------------------------------------------------------------------

void set_flag(int src, int dst, int event_id, const char* name) {
    BlockCtx& c = ctx();
    if (event_id < 0 || event_id >= soc_config.event_ids) {
        fault(FaultClass::Unsupported, "SetFlag<%s>: event id %d is outside 0..%d on %s", name, event_id,
              soc_config.event_ids - 1, soc_config.name);
    }
    FlagState& f = c.flags[{src * kPipes + dst, event_id}];
    if (f.pending > 0) {
        fault_soft(FaultClass::SyncHazard,
                   "SetFlag<%s>(%d) set again before its WaitFlag; a flag counts once, so the second set is lost",
                   name, event_id);
    }
    f.pending = 1;
    f.snapshot = snapshot_of(c, src);
    f.time = c.t[src];
    f.node = c.graph.done[src];
    f.site = c.site;
    c.t[int(Pipe::S)] += soc_config.flag_cycles;
    c.graph.add(int(Pipe::S), soc_config.flag_cycles, {c.graph.last[int(Pipe::S)]}, c.site);
}

void wait_flag(int src, int dst, int event_id, const char* name) {
    BlockCtx& c = ctx();
    auto it = c.flags.find({src * kPipes + dst, event_id});
    if (it == c.flags.end() || it->second.pending == 0) {
        fault(FaultClass::Deadlock, "WaitFlag<%s>(%d) waits for a flag that is never set before it; the pipe %s "
              "would wait forever", name, event_id, kPipeNames[dst]);
    }
    FlagState& f = it->second;
    f.pending = 0;
    merge_clock(c.vc[dst], f.snapshot);
    if (src == dst) c.barrier_seq[dst] = std::max(c.barrier_seq[dst], f.snapshot[src]);
    c.t[dst] = std::max(c.t[dst], f.time) + soc_config.flag_cycles;
    c.graph.add(dst, soc_config.flag_cycles, {c.graph.last[dst], f.node}, c.site, dst == int(Pipe::S));
}

void pipe_barrier(int pipe) {
    BlockCtx& c = ctx();
    auto& g = c.graph;
    if (pipe >= 0) {
        c.barrier_seq[pipe] = c.seq[pipe];
        c.t[pipe] += soc_config.barrier_cycles;
        g.add(pipe, soc_config.barrier_cycles, {g.done[pipe]}, c.site, false);
        return;
    }
    const double all = now_cycles(c) + soc_config.barrier_cycles;
    const int32_t node = g.add(int(Pipe::S), soc_config.barrier_cycles, {g.done[0], g.done[1], g.done[2], g.done[3]},
                               c.site, false);
    for (int p = 0; p < kPipes; ++p) {
        for (int q = 0; q < kPipes; ++q) c.vc[p][q] = c.seq[q];
        c.barrier_seq[p] = c.seq[p];
        c.t[p] = all;
        g.last[p] = g.done[p] = node;
    }
}

void queue_slot_event(uint64_t token, int from_pipe) {
    BlockCtx& c = ctx();
    FlagState& f = c.queue_events[token];
    f.pending = 1;
    f.snapshot = snapshot_of(c, from_pipe);
    f.time = c.t[from_pipe];
    f.node = c.graph.done[from_pipe];
}

void queue_slot_wait(uint64_t token, int to_pipe) {
    BlockCtx& c = ctx();
    auto it = c.queue_events.find(token);
    if (it == c.queue_events.end()) return;  // first use of a buffer: nothing to wait for
    merge_clock(c.vc[to_pipe], it->second.snapshot);
    if (it->second.snapshot[to_pipe] > 0) {
        c.barrier_seq[to_pipe] = std::max(c.barrier_seq[to_pipe], it->second.snapshot[to_pipe]);
    }
    c.t[to_pipe] = std::max(c.t[to_pipe], it->second.time);
    c.graph.add(to_pipe, 0, {c.graph.last[to_pipe], it->second.node}, c.site, false);
}

void live_tensor_delta(int position, int delta) {
    BlockCtx& c = ctx();
    int& n = c.live_tensors[position & 31];
    n += delta;
    if (n > soc_config.max_live_tensors) {
        fault(FaultClass::QueueMisuse,
              "AllocTensor: %d tensors allocated and not freed on position %s; %s allows at most %d (NPU: hang)", n,
              position_name(position), soc_config.name, soc_config.max_live_tensors);
    }
}

void tensor_leak(int position, int count, bool enqueued, Loc loc) {
    if (!t_ctx || t_ctx->aborted) return;
    BlockCtx& c = *t_ctx;
    c.live_tensors[position & 31] -= count;
    // Harmless on the NPU (nothing reuses those buffers; Huawei's layernorm example leaves one): a warning.
    warn("%d tensor(s) allocated on position %s at %s:%d are never freed (the queue goes out of scope with them "
         "%s)", count, position_name(position), loc.file, loc.line, enqueued ? "still in the queue" : "allocated");
}

// Scalar GetValue/SetValue on UB. Under auto-sync the compiler makes the scalar wait for the pipes that
// touched the element and are not yet known done, and makes later vector/DMA work wait for the scalar (as
// bisheng does on 2201); one wait covers every element that pipe had touched until then.
void scalar_access(uint32_t ub_off, uint32_t bytes, Access access) {
    BlockCtx& c = ctx();
    const int s = int(Pipe::S);
    if (uint64_t(ub_off) + bytes > c.ub.size()) {
        fault(FaultClass::OutOfBounds, "scalar access at UB offset %u is outside UB (%zu bytes)", ub_off, c.ub.size());
    }
    if (g_options.auto_sync) {
        const Granule& g = c.shadow[ub_off / 32];
        for (int p = 0; p < kPipes; ++p) {
            const bool unordered = (g.wpipe == p && g.wseq > c.vc[s][p]) ||
                                   (access == Access::Write && g.rseq[p] > c.vc[s][p]);
            if (p != s && unordered) {
                charge_scalar_work(c);
                c.vc[s][p] = c.seq[p];
                c.t[s] = std::max(c.t[s], c.t[p]) + soc_config.flag_cycles;  // the flag pair bisheng inserts
                c.graph.add(s, soc_config.flag_cycles, {c.graph.last[s], c.graph.done[p]}, c.site, false);
            }
        }
    }
    const UbSpan span{ub_off, bytes, uint32_t(c.ub.size()), access, "scalar operand"};
    const uint64_t seq = ++c.seq[s];
    check_ub_span(c, s, seq, span);
    if (g_options.auto_sync) {
        for (int p = 0; p < kPipes; ++p) {
            if (p != s) c.vc[p][s] = c.seq[s];
        }
    }
    (access == Access::Read ? c.scalar.ub_reads : c.scalar.ub_writes) += (uint64_t(bytes) + 7) / 8;
}

// Scalar GetValue/SetValue on GM. Under auto-sync the compiler orders them against the DMA pipes that
// wrote the bytes (when not yet known done), and later DMA after them, as for UB. They go through the
// scalar data cache, where a SetValue stays until DataCacheCleanAndInvalid writes it back.
void gm_flag_release(BlockCtx& c, const std::vector<uintptr_t>& keys);
void gm_flag_acquire(BlockCtx& c, uintptr_t key);

// A GM value another block set with SetValue is on the device in that block's data cache until it cleans the
// line; here it is in GM at once. A polled read waits for that clean (or for the writer's end: a value never
// cleaned stays unordered), so it acquires what the clean releases, as the device's read could only see the
// value after it.
void await_cleaned(BlockCtx& c, uintptr_t key) {
    Launch& L = *g_launch;
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(L.mu);
            auto it = L.unpublished.find(key);
            if (it == L.unpublished.end() || it->second == c.idx) return;
            const int64_t writer = it->second;
            if (std::any_of(L.results.begin(), L.results.end(), [&](const auto& r) { return r.idx == writer; })) return;
        }
        std::this_thread::yield();
    }
}

void gm_scalar_access(const void* addr, uint64_t bytes, Access access, bool charged) {
    BlockCtx& c = ctx();
    const int s = int(Pipe::S);
    const uintptr_t lo = reinterpret_cast<uintptr_t>(addr), hi = lo + bytes;
    if (g_options.auto_sync) {
        for (const auto& w : c.gm_writes) {
            if (w.hi > lo && w.lo < hi && w.pipe != s && w.seq > c.vc[s][w.pipe]) {
                charge_scalar_work(c);
                c.vc[s][w.pipe] = w.seq;
                c.t[s] = std::max(c.t[s], c.t[w.pipe]) + soc_config.flag_cycles;  // the flag pair bisheng inserts
                c.graph.add(s, soc_config.flag_cycles, {c.graph.last[s], c.graph.done[w.pipe]}, c.site, false);
            }
        }
    }
    const uint64_t seq = ++c.seq[s];
    // A read of a line DataCacheCleanAndInvalid dropped reads GM: a polled flag, which acquires what its writer
    // released (dcache_clean) and is not a race with that write.
    const auto fresh = std::find(c.dcache_fresh.begin(), c.dcache_fresh.end(), lo & ~uintptr_t(63));
    const bool polled = access == Access::Read && fresh != c.dcache_fresh.end();
    if (polled) c.dcache_fresh.erase(fresh);
    c.polled = polled ? lo : 0;
    const bool was_sync = c.sync_access;
    c.sync_access = was_sync || polled;
    check_gm_span(c, s, seq, GmSpan{addr, bytes, access, "GM scalar operand"});
    c.sync_access = was_sync;
    if (g_options.auto_sync) {
        for (int p = 0; p < kPipes; ++p) {
            if (p != s) c.vc[p][s] = c.seq[s];
        }
    }
    if (access == Access::Write && bytes > 0) {
        {
            std::lock_guard<std::mutex> lock(g_launch->mu);
            g_launch->unpublished[lo] = c.idx;
        }
        auto& d = c.dcache_dirty;
        if (!d.empty() && d.back().hi == lo) {
            d.back().hi = hi;
        } else {
            d.push_back({lo, hi, uint8_t(s), seq, c.site});
        }
    }
    if (const uint64_t cached = gm_cache_address(lo); charged && cached) count_gm_access(c, cached, bytes);
}

// DataCacheCleanAndInvalid writes the dirty scalar writes of a line (or of the whole cache) back to GM and drops
// the line: how blocks hand over data through a GM flag set with SetValue and polled with GetValue
// (gm_by_dcache.asc). The written-back values release what the block did before them, and those writes are
// not races with the polling reads of other blocks.
// The value is read after the check (a writer registers its value as unpublished before it writes it): when it
// is another block's, its clean is awaited and what that released is acquired.
void gm_scalar_read_done() {
    BlockCtx& c = ctx();
    if (!c.polled) return;
    const uintptr_t key = c.polled;
    c.polled = 0;
    await_cleaned(c, key);
    gm_flag_acquire(c, key);
}

void dcache_clean(const void* addr, bool entire) {
    BlockCtx& c = ctx();
    const uintptr_t line = reinterpret_cast<uintptr_t>(addr) & ~uintptr_t(63);
    const uintptr_t from = entire ? 0 : line, to = entire ? ~uintptr_t(0) : line + 64;
    std::vector<GmWrite> kept;
    std::vector<std::pair<uintptr_t, uintptr_t>> cleaned;
    for (const auto& d : c.dcache_dirty) {  // keep the parts outside [from, to)
        if (d.hi > from && d.lo < to) cleaned.push_back({std::max(d.lo, from), std::min(d.hi, to)});
        if (d.lo < from) kept.push_back({d.lo, std::min(d.hi, from), d.pipe, d.seq, d.site});
        if (d.hi > to) kept.push_back({std::max(d.lo, to), d.hi, d.pipe, d.seq, d.site});
    }
    c.dcache_dirty.swap(kept);
    const auto inside = [&](uintptr_t a) {
        return std::any_of(cleaned.begin(), cleaned.end(), [&](const auto& r) { return a >= r.first && a < r.second; });
    };
    for (auto& w : c.race_writes) {
        if (w.epoch == c.epoch && w.lo >= from && w.hi <= to && inside(w.lo)) w.atomic = true;
    }
    std::vector<uintptr_t> published;
    {
        std::lock_guard<std::mutex> lock(g_launch->mu);
        const auto& pending = g_launch->unpublished;
        for (auto it = pending.lower_bound(from); it != pending.end() && it->first < to; ++it) {
            if (it->second == c.idx && inside(it->first)) published.push_back(it->first);
        }
    }
    if (!published.empty()) gm_flag_release(c, published);
    if (entire) {
        dcache_init(c.dcache);
        return;
    }
    if (const uint64_t cached = gm_cache_address(reinterpret_cast<uintptr_t>(addr))) dcache_invalidate(c.dcache, cached);
    if (std::find(c.dcache_fresh.begin(), c.dcache_fresh.end(), line) == c.dcache_fresh.end()) {
        c.dcache_fresh.push_back(line);
    }
}

namespace {
enum class WaitEnd { Ready, Deadlock, Aborted };
// Blocks this block's thread (L.mu held through `lock`) until `ready()`. Deadlock: every running block of the
// wave waits and none of their waits can be met; Aborted: another block ended at a fatal fault.
WaitEnd block_until(Launch& L, std::unique_lock<std::mutex>& lock, const std::function<bool()>& ready) {
    if (ready()) return WaitEnd::Ready;
    L.waiters.push_back(&ready);
    ++L.blocked;
    L.cv.notify_all();
    auto stuck = [&] {
        if (L.blocked < L.wave_live) return false;
        for (const auto* w : L.waiters) {
            if ((*w)()) return false;
        }
        return true;
    };
    L.cv.wait(lock, [&] {
        if (ready() || L.any_abort || L.deadlocked) return true;
        if (stuck()) {
            L.deadlocked = true;
            L.dead_arrived = L.arrived;
            L.dead_finished = L.finished;
            L.dead_live = L.wave_live;
        }
        return L.deadlocked;
    });
    --L.blocked;
    L.waiters.erase(std::find(L.waiters.begin(), L.waiters.end(), &ready));
    if (ready()) return WaitEnd::Ready;
    L.cv.notify_all();
    return L.deadlocked ? WaitEnd::Deadlock : WaitEnd::Aborted;
}
}  // namespace

void sync_all() {
    BlockCtx& c = ctx();
    Launch& L = *g_launch;
    if (L.waves) {
        fault(FaultClass::Deadlock,
              "SyncAll with %lld blocks on %s's %d vector cores: the blocks run in waves and the first wave waits "
              "for blocks that cannot start (NPU: hang)",
              (long long)L.block_dim, soc_config.name, soc_config.vector_cores);
    }
    const double arrive = now_cycles(c);
    std::unique_lock<std::mutex> lock(L.mu);
    const uint64_t gen = L.generation;
    L.barrier_max = std::max(L.barrier_max, arrive);
    ++L.arrived;
    WaitEnd end = WaitEnd::Ready;
    if (L.arrived == L.block_dim) {
        L.barrier_release = L.barrier_max;
        L.arrived = 0;
        L.barrier_max = 0;
        ++L.generation;
        L.cv.notify_all();
    } else {
        const std::function<bool()> released = [&L, gen] { return L.generation != gen; };
        end = block_until(L, lock, released);
    }
    if (end != WaitEnd::Ready) {
        const long long waiting = L.dead_arrived, done = L.dead_finished, others = L.dead_live - L.dead_arrived;
        lock.unlock();
        if (end == WaitEnd::Aborted) {
            c.aborted = true;
            throw BlockAbort{};
        }
        if (done > 0) {
            fault(FaultClass::Deadlock,
                  "SyncAll: %lld blocks wait at the barrier while %lld blocks ended without reaching it (a SyncAll "
                  "missing on some blocks, or an extra one on others); NPU: hang",
                  waiting, done);
        }
        fault(FaultClass::Deadlock,
              "SyncAll: %lld blocks wait at the barrier while %lld blocks wait at a cross-core flag that is never "
              "set; NPU: hang",
              waiting, others);
    }
    const double release = L.barrier_release + soc_config.sync_all_us * soc_config.clock_mhz;
    lock.unlock();
    auto& g = c.graph;
    const int32_t node = g.add(int(Pipe::S), soc_config.sync_all_us * soc_config.clock_mhz,
                               {g.done[0], g.done[1], g.done[2], g.done[3]}, c.site, false, 0, c.epoch);
    for (int p = 0; p < kPipes; ++p) {
        for (int q = 0; q < kPipes; ++q) c.vc[p][q] = c.seq[q];
        c.t[p] = release;
        g.last[p] = g.done[p] = node;
    }
    ++c.epoch;
}

// ---- memory, sync, atomics (issue 16) -------------------------------------------------------------------

void ub_static_tensor(uint32_t addr, uint64_t bytes, uint32_t limit, const char* what) {
    BlockCtx& c = ctx();
    limit = std::min<uint32_t>(limit, uint32_t(c.ub.size()));
    if (addr % 32 != 0) {
        fault(FaultClass::Misaligned, "%s: UB address %u is not 32-byte aligned (address %% 32 = %u)", what, addr,
              addr % 32);
    }
    if (uint64_t(addr) + bytes > limit) {
        fault(FaultClass::UbOverflow, "%s: %llu bytes at UB address %u end at byte %llu, past the %u bytes of UB on %s",
              what, (unsigned long long)bytes, addr, (unsigned long long)(uint64_t(addr) + bytes), limit,
              soc_config.name);
    }
    c.ub_peak = std::max<uint32_t>(c.ub_peak, uint32_t(uint64_t(addr) + bytes));
}

void init_soc_state() {
    BlockCtx& c = ctx();
    c.mask = MaskState{false, ~0ull, ~0ull};
    c.atomic_op = 0;
}

void set_atomic(uint8_t op, ElemType type) {
    BlockCtx& c = ctx();
    c.atomic_op = op;
    c.atomic_type = uint8_t(type);
}

void set_atomic_type(ElemType type) { ctx().atomic_type = uint8_t(type); }

void set_pad_value(uint64_t bits) {
    BlockCtx& c = ctx();
    c.pad_set = true;
    c.pad_bits = bits;
}

bool pad_value(uint64_t* bits) {
    const BlockCtx& c = ctx();
    if (c.pad_set) *bits = c.pad_bits;
    return c.pad_set;
}

namespace {
const char* kAtomicNames[] = {"None", "Add", "Max", "Min"};
uint32_t elem_bytes(ElemType t) {
    switch (t) {
        case ElemType::U8: case ElemType::I8: return 1;
        case ElemType::U16: case ElemType::I16: case ElemType::F16: case ElemType::BF16: return 2;
        case ElemType::U32: case ElemType::I32: case ElemType::F32: return 4;
        default: return 8;
    }
}
template <class T>
T combine(uint8_t op, T old, T add) {
    if (op == 1) return T(old + add);
    if (op == 2) return add > old ? add : old;
    return add < old ? add : old;
}
// dst = op(dst, src) for one element of `t` (integers wrap; half and bfloat16_t round to nearest even).
void combine_elem(uint8_t op, ElemType t, uint8_t* dst, const uint8_t* old) {
    auto apply = [&](auto tag) {
        using T = decltype(tag);
        T a, b;
        std::memcpy(&a, old, sizeof(T));
        std::memcpy(&b, dst, sizeof(T));
        if constexpr (std::is_integral_v<T>) {
            using U = std::make_unsigned_t<T>;
            const T r = op == 1 ? T(U(a) + U(b)) : combine(op, a, b);
            std::memcpy(dst, &r, sizeof(T));
        } else {
            const T r = combine(op, a, b);
            std::memcpy(dst, &r, sizeof(T));
        }
    };
    switch (t) {
        case ElemType::I8: apply(int8_t{}); break;
        case ElemType::U8: apply(uint8_t{}); break;
        case ElemType::I16: apply(int16_t{}); break;
        case ElemType::U16: apply(uint16_t{}); break;
        case ElemType::I32: apply(int32_t{}); break;
        case ElemType::U32: apply(uint32_t{}); break;
        case ElemType::F32: apply(float{}); break;
        case ElemType::F16:
        case ElemType::BF16: {
            const bool h = t == ElemType::F16;
            uint16_t a, b;
            std::memcpy(&a, old, 2);
            std::memcpy(&b, dst, 2);
            const double fa = h ? half_bits_to_float(a) : bf16_bits_to_float(a);
            const double fb = h ? half_bits_to_float(b) : bf16_bits_to_float(b);
            uint16_t r;
            if (op == 1) {
                const float sum = float(fa + fb);
                r = h ? float_to_half_bits_rne(sum) : float_to_bf16_bits_rne(sum);
            } else {
                r = combine(op, fa, fb) == fa ? a : b;
            }
            std::memcpy(dst, &r, 2);
            break;
        }
        default: apply(int64_t{}); break;
    }
}
std::mutex g_atomic_mu;  // one atomic store at a time: each reads GM, adds, and writes back
}  // namespace

// DataCopy / DataCopyPad UB->GM: with SetAtomicAdd/Max/Min in effect, each element is combined with what GM
// holds (SetAtomicAdd.md: the add is done at GM); otherwise a plain copy.
void gm_store(const CopyDesc& d) {
    BlockCtx& c = ctx();
    if (c.atomic_op == 0 || d.dir != CopyDir::UbToGm) {
        data_copy(d);
        return;
    }
    const ElemType t = ElemType(c.atomic_type);
    if (d.elem_size != elem_bytes(t)) {
        fault(FaultClass::Unsupported,
              "%s under SetAtomic%s: the copy moves %u-byte elements but the atomic type has %u-byte elements (the "
              "template argument of SetAtomic%s or SetAtomicType)",
              d.api, kAtomicNames[c.atomic_op], d.elem_size, elem_bytes(t), kAtomicNames[c.atomic_op]);
    }
    struct Store {
        BlockCtx& c;
        ~Store() { c.atomic_store = false; }
    } store{c};
    c.atomic_store = true;
    if (d.block_count == 0 || d.block_bytes == 0) {
        data_copy(d);
        return;
    }
    const uint64_t step = uint64_t(d.block_bytes) + d.dst_gap_bytes;
    const uint64_t extent = step * (d.block_count - 1) + d.block_bytes;
    const uintptr_t lo = reinterpret_cast<uintptr_t>(d.gm);
    bool inside;
    {
        std::lock_guard<std::mutex> lock(g_gm_mu);
        const GmBuffer* b = find_gm(lo);
        inside = b && lo + extent <= b->hi;
    }
    if (!inside) {
        data_copy(d);  // faults out-of-bounds
        return;
    }
    std::lock_guard<std::mutex> lock(g_atomic_mu);
    std::vector<uint8_t> old(extent);
    std::memcpy(old.data(), d.gm, extent);
    data_copy(d);
    uint8_t* gm = static_cast<uint8_t*>(d.gm);
    for (uint32_t i = 0; i < d.block_count; ++i) {
        for (uint64_t off = 0; off + d.elem_size <= d.block_bytes; off += d.elem_size) {
            combine_elem(c.atomic_op, t, gm + i * step + off, old.data() + i * step + off);
        }
    }
}

namespace {
void x_begin(BlockCtx& c);
}  // namespace

// A GM flag one block writes and another polls: the write releases what the writer did before it (its
// cross-core phase ends), and a read of the same address acquires what was released there.
void gm_flag_release(BlockCtx& c, const std::vector<uintptr_t>& keys) {
    Launch& L = *g_launch;
    x_begin(c);
    std::vector<uint32_t> known = c.xknown.back();
    known[size_t(c.idx)] = c.xphase + 1;
    c.xknown.push_back(c.xknown.back());
    ++c.xphase;
    std::lock_guard<std::mutex> lock(L.mu);
    for (uintptr_t key : keys) {
        auto& r = L.released[key];
        if (r.size() < known.size()) r.resize(known.size(), 0);
        for (size_t b = 0; b < known.size(); ++b) r[b] = std::max(r[b], known[b]);
        L.unpublished.erase(key);
    }
}

void gm_flag_acquire(BlockCtx& c, uintptr_t key) {
    Launch& L = *g_launch;
    x_begin(c);
    std::vector<uint32_t> known = c.xknown.back();
    bool grew = false;
    {
        std::lock_guard<std::mutex> lock(L.mu);
        auto it = L.released.find(key);
        if (it != L.released.end()) {
            for (size_t b = 0; b < known.size() && b < it->second.size(); ++b) {
                if (it->second[b] > known[b]) known[b] = it->second[b], grew = true;
            }
        }
    }
    if (grew) {
        c.xknown.push_back(std::move(known));
        ++c.xphase;
    }
}

// ReadGmByPassDCache / WriteGmByPassDCache: a scalar GM access that skips the data cache (one GM round trip).
// They are how blocks hand over data by polling a GM flag (data_sync_barrier.asc): a write releases what the
// writer did before it, a read of those bytes acquires it, and such accesses are not races with each other.
void gm_bypass_access(const void* addr, uint64_t bytes, Access access) {
    BlockCtx& c = ctx();
    charge_scalar_work(c);
    const int s = int(Pipe::S);
    const uint64_t seq = ++c.seq[s];
    struct Sync {
        BlockCtx& c;
        ~Sync() { c.sync_access = false; }
    } sync{c};
    c.sync_access = true;
    check_gm_span(c, s, seq, GmSpan{addr, bytes, access, "GM scalar operand"});
    if (access == Access::Write) {
        gm_flag_release(c, {reinterpret_cast<uintptr_t>(addr)});
    } else {
        gm_flag_acquire(c, reinterpret_cast<uintptr_t>(addr));
    }
    if (const uint64_t cached = gm_cache_address(reinterpret_cast<uintptr_t>(addr))) dcache_invalidate(c.dcache, cached);
    c.t[s] += soc_config.dcache_miss_cycles;
    c.graph.add(s, soc_config.dcache_miss_cycles, {c.graph.last[s]}, c.site);
}

void data_sync_barrier() {
    BlockCtx& c = ctx();
    const int s = int(Pipe::S);
    c.t[s] += soc_config.barrier_cycles;
    c.graph.add(s, soc_config.barrier_cycles, {c.graph.last[s]}, c.site, false);
}

void gm_check_range(const void* addr, uint64_t bytes, const char* what) {
    const uintptr_t lo = reinterpret_cast<uintptr_t>(addr);
    bool inside;
    {
        std::lock_guard<std::mutex> lock(g_gm_mu);
        const GmBuffer* b = find_gm(lo);
        inside = b && lo + bytes <= b->hi;
    }
    if (!inside) fault(FaultClass::OutOfBounds, "%s (%llu bytes) is outside GM: %s", what, (unsigned long long)bytes,
                       where_gm(lo, bytes).c_str());
}

// ---- cross-core flags ----
// A set is a node on its pipe (or after every pipe: -1); a wait is a scalar-pipe node after the sets it needs
// (from other blocks' graphs too) that later instructions follow. Each set and wait also ends the block's
// cross-core phase, so GM accesses ordered through flags are not races.
namespace {
void x_begin(BlockCtx& c) {
    if (c.xknown.empty()) c.xknown.assign(1, std::vector<uint32_t>(size_t(c.num), 0));
}

void x_set(XKey key, int pipe) {
    BlockCtx& c = ctx();
    Launch& L = *g_launch;
    x_begin(c);
    auto& g = c.graph;
    const int s = int(Pipe::S);
    const double cost = soc_config.flag_cycles;
    int32_t node;
    double t;
    if (pipe < 0) {  // after all the block's work: its pipes are drained first, as PipeBarrier<PIPE_ALL> does
        pipe_barrier(-1);
        t = now_cycles(c) + cost;
        c.t[s] = t;
        node = g.add(s, cost, {g.last[s]}, c.site, false);
    } else {
        t = std::max(c.t[pipe], c.t[s]) + cost;
        c.t[pipe] = t;
        node = g.add(pipe, cost, {g.done[pipe], g.last[s]}, c.site, false);
    }
    std::vector<uint32_t> known = c.xknown.back();
    known[size_t(c.idx)] = c.xphase + 1;
    c.xknown.push_back(c.xknown.back());
    ++c.xphase;
    std::lock_guard<std::mutex> lock(L.mu);
    L.xsets[key].push_back({c.idx, node, t, std::move(known)});
    L.cv.notify_all();
}

// Waits until, for each (flag, n), the flag has been set n times, then follows the n-th set of each. `drain`:
// the wait polls GM (IBWait, WaitPreBlock, the software SyncAll, GroupBarrier::Wait): the scalar unit reads the
// flag after the block's earlier work, so every pipe is drained first (as PipeBarrier<PIPE_ALL>); a hardware
// CrossCoreWaitFlag only holds back what comes after it.
void x_wait(const std::vector<std::pair<XKey, uint64_t>>& need, const std::string& what, bool drain,
            double extra_cycles = 0) {
    BlockCtx& c = ctx();
    Launch& L = *g_launch;
    x_begin(c);
    charge_scalar_work(c);
    if (drain) pipe_barrier(-1);
    std::unique_lock<std::mutex> lock(L.mu);
    const std::function<bool()> ready = [&L, &need] {
        for (const auto& [key, n] : need) {
            auto it = L.xsets.find(key);
            if (n > 0 && (it == L.xsets.end() || it->second.size() < n)) return false;
        }
        return true;
    };
    const WaitEnd end = block_until(L, lock, ready);
    if (end != WaitEnd::Ready) {
        lock.unlock();
        if (end == WaitEnd::Aborted) {
            c.aborted = true;
            throw BlockAbort{};
        }
        fault(FaultClass::Deadlock, "%s; NPU: hang", what.c_str());
    }
    std::vector<uint32_t> known = c.xknown.back();
    double t = 0;
    std::vector<std::pair<int64_t, int32_t>> preds;
    for (const auto& [key, n] : need) {
        if (n == 0) continue;
        const XSet& x = L.xsets[key][n - 1];
        t = std::max(t, x.time);
        for (size_t b = 0; b < known.size() && b < x.known.size(); ++b) known[b] = std::max(known[b], x.known[b]);
        preds.push_back({x.block, x.node});
    }
    lock.unlock();
    auto& g = c.graph;
    const int s = int(Pipe::S);
    const double cost = soc_config.flag_cycles + extra_cycles;
    const int32_t node = g.add(s, cost, {g.last[s]}, c.site, false);
    for (const auto& [block, pred] : preds) g.ext.push_back({uint32_t(node), block, pred});
    c.t[s] = std::max(c.t[s], t) + cost;
    c.xknown.push_back(std::move(known));
    ++c.xphase;
}

void x_no_waves(const char* api) {
    if (g_launch->waves) {
        fault(FaultClass::Deadlock,
              "%s with %lld blocks on %s's %d vector cores: the blocks run in waves and the first wave waits for "
              "blocks that cannot start (NPU: hang)",
              api, (long long)g_launch->block_dim, soc_config.name, soc_config.vector_cores);
    }
}
}  // namespace

void cross_core_set_flag(int mode, int pipe, int flag_id) {
    BlockCtx& c = ctx();
    if (flag_id < 0 || flag_id > 15) {
        fault(FaultClass::Unsupported, "CrossCoreSetFlag: flagId %d is outside 0..15 (mode %d)", flag_id, mode);
    }
    // Mode 0: all AIV cores; mode 1: the AIVs of one AI Core, here one AIV per block.
    x_set(xkey(kCrossCoreFlag, uint64_t(mode) << 8 | uint64_t(flag_id), c.idx), pipe);
}

void cross_core_wait_flag(int mode, int flag_id) {
    BlockCtx& c = ctx();
    if (flag_id < 0 || flag_id > 15) {
        fault(FaultClass::Unsupported, "CrossCoreWaitFlag: flagId %d is outside 0..15 (mode %d)", flag_id, mode);
    }
    if (mode == 0) x_no_waves("CrossCoreWaitFlag (mode 0)");
    const uint64_t id = uint64_t(mode) << 8 | uint64_t(flag_id);
    const uint64_t n = ++c.xwaits[{int(kCrossCoreFlag), id}];
    std::vector<std::pair<XKey, uint64_t>> need;
    if (mode == 0) {
        for (int64_t b = 0; b < c.num; ++b) need.push_back({xkey(kCrossCoreFlag, id, b), n});
    } else {
        need.push_back({xkey(kCrossCoreFlag, id, c.idx), n});
    }
    char what[300];
    snprintf(what, sizeof what,
             "CrossCoreWaitFlag<%d>(%d) waits for its %llu%s CrossCoreSetFlag(%d) from %s, which never comes", mode,
             flag_id, (unsigned long long)n, n == 1 ? "st" : n == 2 ? "nd" : n == 3 ? "rd" : "th", flag_id,
             mode == 0 ? "every block" : "this core's AIVs");
    x_wait(need, what, false);
}

void ib_set(const void* gm, int64_t block_idx, int event_id) {
    BlockCtx& c = ctx();
    if (block_idx < 0 || block_idx >= c.num) {
        fault(FaultClass::Unsupported, "IBSet: blockIdx %lld is outside 0..%lld", (long long)block_idx,
              (long long)c.num - 1);
    }
    const uint8_t* slot = static_cast<const uint8_t*>(gm) + (uint64_t(c.num) * uint64_t(event_id) + block_idx) * 32;
    gm_check_range(slot, 32, "IBSet: the gmWorkspace slot of (blockIdx, eventID)");
    x_set(xkey(kIbFlag, reinterpret_cast<uintptr_t>(slot), -1), -1);
}

void ib_wait(const void* gm, int64_t block_idx, int event_id) {
    BlockCtx& c = ctx();
    if (block_idx < 0 || block_idx >= c.num) {
        fault(FaultClass::Unsupported, "IBWait: blockIdx %lld is outside 0..%lld", (long long)block_idx,
              (long long)c.num - 1);
    }
    x_no_waves("IBWait");
    const uint8_t* slot = static_cast<const uint8_t*>(gm) + (uint64_t(c.num) * uint64_t(event_id) + block_idx) * 32;
    gm_check_range(slot, 32, "IBWait: the gmWorkspace slot of (blockIdx, eventID)");
    const XKey key = xkey(kIbFlag, reinterpret_cast<uintptr_t>(slot), -1);
    uint64_t n;
    {
        std::lock_guard<std::mutex> lock(g_launch->mu);
        n = ++g_launch->xconsumed[key];
    }
    char what[300];
    snprintf(what, sizeof what, "IBWait(blockIdx %lld, eventID %d) waits for an IBSet with the same gmWorkspace, "
             "blockIdx and eventID that never comes (IBSet number %llu)", (long long)block_idx, event_id,
             (unsigned long long)n);
    x_wait({{key, n}}, what, true);
}

void notify_next_block(const void* gm) {
    BlockCtx& c = ctx();
    gm_check_range(gm, uint64_t(c.num) * 32, "NotifyNextBlock: gmWorkspace (GetBlockNum() * 32 bytes)");
    x_set(xkey(kNextBlock, reinterpret_cast<uintptr_t>(gm), c.idx), -1);
}

// Blocks run in ascending blockIdx: round k of block b follows round k of block b - 1, and block 0's round k
// follows round k - 1 of the last block.
void wait_pre_block(const void* gm) {
    BlockCtx& c = ctx();
    x_no_waves("WaitPreBlock");
    gm_check_range(gm, uint64_t(c.num) * 32, "WaitPreBlock: gmWorkspace (GetBlockNum() * 32 bytes)");
    const uint64_t n = ++c.xwaits[{int(kNextBlock), reinterpret_cast<uintptr_t>(gm)}];
    const int64_t prev = c.idx > 0 ? c.idx - 1 : c.num - 1;
    const uint64_t need = c.idx > 0 ? n : n - 1;
    char what[300];
    snprintf(what, sizeof what, "WaitPreBlock (round %llu) waits for block %lld's NotifyNextBlock number %llu, "
             "which never comes (every block must call both the same number of times)", (unsigned long long)n,
             (long long)prev, (unsigned long long)need);
    x_wait({{xkey(kNextBlock, reinterpret_cast<uintptr_t>(gm), prev), need}}, what, true);
}

void group_arrive(const void* gm, uint32_t arrive_size, uint32_t wait_size, uint32_t index) {
    if (index >= arrive_size) {
        fault(FaultClass::Unsupported, "GroupBarrier::Arrive(%u): arriveIndex is outside 0..%u", index, arrive_size - 1);
    }
    gm_check_range(gm, uint64_t(wait_size) * 512, "GroupBarrier: groupWorkspace (GetWorkspaceLen() bytes)");
    x_set(xkey(kGroupArrive, reinterpret_cast<uintptr_t>(gm), index), int(Pipe::MTE3));
}

void group_wait(const void* gm, uint32_t arrive_size, uint32_t wait_size, uint32_t index) {
    BlockCtx& c = ctx();
    if (index >= wait_size) {
        fault(FaultClass::Unsupported, "GroupBarrier::Wait(%u): waitIndex is outside 0..%u", index, wait_size - 1);
    }
    x_no_waves("GroupBarrier::Wait");
    gm_check_range(gm, uint64_t(wait_size) * 512, "GroupBarrier: groupWorkspace (GetWorkspaceLen() bytes)");
    const uint64_t n = ++c.xwaits[{int(kGroupArrive), reinterpret_cast<uintptr_t>(gm)}];
    std::vector<std::pair<XKey, uint64_t>> need;
    for (uint32_t i = 0; i < arrive_size; ++i) need.push_back({xkey(kGroupArrive, reinterpret_cast<uintptr_t>(gm), i), n});
    char what[300];
    snprintf(what, sizeof what, "GroupBarrier::Wait (round %llu) waits for all %u Arrive calls of the round, and some "
             "never come", (unsigned long long)n, arrive_size);
    x_wait(need, what, true);
}

// SyncAll(gmWorkspace, ubWorkspace, usedCores) with fewer cores than the launch: blocks 0..usedCores-1 meet.
void sync_some(const void* gm, int64_t used) {
    BlockCtx& c = ctx();
    x_no_waves("SyncAll");
    if (c.idx >= used) {
        fault(FaultClass::Deadlock, "SyncAll(usedCores = %lld) called by block %lld, which is not one of the %lld "
              "blocks that synchronise; NPU: hang", (long long)used, (long long)c.idx, (long long)used);
    }
    const uintptr_t id = reinterpret_cast<uintptr_t>(gm);
    x_set(xkey(kSoftSync, id, c.idx), -1);
    const uint64_t n = ++c.xwaits[{int(kSoftSync), id}];
    std::vector<std::pair<XKey, uint64_t>> need;
    for (int64_t b = 0; b < used; ++b) need.push_back({xkey(kSoftSync, id, b), n});
    char what[300];
    snprintf(what, sizeof what, "SyncAll(usedCores = %lld): not every one of the first %lld blocks reaches its "
             "SyncAll number %llu", (long long)used, (long long)used, (unsigned long long)n);
    x_wait(need, what, true, soc_config.sync_all_us * soc_config.clock_mhz);
}

// ---- GM buffers behind guard pages -----------------------------------------------------------------------

void* gm_alloc(uint64_t bytes, const char* name) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const size_t rounded = (std::max<uint64_t>(bytes, 1) + 31) / 32 * 32;
    const size_t data_pages = (rounded + page - 1) / page;
    const size_t len = (data_pages + 2) * page;
    void* base = mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
        fprintf(stderr, "error: [crash] cannot map %llu bytes for GM buffer '%s'\n", (unsigned long long)bytes, name);
        std::exit(1);
    }
    uint8_t* data_area = static_cast<uint8_t*>(base) + page;
    mprotect(data_area, data_pages * page, PROT_READ | PROT_WRITE);
    // End-aligned (to 32 bytes) so an overrun hits the trailing guard page at once.
    uint8_t* user = data_area + data_pages * page - rounded;
    std::lock_guard<std::mutex> lock(g_gm_mu);
    g_gm.push_back({uintptr_t(user), uintptr_t(user) + bytes, base, len, name});
    return user;
}

void gm_mark_without_data(void* p) {
    std::lock_guard<std::mutex> lock(g_gm_mu);
    for (auto& b : g_gm) {
        if (b.lo == uintptr_t(p)) b.without_data = true;
    }
}

bool gm_data_skipped(const void* p) {
    if (!g_options.timing_only) return false;
    std::lock_guard<std::mutex> lock(g_gm_mu);
    const GmBuffer* b = find_gm(uintptr_t(p));
    return b && b->without_data;
}

void gm_free(void* p) {
    std::lock_guard<std::mutex> lock(g_gm_mu);
    for (auto it = g_gm.begin(); it != g_gm.end(); ++it) {
        if (it->lo == uintptr_t(p)) {
            munmap(it->map_base, it->map_len);
            g_gm.erase(it);
            return;
        }
    }
}

// ---- report --------------------------------------------------------------------------------------------

namespace {

std::string json_escape(const std::string& s) {
    std::string out;
    for (char ch : s) {
        switch (ch) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(ch) < 0x20) {
                    char buf[8];
                    snprintf(buf, sizeof buf, "\\u%04x", ch);
                    out += buf;
                } else {
                    out += ch;
                }
        }
    }
    return out;
}

std::string fault_line(const Launch& L, const FaultRecord& f) {
    const Site& s = site(f.site);
    std::string where = "kernel " + L.kernel;
    if (f.block >= 0) where += ", block " + std::to_string(f.block);
    if (f.blocks > 1) where += " (and " + std::to_string(f.blocks - 1) + " more block" + (f.blocks > 2 ? "s)" : ")");
    if (f.site) where += std::string(", ") + s.api + " at " + s.file + ":" + std::to_string(s.line);
    return std::string("error: [") + kFaultNames[int(f.cls)] + "] " + f.message + " (" + where + ")";
}

// A block reading GM bytes another block writes in the same SyncAll epoch: what it reads depends on which
// block runs first. `L.race_writes` is sorted by start; a running maximum of the ends finds the writes that
// overlap a read without visiting the others. One fault per pair of call sites.
// Whether access `a` happens before access `b` through cross-core flags: b's block, in b's phase, knows a's
// phase complete.
bool x_before(const Launch& L, const RaceAccess& a, const RaceAccess& b) {
    if (size_t(b.block) >= L.xknown.size()) return false;
    const auto& known = L.xknown[size_t(b.block)];
    if (b.phase >= known.size()) return false;
    const auto& k = known[b.phase];
    return size_t(a.block) < k.size() && k[size_t(a.block)] > a.phase;
}
bool x_ordered(const Launch& L, const RaceAccess& a, const RaceAccess& b) { return x_before(L, a, b) || x_before(L, b, a); }

void check_gm_read_races(Launch& L) {
    const auto& w = L.race_writes;
    std::vector<uintptr_t> max_hi(w.size());
    for (size_t k = 0; k < w.size(); ++k) max_hi[k] = std::max(w[k].hi, k ? max_hi[k - 1] : 0);
    std::map<std::pair<uint32_t, uint32_t>, std::pair<const RaceAccess*, const RaceAccess*>> races;
    for (const RaceAccess& r : L.race_reads) {
        size_t k = size_t(std::lower_bound(w.begin(), w.end(), r.hi,
                                           [](const RaceAccess& a, uintptr_t v) { return a.lo < v; }) - w.begin());
        while (k-- > 0 && max_hi[k] > r.lo) {
            if (w[k].hi > r.lo && w[k].block != r.block && w[k].epoch == r.epoch && !(r.atomic && w[k].atomic) &&
                !x_ordered(L, w[k], r)) {
                races.emplace(std::make_pair(r.site, w[k].site), std::make_pair(&r, &w[k]));
                break;
            }
        }
    }
    for (const auto& [key, pair] : races) {
        const RaceAccess& r = *pair.first;
        const RaceAccess& wr = *pair.second;
        const uintptr_t lo = std::max(r.lo, wr.lo), hi = std::min(r.hi, wr.hi);
        std::string where = where_gm(lo, hi - lo);
        const Site& sr = site(r.site);
        const Site& sw = site(wr.site);
        char buf[900];
        snprintf(buf, sizeof buf,
                 "block %lld reads (%s at %s:%d) GM bytes that block %lld writes (%s at %s:%d) with no SyncAll "
                 "between them, so what it reads depends on which block runs first; %s",
                 (long long)r.block, sr.api, sr.file, sr.line, (long long)wr.block, sw.api, sw.file, sw.line,
                 where.c_str());
        L.faults.push_back({FaultClass::GmRace, buf, -1, 0});
    }
}

// Writes by two blocks to the same GM bytes in the same SyncAll epoch, found after the launch from the
// recorded writes (so independent of how the block threads happened to interleave). One fault per pair of
// call sites, counting the block pairs. Skipped when a block deadlocked: the kernel hangs on the NPU and
// the epochs of blocks that missed a barrier no longer line up.
// Whether two writes stored the same bytes where they overlap: then whichever block writes last, GM ends up
// the same (create_vec_index's blocks all store the same index table), which is not a race.
bool same_bytes(const RaceAccess& a, const RaceAccess& b) {
    if (a.bytes.empty() || b.bytes.empty()) return false;
    const uintptr_t lo = std::max(a.lo, b.lo), hi = std::min(a.hi, b.hi);
    return hi > lo && std::memcmp(a.bytes.data() + (lo - a.lo), b.bytes.data() + (lo - b.lo), hi - lo) == 0;
}

void check_gm_races(Launch& L) {
    for (const auto& f : L.faults) {
        if (f.cls == FaultClass::Deadlock) return;
    }
    auto& w = L.race_writes;
    std::sort(w.begin(), w.end(), [](const RaceAccess& a, const RaceAccess& b) {
        return a.lo != b.lo ? a.lo < b.lo : a.block != b.block ? a.block < b.block : a.hi < b.hi;
    });
    struct Race {
        size_t i, j;
        int pairs;
    };
    std::map<std::pair<uint32_t, uint32_t>, Race> races;
    for (size_t i = 0; i < w.size(); ++i) {
        for (size_t j = i + 1; j < w.size() && w[j].lo < w[i].hi; ++j) {
            if (w[j].block != w[i].block && w[j].epoch == w[i].epoch && !(w[i].atomic && w[j].atomic) &&
                !x_ordered(L, w[i], w[j]) && !same_bytes(w[i], w[j])) {
                const auto key = std::minmax(w[i].site, w[j].site);
                auto it = races.find(key);
                if (it == races.end()) races.emplace(key, Race{i, j, 1});
                else ++it->second.pairs;
                break;
            }
        }
    }
    for (const auto& [key, r] : races) {
        const RaceAccess& a = w[r.i].block < w[r.j].block ? w[r.i] : w[r.j];
        const RaceAccess& b = w[r.i].block < w[r.j].block ? w[r.j] : w[r.i];
        const uintptr_t lo = std::max(a.lo, b.lo), hi = std::min(a.hi, b.hi);
        std::string where = where_gm(lo, hi - lo);
        const Site& sa = site(a.site);
        const Site& sb = site(b.site);
        char buf[900];
        snprintf(buf, sizeof buf,
                 "blocks %lld (%s at %s:%d) and %lld (%s at %s:%d) both write the same GM bytes with no SyncAll "
                 "between them; %s%s",
                 (long long)a.block, sa.api, sa.file, sa.line, (long long)b.block, sb.api, sb.file, sb.line,
                 where.c_str(),
                 r.pairs > 1 ? ("; " + std::to_string(r.pairs) + " overlapping writes from different blocks").c_str()
                             : "");
        L.faults.push_back({FaultClass::GmRace, buf, -1, 0});
    }
    check_gm_read_races(L);
}

void write_trace(const Launch& L) {
    FILE* f = open_output(g_options.trace_path);
    if (!f) return;
    fprintf(f, "{\"traceEvents\":[");
    bool first = true;
    const double mhz = soc_config.clock_mhz;
    for (const auto& r : L.results) {
        for (int p = 0; p < kPipes; ++p) {
            fprintf(f, "%s{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%lld,\"tid\":%d,\"args\":{\"name\":\"%s\"}}",
                    first ? "" : ",", (long long)r.idx, p, kPipeNames[p]);
            first = false;
        }
        fprintf(f, ",{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%lld,\"args\":{\"name\":\"block %lld\"}}",
                (long long)r.idx, (long long)r.idx);
        for (const auto& e : r.timing.trace) {
            const Site& s = site(e.site);
            fprintf(f, ",{\"ph\":\"X\",\"name\":\"%s\",\"pid\":%lld,\"tid\":%d,\"ts\":%.4f,\"dur\":%.4f,"
                       "\"args\":{\"line\":%d}}",
                    json_escape(s.api).c_str(), (long long)r.idx, int(e.pipe), e.start / mhz, (e.end - e.start) / mhz,
                    s.line);
        }
    }
    fprintf(f, "],\"displayTimeUnit\":\"ns\",\"otherData\":{\"time\":\"simulated, %s model\"}}\n", soc_config.name);
    fclose(f);
}

}  // namespace

void write_report(const Launch& L, const char* path, double task_us) {
    if (!path) return;
    FILE* f = open_output(path);
    if (!f) {
        fprintf(stderr, "warning: cannot write the report to %s\n", path);
        return;
    }
    const double mhz = soc_config.clock_mhz;
    uint64_t in = 0, out = 0;
    fprintf(f, "{\n  \"soc\": \"%s\",\n  \"kernel\": \"%s\",\n  \"block_dim\": %lld,\n", soc_config.name,
            json_escape(L.kernel).c_str(), (long long)L.block_dim);
    fprintf(f, "  \"model_version\": \"%s\",\n  \"time_source\": \"simulated, %s model\",\n", soc_config.model_version,
            soc_config.name);
    fprintf(f, "  \"task_duration_us\": %.4f,\n  \"blocks\": [", task_us);
    for (size_t i = 0; i < L.results.size(); ++i) {
        const auto& r = L.results[i];
        const double total = std::max(r.timing.time_cycles, 1e-9);
        const auto& busy = r.timing.busy;
        auto us = [&](double cyc) { return cyc / mhz; };
        fprintf(f,
                "%s\n    {\"block_id\": %lld, \"aiv_time_us\": %.4f, \"aiv_vec_time_us\": %.4f, "
                "\"aiv_scalar_time_us\": %.4f, \"aiv_mte2_time_us\": %.4f, \"aiv_mte3_time_us\": %.4f, "
                "\"aiv_vec_ratio\": %.4f, \"aiv_scalar_ratio\": %.4f, \"aiv_mte2_ratio\": %.4f, "
                "\"aiv_mte3_ratio\": %.4f, \"gm_to_ub_bytes\": %llu, \"ub_to_gm_bytes\": %llu, \"ub_peak_bytes\": %u}",
                i ? "," : "", (long long)r.idx, us(r.timing.time_cycles), us(busy[1]), us(busy[0]), us(busy[2]),
                us(busy[3]), std::min(1.0, busy[1] / total), std::min(1.0, busy[0] / total),
                std::min(1.0, busy[2] / total), std::min(1.0, busy[3] / total), (unsigned long long)r.gm_to_ub,
                (unsigned long long)r.ub_to_gm, r.ub_peak);
        in += r.gm_to_ub;
        out += r.ub_to_gm;
    }
    fprintf(f, "\n  ],\n  \"gm_to_ub_bytes\": %llu,\n  \"ub_to_gm_bytes\": %llu,\n", (unsigned long long)in,
            (unsigned long long)out);
    fprintf(f,
            "  \"assumptions\": [\"per block, in-order S/V/MTE2/MTE3 pipes; the scalar unit issues every call in "
            "program order; other pipes ordered only by queue events, flags, barriers and auto-sync\", \"per-copy "
            "time from measured single-core bandwidth curves (size-dependent, clamped), 32- vs 512-byte GM alignment: "
            "a start-up (the time beyond the curve's plateau rate) and the bytes, which share the chip's GM (or L2) "
            "bandwidth with the copies in flight at each moment (max-min fair)\", \"vector cost = startup + "
            "issue + repeats x cycles per 256-byte repeat, by instruction class and dtype, plus the UB bank "
            "conflicts of the operands' addresses\", \"the kernel's own scalar code (its basic blocks, its "
            "loads and stores of UB and GM through pointers, GetValue/SetValue, memcpy) is charged to the S pipe "
            "from instrumentation counts, GM through a model of the scalar data cache\", \"%s\", \"head cost "
            "grows with the number of blocks; "
            "blocks beyond the vector cores run in waves\"],\n",
            g_l2_warm ? "GM data resident in L2 (--l2 warm): copies at the L2-hit single-core rate share L2 bandwidth, "
                        "except GM tensors whose SetL2CacheHint disables L2"
                      : "GM data cold in HBM (the default; --l2 warm models it resident in L2 when it fits); reads "
                        "come from HBM unless most of their 128-byte lines moved through L2 (by any block) less than "
                        "L2's size ago, writes land in L2 (write-back); a block moving more than its even share of "
                        "L2 through it streams, and its writes are written back to HBM during the kernel; "
                        "SetL2CacheHint(CACHE_MODE_DISABLE) keeps a tensor's reads and writes out of L2");
    fprintf(f, "  \"l2\": \"%s\",\n", g_l2_warm ? "warm" : "cold");
    fprintf(f, "  \"timing_only\": %s,\n", g_options.timing_only ? "true" : "false");
    fprintf(f, "  \"auto_sync\": %s,\n  \"warnings\": [", g_options.auto_sync ? "true" : "false");
    bool first = true;
    if (soc_config.low_confidence) {
        fprintf(f, "\"low-confidence model: %s\"", json_escape(soc_config.low_confidence_fields).c_str());
        first = false;
    }
    for (const auto& w : L.warnings) {
        fprintf(f, "%s\"%s\"", first ? "" : ", ", json_escape(w).c_str());
        first = false;
    }
    fprintf(f, "],\n  \"faults\": [");
    for (size_t i = 0; i < L.faults.size(); ++i) {
        const auto& fr = L.faults[i];
        const Site& s = site(fr.site);
        fprintf(f,
                "%s\n    {\"class\": \"%s\", \"message\": \"%s\", \"block\": %lld, \"blocks\": %d, \"api\": \"%s\", "
                "\"file\": \"%s\", \"line\": %d, \"text\": \"%s\"}",
                i ? "," : "", kFaultNames[int(fr.cls)], json_escape(fr.message).c_str(), (long long)fr.block,
                fr.blocks, json_escape(s.api).c_str(), json_escape(s.file).c_str(), s.line,
                json_escape(fault_line(L, fr)).c_str());
    }
    fprintf(f, "%s]\n}\n", L.faults.empty() ? "" : "\n  ");
    fclose(f);
}

// ---- launch --------------------------------------------------------------------------------------------

namespace {

const char* signal_name(int sig) {
    switch (sig) {
        case SIGSEGV: return "segmentation fault";
        case SIGBUS: return "bus error";
        case SIGFPE: return "arithmetic exception";
        case SIGILL: return "illegal instruction";
        case SIGABRT: return "abort";
        default: return "signal";
    }
}

void on_signal(int sig, siginfo_t* info, void*) {
    const uintptr_t addr = reinterpret_cast<uintptr_t>(info->si_addr);
    char line[900];
    const GmBuffer* hit = nullptr;
    for (const auto& b : g_gm) {  // no lock: the process is going down
        const uintptr_t mlo = uintptr_t(b.map_base), mhi = mlo + b.map_len;
        if (addr >= mlo && addr < mhi) hit = &b;
    }
    const long long block = t_ctx ? (long long)t_ctx->idx : -1;
    const char* kernel = g_launch ? g_launch->kernel.c_str() : "?";
    // The last Ascend C call this block made: the faulting access is in the code after it.
    char after[320] = "";
    if (t_ctx && t_ctx->site && g_sites_mu.try_lock()) {
        const Site& s = g_sites[t_ctx->site < g_sites.size() ? t_ctx->site : 0];
        snprintf(after, sizeof after, ", after %s at %s:%d", s.api, s.file, s.line);
        g_sites_mu.unlock();
    }
    if (hit && sig == SIGSEGV) {
        const long long past = addr >= hit->hi ? (long long)(addr - hit->hi) : -(long long)(hit->lo - addr);
        snprintf(line, sizeof line,
                 "error: [out-of-bounds] raw __gm__ access %s GM buffer '%s' (%llu bytes): %lld bytes %s it (kernel "
                 "%s, block %lld%s)\n",
                 past >= 0 ? "past the end of" : "before", hit->name.c_str(),
                 (unsigned long long)(hit->hi - hit->lo), past >= 0 ? past : -past, past >= 0 ? "past" : "before",
                 kernel, block, after);
    } else {
        snprintf(line, sizeof line, "error: [crash] signal %d (%s) at address %p (kernel %s, block %lld%s)\n", sig,
                 signal_name(sig), info->si_addr, kernel, block, after);
    }
    if (write(2, line, strlen(line)) < 0) {
    }
    if (g_options.report_path) {  // no allocation here: the heap may be what broke
        char text[1800];
        size_t n = 0;
        for (const char* ch = line; *ch && *ch != '\n' && n + 2 < sizeof text; ++ch) {
            if (*ch == '"' || *ch == '\\') text[n++] = '\\';
            text[n++] = *ch;
        }
        text[n] = 0;
        char report[2400];
        const int len = snprintf(report, sizeof report,
                                 "{\"soc\": \"%s\", \"kernel\": \"%s\", \"block_dim\": %lld, \"task_duration_us\": null, "
                                 "\"blocks\": [], \"faults\": [{\"class\": \"%s\", \"block\": %lld, \"text\": \"%s\"}], "
                                 "\"warnings\": []}\n",
                                 soc_config.name, kernel, g_launch ? (long long)g_launch->block_dim : 0LL,
                                 hit && sig == SIGSEGV ? "out-of-bounds" : "crash", block, text);
        const int fd = open_output_fd(g_options.report_path);
        if (fd >= 0) {
            if (write(fd, report, size_t(std::min<int>(len, int(sizeof report) - 1))) < 0) {
            }
            close(fd);
        }
    }
    _exit(1);
}

void install_handlers() {
    static bool done = false;
    if (done) return;
    done = true;
    struct sigaction sa {};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
    sigaction(SIGFPE, &sa, nullptr);
    sigaction(SIGILL, &sa, nullptr);
    sigaction(SIGABRT, &sa, nullptr);
}

// The watchdog times each launch, not the process: a CPU-debug program may launch several kernels and do
// host work between and after them. One thread, started with the first launch, waits for a launch to
// begin and then for its deadline; it fires only if that same launch is still running. It holds
// g_watch_mu while it fires, so the launch cannot end (and free its state, or write its report) meanwhile.
// Never destroyed: the watchdog thread may still wait on them when the program exits (destroying a
// condition variable with a waiter blocks in glibc).
std::mutex& g_watch_mu = *new std::mutex;
std::condition_variable& g_watch_cv = *new std::condition_variable;
bool g_launch_active = false;  // a launch's blocks are running (under g_watch_mu)
uint64_t g_launch_serial = 0;  // launches begun
std::chrono::steady_clock::time_point g_launch_deadline;

[[noreturn]] void watchdog_fire() {
    // Where the running blocks are: the last Ascend C call each made (a spin loop usually calls one).
    // Both locks are taken with retries: the hung blocks may be calling APIs (which take g_sites_mu)
    // in a tight loop, so one try can fail; a lock held forever is not waited for.
    char where[400] = "";
    Launch* L = g_launch;
    for (int attempt = 0; L && attempt < 1000; ++attempt) {
        if (!L->mu.try_lock()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            continue;
        }
        const BlockCtx* first = nullptr;
        int others = 0;
        for (const BlockCtx* c : L->running) {
            if (!c->last_site.load(std::memory_order_relaxed)) continue;
            if (first) ++others;
            else first = c;
        }
        bool done = !first;
        if (first && g_sites_mu.try_lock()) {
            const uint32_t id = first->last_site.load(std::memory_order_relaxed);
            const Site& s = g_sites[id < g_sites.size() ? id : 0];
            snprintf(where, sizeof where, "; block %lld%s was last in %s at %s:%d", (long long)first->idx,
                     others ? (" (and " + std::to_string(others) + " more still running)").c_str() : "", s.api,
                     s.file, s.line);
            g_sites_mu.unlock();
            done = true;
        }
        L->mu.unlock();
        if (done) break;
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    char line[600];
    snprintf(line, sizeof line,
             "error: [timeout] the kernel ran longer than %.1f s of host time%s (an endless loop?) (kernel %s)\n",
             g_options.timeout_s, where, L ? L->kernel.c_str() : "?");
    if (write(2, line, strlen(line)) < 0) {
    }
    if (g_options.report_path) {
        if (FILE* f = open_output(g_options.report_path)) {
            std::string text(line);
            text.pop_back();
            fprintf(f, "{\"soc\": \"%s\", \"task_duration_us\": null, \"blocks\": [], \"faults\": [{\"class\": "
                       "\"timeout\", \"block\": -1, \"text\": \"%s\"}], \"warnings\": []}\n",
                    soc_config.name, json_escape(text).c_str());
            fclose(f);
        }
    }
    _exit(1);
}

void watchdog_main() {
    std::unique_lock<std::mutex> lock(g_watch_mu);
    for (;;) {
        g_watch_cv.wait(lock, [] { return g_launch_active; });
        const uint64_t serial = g_launch_serial;
        const bool ended = g_watch_cv.wait_until(lock, g_launch_deadline, [&] {
            return !g_launch_active || g_launch_serial != serial;
        });
        if (!ended) watchdog_fire();
    }
}

void begin_launch(Launch* L) {
    static std::once_flag started;
    std::lock_guard<std::mutex> lock(g_watch_mu);
    g_launch = L;
    if (g_options.timeout_s <= 0) return;
    std::call_once(started, [] { std::thread(watchdog_main).detach(); });
    ++g_launch_serial;
    g_launch_active = true;
    g_launch_deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(g_options.timeout_s));
    g_watch_cv.notify_all();
}

// The blocks have all finished: the watchdog stands down (the checks and the report that follow do not hang).
void end_launch_blocks() {
    std::lock_guard<std::mutex> lock(g_watch_mu);
    g_launch_active = false;
    g_watch_cv.notify_all();
}

void end_of_block_checks(BlockCtx& c) {
    for (const auto& [key, f] : c.flags) {
        if (f.pending) {
            c.site = f.site;
            const int src = key.first / kPipes, dst = key.first % kPipes;
            fault_soft(FaultClass::SyncHazard,
                       "SetFlag %s->%s (event id %d) is never waited for before the kernel ends; the flag leaks into "
                       "the next kernel on the NPU",
                       kPipeNames[src], kPipeNames[dst], key.second);
        }
    }
    // A tensor still allocated when the kernel ends harms nothing on the NPU (Huawei's layernorm example leaves
    // one): a warning. A missing FreeTensor that matters runs a queue out of buffers first, which is a fault.
    for (int pos = 0; pos < 32; ++pos) {
        if (c.live_tensors[pos] > 0) {
            warn("%d tensor(s) allocated on position %s are never freed before the kernel ends", c.live_tensors[pos],
                 position_name(pos));
        }
    }
}

void run_block(int64_t idx, int64_t num, KernelBody body, void* closure) {
    BlockCtx c;
    c.idx = idx;
    c.num = num;
    c.ub.assign(soc_config.ub_physical_bytes, 0);
    c.shadow.assign(c.ub.size() / 32 + 1, Granule{});
    c.graph.block = idx;
    dcache_init(c.dcache);
    t_ctx = &c;
    ::block_idx = idx;
    ::block_num = num;
    {
        std::lock_guard<std::mutex> lock(g_launch->mu);
        g_launch->running.push_back(&c);
    }
    try {
        body(closure);
        charge_scalar_work(c);
        end_of_block_checks(c);
    } catch (const BlockAbort&) {
        std::lock_guard<std::mutex> lock(g_launch->mu);
        g_launch->any_abort = true;
    }
    {
        std::lock_guard<std::mutex> lock(g_launch->mu);
        ++g_launch->finished;
        --g_launch->wave_live;
        if (!c.xknown.empty()) g_launch->xknown[size_t(idx)] = std::move(c.xknown);
        auto& run = g_launch->running;
        run.erase(std::remove(run.begin(), run.end(), &c), run.end());
        for (GmAccess& a : c.race_writes) {
            const bool known = a.unfilled == 0 && !a.atomic && a.bytes.size() == a.hi - a.lo;
            g_launch->race_writes.push_back({a.lo, a.hi, idx, a.epoch, a.site, a.phase, a.atomic,
                                             known ? std::move(a.bytes) : std::vector<uint8_t>{}});
        }
        for (const GmAccess& a : c.race_reads) {
            g_launch->race_reads.push_back({a.lo, a.hi, idx, a.epoch, a.site, a.phase, a.atomic});
        }
        g_launch->results.push_back({idx, c.gm_to_ub_bytes, c.ub_to_gm_bytes, c.ub_peak, std::move(c.graph), {}});
        g_launch->cv.notify_all();
    }
    t_ctx = nullptr;
}

}  // namespace

void add_copy_bytes(CopyDir dir, uint64_t bytes) {
    BlockCtx& c = ctx();
    if (dir == CopyDir::GmToUb) c.gm_to_ub_bytes += bytes;
    if (dir == CopyDir::UbToGm) c.ub_to_gm_bytes += bytes;
}

int run_kernel(const char* kernel, KernelBody body, void* closure, int64_t block_dim) {
    // CPU-debug programs (`tuner sim-build`) take their options from the environment.
    if (!g_options.report_path) g_options.report_path = getenv("TUNER_SIM_REPORT");
    if (!g_options.trace_path) g_options.trace_path = getenv("TUNER_SIM_TRACE");
    if (getenv("TUNER_SIM_NO_AUTO_SYNC")) g_options.auto_sync = false;
    if (const char* l2 = getenv("TUNER_SIM_L2")) g_options.l2_warm = std::string(l2) == "warm";
    if (const char* s = getenv("TUNER_SIM_TIMEOUT")) g_options.timeout_s = std::atof(s);
    install_handlers();
    Launch L;
    g_race_content_bytes = 0;
    L.kernel = kernel;
    L.block_dim = block_dim;
    if (block_dim < 1 || block_dim > 65535) {
        fprintf(stderr, "error: [unsupported] block_dim %lld is outside 1..65535\n", (long long)block_dim);
        return 1;
    }
    const int64_t cores = soc_config.vector_cores;
    L.waves = block_dim > cores;
    L.active_blocks = std::min(block_dim, cores);
    L.xknown.resize(size_t(block_dim));
    g_l2_warm = false;
    g_l2_share = soc_config.l2_bytes / uint64_t(L.active_blocks);
    {
        std::lock_guard<std::mutex> lock(g_gm_mu);
        g_launch_gm.clear();
        g_launch_gm_lo = ~uintptr_t(0);
        g_launch_gm_hi = 0;
        const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
        for (const auto& b : g_gm) {
            g_launch_gm.push_back({b.lo, b.hi, (uint64_t(g_launch_gm.size()) + 1) << 40 | (b.lo % page)});
            g_launch_gm_lo = std::min(g_launch_gm_lo, b.lo);
            g_launch_gm_hi = std::max(g_launch_gm_hi, b.hi);
        }
    }
    if (g_options.l2_warm) {
        uint64_t footprint = 0;
        {
            std::lock_guard<std::mutex> lock(g_gm_mu);
            for (const auto& b : g_gm) footprint += b.hi - b.lo;
        }
        g_l2_warm = footprint <= soc_config.l2_bytes;
        if (!g_l2_warm) {
            char buf[256];
            snprintf(buf, sizeof buf, "--l2 warm: the launch's GM data (%.1f MiB) does not fit %s's L2 (%.1f MiB); "
                     "modelled cold, from HBM", double(footprint) / 1048576.0, soc_config.name,
                     double(soc_config.l2_bytes) / 1048576.0);
            L.warnings.push_back(buf);
        }
    }
    begin_launch(&L);
    double task_cycles = 0;
    L2Lines l2(double(soc_config.l2_bytes));
    for (int64_t first = 0; first < block_dim; first += cores) {
        const int64_t last = std::min(block_dim, first + cores);
        const size_t before = L.results.size();
        std::vector<std::thread> threads;
        {
            std::lock_guard<std::mutex> lock(L.mu);
            L.wave_live = last - first;
            L.blocked = 0;
        }
        for (int64_t b = first; b < last; ++b) threads.emplace_back(run_block, b, block_dim, body, closure);
        for (auto& t : threads) t.join();
        // In block order, not the order the threads ended: copies that start together meet L2 in that order.
        std::sort(L.results.begin() + std::ptrdiff_t(before), L.results.end(),
                  [](const auto& a, const auto& b) { return a.idx < b.idx; });
        std::vector<const TimingGraph*> graphs;
        for (size_t i = before; i < L.results.size(); ++i) graphs.push_back(&L.results[i].graph);
        const std::array<double, 2> pools{soc_config.gm_bandwidth_gbps * 1e3 / soc_config.clock_mhz,
                                          soc_config.l2_bandwidth_gbps * 1e3 / soc_config.clock_mhz};
        const double port = soc_config.dma_port_gbps * 1e3 / soc_config.clock_mhz;
        std::vector<BlockTiming> timing = replay(graphs, pools, port, double(g_l2_share),
                                                 soc_config.gm_same_address_cycles, l2, g_options.trace_path != nullptr);
        double wave = 0;
        for (size_t i = before; i < L.results.size(); ++i) {
            BlockResult& r = L.results[i];
            r.timing = std::move(timing[i - before]);
            r.graph = TimingGraph{};  // replayed: free its memory
            wave = std::max(wave, r.timing.time_cycles);
        }
        task_cycles += wave;
    }
    end_launch_blocks();
    std::sort(L.results.begin(), L.results.end(), [](const auto& a, const auto& b) { return a.idx < b.idx; });
    check_gm_races(L);
    const double head_us = soc_config.head_us_base + soc_config.head_us_per_block * double(L.active_blocks);
    const double task_us = head_us + task_cycles / soc_config.clock_mhz;
    for (const auto& f : L.faults) fprintf(stderr, "%s\n", fault_line(L, f).c_str());
    // A program (`tuner simulate FILE.asc`) may launch several kernels: $TUNER_SIM_REPORT_DIR keeps one report each.
    std::string each;
    if (const char* dir = getenv("TUNER_SIM_REPORT_DIR"))
        each = std::string(dir) + "/launch-" + std::to_string(g_launch_serial) + ".json";
    write_report(L, each.empty() ? g_options.report_path : each.c_str(), task_us);
    if (g_options.trace_path) write_trace(L);
    const int n = int(L.faults.size());
    {
        std::lock_guard<std::mutex> lock(g_watch_mu);
        g_launch = nullptr;
    }
    return n;
}

}  // namespace tuner_sim

// ---- the instrumentation's callbacks (kernel scalar code) ----------------------------------------------------
// GCC calls these from a kernel compiled with KERNEL_FLAGS; they only count (kernel_access above).
extern "C" {

void __sanitizer_cov_trace_pc() {
    if (tuner_sim::BlockCtx* c = tuner_sim::t_ctx) ++c->scalar.basic_blocks;
}

#define TUNER_SIM_ACCESS_CALLBACKS(SIZE)                                                                          \
    void __asan_load##SIZE##_noabort(const void* addr) { tuner_sim::kernel_access(addr, SIZE, false); }         \
    void __asan_store##SIZE##_noabort(const void* addr) { tuner_sim::kernel_access(addr, SIZE, true); }
TUNER_SIM_ACCESS_CALLBACKS(1)
TUNER_SIM_ACCESS_CALLBACKS(2)
TUNER_SIM_ACCESS_CALLBACKS(4)
TUNER_SIM_ACCESS_CALLBACKS(8)
TUNER_SIM_ACCESS_CALLBACKS(16)
#undef TUNER_SIM_ACCESS_CALLBACKS

void __asan_loadN_noabort(const void* addr, size_t bytes) { tuner_sim::kernel_access(addr, bytes, false); }
void __asan_storeN_noabort(const void* addr, size_t bytes) { tuner_sim::kernel_access(addr, bytes, true); }

// memcpy, memmove and memset as the kernel's code calls them (build.py renames the calls in the kernel's object):
// the copy is the kernel's own scalar loads and stores, so a bulk copy between GM and UB is not free.
void* tuner_sim_memcpy(void* dst, const void* src, size_t bytes) {
    tuner_sim::kernel_access(src, bytes, false);
    tuner_sim::kernel_access(dst, bytes, true);
    return memcpy(dst, src, bytes);
}
void* tuner_sim_memmove(void* dst, const void* src, size_t bytes) {
    tuner_sim::kernel_access(src, bytes, false);
    tuner_sim::kernel_access(dst, bytes, true);
    return memmove(dst, src, bytes);
}
void* tuner_sim_memset(void* dst, int value, size_t bytes) {
    tuner_sim::kernel_access(dst, bytes, true);
    return memset(dst, value, bytes);
}

// Called before a call that does not return (a throw, exit), and around a kernel source's dynamic
// initializers of globals (host code, before any launch): there is nothing to count.
void __asan_handle_no_return() {}
void __asan_before_dynamic_init(const char*) {}
void __asan_after_dynamic_init() {}

}  // extern "C"

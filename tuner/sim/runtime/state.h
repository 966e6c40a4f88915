// Internal state of the simulator runtime: one BlockCtx per running block, and the launch it belongs to.
#pragma once
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../include/tuner_sim/rt.h"

namespace tuner_sim {

// Thrown by fatal faults; unwinds the block's thread.
struct BlockAbort {};

// A call site: API name and source position.
struct Site {
    const char* api = "";
    const char* file = "";
    int line = 0;
};

// What one pipe knows of the others: vc[Q] = highest op sequence number of pipe Q known complete.
using Clock = std::array<uint64_t, kPipes>;

struct Granule {  // 32 bytes of UB
    uint64_t wseq = 0;
    uint32_t wsite = 0;
    uint8_t wpipe = 0;
    std::array<uint64_t, kPipes> rseq{};
    std::array<uint32_t, kPipes> rsite{};
};

struct FlagState {
    int pending = 0;
    Clock snapshot{};
    double time = 0;
    int32_t node = -1;  // the timing-graph node the waiting pipe must follow
    uint32_t site = 0;
};

// One step of a block's timing graph: it starts when all its predecessors have ended and lasts `cycles`.
// A copy to or from GM (gm_bytes > 0) instead moves its bytes at up to gm_bytes / cycles per cycle, sharing its
// pool's bandwidth with every other copy in flight (its start-up latency is a node of its own after it). A SyncAll
// node (sync_epoch >= 0) ends `cycles` after the last block of the launch has reached its SyncAll of that epoch.
// GM's request granularity: alignment (runtime.cpp copy_cycles) and same-address serialisation (timing.cpp) are
// judged in 512-byte regions (Huawei's Ascend C best practices, "Avoiding Same-Address Access").
constexpr uint64_t kGmRequestBytes = 512;

struct TimingNode {
    double cycles = 0;
    double gm_bytes = 0;
    uint32_t first_pred = 0;
    uint32_t n_preds = 0;
    uint32_t site = 0;
    int32_t sync_epoch = -1;
    uint8_t pipe = 0;
    uint8_t pool = 0;  // whose bandwidth a GM copy shares: 0 HBM, 1 L2
    bool busy = true;  // the pipe works during it (a wait does not)
    bool l2_write = false;  // a write landing in L2, written back to HBM during the kernel if its block streams
    // A cold read through L2 (both nodes of the copy: its bytes, then its latency): the replay finds whether its
    // lines are in L2 (L2Lines) and, if they are, takes hit_cycles instead of cycles and L2's bandwidth.
    bool l2_read = false;
    float hit_cycles = 0;
    // A GM copy's bursts (gm_bursts of gm_burst_bytes, gm_step apart from gm_first): the 512-byte request
    // regions it touches, for the same-address contention between copies in flight together (timing.cpp).
    uintptr_t gm_first = 0;
    uint64_t gm_step = 0;
    uint32_t gm_bursts = 0, gm_burst_bytes = 0;
};

// The order a block's instructions must keep, recorded as it runs and replayed with the other blocks after
// the launch. Every node follows the previous node of its pipe, so each pipe stays an in-order queue.
struct TimingGraph {
    std::vector<TimingNode> nodes;
    std::vector<uint32_t> preds;
    std::array<int32_t, kPipes> last{-1, -1, -1, -1};  // the pipe's last node: the next one of the pipe follows it
    std::array<int32_t, kPipes> done{-1, -1, -1, -1};  // the node whose end completes all the pipe's work so far
    int64_t block = -1;  // the block it belongs to
    double l2_bytes = 0;  // GM bytes its copies moved through L2 (reads not bypassing it, and writes)
    // Predecessors in other blocks' graphs: a cross-core wait (CrossCoreWaitFlag, IBWait, WaitPreBlock,
    // GroupBarrier::Wait) follows the set it waited for. Ignored when that block ran in an earlier wave.
    struct ExtPred {
        uint32_t node;   // this graph's node
        int64_t block;   // the other block
        int32_t pred;    // its node
    };
    std::vector<ExtPred> ext;

    int32_t add(int pipe, double cycles, std::initializer_list<int32_t> after, uint32_t site, bool busy = true,
                double gm_bytes = 0, int32_t sync_epoch = -1, uint8_t pool = 0) {
        TimingNode n;
        n.cycles = cycles;
        n.gm_bytes = gm_bytes;
        n.pool = pool;
        n.first_pred = uint32_t(preds.size());
        for (int32_t a : after) {
            if (a < 0) continue;
            bool seen = false;
            for (uint32_t i = n.first_pred; i < preds.size(); ++i) seen = seen || preds[i] == uint32_t(a);
            if (!seen) preds.push_back(uint32_t(a));
        }
        n.n_preds = uint32_t(preds.size()) - n.first_pred;
        n.site = site;
        n.sync_epoch = sync_epoch;
        n.pipe = uint8_t(pipe);
        n.busy = busy;
        nodes.push_back(n);
        const int32_t id = int32_t(nodes.size() - 1);
        last[pipe] = done[pipe] = id;
        return id;
    }
};

struct GmWrite {
    uintptr_t lo, hi;
    uint8_t pipe;
    uint64_t seq;
    uint32_t site;
};

// GM bytes one block read or wrote in one SyncAll epoch (for the races between blocks). `phase`: the block's
// cross-core phase (BlockCtx::xknown); `atomic`: a DataCopy to GM under SetAtomicAdd/Max/Min.
struct GmAccess {
    uintptr_t lo, hi;
    int epoch;
    uint32_t site;
    uint32_t phase = 0;
    bool atomic = false;
    // A write's stored bytes, [lo, hi), the block's last value of each: valid when `unfilled` is 0 (every byte
    // recorded came with its value from UB; a scalar store or a record over the content budget never does).
    std::vector<uint8_t> bytes;
    uint64_t unfilled = 0;
};

// A SetL2CacheHint: copies of GM bytes [lo, hi) bypass L2 or not.
struct L2Hint {
    uintptr_t lo, hi;
    bool bypass;
};

struct TraceEvent {
    uint8_t pipe;
    double start, end;
    uint32_t site;
};

// Scalar work of a block's own code not yet in its timing graph: what the instrumentation callbacks counted
// (runtime.cpp, "kernel scalar code") and the accesses of GetValue / SetValue. It becomes one scalar-pipe node
// before the next API call (or GetSystemCycle, or an auto-sync wait), so a scalar loop holds up the API
// instructions issued after it, as the scalar unit issues them in program order.
struct ScalarWork {
    uint64_t basic_blocks = 0;             // basic blocks of kernel code executed
    uint64_t ub_reads = 0, ub_writes = 0;  // scalar loads and stores of UB, of 8 bytes at most each
    uint64_t gm_accesses = 0;              // scalar loads and stores of GM, through the data cache
    uint64_t gm_line_fills = 0;            // data-cache lines they brought in from GM
};

// The scalar unit's data cache in front of GM: set-associative with LRU replacement (geometry from
// soc_config). Only GM is cached: UB is addressed directly.
struct DataCache {
    uint64_t line_bytes = 64, sets = 1, ways = 1;
    std::vector<uint64_t> tags;  // line address + 1 per way (0: empty)
    std::vector<uint64_t> used;  // when each way was last touched
    uint64_t clock = 0;
};

struct BlockCtx {
    int64_t idx = 0;
    int64_t num = 1;
    std::vector<uint8_t> ub;
    uint32_t ub_used = 0;
    uint32_t ub_peak = 0;
    void* tpipe = nullptr;
    MaskState mask{false, ~0ull, ~0ull};
    uint32_t site = 0;  // current API call site
    // ordering
    std::array<uint64_t, kPipes> seq{};
    std::array<Clock, kPipes> vc{};
    std::array<uint64_t, kPipes> barrier_seq{};
    std::vector<Granule> shadow;
    std::map<std::pair<int, int>, FlagState> flags;  // ((src,dst) pair id, event id)
    std::unordered_map<uint64_t, FlagState> queue_events;
    std::vector<GmWrite> gm_writes;
    std::vector<GmAccess> race_writes, race_reads;
    std::vector<GmWrite> dcache_dirty;  // GM bytes GlobalTensor::SetValue left in the scalar data cache
    // 64-byte lines DataCacheCleanAndInvalid dropped: the next GetValue there reads GM (a polled flag)
    std::vector<uintptr_t> dcache_fresh;
    uintptr_t polled = 0;  // the GM address of a polled read whose value is being read (gm_scalar_read_done)
    std::array<int, 32> live_tensors{};
    // timing, in cycles
    std::array<double, kPipes> t{};  // each pipe's time without the other blocks (GetSystemCycle, SyncAll)
    uint64_t gm_to_ub_bytes = 0, ub_to_gm_bytes = 0;
    int epoch = 0;  // SyncAll barriers passed
    TimingGraph graph;
    std::vector<L2Hint> l2_hints;
    ScalarWork scalar;
    DataCache dcache;
    bool aborted = false;
    // ---- memory, sync, atomics (issue 16) ----
    uint8_t atomic_op = 0;        // AtomicOp of rt.h: what a DataCopy UB->GM does at GM
    uint8_t atomic_type = 0;      // ElemType it computes in
    bool atomic_store = false;    // the DataCopy now running is atomic (its GM writes are recorded so)
    bool sync_access = false;     // a GM access that synchronises blocks (Read/WriteGmByPassDCache)
    bool pad_set = false;         // SetPadValue: DataCopyPad's padding value when isPad is false
    uint64_t pad_bits = 0;
    // Cross-core happens-before: the block's accesses are numbered by phase (a phase ends at each cross-core set
    // and wait); xknown[p][b] = the phases of block b known complete during phase p. Empty until the kernel
    // uses a cross-core flag.
    uint32_t xphase = 0;
    std::vector<std::vector<uint32_t>> xknown;
    std::map<std::pair<int, uint64_t>, uint64_t> xwaits;  // this block's waits so far, per flag
    // The latest API call site, readable from the watchdog thread (names where a hung block is).
    std::atomic<uint32_t> last_site{0};
};

BlockCtx& ctx();
// A DataCopy to GM's stored bytes, for the race check (runtime.cpp).
void race_write_bytes(BlockCtx& c, const void* gm, const uint8_t* src, uint64_t n);
const Site& site(uint32_t id);
uint32_t intern_site(const char* api, const char* file, int line);
double now_cycles(const BlockCtx& c);
void add_copy_bytes(CopyDir dir, uint64_t bytes);

// What the replay of a wave's timing graphs gives for one block.
struct BlockTiming {
    double time_cycles = 0;
    std::array<double, kPipes> busy{};
    std::vector<TraceEvent> trace;
};

// What L2 holds during a launch, chip-wide: each 128-byte GM line moved through it (read or written, by any block),
// stamped with the bytes that had moved through L2 before; a line is still there while fewer than `capacity` bytes
// have moved through since (least recently used). asc-devkit's data_copy README shows no gain for 128-byte reads
// whose neighbours in the same 512 bytes were read just before: lines of 128 bytes. The replay reads and touches
// it in the order the copies start, across the waves of the launch.
class L2Lines {
public:
    explicit L2Lines(double capacity) : capacity_(capacity) {}
    // Whether most of a read's lines are in L2; all of them are then, as the most recently used.
    bool read(const TimingNode& n);
    void write(const TimingNode& n);

private:
    std::pair<uint64_t, uint64_t> touch(const TimingNode& n);  // how many of its lines were there, of how many
    std::unordered_map<uint64_t, double> last_;
    double clock_ = 0;
    double capacity_;
};

// Replays the blocks of one wave together: each node starts when its predecessors end, and the GM copies in
// flight share the bandwidth of their pool (bytes per cycle of HBM and of L2; max-min fair, each copy capped
// by its own single-core rate and, when its core has several in flight, by an even share of the core's port,
// `port_bytes_per_cycle`; 0: no port limit). A block that moved more than `l2_share_bytes` through L2 streams
// through it: each of its writes to L2 is also written back to HBM during the kernel, in the background. GM serves
// requests in kGmRequestBytes regions and serves the requests in flight to one region one after another: a copy
// waits `same_address_cycles` for each other copy in flight on its regions (0: not modelled). A cold read through
// L2 hits when `l2` holds its lines.
std::vector<BlockTiming> replay(const std::vector<const TimingGraph*>& graphs,
                                const std::array<double, 2>& pool_bytes_per_cycle, double port_bytes_per_cycle,
                                double l2_share_bytes, double same_address_cycles, L2Lines& l2, bool with_trace);

// A file the host side names for the program to write or read: a path, or "fd:N", a descriptor it handed over
// (a sandboxed run opens nothing itself). An output is rewritten from its start. open_output_fd is
// async-signal-safe (the fault handler writes the report with it); both return -1 / nullptr on failure.
int open_output_fd(const char* spec);
FILE* open_output(const char* spec);
FILE* open_input(const char* spec);

}  // namespace tuner_sim

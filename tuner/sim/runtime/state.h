// Internal state of the simulator runtime: one BlockCtx per running block, and the launch it belongs to.
#pragma once
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
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
    uint32_t site = 0;
};

struct GmWrite {
    uintptr_t lo, hi;
    uint8_t pipe;
    uint64_t seq;
    uint32_t site;
};

// GM bytes one block read or wrote in one SyncAll epoch (for the races between blocks).
struct GmAccess {
    uintptr_t lo, hi;
    int epoch;
    uint32_t site;
};

struct TraceEvent {
    uint8_t pipe;
    double start, end;
    uint32_t site;
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
    std::array<int, 32> live_tensors{};
    // timing, in cycles
    std::array<double, kPipes> t{};
    std::array<double, kPipes> busy{};
    uint64_t gm_to_ub_bytes = 0, ub_to_gm_bytes = 0;
    int epoch = 0;  // SyncAll barriers passed
    std::vector<TraceEvent> trace;
    bool aborted = false;
    // The latest API call site, readable from the watchdog thread (names where a hung block is).
    std::atomic<uint32_t> last_site{0};
};

BlockCtx& ctx();
const Site& site(uint32_t id);
uint32_t intern_site(const char* api, const char* file, int line);
double now_cycles(const BlockCtx& c);
void add_copy_bytes(CopyDir dir, uint64_t bytes);

}  // namespace tuner_sim

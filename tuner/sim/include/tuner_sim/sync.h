// Synchronisation: flags between pipes, barriers, SyncAll between blocks, and the block/system variables.
#pragma once
#include "tensor.h"

namespace tuner_sim {

struct EventPipes {
    int src, dst;
};
// Source and destination pipe of a HardEvent on a vector core; {-1, -1} for cube-side events.
TUNER_SIM_UNCHARGED constexpr EventPipes event_pipes(AscendC::HardEvent e) {
    using H = AscendC::HardEvent;
    switch (e) {
        case H::MTE2_V: return {int(Pipe::MTE2), int(Pipe::V)};
        case H::V_MTE2: return {int(Pipe::V), int(Pipe::MTE2)};
        case H::MTE3_V: return {int(Pipe::MTE3), int(Pipe::V)};
        case H::V_MTE3: return {int(Pipe::V), int(Pipe::MTE3)};
        case H::V_V: return {int(Pipe::V), int(Pipe::V)};
        case H::MTE3_MTE2: return {int(Pipe::MTE3), int(Pipe::MTE2)};
        case H::MTE2_MTE3: return {int(Pipe::MTE2), int(Pipe::MTE3)};
        case H::S_V: return {int(Pipe::S), int(Pipe::V)};
        case H::V_S: return {int(Pipe::V), int(Pipe::S)};
        case H::S_MTE2: return {int(Pipe::S), int(Pipe::MTE2)};
        case H::MTE2_S: return {int(Pipe::MTE2), int(Pipe::S)};
        case H::S_MTE3: return {int(Pipe::S), int(Pipe::MTE3)};
        case H::MTE3_S: return {int(Pipe::MTE3), int(Pipe::S)};
        default: return {-1, -1};
    }
}
const char* hard_event_name(int event);
// DataCacheCleanAndInvalid: the 64-byte line at `addr`, or the whole data cache.
void dcache_clean(const void* addr, bool entire);

}  // namespace tuner_sim

namespace AscendC {

template <HardEvent event>
TUNER_SIM_UNCHARGED __aicore__ inline void SetFlag(int32_t eventID, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    constexpr auto p = tuner_sim::event_pipes(event);
    static_assert(p.src >= 0, "SetFlag: this HardEvent involves a cube pipe; a vector core has S, V, MTE2, MTE3");
    tuner_sim::api_begin("SetFlag", loc);
    tuner_sim::set_flag(p.src, p.dst, eventID, tuner_sim::hard_event_name(int(event)));
}
template <HardEvent event>
TUNER_SIM_UNCHARGED __aicore__ inline void WaitFlag(int32_t eventID, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    constexpr auto p = tuner_sim::event_pipes(event);
    static_assert(p.src >= 0, "WaitFlag: this HardEvent involves a cube pipe; a vector core has S, V, MTE2, MTE3");
    tuner_sim::api_begin("WaitFlag", loc);
    tuner_sim::wait_flag(p.src, p.dst, eventID, tuner_sim::hard_event_name(int(event)));
}

template <pipe_t pipe>
TUNER_SIM_UNCHARGED __aicore__ inline void PipeBarrier(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(pipe != PIPE_S, "PipeBarrier<PIPE_S> is not allowed");
    static_assert(pipe == PIPE_V || pipe == PIPE_MTE2 || pipe == PIPE_MTE3 || pipe == PIPE_ALL,
                  "PipeBarrier: a vector core has the V, MTE2 and MTE3 pipes (or PIPE_ALL)");
    tuner_sim::api_begin("PipeBarrier", loc);
    tuner_sim::pipe_barrier(pipe == PIPE_ALL ? -1 : int(pipe));
}

template <pipe_t src, pipe_t dst>
class TQueSync {
public:
    TUNER_SIM_UNCHARGED __aicore__ inline void SetFlag(TEventID id, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TQueSync::SetFlag", loc);
        tuner_sim::set_flag(int(src), int(dst), id, "TQueSync");
    }
    TUNER_SIM_UNCHARGED __aicore__ inline void WaitFlag(TEventID id, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TQueSync::WaitFlag", loc);
        tuner_sim::wait_flag(int(src), int(dst), id, "TQueSync");
    }
    static_assert(src <= PIPE_MTE3 && dst <= PIPE_MTE3, "TQueSync: a vector core has S, V, MTE2, MTE3");
};

// SyncAll.md: the pipes that trigger and wait for the hardware SyncAll (MTE2, MTE3 or PIPE_ALL). The
// simulator waits for every pipe whatever the config (the ordering it checks is the PIPE_ALL one).
struct SyncAllConfig {
    pipe_t triggerPipe;
    pipe_t waitPipe;
};
constexpr SyncAllConfig DEFAULT_SYNC_ALL_CONFIG = {PIPE_ALL, PIPE_ALL};

template <bool isAIVOnly = true, const SyncAllConfig& config = DEFAULT_SYNC_ALL_CONFIG>
TUNER_SIM_UNCHARGED __aicore__ inline void SyncAll(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert((config.triggerPipe == PIPE_MTE2 || config.triggerPipe == PIPE_MTE3 ||
                   config.triggerPipe == PIPE_ALL) &&
                      (config.waitPipe == PIPE_MTE2 || config.waitPipe == PIPE_MTE3 || config.waitPipe == PIPE_ALL),
                  "SyncAll: SyncAllConfig pipes are PIPE_MTE2, PIPE_MTE3 or PIPE_ALL");
    tuner_sim::api_begin("SyncAll", loc);
    tuner_sim::sync_all();
}
template <bool isAIVOnly = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                               const int32_t usedCores = 0, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("SyncAll", loc);
    const int64_t cores = usedCores > 0 ? usedCores : tuner_sim::block_num();
    if (ubWorkspace.GetSize() * sizeof(int32_t) < uint64_t(cores) * 32) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                         "SyncAll: ubWorkspace holds %u bytes, needs %lld (32 bytes per block)",
                         unsigned(ubWorkspace.GetSize() * sizeof(int32_t)), (long long)(cores * 32));
    }
    if (cores > tuner_sim::block_num()) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported, "SyncAll: usedCores %d exceeds the %lld blocks launched",
                         int(usedCores), (long long)tuner_sim::block_num());
    }
    if (cores < tuner_sim::block_num()) {  // only blocks 0..usedCores-1 meet (SyncAll.md, usedCores)
        tuner_sim::gm_check_range(gmWorkspace.GetPhyAddr(), uint64_t(tuner_sim::block_num()) * 32,
                                  "SyncAll: gmWorkspace (GetBlockNum() * 32 bytes)");
        tuner_sim::sync_some(gmWorkspace.GetPhyAddr(), cores);
        return;
    }
    tuner_sim::gm_scalar_access(gmWorkspace.GetPhyAddr(), uint64_t(cores) * 32, tuner_sim::Access::Read,
                                false);
    tuner_sim::sync_all();
}

// Writes the scalar data cache back to GM (the 64-byte line holding dst, or all of it) so DMA sees
// what GlobalTensor::SetValue wrote.
template <typename T, CacheLine entireType = CacheLine::SINGLE_CACHE_LINE, DcciDst dcciDst = DcciDst::CACHELINE_OUT>
TUNER_SIM_UNCHARGED
__aicore__ inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst,
                                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCacheCleanAndInvalid", loc);
    tuner_sim::dcache_clean(dst.GetPhyAddr(), entireType == CacheLine::ENTIRE_DATA_CACHE);
}

TUNER_SIM_UNCHARGED __aicore__ inline int64_t GetBlockIdx() { return tuner_sim::block_idx(); }
TUNER_SIM_UNCHARGED __aicore__ inline int64_t GetBlockNum() { return tuner_sim::block_num(); }
TUNER_SIM_UNCHARGED __aicore__ inline int64_t GetSubBlockIdx() { return 0; }
TUNER_SIM_UNCHARGED __aicore__ inline int64_t GetSubBlockNum() { return 1; }
TUNER_SIM_UNCHARGED __aicore__ inline int64_t GetTaskRatio() { return 1; }
TUNER_SIM_UNCHARGED __aicore__ inline constexpr int64_t GetDataBlockSizeInBytes() { return 32; }

}  // namespace AscendC

// Older intrinsic spellings seen in production kernels.
TUNER_SIM_UNCHARGED __aicore__ inline void pipe_barrier(pipe_t pipe, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("pipe_barrier", loc);
    tuner_sim::pipe_barrier(pipe == PIPE_ALL ? -1 : int(pipe));
}
TUNER_SIM_UNCHARGED
__aicore__ inline void set_flag(pipe_t src, pipe_t dst, event_t id, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("set_flag", loc);
    tuner_sim::set_flag(int(src), int(dst), id, "set_flag");
}
TUNER_SIM_UNCHARGED
__aicore__ inline void wait_flag(pipe_t src, pipe_t dst, event_t id, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("wait_flag", loc);
    tuner_sim::wait_flag(int(src), int(dst), id, "wait_flag");
}

extern thread_local int64_t block_idx;
extern thread_local int64_t block_num;

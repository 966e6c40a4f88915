// Memory management, synchronisation between cores and DMA atomics of A2 Ascend C (issue 16): InitSocState,
// the UB size, SetAtomicAdd/Max/Min, GM access around the data cache, DataSyncBarrier, CrossCoreSetFlag/
// CrossCoreWaitFlag, IBSet/IBWait, WaitPreBlock/NotifyNextBlock, GroupBarrier and the task-sync no-ops.
// Signatures follow asc-devkit's docs/zh/api/SIMD-API/基础API pages named at each entry.
#pragma once
#include "sync.h"

namespace AscendC {

// 工具接口/系统资源与变量/GetUBSizeInBytes.md, GetRuntimeUBSize.md.
TUNER_SIM_UNCHARGED __aicore__ inline constexpr uint32_t GetUBSizeInBytes() { return TUNER_SIM_UB_SIZE_BYTES; }
TUNER_SIM_UNCHARGED __aicore__ inline uint32_t GetRuntimeUBSize() { return TUNER_SIM_UB_SIZE_BYTES; }

// 工具接口/系统初始化/InitSocState.md: on A2, DMA atomics off, mask mode normal and the mask all ones.
TUNER_SIM_UNCHARGED __aicore__ inline void InitSocState(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("InitSocState", loc);
    tuner_sim::init_soc_state();
}

// ---- DMA atomics (原子操作/SetAtomicAdd.md, SetAtomicMax(ISASI).md, SetAtomicMin(ISASI).md,
// SetAtomicType.md, DisableDmaAtomic.md): a later DataCopy / DataCopyPad from UB to GM combines each element
// with what GM holds, in the element type T. Several blocks may do so on the same bytes.
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void SetAtomicAdd(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(tuner_sim::support::SetAtomicAdd<T>,
                  "SetAtomicAdd: this element type is not supported on " TUNER_SIM_SOC_NAME);
    tuner_sim::api_begin("SetAtomicAdd", loc);
    tuner_sim::set_atomic(uint8_t(tuner_sim::AtomicOp::Add), tuner_sim::elem_v<T>);
}
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void SetAtomicMax(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(tuner_sim::support::SetAtomicMax<T>,
                  "SetAtomicMax: this element type is not supported on " TUNER_SIM_SOC_NAME);
    tuner_sim::api_begin("SetAtomicMax", loc);
    tuner_sim::set_atomic(uint8_t(tuner_sim::AtomicOp::Max), tuner_sim::elem_v<T>);
}
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void SetAtomicMin(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(tuner_sim::support::SetAtomicMin<T>,
                  "SetAtomicMin: this element type is not supported on " TUNER_SIM_SOC_NAME);
    tuner_sim::api_begin("SetAtomicMin", loc);
    tuner_sim::set_atomic(uint8_t(tuner_sim::AtomicOp::Min), tuner_sim::elem_v<T>);
}
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void SetAtomicType(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(tuner_sim::support::SetAtomicType<T>,
                  "SetAtomicType: this element type is not supported on " TUNER_SIM_SOC_NAME);
    tuner_sim::api_begin("SetAtomicType", loc);
    tuner_sim::set_atomic_type(tuner_sim::elem_v<T>);
}
TUNER_SIM_UNCHARGED __aicore__ inline void DisableDmaAtomic(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DisableDmaAtomic", loc);
    tuner_sim::set_atomic(uint8_t(tuner_sim::AtomicOp::None), tuner_sim::ElemType::F32);
}
// The older spelling of DisableDmaAtomic (C API asc_set_atomic_none).
TUNER_SIM_UNCHARGED __aicore__ inline void SetAtomicNone(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("SetAtomicNone", loc);
    tuner_sim::set_atomic(uint8_t(tuner_sim::AtomicOp::None), tuner_sim::ElemType::F32);
}

// ---- GM around the data cache (标量计算/ReadGmByPassDCache(ISASI).md, WriteGmByPassDCache(ISASI).md) -----
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline T ReadGmByPassDCache(__gm__ T* addr, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>,
                  "ReadGmByPassDCache: T is one of int8_t..uint64_t");
    tuner_sim::api_site("ReadGmByPassDCache", loc);
    tuner_sim::gm_bypass_access(addr, sizeof(T), tuner_sim::Access::Read);
    return *addr;
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void WriteGmByPassDCache(__gm__ T* addr, T value, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>,
                  "WriteGmByPassDCache: T is one of int8_t..uint64_t");
    tuner_sim::api_site("WriteGmByPassDCache", loc);
    tuner_sim::gm_bypass_access(addr, sizeof(T), tuner_sim::Access::Write);
    *addr = value;
}

// 同步控制/核内同步/DataSyncBarrier(ISASI).md: the scalar unit waits for its memory accesses (a barrier cost).
template <MemDsbT arg0>
TUNER_SIM_UNCHARGED __aicore__ inline void DataSyncBarrier(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataSyncBarrier", loc);
    tuner_sim::data_sync_barrier();
}

// ---- between cores (同步控制/核间同步/*) --------------------------------------------------------------------
// CrossCoreSetFlag(ISASI).md / CrossCoreWaitFlag(ISASI).md. Mode 0: a wait goes on once every block has made
// its matching set (the n-th wait of a block needs the n-th set of every block); mode 1: the AIVs of one AI
// Core, here the block itself (one AIV per block); mode 2 pairs AIV with the cube core, which is not simulated.
// On A2 the wait holds back every pipe (the `pipe` argument is not used by the hardware).
template <uint8_t modeId, pipe_t pipe>
TUNER_SIM_UNCHARGED
__aicore__ inline void CrossCoreSetFlag(uint16_t flagId, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(modeId == 0 || modeId == 1, "CrossCoreSetFlag: modes 0 and 1 (between AIV cores) are simulated; "
                                              "mode 2 pairs AIV with the cube core, which the simulator does not run");
    static_assert(pipe == PIPE_V || pipe == PIPE_MTE2 || pipe == PIPE_MTE3,
                  "CrossCoreSetFlag: on a vector core the pipe is PIPE_V, PIPE_MTE2 or PIPE_MTE3 (not PIPE_S/PIPE_ALL)");
    tuner_sim::api_begin("CrossCoreSetFlag", loc);
    tuner_sim::cross_core_set_flag(modeId, int(pipe), flagId);
}
template <uint8_t modeId, pipe_t pipe>
TUNER_SIM_UNCHARGED
__aicore__ inline void CrossCoreWaitFlag(uint16_t flagId, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(modeId == 0 || modeId == 1, "CrossCoreWaitFlag: modes 0 and 1 (between AIV cores) are simulated; "
                                              "mode 2 pairs AIV with the cube core, which the simulator does not run");
    tuner_sim::api_begin("CrossCoreWaitFlag", loc);
    tuner_sim::cross_core_wait_flag(modeId, flagId);
}

namespace detail {
TUNER_SIM_UNCHARGED inline void ub_workspace_check(const char* api, uint64_t have, uint64_t need) {
    if (have < need) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds, "%s: ubWorkspace holds %llu bytes, needs %llu", api,
                         (unsigned long long)have, (unsigned long long)need);
    }
}
}  // namespace detail

// IBSet.md / IBWait.md: a flag in gmWorkspace per (blockIdx, eventID), 32 bytes at
// (GetBlockNum() * eventID + blockIdx) * 32. Each IBWait consumes one IBSet with the same arguments.
template <bool isAIVOnly = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                             int32_t blockIdx, int32_t eventID, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("IBSet", loc);
    detail::ub_workspace_check("IBSet", uint64_t(ubWorkspace.GetSize()) * sizeof(int32_t), 32);
    tuner_sim::ib_set(gmWorkspace.GetPhyAddr(), blockIdx, eventID);
}
template <bool isAIVOnly = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void IBWait(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                              int32_t blockIdx, int32_t eventID, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("IBWait", loc);
    detail::ub_workspace_check("IBWait", uint64_t(ubWorkspace.GetSize()) * sizeof(int32_t), 32);
    tuner_sim::ib_wait(gmWorkspace.GetPhyAddr(), blockIdx, eventID);
}

// InitDetermineComputeWorkspace.md, NotifyNextBlock.md, WaitPreBlock.md: the blocks take turns in ascending
// blockIdx (block b's n-th WaitPreBlock waits for block b-1's n-th NotifyNextBlock; block 0's, from the
// second on, for the last block's previous one).
TUNER_SIM_UNCHARGED
__aicore__ inline void InitDetermineComputeWorkspace(GlobalTensor<int32_t>& gmWorkspace,
                                                     LocalTensor<int32_t>& ubWorkspace,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("InitDetermineComputeWorkspace", loc);
    detail::ub_workspace_check("InitDetermineComputeWorkspace", uint64_t(ubWorkspace.GetSize()) * sizeof(int32_t),
                               uint64_t(tuner_sim::block_num()) * 32 + 32);
    tuner_sim::gm_check_range(gmWorkspace.GetPhyAddr(), uint64_t(tuner_sim::block_num()) * 32,
                              "InitDetermineComputeWorkspace: gmWorkspace (GetBlockNum() * 32 bytes)");
}
TUNER_SIM_UNCHARGED
__aicore__ inline void NotifyNextBlock(GlobalTensor<int32_t>& gmWorkspace, LocalTensor<int32_t>& ubWorkspace,
                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("NotifyNextBlock", loc);
    detail::ub_workspace_check("NotifyNextBlock", uint64_t(ubWorkspace.GetSize()) * sizeof(int32_t),
                               uint64_t(tuner_sim::block_num()) * 32 + 32);
    tuner_sim::notify_next_block(gmWorkspace.GetPhyAddr());
}
TUNER_SIM_UNCHARGED
__aicore__ inline void WaitPreBlock(GlobalTensor<int32_t>& gmWorkspace, LocalTensor<int32_t>& ubWorkspace,
                                    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("WaitPreBlock", loc);
    detail::ub_workspace_check("WaitPreBlock", uint64_t(ubWorkspace.GetSize()) * sizeof(int32_t),
                               uint64_t(tuner_sim::block_num()) * 32 + 32);
    tuner_sim::wait_pre_block(gmWorkspace.GetPhyAddr());
}

// Cube分组管理（ISASI）/GroupBarrier/*: the n-th Wait of a waiter needs the n-th Arrive of every arriver.
// The workspace is 512 bytes per waiting AIV (GetWorkspaceLen.md's example: 3 arrive, 6 wait, 3072 bytes).
template <PipeMode mode = PipeMode::MTE3_MODE>
class GroupBarrier {
    static_assert(mode == PipeMode::MTE3_MODE, "GroupBarrier: only PipeMode::MTE3_MODE is supported");

public:
    TUNER_SIM_UNCHARGED
    __aicore__ inline GroupBarrier(GM_ADDR groupWorkspace, uint32_t arriveSizeIn, uint32_t waitSizeIn,
                                   tuner_sim::Loc loc = tuner_sim::Loc::here())
        : ws_(groupWorkspace), arrive_(arriveSizeIn), wait_(waitSizeIn) {
        tuner_sim::api_begin("GroupBarrier", loc);
        if (reinterpret_cast<uintptr_t>(groupWorkspace) % 512 != 0) {
            tuner_sim::fault(tuner_sim::FaultClass::Misaligned,
                             "GroupBarrier: groupWorkspace is not 512-byte aligned (address %% 512 = %u)",
                             unsigned(reinterpret_cast<uintptr_t>(groupWorkspace) % 512));
        }
    }
    TUNER_SIM_UNCHARGED
    __aicore__ inline void Arrive(uint32_t arriveIndex, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("GroupBarrier::Arrive", loc);
        tuner_sim::group_arrive(ws_, arrive_, wait_, arriveIndex);
    }
    TUNER_SIM_UNCHARGED
    __aicore__ inline void Wait(uint32_t waitIndex, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("GroupBarrier::Wait", loc);
        tuner_sim::group_wait(ws_, arrive_, wait_, waitIndex);
    }
    TUNER_SIM_UNCHARGED __aicore__ inline uint64_t GetWorkspaceLen() { return uint64_t(wait_) * 512; }

private:
    GM_ADDR ws_;
    uint32_t arrive_, wait_;
};

// 同步控制/任务间同步/SetNextTaskStart.md, WaitPreTaskEnd.md: on A2 they compile and do nothing.
template <pipe_t AIV_PIPE = PIPE_MTE3, pipe_t AIC_PIPE = PIPE_FIX, bool FORCE = false>
TUNER_SIM_UNCHARGED __aicore__ inline void SetNextTaskStart() {}
template <bool FORCE = false>
TUNER_SIM_UNCHARGED __aicore__ inline void WaitPreTaskEnd() {}

}  // namespace AscendC

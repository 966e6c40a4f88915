// Ascend C's high-level utility APIs that work on Global Memory: Fill. Expanded into basic APIs (Duplicate
// into UB, a V -> MTE3 flag, DataCopyPad out) in the order asc-devkit's A2 implementation issues them
// (impl/adv_api/detail/utils/init_global_memory/init_global_memory_v220_impl.h), so the checks, the
// synchronisation and the modelled time are the basic APIs'.
#pragma once
#include <algorithm>

#include "adv_math.h"
#include "copy.h"
#include "sync.h"
#include "tpipe.h"

namespace AscendC {
namespace adv {
// Fill (高阶API/张量变换/Fill-97.md) and InitOutput (its deprecated basic form): the UB left after InitBuffer (the
// docs: call it before InitBuffer) is filled with `value`, at most 255 repeats of 256 bytes, and copied out to GM
// burst by burst; Fill then waits for MTE3 (PipeBarrier), InitOutput does not.
template <typename T>
TUNER_SIM_UNCHARGED inline void fill_gm(const char* api, GlobalTensor<T>& gm, uint64_t size, T value, bool barrier,
                                        Loc loc) {
    tuner_sim::api_site(api, loc);
    const LocalTensor<T> ub = own_tmp(api).ReinterpretCast<T>();
    constexpr uint32_t maxBurst = kMaxRepeat * kRepeatBytes / sizeof(T);
    const uint32_t pop = std::min<uint32_t>(ub.GetSize(), maxBurst);
    if (pop * sizeof(T) < 32) {
        tuner_sim::fault(tuner_sim::FaultClass::UbOverflow,
                         "%s stages its value in the UB left after InitBuffer: %u bytes left, at least 32 needed "
                         "(call it before InitBuffer, Fill-97.md)", api, uint32_t(ub.GetSize() * sizeof(T)));
    }
    const uint64_t round = size / pop, tail = size % pop;
    Duplicate(ub, value, int32_t(pop), loc);
    TPipe* pipe = GetTPipePtr();
    const TEventID id = pipe != nullptr ? pipe->FetchEventID(HardEvent::V_MTE3) : TEventID(0);
    SetFlag<HardEvent::V_MTE3>(id, loc);
    WaitFlag<HardEvent::V_MTE3>(id, loc);
    DataCopyExtParams params;
    params.blockCount = 1;
    params.blockLen = uint32_t(pop * sizeof(T));
    for (uint64_t i = 0; i < round; ++i) DataCopyPad(gm[i * pop], ub, params, loc);
    if (tail != 0) {
        params.blockLen = uint32_t(tail * sizeof(T));
        DataCopyPad(gm[round * pop], ub, params, loc);
    }
    if (barrier) PipeBarrier<PIPE_MTE3>(loc);
}
}  // namespace adv

// Fill: 高阶API/张量变换/Fill-97.md
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void Fill(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const T value,
                                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_ADV_REQUIRE(Fill, T);
    adv::fill_gm("Fill", gmWorkspaceAddr, size, value, true, loc);
}
}  // namespace AscendC

// Basic APIs built from other basic APIs: InitOutput (a deprecated form of Fill for Global Memory).
#pragma once
#include "adv_utils.h"

namespace AscendC {
// InitOutput (include/basic_api/kernel_operator_common_intf.h, deprecated for Fill): `size` elements of GM set
// to `value`. As asc-devkit's A2 implementation (impl/basic_api/kernel_operator_common_intf_impl.h) does: the UB
// left after InitBuffer (PopStackBuffer) is filled with Duplicate, at most 255 repeats of 256 bytes, a
// V -> MTE3 flag, then copied out with DataCopyPad burst by burst; unlike Fill, no PIPE_MTE3 barrier follows.
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void InitOutput(GlobalTensor<T> gmWorkspaceAddr, uint32_t size, T value = 0,
                                                      tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(tuner_sim::support::InitOutput<T>, "InitOutput: this element type is not supported on "
                                                     TUNER_SIM_SOC_NAME);
    adv::fill_gm("InitOutput", gmWorkspaceAddr, size, value, false, loc);
}
}  // namespace AscendC

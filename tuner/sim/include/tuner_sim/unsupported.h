// APIs outside the simulator's scope. Each is declared so that using it is a compile error naming it,
// instead of an unknown-identifier error that says nothing about why.
#pragma once
#include "types.h"

#define TUNER_SIM_UNSUPPORTED(NAME, WHY)                                                              \
    template <typename... Args>                                                                       \
    void NAME(Args&&...) {                                                                            \
        static_assert(tuner_sim::dependent_false<Args...>, #NAME " is not supported by the tuner simulator: " WHY); \
    }                                                                                                 \
    template <typename T, auto... Cfg, typename... Args>                                              \
    void NAME(Args&&...) {                                                                            \
        static_assert(tuner_sim::dependent_false<T, Args...>, #NAME " is not supported by the tuner simulator: " WHY); \
    }

namespace AscendC {
#define TUNER_SIM_HIGH_LEVEL "this high-level API is not provided yet (docs/simulator.md lists those that are)"
TUNER_SIM_UNSUPPORTED(GroupNorm, TUNER_SIM_HIGH_LEVEL)
#define TUNER_SIM_CUBE "cube (matrix) APIs are out of scope; the simulator models the vector core"
TUNER_SIM_UNSUPPORTED(Mmad, TUNER_SIM_CUBE)
TUNER_SIM_UNSUPPORTED(LoadData, TUNER_SIM_CUBE)
TUNER_SIM_UNSUPPORTED(Fixpipe, TUNER_SIM_CUBE)
TUNER_SIM_UNSUPPORTED(LoadDataWithTranspose, TUNER_SIM_CUBE)
TUNER_SIM_UNSUPPORTED(SetFmatrix, TUNER_SIM_CUBE)
#undef TUNER_SIM_HIGH_LEVEL
#undef TUNER_SIM_CUBE
}  // namespace AscendC
#undef TUNER_SIM_UNSUPPORTED

// GET_TILING_DATA, GET_TILING_DATA_WITH_STRUCT, GET_TILING_DATA_MEMBER, REGISTER_TILING_DEFAULT, TILING_KEY_IS:
// the kernel side of a CANN operator project (`tuner simulate --project`).
#include "tiling_data.h"

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
#define TUNER_SIM_HIGH_LEVEL "high-level APIs are out of scope; compose it from basic APIs"
TUNER_SIM_UNSUPPORTED(SoftMax, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(SimpleSoftMax, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(SoftmaxFlash, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(SoftmaxFlashV2, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(LogSoftMax, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(LayerNorm, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(RmsNorm, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(BatchNorm, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(DeepNorm, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(GroupNorm, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(Gelu, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(FasterGelu, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(FasterGeluV2, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(Silu, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(Swish, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(SwiGLU, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(GeGLU, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(Sigmoid, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(Tanh, TUNER_SIM_HIGH_LEVEL)
TUNER_SIM_UNSUPPORTED(Erf, TUNER_SIM_HIGH_LEVEL)
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

#define TUNER_SIM_NO_TILING_MACRO(NAME)                                                                     \
    static_assert(false && sizeof(#NAME), #NAME " is not supported by the tuner simulator: pass tiling as a " \
                                                "struct by value or read it from a GM buffer")
#define GET_TILING_DATA(...) TUNER_SIM_NO_TILING_MACRO(GET_TILING_DATA)
#define GET_TILING_DATA_WITH_STRUCT(...) TUNER_SIM_NO_TILING_MACRO(GET_TILING_DATA_WITH_STRUCT)
#define GET_TILING_DATA_MEMBER(...) TUNER_SIM_NO_TILING_MACRO(GET_TILING_DATA_MEMBER)
#define REGISTER_TILING_DEFAULT(...) TUNER_SIM_NO_TILING_MACRO(REGISTER_TILING_DEFAULT)

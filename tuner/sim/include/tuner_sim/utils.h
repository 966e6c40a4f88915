// Kernel-side utilities of the CANN 9 headers: DivCeil, ascendc_assert (utils/debug/asc_assert.h), and the
// ASCENDC_ASSERT / KERNEL_LOG macros of CANN's CPU-debug build. A failed assertion ends the block with a crash
// fault carrying its message, where the device would stop the kernel.
#pragma once
#include <cstdio>
#include <type_traits>

#include "rt.h"
#include "uncharged.h"

namespace AscendC {
// The data layouts a ShapeInfo names (数据结构/ShapeInfo.md), and TransData's 3-D ones (张量变换/TransData.md).
enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC, NCDHW, NDC1HWC0, FRACTAL_Z_3D };

template <typename A, typename B>
TUNER_SIM_UNCHARGED __aicore__ inline constexpr std::common_type_t<A, B> DivCeil(A a, B b) {
    return (std::common_type_t<A, B>(a) + b - 1) / b;
}

// AscendCUtils::SetOverflow (Mmad.md, DataCopy（L0C到GM数据搬运）.md): 1 selects inf/nan mode for float results,
// 0 saturation mode. The simulator computes IEEE inf/nan always, so selecting saturation says so.
struct AscendCUtils {
    TUNER_SIM_UNCHARGED static inline void SetOverflow(uint64_t ctrlValue) {
        if (ctrlValue == 0) {
            tuner_sim::warn("AscendCUtils::SetOverflow(0): saturation mode is not modelled; the simulator's float "
                            "results keep inf and nan");
        }
    }
};
}  // namespace AscendC

namespace tuner_sim {
template <class... Args>
TUNER_SIM_UNCHARGED [[noreturn]] inline void assertion_failed(const char* expr, const char* fmt = nullptr,
                                                               Args... args) {
    char text[512] = "";
    if (fmt) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        if constexpr (sizeof...(Args) == 0) snprintf(text, sizeof text, "%s", fmt);
        else snprintf(text, sizeof text, fmt, args...);
#pragma GCC diagnostic pop
    }
    size_t n = 0;
    while (text[n]) ++n;
    while (n && (text[n - 1] == '\n' || text[n - 1] == ' ')) text[--n] = 0;
    fault(FaultClass::Crash, "assertion failed: %s%s%s", expr, n ? ": " : "", text);
}
}  // namespace tuner_sim

#define ascendc_assert(expr, ...) \
    ((expr) ? (void)0 : tuner_sim::assertion_failed(#expr __VA_OPT__(, ) __VA_ARGS__))

enum { KERNEL_DEBUG = 0, KERNEL_INFO = 1, KERNEL_WARN = 2, KERNEL_ERROR = 3 };
#define KERNEL_LOG(level, fmt, ...) AscendC::printf("[%s] " fmt "\n", \
    (level) == KERNEL_ERROR ? "ERROR" : (level) == KERNEL_WARN ? "WARN" : (level) == KERNEL_INFO ? "INFO" : "DEBUG" \
    __VA_OPT__(, ) __VA_ARGS__)
#define ASCENDC_ASSERT(cond, behavior) \
    do {                               \
        if (!(cond)) {                 \
            behavior;                  \
            tuner_sim::assertion_failed(#cond); \
        }                              \
    } while (0)
// CANN's CPU-debug ASSERT(cond): the kernel's assertion, as ascendc_assert without a message.
#define ASSERT(cond) ascendc_assert(cond)

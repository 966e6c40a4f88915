// Kernel debugging APIs: printf / PRINTF, DumpTensor, GetSystemCycle. Output goes to the simulator's
// stdout, one line per call, prefixed with the block that printed it.
#pragma once
#include <cstdio>
#include <string>

#include "tensor.h"

namespace tuner_sim {

void debug_print(const char* text);
int64_t system_cycle();

template <class T>
TUNER_SIM_UNCHARGED inline auto printf_arg(const T& v) {
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>) return static_cast<double>(float(v));
    else return v;
}

template <class T>
TUNER_SIM_UNCHARGED inline void dump_values(const char* where, uint32_t desc, const T* values, uint32_t count) {
    std::string text = std::string("DumpTensor ") + where + " desc=" + std::to_string(desc) + ":";
    for (uint32_t i = 0; i < count; ++i) {
        char buf[48];
        if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>) {
            snprintf(buf, sizeof buf, " %g", double(float(values[i])));
        } else {
            snprintf(buf, sizeof buf, " %lld", static_cast<long long>(values[i]));
        }
        text += buf;
    }
    debug_print(text.c_str());
}

}  // namespace tuner_sim

namespace AscendC {

template <class... Args>
TUNER_SIM_UNCHARGED __aicore__ inline void printf(__gm__ const char* fmt, Args... args) {
    char buf[1024];
    if constexpr (sizeof...(Args) == 0) {
        snprintf(buf, sizeof buf, "%s", fmt);
    } else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(buf, sizeof buf, fmt, tuner_sim::printf_arg(args)...);
#pragma GCC diagnostic pop
    }
    tuner_sim::debug_print(buf);
}

template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize,
                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DumpTensor", loc);
    const uint32_t n = dumpSize < tensor.GetSize() ? dumpSize : tensor.GetSize();
    tuner_sim::scalar_access(tensor.tuner_off(), n * sizeof(T), tuner_sim::Access::Read);
    tuner_sim::dump_values("UB", desc, tensor.tuner_ptr(), n);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize,
                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DumpTensor", loc);
    tuner_sim::gm_scalar_access(tensor.GetPhyAddr(), uint64_t(dumpSize) * sizeof(T), tuner_sim::Access::Read);
    tuner_sim::dump_values("GM", desc, tensor.GetPhyAddr(), dumpSize);
}

TUNER_SIM_UNCHARGED __aicore__ inline int64_t GetSystemCycle() { return tuner_sim::system_cycle(); }

}  // namespace AscendC

#define PRINTF AscendC::printf

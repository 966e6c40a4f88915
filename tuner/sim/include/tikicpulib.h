// CANN's CPU debug entry points (GmAlloc, GmFree, SetKernelMode, ICPU_RUN_KF) on the tuner simulator.
#pragma once
#include <cstdio>
#include <cstdlib>

#include "kernel_operator.h"

namespace AscendC {
// Each buffer is named by its allocation order ('GmAlloc #2'), so a fault message tells x from y.
inline void* GmAlloc(size_t size) {
    static int count = 0;
    char name[32];
    std::snprintf(name, sizeof name, "GmAlloc #%d", ++count);
    return tuner_sim::gm_alloc(size, name);
}
inline void GmFree(void* ptr) { tuner_sim::gm_free(ptr); }
inline void SetKernelMode(KernelMode) {}
}  // namespace AscendC

// The samples write `AscendC::SetKernelMode(KernelMode::AIV_MODE)` without `using namespace AscendC`.
using AscendC::KernelMode;

namespace tuner_sim {
template <class F>
inline int run_closure(const char* kernel, F& f, int64_t block_dim) {
    auto body = [](void* c) { (*static_cast<F*>(c))(); };
    return run_kernel(kernel, body, &f, block_dim);
}
}  // namespace tuner_sim

// Runs every block; a launch with faults ends the program with exit code 1, as a failed check does in CANN.
#define ICPU_RUN_KF(func, blockDim, ...)                                                             \
    do {                                                                                             \
        auto tuner_sim_call = [&]() { func(__VA_ARGS__); };                                          \
        if (tuner_sim::run_closure(#func, tuner_sim_call, (blockDim)) != 0) std::exit(1);            \
    } while (0)
#define ICPU_SET_TILING_KEY(key)

// CANN's CPU debug entry points (GmAlloc, GmFree, SetKernelMode, ICPU_RUN_KF) on the tuner simulator.
#pragma once
#include <cstdio>
#include <cstdlib>

#include "kernel_operator.h"
#include "tuner_sim/launch.h"
#include "tuner_sim/uncharged.h"  // again (kernel_operator.h drops it): for this host-side header's own code

namespace AscendC {
// Each buffer is named by its allocation order ('GmAlloc #2'), so a fault message tells x from y.
TUNER_SIM_UNCHARGED inline void* GmAlloc(size_t size) {
    static int count = 0;
    char name[32];
    std::snprintf(name, sizeof name, "GmAlloc #%d", ++count);
    return tuner_sim::gm_alloc(size, name);
}
TUNER_SIM_UNCHARGED inline void GmFree(void* ptr) { tuner_sim::gm_free(ptr); }
TUNER_SIM_UNCHARGED inline void SetKernelMode(KernelMode) {}
}  // namespace AscendC

// The samples write `AscendC::SetKernelMode(KernelMode::AIV_MODE)` without `using namespace AscendC`.
using AscendC::KernelMode;

// Runs every block; a launch with faults ends the program with exit code 1, as a failed check does in CANN.
#define ICPU_RUN_KF(func, blockDim, ...)                                                             \
    do {                                                                                             \
        auto tuner_sim_call = [&]() TUNER_SIM_UNCHARGED { func(__VA_ARGS__); };                      \
        if (tuner_sim::run_closure(#func, tuner_sim_call, (blockDim)) != 0) std::exit(1);            \
    } while (0)
#define ICPU_SET_TILING_KEY(key)

// Host-side kernel launches: CANN's CPU-debug ICPU_RUN_KF (tikicpulib.h) and the <<<...>>> launches of a
// program (program.h) run every block of a closure through the runtime.
#pragma once
#include <cstdint>

#include "rt.h"
#include "uncharged.h"

namespace tuner_sim {
// A named function, not a lambda: the function pointer a lambda converts to calls it through a thunk the
// compiler makes, which would be charged as the kernel's code.
template <class F>
TUNER_SIM_UNCHARGED inline void call_closure(void* closure) {
    (*static_cast<F*>(closure))();
}
template <class F>
TUNER_SIM_UNCHARGED inline int run_closure(const char* kernel, F& f, int64_t block_dim) {
    return run_kernel(kernel, &call_closure<F>, &f, block_dim);
}
}  // namespace tuner_sim

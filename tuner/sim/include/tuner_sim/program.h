// What `tuner simulate PROGRAM.asc` puts ahead of a host program: the kernel API, the ACL runtime, and the
// function its <<<...>>> launches are rewritten to (tuner/sim/program.py: `k<<<n, l2, stream>>>(args)` becomes
// `tuner_sim::launch("k", [&]() { k(args); }, n, l2, stream)`).
#pragma once
#include "kernel_operator.h"
#include "acl/acl.h"
#include "launch.h"
#include "uncharged.h"  // again (kernel_operator.h drops it): for the rewritten launches' closures

namespace tuner_sim {
// Runs every block now (a launch is synchronous here); its faults make the stream's next synchronisation fail.
// `dynamic_ub_or_l2` (a launch's second value) and the stream have no effect on the simulator. Returns what
// CANN's generated aclrtlaunch_<kernel> returns for a launch it accepted (0), for ACLRT_LAUNCH_KERNEL.
template <class F, class... Rest>
TUNER_SIM_UNCHARGED inline uint32_t launch(const char* kernel, F body, int64_t block_dim, Rest...) {
    acl::pending_faults() += run_closure(kernel, body, block_dim);
    return 0;
}
}  // namespace tuner_sim

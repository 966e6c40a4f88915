// TUNER_SIM_UNCHARGED marks the simulator's own code compiled into a kernel. A kernel's code is compiled with
// instrumentation (KERNEL_FLAGS in tuner/sim/build.py) that charges its basic blocks and its loads and stores
// of UB and GM to the scalar unit (runtime.cpp, "kernel scalar code"); the functions of these headers are not
// charged, since each API call charges its own cost and an instrumented header would charge it again. A marked
// function is never inlined into an instrumented one, so nothing it does is counted as the kernel's.
// fp16.h is left unmarked on purpose: half and bfloat16_t are the kernel's own values, so reading one out of
// UB or GM is the kernel's access.
// kernel_operator.h undefines it once its headers are read, so a kernel cannot mark its own code; entry.h and
// tikicpulib.h, read after it, include this file again (hence no include guard).
#ifndef TUNER_SIM_UNCHARGED
#if __has_attribute(no_sanitize_coverage)
#define TUNER_SIM_UNCHARGED __attribute__((no_sanitize_coverage, no_sanitize_address))
#else  // before GCC 12: the headers' basic blocks are counted as the kernel's too (their accesses are not)
#define TUNER_SIM_UNCHARGED __attribute__((no_sanitize_address))
#endif
#endif

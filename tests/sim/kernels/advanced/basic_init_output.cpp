// InitOutput (kernel_operator_common_intf.h) driver: the first n elements of z set to `value`, the rest left as
// they came in (z is in/out); `reserved` bytes of UB taken by InitBuffer first (tests/sim/test_basic_extras.py).
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

extern "C" __global__ __aicore__ void basic_init_output(GM_ADDR z, uint32_t n, float value, uint32_t reserved)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> r;
    if (reserved > 0) pipe.InitBuffer(r, reserved);
    GlobalTensor<DTYPE> zGm;
    zGm.SetGlobalBuffer((__gm__ DTYPE*)z);
    InitOutput<DTYPE>(zGm, n, DTYPE(value));
}

// Offsets and extents that wrap around 32 bits must not slip past the UB bounds check.
// One bug per BUG value (BUG=0 is clean); the line marked `// FAULT n` is where it must be reported.
//   1 a count-form vector op whose byte count wraps (0x40000010 floats = 2^32 + 64 bytes)
//   2 GetValue(-1): index + 1 wraps to 0
//   3 a view x[-16] (a uint32 offset that wraps) used as an operand
//   4 counter mode with a negative length (the lane count rounds up past 2^64)
#include "kernel_operator.h"
using namespace AscendC;

#ifndef BUG
#define BUG 0
#endif

constexpr uint32_t TILE = 256;  // floats per tile

extern "C" __global__ __aicore__ void wrap_kernel(GM_ADDR x, GM_ADDR z)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> aBuf, bBuf;
    pipe.InitBuffer(aBuf, TILE * sizeof(float));
    pipe.InitBuffer(bBuf, TILE * sizeof(float));
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, TILE);
    zGm.SetGlobalBuffer((__gm__ float *)z, TILE);
    LocalTensor<float> a = aBuf.Get<float>();
    LocalTensor<float> b = bBuf.Get<float>();
    DataCopy(a, xGm, TILE);
    PipeBarrier<PIPE_ALL>();
#if BUG == 1
    Adds(b, a, 1.0f, int32_t(0x40000010));  // FAULT 1
#elif BUG == 2
    int32_t i = -1;
    b.SetValue(0, b.GetValue(i));  // FAULT 2
#elif BUG == 3
    Adds(b[-16], a, 1.0f, 16);  // FAULT 3
#elif BUG == 4
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(-1);
    Adds<float, false>(b, a, 1.0f, MASK_PLACEHOLDER, 1, {1, 1, 8, 8});  // FAULT 4
    SetMaskNorm();
    ResetMask();
#endif
    Adds(b, a, 1.0f, TILE);
    PipeBarrier<PIPE_ALL>();
    DataCopy(zGm, b, TILE);
}

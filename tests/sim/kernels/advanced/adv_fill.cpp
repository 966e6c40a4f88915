// Fill (高阶API/张量变换/Fill-97.md) driver: each block fills its `len` elements of z with its block index plus
// `value`; with `fillBytes` > 0 a buffer of that size is taken by InitBuffer first (the docs: Fill before it).
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

struct FillTiling {
    uint64_t len;
    uint64_t fillBytes;
    double value;
};

extern "C" __global__ __aicore__ void adv_fill(GM_ADDR z, FillTiling t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> taken;
    if (t.fillBytes > 0) pipe.InitBuffer(taken, t.fillBytes);
    GlobalTensor<DTYPE> zGm;
    zGm.SetGlobalBuffer((__gm__ DTYPE*)z + t.len * GetBlockIdx(), t.len);
    Fill(zGm, t.len, DTYPE(float(t.value) + float(GetBlockIdx())));
}

// Sum (归约操作/Sum接口/Sum.md) driver: z[r] = sum of the first n elements of row r of x [m, inner]; form 0
// passes a sharedTmpBuffer of tmpBytes, form 1 uses the API's own space.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

struct SumTiling {
    uint64_t m;
    uint64_t inner;
    uint64_t n;
    uint64_t outLen;  // z's length: m rounded up to 32 bytes
    uint64_t form;
    uint64_t tmpBytes;
};

extern "C" __global__ __aicore__ void adv_sum(GM_ADDR x, GM_ADDR z, SumTiling t)
{
    using T = DTYPE;
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, zb, tb;
    const uint32_t total = uint32_t(t.m * t.inner);
    // One repeat of slack past x: the runtime bounds-checks every block of a repeat-form reduction's last repeat,
    // masked-in or not, and Sum's A2 expansion reads the last row with a whole repeat.
    pipe.InitBuffer(xb, total * sizeof(T) + 256);
    pipe.InitBuffer(zb, uint32_t(t.outLen * sizeof(T)));
    if (t.tmpBytes > 0) pipe.InitBuffer(tb, uint32_t(t.tmpBytes));
    GlobalTensor<T> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, total);
    zGm.SetGlobalBuffer((__gm__ T*)z, t.outLen);
    LocalTensor<T> xl = xb.Get<T>(), zl = zb.Get<T>();
    DataCopy(xl, xGm, total);
    Duplicate(zl, T(0), int32_t(t.outLen));
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    SumParams params;
    params.outter = uint32_t(t.m);
    params.inner = uint32_t(t.inner);
    params.n = uint32_t(t.n);
    if (t.form == 0) {
        LocalTensor<uint8_t> tmp;
        if (t.tmpBytes > 0) tmp = tb.Get<uint8_t>();
        Sum(zl, xl, tmp, params);
    } else {
        Sum(zl, xl, params);
    }
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(zGm, zl, uint32_t(t.outLen));
}

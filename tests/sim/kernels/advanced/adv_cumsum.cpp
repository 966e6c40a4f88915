// CumSum (数学计算/CumSum接口/CumSum.md) driver, first axis: z = running sums down the rows of x [m, k], last =
// z's last row (outputLastRow); `form` 0 passes a sharedTmpBuffer of tmpBytes, 1 uses the API's own space,
// 2 is form 0 with outputLastRow = false (last stays zero).
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

struct CumSumTiling {
    uint64_t m;
    uint64_t k;
    uint64_t form;
    uint64_t tmpBytes;
};

constexpr CumSumConfig kFirstAxis = {false, false, true};
constexpr CumSumConfig kFirstAxisNoLastRow = {false, false, false};

extern "C" __global__ __aicore__ void adv_cumsum(GM_ADDR x, GM_ADDR z, GM_ADDR last, CumSumTiling t)
{
    using T = DTYPE;
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, zb, lb, tb;
    const uint32_t n = uint32_t(t.m * t.k);
    pipe.InitBuffer(xb, n * sizeof(T));
    pipe.InitBuffer(zb, n * sizeof(T));
    pipe.InitBuffer(lb, uint32_t(t.k * sizeof(T)));
    if (t.tmpBytes > 0) pipe.InitBuffer(tb, uint32_t(t.tmpBytes));
    GlobalTensor<T> xGm, zGm, lGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, n);
    zGm.SetGlobalBuffer((__gm__ T*)z, n);
    lGm.SetGlobalBuffer((__gm__ T*)last, t.k);
    LocalTensor<T> xl = xb.Get<T>(), zl = zb.Get<T>(), ll = lb.Get<T>();
    DataCopy(xl, xGm, n);
    Duplicate(ll, T(0), int32_t(t.k));
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    const CumSumInfo info{uint32_t(t.m), uint32_t(t.k)};
    LocalTensor<uint8_t> tmp;
    if (t.tmpBytes > 0) tmp = tb.Get<uint8_t>();
    if (t.form == 0) {
        CumSum<T, kFirstAxis>(zl, ll, xl, tmp, info);
    } else if (t.form == 1) {
        CumSum<T, kFirstAxis>(zl, ll, xl, info);
    } else {
        CumSum<T, kFirstAxisNoLastRow>(zl, ll, xl, tmp, info);
    }
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(zGm, zl, n);
    DataCopy(lGm, ll, uint32_t(t.k));
}

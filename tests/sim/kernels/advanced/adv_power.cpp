// Power (数学计算/Power接口/Power.md) driver: z = x ^ y (form 0-3: the four forms of tensor ^ tensor), x ^ s
// (4-7), s ^ y (8-11), form % 4: 0 (tmp, count), 1 (tmp), 2 (count), 3 () -- 2 and 3 with the API's own space.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

struct PowTiling {
    uint64_t form;
    uint64_t len;
    uint64_t count;
    uint64_t tmpBytes;
    double scalar;
};

extern "C" __global__ __aicore__ void adv_power(GM_ADDR x, GM_ADDR y, GM_ADDR z, PowTiling t)
{
    using T = DTYPE;
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, yb, zb, tb;
    const uint32_t len = uint32_t(t.len), n = uint32_t(t.count);
    pipe.InitBuffer(xb, len * sizeof(T));
    pipe.InitBuffer(yb, len * sizeof(T));
    pipe.InitBuffer(zb, len * sizeof(T));
    if (t.tmpBytes > 0) pipe.InitBuffer(tb, uint32_t(t.tmpBytes));
    GlobalTensor<T> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, len);
    yGm.SetGlobalBuffer((__gm__ T*)y, len);
    zGm.SetGlobalBuffer((__gm__ T*)z, len);
    LocalTensor<T> xl = xb.Get<T>(), yl = yb.Get<T>(), zl = zb.Get<T>();
    DataCopy(xl, xGm, len);
    DataCopy(yl, yGm, len);
    Duplicate(zl, T(0), int32_t(len));
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    LocalTensor<uint8_t> tmp;
    if (t.tmpBytes > 0) tmp = tb.Get<uint8_t>();
    const T s = T(float(t.scalar));
    switch (t.form) {
        case 0: Power(zl, xl, yl, tmp, n); break;
        case 1: Power(zl, xl, yl, tmp); break;
        case 2: Power(zl, xl, yl, n); break;
        case 3: Power(zl, xl, yl); break;
        case 4: Power(zl, xl, s, tmp, n); break;
        case 5: Power(zl, xl, s, tmp); break;
        case 6: Power(zl, xl, s, n); break;
        case 7: Power(zl, xl, s); break;
        case 8: Power(zl, s, yl, tmp, n); break;
        case 9: Power(zl, s, yl, tmp); break;
        case 10: Power(zl, s, yl, n); break;
        default: Power(zl, s, yl); break;
    }
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(zGm, zl, len);
}

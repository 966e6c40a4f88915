// The advanced ReduceMax / ReduceMin (高阶API/归约操作/ReduceMax接口, ReduceMin接口) driver: x holds `first` rows
// of `padLast` elements (the inner axis padded to 32 bytes); z gets the reduction over the rows' first `last`
// elements (AR: one per row) or over the rows (RA: one per column). op 0 max, 1 min, 2 sum (float); pattern 0 AR, 1 RA;
// form 0 sharedTmpBuffer of tmpBytes, 1 the API's own space, 2 isReuseSource (tests/sim/test_basic_extras.py).
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

template <class P, bool reuse>
__aicore__ inline void Run(uint32_t op, uint32_t form, LocalTensor<DTYPE>& zl, LocalTensor<DTYPE>& xl,
                           LocalTensor<uint8_t>& tmp, const uint32_t shape[])
{
    if (op == 0) {
        if (form == 1) ReduceMax<DTYPE, P, reuse>(zl, xl, shape, true);
        else ReduceMax<DTYPE, P, reuse>(zl, xl, tmp, shape, true);
    } else if (op == 1) {
        if (form == 1) ReduceMin<DTYPE, P, reuse>(zl, xl, shape, true);
        else ReduceMin<DTYPE, P, reuse>(zl, xl, tmp, shape, true);
    } else if constexpr (std::is_same_v<DTYPE, float>) {
        if (form == 1) ReduceSum<DTYPE, P, reuse>(zl, xl, shape, true);
        else ReduceSum<DTYPE, P, reuse>(zl, xl, tmp, shape, true);
    }
}

extern "C" __global__ __aicore__ void basic_reduce(GM_ADDR x, GM_ADDR z, uint32_t first, uint32_t last,
                                                   uint32_t padLast, uint32_t outLen, uint32_t op, uint32_t pattern,
                                                   uint32_t form, uint32_t tmpBytes)
{
    using T = DTYPE;
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, zb, tb;
    const uint32_t total = first * padLast;
    pipe.InitBuffer(xb, total * sizeof(T));
    pipe.InitBuffer(zb, outLen * sizeof(T));
    if (form == 0) pipe.InitBuffer(tb, tmpBytes);
    GlobalTensor<T> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, total);
    zGm.SetGlobalBuffer((__gm__ T*)z, outLen);
    LocalTensor<T> xl = xb.Get<T>(), zl = zb.Get<T>();
    LocalTensor<uint8_t> tmp;
    if (form == 0) tmp = tb.Get<uint8_t>();
    DataCopy(xl, xGm, total);
    Duplicate(zl, T(0), int32_t(outLen));
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    const uint32_t shape[2] = {first, last};
    if (pattern == 0) {
        if (form == 2) Run<Pattern::Reduce::AR, true>(op, form, zl, xl, tmp, shape);
        else Run<Pattern::Reduce::AR, false>(op, form, zl, xl, tmp, shape);
    } else {
        if (form == 2) Run<Pattern::Reduce::RA, true>(op, form, zl, xl, tmp, shape);
        else Run<Pattern::Reduce::RA, false>(op, form, zl, xl, tmp, shape);
    }
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(zGm, zl, outLen);
}

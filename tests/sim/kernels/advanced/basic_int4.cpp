// Cast between int4b_t and half (Cast.md) driver: x holds n halves (TO_INT4 1) or n/2 bytes of packed int4b_t
// (TO_INT4 0), z the other side; form 0 the count form (`count` elements), 1 the mask form with `mask` lanes a repeat over
// n / 128 repeats, contiguous (int4b_t repeat stride 2 blocks, half 8); `round` is the RoundMode
// (tests/sim/test_basic_extras.py).
#include "kernel_operator.h"
using namespace AscendC;

#ifndef TO_INT4
#define TO_INT4 1
#endif

extern "C" __global__ __aicore__ void basic_int4(GM_ADDR x, GM_ADDR z, uint32_t n, uint32_t form, uint32_t round,
                                                 uint32_t mask, uint32_t count)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> hb, ib;
    pipe.InitBuffer(hb, n * sizeof(half));
    pipe.InitBuffer(ib, n / 2);
    LocalTensor<half> h = hb.Get<half>();
    LocalTensor<int8_t> packed = ib.Get<int8_t>();
    LocalTensor<int4b_t> q = packed.ReinterpretCast<int4b_t>();
    GlobalTensor<half> hGm;
    GlobalTensor<int8_t> iGm;
    const RoundMode mode = RoundMode(round);
#if TO_INT4
    hGm.SetGlobalBuffer((__gm__ half*)x, n);
    iGm.SetGlobalBuffer((__gm__ int8_t*)z, n / 2);
    DataCopy(h, hGm, n);
    Duplicate(packed.ReinterpretCast<int16_t>(), int16_t(0x5555), int32_t(n / 4));  // what masked lanes keep
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    if (form == 0) Cast(q, h, mode, count);
    else Cast(q, h, mode, uint64_t(mask), uint8_t(n / 128), {1, 1, 2, 8});
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(iGm, packed, n / 2);
#else
    iGm.SetGlobalBuffer((__gm__ int8_t*)x, n / 2);
    hGm.SetGlobalBuffer((__gm__ half*)z, n);
    DataCopy(packed, iGm, n / 2);
    Duplicate(h, half(100.0f), int32_t(n));
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    if (form == 0) Cast(h, q, mode, count);
    else Cast(h, q, mode, uint64_t(mask), uint8_t(n / 128), {1, 1, 8, 2});
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(hGm, h, n);
#endif
}

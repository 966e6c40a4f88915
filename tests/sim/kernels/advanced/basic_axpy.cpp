// The advanced Axpy (高阶API/数学计算/Axpy接口/Axpy-80.md) driver: z = a * x + y for n elements, with
// DST/SRC the (dstTensor, srcTensor) types and a sharedTmpBuffer of tmpBytes (tests/sim/test_basic_extras.py).
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DST
#define DST float
#endif
#ifndef SRC
#define SRC half
#endif

extern "C" __global__ __aicore__ void basic_axpy(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t n, uint32_t padded,
                                                 uint32_t tmpBytes, float a)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, yb, tb;
    pipe.InitBuffer(xb, padded * sizeof(SRC));
    pipe.InitBuffer(yb, padded * sizeof(DST));
    if (tmpBytes > 0) pipe.InitBuffer(tb, tmpBytes);
    GlobalTensor<SRC> xGm;
    GlobalTensor<DST> yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ SRC*)x, padded);
    yGm.SetGlobalBuffer((__gm__ DST*)y, padded);
    zGm.SetGlobalBuffer((__gm__ DST*)z, padded);
    LocalTensor<SRC> xl = xb.Get<SRC>();
    LocalTensor<DST> yl = yb.Get<DST>();
    DataCopy(xl, xGm, padded);
    DataCopy(yl, yGm, padded);
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    LocalTensor<uint8_t> tmp;
    if (tmpBytes > 0) tmp = tb.Get<uint8_t>();
    Axpy(yl, xl, SRC(a), tmp, n);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(zGm, yl, padded);
}

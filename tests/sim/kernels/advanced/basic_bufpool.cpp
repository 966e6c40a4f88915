// A custom TBufPool (自定义TBufPool/EXTERN_IMPL_BUFPOOL宏.md) driver, after asc-devkit's tbufpool_management:
// MyPool places two input queues and one output queue (or, with TBUF 1, the second input in a TBuf) one after
// the other in a pool of 3 * len bytes; z = x + y (tests/sim/test_basic_extras.py). BUG 1 places a buffer past
// the pool, BUG 2 asks for a handle past BUFID_SIZE.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef TBUF
#define TBUF 0
#endif
#ifndef BUG
#define BUG 0
#endif

class MyPool {
public:
    __aicore__ inline MyPool() { Init(); }
    template <class T>
    __aicore__ inline bool InitBuffer(T& que, uint8_t num, uint32_t len)
    {
        len = (len + 31) / 32 * 32;
        auto ptr = GetBufHandle(GetCurBufSize() + (BUG == 2 ? 4 : 0));
        auto addr = GetCurAddr() + (BUG == 1 ? 32 : 0);
        que.InitStartBufHandle(ptr, num, len);
        for (uint32_t i = 0; i < num; i++) que.InitBufHandle(this, i, ptr, addr + i * len, len);
        SetCurAddr(addr + num * len);
        SetCurBufSize(GetCurBufSize() + num);
        return true;
    }
    template <TPosition bufPos>
    __aicore__ inline bool InitBuffer(TBuf<bufPos>& buf, uint32_t len)
    {
        len = (len + 31) / 32 * 32;
        auto ptr = GetBufHandle(GetCurBufSize());
        buf.InitStartBufHandle(ptr, 1, len);
        buf.InitBufHandle(this, 0, ptr, GetCurAddr(), len);
        SetCurAddr(GetCurAddr() + len);
        SetCurBufSize(GetCurBufSize() + 1);
        return true;
    }
    EXTERN_IMPL_BUFPOOL(MyPool, TPosition::VECCALC, 4);
};

extern "C" __global__ __aicore__ void basic_bufpool(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t n)
{
    TPipe pipe;
    MyPool pool;
    TQue<TPosition::VECIN, 1> xq, yq;
    TBuf<TPosition::VECCALC> yb;
    TQue<TPosition::VECOUT, 1> zq;
    GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, n);
    yGm.SetGlobalBuffer((__gm__ float*)y, n);
    zGm.SetGlobalBuffer((__gm__ float*)z, n);
    const uint32_t len = n * sizeof(float);
    TBuf<TPosition::VECCALC> before;
    pipe.InitBuffer(before, 64);  // the pool does not start at UB address 0
    pipe.InitBufPool(pool, 3 * len);
    pool.InitBuffer(xq, 1, len);
    if (TBUF) pool.InitBuffer(yb, len);
    else pool.InitBuffer(yq, 1, len);
    pool.InitBuffer(zq, 1, len);
    LocalTensor<float> xl = xq.AllocTensor<float>();
    LocalTensor<float> yl = TBUF ? yb.Get<float>() : yq.AllocTensor<float>();
    DataCopy(xl, xGm, n);
    DataCopy(yl, yGm, n);
    xq.EnQue(xl);
    if (!TBUF) yq.EnQue(yl);
    xl = xq.DeQue<float>();
    if (!TBUF) yl = yq.DeQue<float>();
    else PipeBarrier<PIPE_ALL>();
    LocalTensor<float> zl = zq.AllocTensor<float>();
    Add(zl, xl, yl, int32_t(n));
    zq.EnQue(zl);
    xq.FreeTensor(xl);
    if (!TBUF) yq.FreeTensor(yl);
    zl = zq.DeQue<float>();
    DataCopy(zGm, zl, n);
    zq.FreeTensor(zl);
    pool.Reset();
}

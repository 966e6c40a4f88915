// TBufPool (TPipe::InitBufPool, TBufPool::InitBufPool / InitBuffer / Reset): two stages reuse the same UB.
// Stage 1 computes z1 = x + y with tbufPool1's queues, stage 2 z2 = x - y with tbufPool2's, which shares
// tbufPool1's start and length (SCENARIO 1) or is carved next to a queue of an outer pool (SCENARIO 2).
// BUG=0 is clean. A line marked `// FAULT n` is where the fault of BUG=n must be reported.
//   1 ub-overflow    a pool's buffers exceed the pool
//   2 queue-misuse   more buffers than the pool's bufIDSize
//   3 ub-overflow    a shared pool longer than the pool it shares
//   4 sync-hazard    stage 2 reuses the UB without tbufPool1.Reset() (and with hand-placed buffers)
#include "kernel_operator.h"
using namespace AscendC;

#ifndef BUG
#define BUG 0
#endif
#ifndef SCENARIO
#define SCENARIO 1
#endif

constexpr uint32_t N = 512;  // halves per block
constexpr uint32_t BYTES = N * sizeof(half);

class Stages {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z1, GM_ADDR z2, TPipe* p)
    {
        pipe = p;
        const int64_t off = GetBlockIdx() * N;
        xGm.SetGlobalBuffer((__gm__ half*)x + off, N);
        yGm.SetGlobalBuffer((__gm__ half*)y + off, N);
        z1Gm.SetGlobalBuffer((__gm__ half*)z1 + off, N);
        z2Gm.SetGlobalBuffer((__gm__ half*)z2 + off, N);
    }
    __aicore__ inline void Run()
    {
#if SCENARIO == 1
#if BUG == 3
        pipe->InitBufPool(pool1, BYTES * 3);
        pipe->InitBufPool(pool2, BYTES * 4, pool1);  // FAULT 3
#else
        pipe->InitBufPool(pool1, BYTES * 3);
        pipe->InitBufPool(pool2, BYTES * 3, pool1);
#endif
#else
        pipe->InitBufPool(pool0, BYTES * 4);
        pool0.InitBufPool(pool1, BYTES * 3);
        pool0.InitBuffer(spare, 1, BYTES);
        pool0.InitBufPool(pool2, BYTES * 3, pool1);
#endif
        pool1.InitBuffer(in0, 1, BYTES);
        pool1.InitBuffer(in1, 1, BYTES);
#if BUG == 1
        pool1.InitBuffer(out, 2, BYTES);  // FAULT 1
#else
        pool1.InitBuffer(out, 1, BYTES);
#endif
        Stage(z1Gm, true);
#if BUG != 4
        pool1.Reset();
#endif
        pool2.InitBuffer(in2, 1, BYTES);
        pool2.InitBuffer(in3, 1, BYTES);
#if BUG == 2
        pool2.InitBuffer(tmp, BYTES - 32);
        pool2.InitBuffer(extra, 1, 32);  // FAULT 2
#else
        pool2.InitBuffer(tmp, BYTES);
#endif
        Stage2();
        pool2.Reset();
    }

private:
    __aicore__ inline void Stage(GlobalTensor<half>& dst, bool add)
    {
        LocalTensor<half> a = in0.AllocTensor<half>();
        LocalTensor<half> b = in1.AllocTensor<half>();
        DataCopy(a, xGm, N);
        DataCopy(b, yGm, N);
        in0.EnQue(a);
        in1.EnQue(b);
        a = in0.DeQue<half>();
        b = in1.DeQue<half>();
        LocalTensor<half> c = out.AllocTensor<half>();
        if (add) Add(c, a, b, N);
        else Sub(c, a, b, N);
        out.EnQue(c);
        in0.FreeTensor(a);
        in1.FreeTensor(b);
        c = out.DeQue<half>();
        DataCopy(dst, c, N);
        out.FreeTensor(c);
    }
    // Stage 2 computes into a TBuf of pool2 (the first stage's output buffer's UB).
    __aicore__ inline void Stage2()
    {
        LocalTensor<half> a = in2.AllocTensor<half>();
        LocalTensor<half> b = in3.AllocTensor<half>();
        DataCopy(a, xGm, N);  // FAULT 4
        DataCopy(b, yGm, N);
        in2.EnQue(a);
        in3.EnQue(b);
        a = in2.DeQue<half>();
        b = in3.DeQue<half>();
        LocalTensor<half> c = tmp.Get<half>();
        Sub(c, a, b, N);
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
        DataCopy(z2Gm, c, N);
        in2.FreeTensor(a);
        in3.FreeTensor(b);
    }

    TPipe* pipe;
    TBufPool<TPosition::VECCALC> pool0, pool1;
    TBufPool<TPosition::VECCALC, 3> pool2;
    TQue<TPosition::VECIN, 1> in0, in1, in2, in3, spare, extra;
    TQue<TPosition::VECOUT, 1> out;
    TBuf<TPosition::VECCALC> tmp;
    GlobalTensor<half> xGm, yGm, z1Gm, z2Gm;
};

extern "C" __global__ __aicore__ void bufpool_stages(GM_ADDR x, GM_ADDR y, GM_ADDR z1, GM_ADDR z2)
{
    TPipe pipe;
    Stages op;
    op.Init(x, y, z1, z2, &pipe);
    op.Run();
}

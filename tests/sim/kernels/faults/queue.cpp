// Queue misuse. BUG=0 is clean; every other value breaks the Alloc -> EnQue -> DeQue -> Free cycle once:
//   1 DeQue on a queue nothing was EnQue'd to
//   2 EnQue past the queue depth (depth 1, two EnQue without a DeQue)
//   3 nine tensors alive on VECIN at once (A2 allows eight): eight held in a side queue, one more in the loop
//   4 a tensor that is never freed (a warning: harmless on the NPU)
//   5 FreeTensor twice on the same tensor
// A line marked `// FAULT n` is where the fault of BUG=n must be reported (tests/sim/test_faults.py).
#include "kernel_operator.h"
using namespace AscendC;

#ifndef BUG
#define BUG 0
#endif

constexpr uint32_t TILE = 128;  // halves per tile

extern "C" __global__ __aicore__ void queue_fault(GM_ADDR x, GM_ADDR z, uint32_t n)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    GlobalTensor<half> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ half *)x, n);
    zGm.SetGlobalBuffer((__gm__ half *)z, n);
    pipe.InitBuffer(inQ, 2, TILE * sizeof(half));
#if BUG == 3
    TQue<QuePosition::VECIN, 1> side;
    pipe.InitBuffer(side, 8, 32);
    LocalTensor<half> held[8];
    for (int i = 0; i < 8; ++i) held[i] = side.AllocTensor<half>();
#endif
    pipe.InitBuffer(outQ, 2, TILE * sizeof(half));
    for (uint32_t t = 0; t < n / TILE; ++t) {
        LocalTensor<half> xl = inQ.AllocTensor<half>();  // FAULT 3 4
        DataCopy(xl, xGm[t * TILE], TILE);
#if BUG == 1
        LocalTensor<half> early = outQ.DeQue<half>();  // FAULT 1
#endif
        inQ.EnQue(xl);
#if BUG == 2
        LocalTensor<half> second = inQ.AllocTensor<half>();
        DataCopy(second, xGm[t * TILE], TILE);
        inQ.EnQue(second);  // FAULT 2
#endif
        xl = inQ.DeQue<half>();
        LocalTensor<half> zl = outQ.AllocTensor<half>();
        Relu(zl, xl, TILE);
        outQ.EnQue(zl);
#if BUG == 4
        if (t + 1 < n / TILE) inQ.FreeTensor(xl);
#else
        inQ.FreeTensor(xl);
#endif
#if BUG == 5
        inQ.FreeTensor(xl);  // FAULT 5
#endif
        zl = outQ.DeQue<half>();
        DataCopy(zGm[t * TILE], zl, TILE);
        outQ.FreeTensor(zl);
    }
}

// In-place count-form vector ops on a dequeued tensor: Exp(x, x, n), Add(x, x, y, n), Muls(x, x, c, n),
// the result written out from the input buffer via a VECOUT copy. PipeBarrier<PIPE_V> between dependent
// vector ops keeps it correct with --no-auto-sync too.   z = 0.5 * (exp(x) + y)
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TILE = 128;  // halves per tile

extern "C" __global__ __aicore__ void inplace_ops(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t n)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> xQ, yQ;
    TQue<QuePosition::VECOUT, 2> zQ;
    pipe.InitBuffer(xQ, 2, TILE * sizeof(half));
    pipe.InitBuffer(yQ, 2, TILE * sizeof(half));
    pipe.InitBuffer(zQ, 2, TILE * sizeof(half));
    GlobalTensor<half> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ half *)x, n);
    yGm.SetGlobalBuffer((__gm__ half *)y, n);
    zGm.SetGlobalBuffer((__gm__ half *)z, n);
    for (uint32_t t = 0; t < n / TILE; ++t) {
        LocalTensor<half> xl = xQ.AllocTensor<half>();
        LocalTensor<half> yl = yQ.AllocTensor<half>();
        DataCopy(xl, xGm[t * TILE], TILE);
        DataCopy(yl, yGm[t * TILE], TILE);
        xQ.EnQue(xl);
        yQ.EnQue(yl);
        xl = xQ.DeQue<half>();
        yl = yQ.DeQue<half>();
        Exp(xl, xl, TILE);
        PipeBarrier<PIPE_V>();
        Add(xl, xl, yl, TILE);
        PipeBarrier<PIPE_V>();
        Muls(xl, xl, (half)0.5f, TILE);
        PipeBarrier<PIPE_V>();
        LocalTensor<half> zl = zQ.AllocTensor<half>();
        DataCopy(zl, xl, TILE);
        zQ.EnQue(zl);
        xQ.FreeTensor(xl);
        yQ.FreeTensor(yl);
        zl = zQ.DeQue<half>();
        DataCopy(zGm[t * TILE], zl, TILE);
        zQ.FreeTensor(zl);
    }
}

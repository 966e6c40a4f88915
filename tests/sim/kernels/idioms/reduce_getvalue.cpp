// Scalar reads of reduction results: per row, ReduceSum and ReduceMax, then GetValue of each, then
// SetValue of both into an output tile that DataCopy writes out. Under auto-sync the compiler orders
// V->S and S->MTE3; with EXPLICIT=1 the kernel does it by hand (V_S and S_MTE3 flag pairs), as needed
// with --no-auto-sync.   stats[r] = {sum(x[r]), max(x[r]), 0 ...} (8 floats per row)
#include "kernel_operator.h"
using namespace AscendC;

#ifndef EXPLICIT
#define EXPLICIT 0
#endif

extern "C" __global__ __aicore__ void reduce_getvalue(GM_ADDR x, GM_ADDR stats, uint32_t rows, uint32_t cols)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    TBuf<QuePosition::VECCALC> sumBuf, maxBuf, workBuf;
    pipe.InitBuffer(inQ, 1, rows * cols * sizeof(float));
    pipe.InitBuffer(outQ, 1, rows * 8 * sizeof(float));
    pipe.InitBuffer(sumBuf, 32);
    pipe.InitBuffer(maxBuf, 32);
    pipe.InitBuffer(workBuf, cols * sizeof(float));
    GlobalTensor<float> xGm, sGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, rows * cols);
    sGm.SetGlobalBuffer((__gm__ float *)stats, rows * 8);

    LocalTensor<float> xl = inQ.AllocTensor<float>();
    DataCopy(xl, xGm, rows * cols);
    inQ.EnQue(xl);
    xl = inQ.DeQue<float>();
    LocalTensor<float> out = outQ.AllocTensor<float>();
    LocalTensor<float> s = sumBuf.Get<float>(), m = maxBuf.Get<float>(), work = workBuf.Get<float>();
    Duplicate(out, 0.0f, rows * 8);
#if EXPLICIT
    event_t vs = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
    SetFlag<HardEvent::V_S>(vs);
    WaitFlag<HardEvent::V_S>(vs);
#endif
    for (uint32_t r = 0; r < rows; ++r) {
        ReduceSum(s, xl[r * cols], work, cols);
        ReduceMax(m, xl[r * cols], work, cols);
#if EXPLICIT
        SetFlag<HardEvent::V_S>(vs);
        WaitFlag<HardEvent::V_S>(vs);
#endif
        float sum = s.GetValue(0);
        float mx = m.GetValue(0);
        out.SetValue(r * 8, sum);
        out.SetValue(r * 8 + 1, mx);
    }
#if EXPLICIT
    event_t smte3 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_MTE3));
    SetFlag<HardEvent::S_MTE3>(smte3);
    WaitFlag<HardEvent::S_MTE3>(smte3);
#endif
    outQ.EnQue(out);
    inQ.FreeTensor(xl);
    out = outQ.DeQue<float>();
    DataCopy(sGm, out, rows * 8);
    outQ.FreeTensor(out);
}

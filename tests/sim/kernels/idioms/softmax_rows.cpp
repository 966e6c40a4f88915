// Row-wise softmax with whole rows resident in UB, rows split over blocks, a tile of rows per queue slot:
// per row ReduceMax -> GetValue -> Adds(-max) -> Exp -> ReduceSum -> GetValue -> Muls(1/sum).
// Relies on auto-sync for V->S and V->V; EXPLICIT=1 orders them by hand for --no-auto-sync.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef EXPLICIT
#define EXPLICIT 0
#endif

struct SoftmaxRowsTiling {
    uint32_t rowsPerBlock;
    uint32_t cols;          // multiple of 8 floats
    uint32_t rowsPerTile;   // divides rowsPerBlock
};

class KernelSoftmaxRows {
public:
    __aicore__ inline KernelSoftmaxRows() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxRowsTiling &t)
    {
        tiling = t;
        const uint32_t len = t.rowsPerBlock * t.cols;
        xGm.SetGlobalBuffer((__gm__ float *)x + len * GetBlockIdx(), len);
        yGm.SetGlobalBuffer((__gm__ float *)y + len * GetBlockIdx(), len);
        pipe.InitBuffer(inQ, 2, t.rowsPerTile * t.cols * sizeof(float));
        pipe.InitBuffer(outQ, 2, t.rowsPerTile * t.cols * sizeof(float));
        pipe.InitBuffer(statBuf, 64);
        pipe.InitBuffer(workBuf, t.cols * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        const uint32_t tiles = tiling.rowsPerBlock / tiling.rowsPerTile;
        for (uint32_t i = 0; i < tiles; ++i) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void Sync()
    {
#if EXPLICIT
        PipeBarrier<PIPE_V>();
#endif
    }
    __aicore__ inline float Scalar(const LocalTensor<float> &t)
    {
#if EXPLICIT
        event_t e = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(e);
        WaitFlag<HardEvent::V_S>(e);
#endif
        return t.GetValue(0);
    }
    __aicore__ inline void CopyIn(uint32_t i)
    {
        LocalTensor<float> xl = inQ.AllocTensor<float>();
        DataCopy(xl, xGm[i * tiling.rowsPerTile * tiling.cols], tiling.rowsPerTile * tiling.cols);
        inQ.EnQue(xl);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xl = inQ.DeQue<float>();
        LocalTensor<float> yl = outQ.AllocTensor<float>();
        LocalTensor<float> maxT = statBuf.Get<float>(), sumT = statBuf.Get<float>()[8];
        LocalTensor<float> work = workBuf.Get<float>();
        const uint32_t c = tiling.cols;
        for (uint32_t r = 0; r < tiling.rowsPerTile; ++r) {
            ReduceMax(maxT, xl[r * c], work, c);
            const float mx = Scalar(maxT);
            Adds(yl[r * c], xl[r * c], -mx, c);
            Sync();
            Exp(yl[r * c], yl[r * c], c);
            Sync();
            ReduceSum(sumT, yl[r * c], work, c);
            const float sum = Scalar(sumT);
            Muls(yl[r * c], yl[r * c], 1.0f / sum, c);
            Sync();
        }
        outQ.EnQue(yl);
        inQ.FreeTensor(xl);
    }
    __aicore__ inline void CopyOut(uint32_t i)
    {
        LocalTensor<float> yl = outQ.DeQue<float>();
        DataCopy(yGm[i * tiling.rowsPerTile * tiling.cols], yl, tiling.rowsPerTile * tiling.cols);
        outQ.FreeTensor(yl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    TBuf<QuePosition::VECCALC> statBuf, workBuf;
    GlobalTensor<float> xGm, yGm;
    SoftmaxRowsTiling tiling;
};

extern "C" __global__ __aicore__ void softmax_rows(GM_ADDR x, GM_ADDR y, SoftmaxRowsTiling tiling)
{
    KernelSoftmaxRows op;
    op.Init(x, y, tiling);
    op.Process();
}

/*
 * Softmax over the last axis of a [rows, cols] half tensor, computed in fp32 (CANN KernelLaunch style).
 * Per row: ReduceMax -> Adds(-max) -> Exp -> ReduceSum -> Muls(1 / sum), the row statistics read back
 * with GetValue. Each core takes rowsPerCore rows, tileRows at a time; cols * sizeof(half) % 32 == 0.
 * -DBUG: the per-row ops are given the tile length instead of the row length (a classic copy-paste slip).
 */
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelSoftmax {
public:
    __aicore__ inline KernelSoftmax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rowsPerCore, uint32_t cols, uint32_t tileRows)
    {
        this->rowsPerCore = rowsPerCore;
        this->cols = cols;
        this->tileRows = tileRows;
        this->tileLength = tileRows * cols;
        xGm.SetGlobalBuffer((__gm__ half *)x + rowsPerCore * cols * GetBlockIdx(), rowsPerCore * cols);
        yGm.SetGlobalBuffer((__gm__ half *)y + rowsPerCore * cols * GetBlockIdx(), rowsPerCore * cols);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(xFloatBuf, tileLength * sizeof(float));
        pipe.InitBuffer(reduceBuf, cols * sizeof(float));
        pipe.InitBuffer(maxBuf, 32);
        pipe.InitBuffer(sumBuf, 32);
    }
    __aicore__ inline void Process()
    {
        int32_t loopCount = rowsPerCore / tileRows;
        for (int32_t i = 0; i < loopCount; i++) {
            CopyIn(i);
            Compute(i);
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t progress)
    {
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        DataCopy(xLocal, xGm[progress * tileLength], tileLength);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(int32_t progress)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        LocalTensor<float> xf = xFloatBuf.Get<float>();
        LocalTensor<float> work = reduceBuf.Get<float>();
        LocalTensor<float> maxLocal = maxBuf.Get<float>();
        LocalTensor<float> sumLocal = sumBuf.Get<float>();
        Cast(xf, xLocal, RoundMode::CAST_NONE, tileLength);
#ifdef BUG
        const uint32_t len = tileLength;
#else
        const uint32_t len = cols;
#endif
        for (uint32_t r = 0; r < tileRows; r++) {
            LocalTensor<float> row = xf[r * cols];
            ReduceMax<float>(maxLocal, row, work, len);
            float rowMax = maxLocal.GetValue(0);
            Adds(row, row, -rowMax, len);
            Exp(row, row, len);
            ReduceSum<float>(sumLocal, row, work, len);
            float rowSum = sumLocal.GetValue(0);
            Muls(row, row, 1.0f / rowSum, len);
        }
        Cast(yLocal, xf, RoundMode::CAST_ROUND, tileLength);
        outQueueY.EnQue<half>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(int32_t progress)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        DataCopy(yGm[progress * tileLength], yLocal, tileLength);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<QuePosition::VECCALC> xFloatBuf, reduceBuf, maxBuf, sumBuf;
    GlobalTensor<half> xGm, yGm;
    uint32_t rowsPerCore, cols, tileRows, tileLength;
};

extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, uint32_t rowsPerCore, uint32_t cols,
                                                     uint32_t tileRows)
{
    KernelSoftmax op;
    op.Init(x, y, rowsPerCore, cols, tileRows);
    op.Process();
}

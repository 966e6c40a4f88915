/*
 * SiLU, y = x * sigmoid(x) = x / (1 + exp(-x)), half in and out, computed in fp32
 * (structure of the CANN AddKernelInvocation sample: fixed split over cores, tiles, double buffering).
 */
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelSilu {
public:
    __aicore__ inline KernelSilu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t tileNum)
    {
        this->blockLength = totalLength / GetBlockNum();
        this->tileNum = tileNum;
        this->tileLength = this->blockLength / tileNum / BUFFER_NUM;
        xGm.SetGlobalBuffer((__gm__ half *)x + this->blockLength * GetBlockIdx(), this->blockLength);
        yGm.SetGlobalBuffer((__gm__ half *)y + this->blockLength * GetBlockIdx(), this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(half));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));
        pipe.InitBuffer(xFloat, this->tileLength * sizeof(float));
        pipe.InitBuffer(tFloat, this->tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        int32_t loopCount = this->tileNum * BUFFER_NUM;
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
        DataCopy(xLocal, xGm[progress * this->tileLength], this->tileLength);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(int32_t progress)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        LocalTensor<float> xf = xFloat.Get<float>();
        LocalTensor<float> tf = tFloat.Get<float>();
        Cast(xf, xLocal, RoundMode::CAST_NONE, this->tileLength);
        Muls(tf, xf, -1.0f, this->tileLength);
        Exp(tf, tf, this->tileLength);
        Adds(tf, tf, 1.0f, this->tileLength);
        Div(tf, xf, tf, this->tileLength);
        Cast(yLocal, tf, RoundMode::CAST_RINT, this->tileLength);
        outQueueY.EnQue<half>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(int32_t progress)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        DataCopy(yGm[progress * this->tileLength], yLocal, this->tileLength);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<QuePosition::VECCALC> xFloat, tFloat;
    GlobalTensor<half> xGm, yGm;
    uint32_t blockLength, tileNum, tileLength;
};

extern "C" __global__ __aicore__ void silu_custom(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t tileNum)
{
    KernelSilu op;
    op.Init(x, y, totalLength, tileNum);
    op.Process();
}

#ifndef __CCE_KT_TEST__
// NPU build only: the host calls this to launch the kernel.
void silu_custom_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y, uint32_t totalLength, uint32_t tileNum)
{
    silu_custom<<<blockDim, nullptr, stream>>>(x, y, totalLength, tileNum);
}
#endif

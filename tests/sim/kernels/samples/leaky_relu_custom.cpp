/*
 * LeakyReLU on a half vector of any length (CANN KernelLaunch style, tiling passed as a struct by value).
 * The elements are split over the cores as evenly as possible (the first `formerNum` cores take one 16-element
 * block more); each core walks its part tileLength elements at a time, and the last, shorter tile goes
 * through DataCopyPad because its byte count need not be a multiple of 32.
 * -DBUG: the tail is moved with DataCopy like the full tiles.
 */
#include "kernel_operator.h"
using namespace AscendC;

#include "leaky_relu_custom_tiling.h"

constexpr int32_t BUFFER_NUM = 2;

class KernelLeakyRelu {
public:
    __aicore__ inline KernelLeakyRelu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const LeakyReluTilingData &tiling)
    {
        const uint32_t blocks = (tiling.totalLength + 15) / 16;  // 32-byte blocks of half
        const uint32_t perCore = blocks / GetBlockNum();
        const uint32_t formerNum = blocks % GetBlockNum();
        const uint32_t idx = GetBlockIdx();
        uint32_t start = (idx * perCore + (idx < formerNum ? idx : formerNum)) * 16;
        uint32_t length = (perCore + (idx < formerNum ? 1 : 0)) * 16;
        if (start > tiling.totalLength) {
            start = tiling.totalLength;
        }
        if (start + length > tiling.totalLength) {
            length = tiling.totalLength - start;  // the last core ends on the real end
        }
        this->blockLength = length;
        this->tileLength = tiling.tileLength;
        this->alpha = static_cast<half>(tiling.alpha);
        xGm.SetGlobalBuffer((__gm__ half *)x + start, length);
        yGm.SetGlobalBuffer((__gm__ half *)y + start, length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        uint32_t loopCount = (blockLength + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < loopCount; i++) {
            uint32_t len = (i == loopCount - 1) ? blockLength - i * tileLength : tileLength;
            CopyIn(i, len);
            Compute(len);
            CopyOut(i, len);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t len)
    {
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
#ifndef BUG
        if (len * sizeof(half) % 32 != 0) {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(half)), 0, 0, 0};
            DataCopyPadExtParams<half> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[progress * tileLength], copyParams, padParams);
        } else
#endif
        {
            DataCopy(xLocal, xGm[progress * tileLength], len);
        }
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        LeakyRelu(yLocal, xLocal, alpha, len);
        outQueueY.EnQue<half>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t len)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        if (len * sizeof(half) % 32 != 0) {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(half)), 0, 0, 0};
            DataCopyPad(yGm[progress * tileLength], yLocal, copyParams);
        } else {
            DataCopy(yGm[progress * tileLength], yLocal, len);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<half> xGm, yGm;
    uint32_t blockLength, tileLength;
    half alpha;
};

extern "C" __global__ __aicore__ void leaky_relu_custom(GM_ADDR x, GM_ADDR y, LeakyReluTilingData tiling)
{
    KernelLeakyRelu op;
    op.Init(x, y, tiling);
    op.Process();
}

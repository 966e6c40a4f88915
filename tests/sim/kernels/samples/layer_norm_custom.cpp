/*
 * LayerNorm over the last axis, fp32, basic APIs only (written like the CANN KernelLaunch samples).
 * z[r] = (x[r] - mean(x[r])) * rstd * gamma + beta,   rstd = exp(-0.5 * ln(var + eps))
 * Rows are split evenly over the cores; each core walks its rows a tile at a time.
 * -DBUG: the Compute stage forgets to free its input tile (FreeTensor), so the next CopyIn cannot get a buffer.
 */
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct LayerNormCustomTilingData {
    uint32_t rowNum;     // rows per core
    uint32_t rowLength;  // floats per row, a multiple of 8
    uint32_t tileRows;   // rows per tile
    float factor;        // 1 / rowLength
    float eps;
};

class KernelLayerNorm {
public:
    __aicore__ inline KernelLayerNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR z,
                                const LayerNormCustomTilingData &tiling)
    {
        this->rowNum = tiling.rowNum;
        this->rowLength = tiling.rowLength;
        this->tileRows = tiling.tileRows;
        this->factor = tiling.factor;
        this->eps = tiling.eps;
        uint64_t offset = (uint64_t)rowNum * rowLength * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, rowNum * rowLength);
        zGm.SetGlobalBuffer((__gm__ float *)z + offset, rowNum * rowLength);
        gammaGm.SetGlobalBuffer((__gm__ float *)gamma, rowLength);
        betaGm.SetGlobalBuffer((__gm__ float *)beta, rowLength);

        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileRows * rowLength * sizeof(float));
        pipe.InitBuffer(inQueueGamma, 1, rowLength * sizeof(float));
        pipe.InitBuffer(inQueueBeta, 1, rowLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileRows * rowLength * sizeof(float));
        pipe.InitBuffer(tmpBuf, rowLength * sizeof(float));
        pipe.InitBuffer(workBuf, rowLength * sizeof(float));
        pipe.InitBuffer(statBuf, 32);
    }
    __aicore__ inline void Process()
    {
        CopyInGammaBeta();
        LocalTensor<float> gammaLocal = inQueueGamma.DeQue<float>();
        LocalTensor<float> betaLocal = inQueueBeta.DeQue<float>();
        uint32_t loop = rowNum / tileRows;
        uint32_t tail = rowNum % tileRows;
        for (uint32_t i = 0; i < loop; i++) {
            CopyIn(i * tileRows, tileRows);
            Compute(tileRows, gammaLocal, betaLocal);
            CopyOut(i * tileRows, tileRows);
        }
        if (tail > 0) {
            CopyIn(loop * tileRows, tail);
            Compute(tail, gammaLocal, betaLocal);
            CopyOut(loop * tileRows, tail);
        }
        inQueueGamma.FreeTensor(gammaLocal);
        inQueueBeta.FreeTensor(betaLocal);
    }

private:
    __aicore__ inline void CopyInGammaBeta()
    {
        LocalTensor<float> gammaLocal = inQueueGamma.AllocTensor<float>();
        LocalTensor<float> betaLocal = inQueueBeta.AllocTensor<float>();
        DataCopy(gammaLocal, gammaGm, rowLength);
        DataCopy(betaLocal, betaGm, rowLength);
        inQueueGamma.EnQue(gammaLocal);
        inQueueBeta.EnQue(betaLocal);
    }
    __aicore__ inline void CopyIn(uint32_t row, uint32_t rows)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        DataCopy(xLocal, xGm[row * rowLength], rows * rowLength);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t rows, LocalTensor<float> &gammaLocal, LocalTensor<float> &betaLocal)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> stat = statBuf.Get<float>();
        event_t eventVS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        event_t eventSV = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_V));
        for (uint32_t r = 0; r < rows; r++) {
            LocalTensor<float> xRow = xLocal[r * rowLength];
            LocalTensor<float> zRow = zLocal[r * rowLength];
            // mean
            ReduceSum<float>(stat, xRow, work, rowLength);
            SetFlag<HardEvent::V_S>(eventVS);
            WaitFlag<HardEvent::V_S>(eventVS);
            float mean = stat.GetValue(0) * factor;
            SetFlag<HardEvent::S_V>(eventSV);
            WaitFlag<HardEvent::S_V>(eventSV);
            Adds(zRow, xRow, -mean, rowLength);
            // rstd = 1 / sqrt(var + eps), on one element
            Mul(tmp, zRow, zRow, rowLength);
            ReduceSum<float>(stat, tmp, work, rowLength);
            Muls(stat, stat, factor, 1);
            Adds(stat, stat, eps, 1);
            Ln(stat, stat, 1);
            Muls(stat, stat, -0.5f, 1);
            Exp(stat, stat, 1);
            SetFlag<HardEvent::V_S>(eventVS);
            WaitFlag<HardEvent::V_S>(eventVS);
            float rstd = stat.GetValue(0);
            SetFlag<HardEvent::S_V>(eventSV);
            WaitFlag<HardEvent::S_V>(eventSV);
            Muls(zRow, zRow, rstd, rowLength);
            Mul(zRow, zRow, gammaLocal, rowLength);
            Add(zRow, zRow, betaLocal, rowLength);
        }
        outQueueZ.EnQue<float>(zLocal);
#ifndef BUG
        inQueueX.FreeTensor(xLocal);
#endif
    }
    __aicore__ inline void CopyOut(uint32_t row, uint32_t rows)
    {
        LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        DataCopy(zGm[row * rowLength], zLocal, rows * rowLength);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueGamma, inQueueBeta;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    TBuf<QuePosition::VECCALC> tmpBuf, workBuf, statBuf;
    GlobalTensor<float> xGm, gammaGm, betaGm, zGm;
    uint32_t rowNum, rowLength, tileRows;
    float factor, eps;
};

extern "C" __global__ __aicore__ void layer_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR z,
                                                        LayerNormCustomTilingData tiling)
{
    KernelLayerNorm op;
    op.Init(x, gamma, beta, z, tiling);
    op.Process();
}

// Advanced-API driver: the row-wise high-level APIs (SoftMax, LogSoftMax, SimpleSoftMax, RmsNorm, LayerNorm) on
// an [m, k] block.
// Element type from -DDTYPE=...; the API, the form and the temporary space from the tiling struct. The API's
// own tiling struct is filled in the kernel with the host helper (SoftMaxTilingFunc, LogSoftMaxTilingFunc,
// GetRmsNormTilingInfo, GetLayerNormNDTilingInfo)
// for `work` bytes of temporary space.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

struct RowsTiling {
    uint64_t api;       // see Compute
    uint64_t m, k;      // rows, row length (32-byte aligned)
    uint64_t tmpBytes;  // sharedTmpBuffer (0: the forms without one)
    uint64_t work;      // temporary bytes the API's tiling is computed for
    double eps;         // RmsNorm
};

template <typename T>
class KernelRows {
public:
    static constexpr uint32_t kBlk = 32 / sizeof(T);
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR a, GM_ADDR b, GM_ADDR z, GM_ADDR zMax, GM_ADDR zSum,
                                const RowsTiling& tiling)
    {
        t = tiling;
        n = uint32_t(t.m * t.k);
        rowsBlk = uint32_t(t.m) * kBlk;
        aLen = rowsBlk > t.k ? rowsBlk : uint32_t(t.k);
        xGm.SetGlobalBuffer((__gm__ T*)x, n);
        aGm.SetGlobalBuffer((__gm__ T*)a, aLen);
        bGm.SetGlobalBuffer((__gm__ T*)b, aLen);
        zGm.SetGlobalBuffer((__gm__ T*)z, n);
        zMaxGm.SetGlobalBuffer((__gm__ T*)zMax, rowsBlk);
        zSumGm.SetGlobalBuffer((__gm__ T*)zSum, rowsBlk);
        pipe.InitBuffer(inQ, 1, n * sizeof(T));
        pipe.InitBuffer(aQ, 1, aLen * sizeof(T));
        pipe.InitBuffer(bQ, 1, aLen * sizeof(T));
        pipe.InitBuffer(outQ, 1, n * sizeof(T));
        pipe.InitBuffer(maxQ, 1, rowsBlk * sizeof(T));
        pipe.InitBuffer(sumQ, 1, rowsBlk * sizeof(T));
        if (t.tmpBytes > 0) pipe.InitBuffer(tmpBuf, uint32_t(t.tmpBytes));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<T> x = inQ.AllocTensor<T>(), a = aQ.AllocTensor<T>(), b = bQ.AllocTensor<T>();
        DataCopy(x, xGm, n);
        DataCopy(a, aGm, aLen);
        DataCopy(b, bGm, aLen);
        inQ.EnQue(x);
        aQ.EnQue(a);
        bQ.EnQue(b);
        x = inQ.DeQue<T>();
        a = aQ.DeQue<T>();
        b = bQ.DeQue<T>();
        LocalTensor<T> z = outQ.AllocTensor<T>(), zMax = maxQ.AllocTensor<T>(), zSum = sumQ.AllocTensor<T>();
        Duplicate(zMax, T(0), int32_t(rowsBlk));
        Duplicate(zSum, T(0), int32_t(rowsBlk));
        Compute(z, zMax, zSum, x, a, b);
        if (t.api == 11) zSum.SetValue(0, T(adjusted ? 1.0f : 0.0f));  // AdjustSoftMaxRes's return value
        outQ.EnQue(z);
        maxQ.EnQue(zMax);
        sumQ.EnQue(zSum);
        inQ.FreeTensor(x);
        aQ.FreeTensor(a);
        bQ.FreeTensor(b);
        z = outQ.DeQue<T>();
        zMax = maxQ.DeQue<T>();
        zSum = sumQ.DeQue<T>();
        DataCopy(zGm, z, n);
        DataCopy(zMaxGm, zMax, rowsBlk);
        DataCopy(zSumGm, zSum, rowsBlk);
        outQ.FreeTensor(z);
        maxQ.FreeTensor(zMax);
        sumQ.FreeTensor(zSum);
    }

private:
    // a: SimpleSoftMax's inMax ([m, 32 bytes]) or the gamma of RmsNorm and LayerNorm (k); b: SimpleSoftMax's
    // inSum or LayerNorm's beta.
    __aicore__ inline void Compute(LocalTensor<T>& z, LocalTensor<T>& zMax, LocalTensor<T>& zSum, LocalTensor<T>& x,
                                   LocalTensor<T>& a, LocalTensor<T>& b)
    {
        LocalTensor<uint8_t> tmp;
        if (t.tmpBytes > 0) tmp = tmpBuf.Get<uint8_t>();
        const uint32_t m = uint32_t(t.m), k = uint32_t(t.k), work = uint32_t(t.work);
        std::vector<int64_t> dims = {int64_t(m), int64_t(k)};
        SoftMaxTiling sm;
        SoftMaxTilingFunc(TensorShape(dims), sizeof(T), work, sm);
        SoftMaxShapeInfo info = {m, k, m, k};
        std::vector<int64_t> bsh = {1, int64_t(m), int64_t(k)};
        LogSoftMaxTiling lsm;
        LogSoftMaxTilingFunc(TensorShape(dims), sizeof(T), work, lsm);
        LayerNormTiling ln;
        GetLayerNormNDTilingInfo(TensorShape(bsh), work, sizeof(T), false, ln);
        RmsNormTiling rms;
        GetRmsNormTilingInfo(TensorShape(bsh), TensorShape(bsh), work, sizeof(T), rms);
        switch (t.api) {
            case 0: SoftMax<T>(z, zSum, zMax, x, tmp, sm, info); break;
            case 1: SoftMax<T>(z, x, tmp, sm, info); break;
            case 2: SoftMax<T>(z, zSum, zMax, x, sm, info); break;
            case 3: SimpleSoftMax<T>(z, b, a, x, tmp, sm, info); break;
            case 4: SimpleSoftMax<T>(z, b, a, x, sm); break;
            case 5: RmsNorm(z, x, a, tmp, T(float(t.eps)), rms); break;
            case 6: RmsNorm(z, x, a, T(float(t.eps)), rms); break;
            case 7: LogSoftMax<T>(z, zSum, zMax, x, tmp, lsm, info); break;
            // LayerNorm: mean into zMax, variance into zSum (their first m elements)
            case 8: LayerNorm<T>(z, zMax, zSum, x, a, b, tmp, T(float(t.eps)), ln); break;
            case 9: LayerNorm<T>(z, zMax, zSum, x, a, b, T(float(t.eps)), ln); break;
            case 10: SoftMax<T>(z, zSum, zMax, x, tmp, SoftMaxTiling{}, info); break;  // zeroed tiling
            case 11: {  // SoftMax, then AdjustSoftMaxRes of the rows whose max is eps to -1
                SoftMax<T>(z, zSum, zMax, x, tmp, sm, info);
                const float from = float(t.eps);
                uint32_t bits;
                if constexpr (sizeof(T) == 2) {
                    const half h = half(from);
                    uint16_t b16;
                    std::memcpy(&b16, &h, 2);
                    bits = b16;
                } else {
                    std::memcpy(&bits, &from, 4);
                }
                adjusted = AdjustSoftMaxRes<T, T>(z, zMax, bits, T(-1.0f), info);
                break;
            }
            default: break;
        }
    }

    RowsTiling t;
    uint32_t n = 0, rowsBlk = 0, aLen = 0;
    bool adjusted = false;
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQ, aQ, bQ;
    TQue<TPosition::VECOUT, 1> outQ, maxQ, sumQ;
    TBuf<TPosition::VECCALC> tmpBuf;
    GlobalTensor<T> xGm, aGm, bGm, zGm, zMaxGm, zSumGm;
};

extern "C" __global__ __aicore__ void adv_rows(GM_ADDR x, GM_ADDR a, GM_ADDR b, GM_ADDR z, GM_ADDR zMax, GM_ADDR zSum,
                                                RowsTiling tiling)
{
    KernelRows<DTYPE> op;
    op.Init(x, a, b, z, zMax, zSum, tiling);
    op.Process();
}

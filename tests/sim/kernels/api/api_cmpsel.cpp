// API semantics driver: Compare / Compares (bit-mask output) and Select (tensor-tensor, tensor-scalar).
// Element type from -DDTYPE=...; API, CMPMODE / SELMODE and count from the tiling struct.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

struct CmpSelTiling {
    uint64_t form;    // 0 Compare, 1 Compares, 2 Select tensor-tensor, 3 Select tensor-scalar, 4 Compare + Select
    uint64_t mode;    // CMPMODE (forms 0, 1) or SELMODE (forms 2, 3)
    uint64_t len;     // elements of x, y, z0, z; the mask has len / 8 bytes
    uint64_t count;
    double scalar;
};

template <typename T>
class KernelCmpSel {
public:
    __aicore__ inline KernelCmpSel() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR sel, GM_ADDR z0, GM_ADDR z, GM_ADDR maskOut,
                                const CmpSelTiling& tiling)
    {
        t = tiling;
        maskBytes = uint32_t(t.len / 8);
        xGm.SetGlobalBuffer((__gm__ T*)x, t.len);
        yGm.SetGlobalBuffer((__gm__ T*)y, t.len);
        selGm.SetGlobalBuffer((__gm__ uint8_t*)sel, maskBytes);
        z0Gm.SetGlobalBuffer((__gm__ T*)z0, t.len);
        zGm.SetGlobalBuffer((__gm__ T*)z, t.len);
        maskGm.SetGlobalBuffer((__gm__ uint8_t*)maskOut, maskBytes);
        pipe.InitBuffer(inQueueX, 1, t.len * sizeof(T));
        pipe.InitBuffer(inQueueY, 1, t.len * sizeof(T));
        pipe.InitBuffer(inQueueZ0, 1, t.len * sizeof(T));
        pipe.InitBuffer(inQueueSel, 1, maskBytes);
        pipe.InitBuffer(outQueueZ, 1, t.len * sizeof(T));
        pipe.InitBuffer(outQueueMask, 1, maskBytes);
    }
    __aicore__ inline void Process()
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        LocalTensor<T> z0Local = inQueueZ0.AllocTensor<T>();
        LocalTensor<uint8_t> selLocal = inQueueSel.AllocTensor<uint8_t>();
        DataCopy(xLocal, xGm, t.len);
        DataCopy(yLocal, yGm, t.len);
        DataCopy(z0Local, z0Gm, t.len);
        DataCopy(selLocal, selGm, maskBytes);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
        inQueueZ0.EnQue(z0Local);
        inQueueSel.EnQue(selLocal);
        Compute();
        LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        LocalTensor<uint8_t> maskLocal = outQueueMask.DeQue<uint8_t>();
        DataCopy(zGm, zLocal, t.len);
        DataCopy(maskGm, maskLocal, maskBytes);
        outQueueZ.FreeTensor(zLocal);
        outQueueMask.FreeTensor(maskLocal);
    }

private:
    __aicore__ inline void Compute()
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        LocalTensor<T> z0Local = inQueueZ0.DeQue<T>();
        LocalTensor<uint8_t> selLocal = inQueueSel.DeQue<uint8_t>();
        LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        LocalTensor<uint8_t> maskLocal = outQueueMask.AllocTensor<uint8_t>();
        DataCopy(zLocal, z0Local, t.len);
        DataCopy(maskLocal, selLocal, maskBytes);  // bits Compare does not write keep the input's
        const T s = static_cast<T>(t.scalar);
        const uint32_t count = uint32_t(t.count);
        constexpr bool hasSelect = std::is_same_v<T, half> || std::is_same_v<T, float>;
        switch (t.form) {
            case 0: Compare(maskLocal, xLocal, yLocal, static_cast<CMPMODE>(t.mode), count); break;
            case 1: Compares(maskLocal, xLocal, s, static_cast<CMPMODE>(t.mode), count); break;
            default: break;
        }
        if constexpr (hasSelect) {
            switch (t.form) {
                case 2: Select(zLocal, selLocal, xLocal, yLocal, static_cast<SELMODE>(t.mode), count); break;
                case 3: Select(zLocal, selLocal, xLocal, s, static_cast<SELMODE>(t.mode), count); break;
                case 4:
                    Compare(maskLocal, xLocal, yLocal, CMPMODE::LT, count);
                    Select(zLocal, maskLocal, xLocal, yLocal, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
                    break;
                default: break;
            }
        }
        outQueueZ.EnQue<T>(zLocal);
        outQueueMask.EnQue<uint8_t>(maskLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
        inQueueZ0.FreeTensor(z0Local);
        inQueueSel.FreeTensor(selLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueueX, inQueueY, inQueueZ0, inQueueSel;
    TQue<QuePosition::VECOUT, 1> outQueueZ, outQueueMask;
    GlobalTensor<T> xGm, yGm, z0Gm, zGm;
    GlobalTensor<uint8_t> selGm, maskGm;
    uint32_t maskBytes;
    CmpSelTiling t;
};

extern "C" __global__ __aicore__ void api_cmpsel(GM_ADDR x, GM_ADDR y, GM_ADDR sel, GM_ADDR z0, GM_ADDR z,
                                                 GM_ADDR maskOut, CmpSelTiling tiling)
{
    KernelCmpSel<DTYPE> op;
    op.Init(x, y, sel, z0, z, maskOut, tiling);
    op.Process();
}

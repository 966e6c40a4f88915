// API semantics driver: Duplicate (count, mask-count, bit-mask forms) and Brcb.
// Element type from -DDTYPE=...; the API and form are chosen at run time from the tiling struct.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

struct FillTiling {
    uint64_t form;    // 0 Duplicate count, 1 Duplicate mask count, 2 Duplicate bit mask, 3 Brcb
    uint64_t len;
    uint64_t count;   // count form: elements; mask-count form: lanes per repeat
    uint64_t repeat;
    uint64_t mask0, mask1;
    uint64_t dstBlk, dstRep;
    double scalar;
};

template <typename T>
class KernelFill {
public:
    __aicore__ inline KernelFill() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z0, GM_ADDR z, const FillTiling& tiling)
    {
        t = tiling;
        xGm.SetGlobalBuffer((__gm__ T*)x, t.len);
        z0Gm.SetGlobalBuffer((__gm__ T*)z0, t.len);
        zGm.SetGlobalBuffer((__gm__ T*)z, t.len);
        pipe.InitBuffer(inQueueX, 1, t.len * sizeof(T));
        pipe.InitBuffer(inQueueZ0, 1, t.len * sizeof(T));
        pipe.InitBuffer(outQueueZ, 1, t.len * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        LocalTensor<T> z0Local = inQueueZ0.AllocTensor<T>();
        DataCopy(xLocal, xGm, t.len);
        DataCopy(z0Local, z0Gm, t.len);
        inQueueX.EnQue(xLocal);
        inQueueZ0.EnQue(z0Local);
        Compute();
        LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        DataCopy(zGm, zLocal, t.len);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    __aicore__ inline void Compute()
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> z0Local = inQueueZ0.DeQue<T>();
        LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        DataCopy(zLocal, z0Local, t.len);
        const T s = static_cast<T>(t.scalar);
        uint64_t mask[2] = {t.mask0, t.mask1};
        const uint8_t repeat = uint8_t(t.repeat);
        switch (t.form) {
            case 0: Duplicate(zLocal, s, int32_t(t.count)); break;
            case 1: Duplicate(zLocal, s, t.count, repeat, uint16_t(t.dstBlk), uint8_t(t.dstRep)); break;
            case 2: Duplicate(zLocal, s, mask, repeat, uint16_t(t.dstBlk), uint8_t(t.dstRep)); break;
            case 3: Brcb(zLocal, xLocal, repeat, BrcbRepeatParams(uint16_t(t.dstBlk), uint16_t(t.dstRep))); break;
            default: break;
        }
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueZ0.FreeTensor(z0Local);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueueX, inQueueZ0;
    TQue<QuePosition::VECOUT, 1> outQueueZ;
    GlobalTensor<T> xGm, z0Gm, zGm;
    FillTiling t;
};

extern "C" __global__ __aicore__ void api_fill(GM_ADDR x, GM_ADDR z0, GM_ADDR z, FillTiling tiling)
{
    KernelFill<DTYPE> op;
    op.Init(x, z0, z, tiling);
    op.Process();
}

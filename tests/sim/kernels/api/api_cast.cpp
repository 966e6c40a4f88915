// API semantics driver: Cast between element types, with the round mode chosen at run time.
// Types from -DDST_T=... -DSRC_T=...; the form and mode come from the tiling struct.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DST_T
#define DST_T half
#endif
#ifndef SRC_T
#define SRC_T float
#endif

struct CastTiling {
    uint64_t form;    // 0 count, 1 mask count, 2 bit mask
    uint64_t len;     // elements of x, z0 and z
    uint64_t round;   // AscendC::RoundMode
    uint64_t count;   // count form: elements; mask-count form: lanes per repeat
    uint64_t repeat;
    uint64_t mask0, mask1;
    uint64_t dstBlk, srcBlk, dstRep, srcRep;
};

template <typename D, typename S>
class KernelCast {
public:
    __aicore__ inline KernelCast() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z0, GM_ADDR z, const CastTiling& tiling)
    {
        t = tiling;
        xGm.SetGlobalBuffer((__gm__ S*)x, t.len);
        z0Gm.SetGlobalBuffer((__gm__ D*)z0, t.len);
        zGm.SetGlobalBuffer((__gm__ D*)z, t.len);
        pipe.InitBuffer(inQueueX, 1, t.len * sizeof(S));
        pipe.InitBuffer(inQueueZ0, 1, t.len * sizeof(D));
        pipe.InitBuffer(outQueueZ, 1, t.len * sizeof(D));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<S> xLocal = inQueueX.AllocTensor<S>();
        LocalTensor<D> z0Local = inQueueZ0.AllocTensor<D>();
        DataCopy(xLocal, xGm, t.len);
        DataCopy(z0Local, z0Gm, t.len);
        inQueueX.EnQue(xLocal);
        inQueueZ0.EnQue(z0Local);

        xLocal = inQueueX.DeQue<S>();
        z0Local = inQueueZ0.DeQue<D>();
        LocalTensor<D> zLocal = outQueueZ.AllocTensor<D>();
        DataCopy(zLocal, z0Local, t.len);
        const RoundMode mode = static_cast<RoundMode>(t.round);
        UnaryRepeatParams params(uint16_t(t.dstBlk), uint16_t(t.srcBlk), uint8_t(t.dstRep), uint8_t(t.srcRep));
        uint64_t mask[2] = {t.mask0, t.mask1};
        switch (t.form) {
            case 0: Cast(zLocal, xLocal, mode, uint32_t(t.count)); break;
            case 1: Cast(zLocal, xLocal, mode, t.count, uint8_t(t.repeat), params); break;
            case 2: Cast(zLocal, xLocal, mode, mask, uint8_t(t.repeat), params); break;
            default: break;
        }
        outQueueZ.EnQue<D>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueZ0.FreeTensor(z0Local);

        zLocal = outQueueZ.DeQue<D>();
        DataCopy(zGm, zLocal, t.len);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueueX, inQueueZ0;
    TQue<QuePosition::VECOUT, 1> outQueueZ;
    GlobalTensor<S> xGm;
    GlobalTensor<D> z0Gm, zGm;
    CastTiling t;
};

extern "C" __global__ __aicore__ void api_cast(GM_ADDR x, GM_ADDR z0, GM_ADDR z, CastTiling tiling)
{
    KernelCast<DST_T, SRC_T> op;
    op.Init(x, z0, z, tiling);
    op.Process();
}

// API semantics driver: Cast between element types, with the round mode chosen at run time.
// Types from -DDST_T=... -DSRC_T=...; the form and mode come from the tiling struct.
#include "harness.h"

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
class KernelCast : public ApiHarness<KernelCast<D, S>, S, D> {
public:
    __aicore__ inline KernelCast() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z0, GM_ADDR z, const CastTiling& tiling)
    {
        t = tiling;
        this->InitHarness(x, nullptr, z0, z, t.len, t.len);
    }
    // Called by the harness; zLocal holds z0.
    __aicore__ inline void Compute(LocalTensor<D>& zLocal, LocalTensor<S>& xLocal)
    {
        const RoundMode mode = static_cast<RoundMode>(t.round);
        UnaryRepeatParams params(uint16_t(t.dstBlk), uint16_t(t.srcBlk), uint8_t(t.dstRep), uint8_t(t.srcRep));
        uint64_t mask[2] = {t.mask0, t.mask1};
        switch (t.form) {
            case 0: Cast(zLocal, xLocal, mode, uint32_t(t.count)); break;
            case 1: Cast(zLocal, xLocal, mode, t.count, uint8_t(t.repeat), params); break;
            case 2: Cast(zLocal, xLocal, mode, mask, uint8_t(t.repeat), params); break;
            default: break;
        }
    }

private:
    CastTiling t;
};

extern "C" __global__ __aicore__ void api_cast(GM_ADDR x, GM_ADDR z0, GM_ADDR z, CastTiling tiling)
{
    KernelCast<DST_T, SRC_T> op;
    op.Init(x, z0, z, tiling);
    op.Process();
}

// API semantics driver: Duplicate (count, mask-count, bit-mask forms) and Brcb.
// Element type from -DDTYPE=...; the API and form are chosen at run time from the tiling struct.
#include "harness.h"

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
class KernelFill : public ApiHarness<KernelFill<T>, T> {
public:
    __aicore__ inline KernelFill() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z0, GM_ADDR z, const FillTiling& tiling)
    {
        t = tiling;
        this->InitHarness(x, nullptr, z0, z, t.len, t.len);
    }
    // Called by the harness; zLocal holds z0.
    __aicore__ inline void Compute(LocalTensor<T>& zLocal, LocalTensor<T>& xLocal)
    {
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
    }

private:
    FillTiling t;
};

extern "C" __global__ __aicore__ void api_fill(GM_ADDR x, GM_ADDR z0, GM_ADDR z, FillTiling tiling)
{
    KernelFill<DTYPE> op;
    op.Init(x, z0, z, tiling);
    op.Process();
}

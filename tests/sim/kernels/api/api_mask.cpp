// API semantics driver: the mask register (SetMaskCount / SetMaskNorm / SetVectorMask / ResetMask) driving
// APIs called with isSetMask = false and MASK_PLACEHOLDER. Element type from -DDTYPE=...
#include "harness.h"

#ifndef DTYPE
#define DTYPE float
#endif

struct MaskTiling {
    uint64_t setup;   // 0 counter (hi, lo), 1 normal bits (hi, lo), 2 ResetMask, 3 normal SetVectorMask(len),
                      // 4 counter SetVectorMask(len), 5 junk in the register, then an API that sets its own mask,
                      // 6 bits (hi, lo), then a count-form API (leaves all lanes set),
                      // 7 bits (hi, lo), then a mask-count API with isSetMask = true (leaves its mask set)
    uint64_t op;      // 0 Add, 1 Muls, 2 Duplicate, 3 Exp, 4 WholeReduceSum, 5 BlockReduceSum, 6 Add bit-mask
                      // array overload
    uint64_t len;
    uint64_t count;   // counter-mode element count, SetVectorMask(len) length, or setup 5's mask count
    uint64_t repeat;
    uint64_t maskHi, maskLo;
    double scalar;
};

template <typename T>
class KernelMask : public ApiHarness<KernelMask<T>, T, T, 2> {
public:
    __aicore__ inline KernelMask() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z0, GM_ADDR z, const MaskTiling& tiling)
    {
        t = tiling;
        this->InitHarness(x, y, z0, z, t.len, t.len);
        this->pipe.InitBuffer(scratchBuf, t.len * sizeof(T));
    }
    // Called by the harness; zLocal holds z0.
    __aicore__ inline void Compute(LocalTensor<T>& zLocal, LocalTensor<T>& xLocal, LocalTensor<T>& yLocal)
    {
        const uint8_t repeat = uint8_t(t.repeat);
        const T s = static_cast<T>(t.scalar);
        SetUp(xLocal, s);
        BinaryRepeatParams bin;
        UnaryRepeatParams un;
        uint64_t placeholder[2] = {MASK_PLACEHOLDER, MASK_PLACEHOLDER};
        if (t.setup == 5) {  // isSetMask = true: the API's own mask, whatever the register holds
            Add(zLocal, xLocal, yLocal, t.count, repeat, bin);
        } else {
            switch (t.op) {
                case 0: Add<T, false>(zLocal, xLocal, yLocal, MASK_PLACEHOLDER, repeat, bin); break;
                case 1: Muls<T, false>(zLocal, xLocal, s, MASK_PLACEHOLDER, repeat, un); break;
                case 2: Duplicate<T, false>(zLocal, s, MASK_PLACEHOLDER, repeat, 1, 8); break;
                case 3: Exp<T, false>(zLocal, xLocal, MASK_PLACEHOLDER, repeat, un); break;
                case 4: WholeReduceSum<T, false>(zLocal, xLocal, MASK_PLACEHOLDER, repeat, 1, 1, 8); break;
                case 5: BlockReduceSum<T, false>(zLocal, xLocal, repeat, MASK_PLACEHOLDER, 1, 1, 8); break;
                case 6: Add<T, false>(zLocal, xLocal, yLocal, placeholder, repeat, bin); break;
                default: break;
            }
        }
        SetMaskNorm();
        ResetMask();
    }

private:
    __aicore__ inline void SetUp(const LocalTensor<T>& xLocal, const T s)
    {
        LocalTensor<T> scratch = scratchBuf.Get<T>();
        switch (t.setup) {
            case 0:
                SetMaskCount();
                SetVectorMask<T, MaskMode::COUNTER>(0, t.count);
                break;
            case 1:
                SetMaskNorm();
                SetVectorMask<T, MaskMode::NORMAL>(t.maskHi, t.maskLo);
                break;
            case 2:
                SetVectorMask<T, MaskMode::NORMAL>(0, 1);
                ResetMask();
                break;
            case 3:
                SetMaskNorm();
                SetVectorMask<T, MaskMode::NORMAL>(int32_t(t.count));
                break;
            case 4:
                SetMaskCount();
                SetVectorMask<T, MaskMode::COUNTER>(int32_t(t.count));
                break;
            case 6:
                SetVectorMask<T, MaskMode::NORMAL>(t.maskHi, t.maskLo);
                Adds(scratch, xLocal, s, int32_t(t.count));
                break;
            case 7:
                SetVectorMask<T, MaskMode::NORMAL>(t.maskHi, t.maskLo);
                Adds(scratch, xLocal, s, t.count, 1, UnaryRepeatParams());
                break;
            default:
                SetVectorMask<T, MaskMode::NORMAL>(0x5, 0x3);
                break;
        }
    }

    TBuf<TPosition::VECCALC> scratchBuf;
    MaskTiling t;
};

extern "C" __global__ __aicore__ void api_mask(GM_ADDR x, GM_ADDR y, GM_ADDR z0, GM_ADDR z, MaskTiling tiling)
{
    KernelMask<DTYPE> op;
    op.Init(x, y, z0, z, tiling);
    op.Process();
}

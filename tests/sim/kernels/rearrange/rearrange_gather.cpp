// Rearrangement semantics driver: Gather (count, mask-count and bit-mask forms), Gatherb, GatherMask (user and
// built-in patterns), and the CmpMask register (Compare's register form, GetCmpMask, SetCmpMask). x holds the source elements, y the offsets or the pattern (raw bytes), z0 seeds the output;
// GatherMask's rsvdCnt is stored in the output's last 8 bytes. Element type from -DDTYPE=...
#include "../api/harness.h"

#ifndef DTYPE
#define DTYPE half
#endif

struct GatherTiling {
    uint64_t form;     // 0 Gather count, 1 Gather mask count, 2 Gather bit mask, 3 Gatherb,
                       // 4 GatherMask user pattern, 5 GatherMask built-in pattern,
                       // 6 Compare (register form) + GetCmpMask, 7 SetCmpMask + GetCmpMask
    uint64_t xBytes, yBytes, zBytes;
    uint64_t count;    // Gather count; mask count (forms 1, 4, 5: lanes / GatherMask mask)
    uint64_t repeat;
    uint64_t mask0, mask1;
    uint64_t base;     // Gather srcBaseAddr; GatherMask built-in pattern
    uint64_t dstBlk, dstRep;
    uint64_t src0Blk, src0Rep, src1Rep, reduceMode;
    uint64_t srcView;  // elements the source view is offset by (negative tests)
};

template <typename T>
class KernelGather : public ApiHarness<KernelGather<T>, uint8_t, uint8_t, 2> {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z0, GM_ADDR z, const GatherTiling& tiling)
    {
        t = tiling;
        this->InitHarness(x, y, z0, z, t.xBytes > t.yBytes ? t.xBytes : t.yBytes, t.zBytes);
    }
    __aicore__ inline void Compute(LocalTensor<uint8_t>& zLocal, LocalTensor<uint8_t>& xLocal,
                                   LocalTensor<uint8_t>& yLocal)
    {
        LocalTensor<T> dst = zLocal.ReinterpretCast<T>();
        LocalTensor<T> src = xLocal.ReinterpretCast<T>()[uint32_t(t.srcView)];
        LocalTensor<uint32_t> offsets = yLocal.ReinterpretCast<uint32_t>();
        uint64_t mask[2] = {t.mask0, t.mask1};
        uint64_t rsvdCnt = 0;
        switch (t.form) {
            case 0: Gather(dst, src, offsets, uint32_t(t.base), uint32_t(t.count)); break;
            case 1: Gather(dst, src, offsets, uint32_t(t.base), t.count, uint8_t(t.repeat), uint16_t(t.dstRep)); break;
            case 2: Gather(dst, src, offsets, uint32_t(t.base), mask, uint8_t(t.repeat), uint16_t(t.dstRep)); break;
            case 3:
                if constexpr (tuner_sim::support::Gatherb<T>) {  // Gatherb takes uint16_t/uint32_t on A2
                    GatherRepeatParams p{uint8_t(t.dstBlk), uint8_t(t.dstRep)};
                    Gatherb(dst, src, offsets, uint8_t(t.repeat), p);
                }
                break;
            case 4: {
                using P = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
                GatherMaskParams p{uint8_t(t.src0Blk), uint16_t(t.repeat), uint16_t(t.src0Rep), uint8_t(t.src1Rep)};
                GatherMask(dst, src, yLocal.ReinterpretCast<P>(), t.reduceMode != 0, uint32_t(t.count), p, rsvdCnt);
                break;
            }
            case 5: {
                GatherMaskParams p{uint8_t(t.src0Blk), uint16_t(t.repeat), uint16_t(t.src0Rep), uint8_t(t.src1Rep)};
                GatherMask(dst, src, uint8_t(t.base), t.reduceMode != 0, uint32_t(t.count), p, rsvdCnt);
                break;
            }
            case 6:  // Compare into the CmpMask register (CMPMODE in base, mask count in count), then GetCmpMask
                if constexpr (tuner_sim::is_one_of<T, half, float>) {
                    BinaryRepeatParams p;
                    Compare(src, yLocal.ReinterpretCast<T>(), static_cast<CMPMODE>(t.base), t.count, p);
                    PipeBarrier<PIPE_V>();
                    GetCmpMask(zLocal);
                }
                break;
            case 7:  // SetCmpMask from y, then GetCmpMask into the output (at byte offset count)
                SetCmpMask(yLocal);
                PipeBarrier<PIPE_V>();
                GetCmpMask(zLocal[uint32_t(t.count)]);
                break;
            default: break;
        }
        if (t.form == 4 || t.form == 5) {
            zLocal.ReinterpretCast<uint64_t>().SetValue(uint32_t(t.zBytes / 8 - 1), rsvdCnt);
        }
    }

private:
    GatherTiling t;
};

extern "C" __global__ __aicore__ void rearrange_gather(GM_ADDR x, GM_ADDR y, GM_ADDR z0, GM_ADDR z,
                                                       GatherTiling tiling)
{
    KernelGather<DTYPE> op;
    op.Init(x, y, z0, z, tiling);
    op.Process();
}

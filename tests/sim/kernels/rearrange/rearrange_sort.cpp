// Rearrangement semantics driver: Transpose (16x16 and TransposeParamsExt), TransDataTo5HD, Sort32, Sort32 + MrgSort (with
// GetMrgSortResult stored in the output's last 8 bytes), Interleave and DeInterleave (Ascend 950 only, under
// -DWITH_INTERLEAVE). x holds the source bytes, y the second source (indices, or Interleave's src1).
#include "../api/harness.h"

#ifndef DTYPE
#define DTYPE float
#endif

struct SortTiling {
    uint64_t form;  // 0 Transpose 16x16, 1 Transpose ext, 2 Sort32, 3 Sort32 then MrgSort,
                    // 4 Interleave, 5 DeInterleave (two sources), 6 DeInterleave (one source),
                    // 7/8 TransDataTo5HD NCHW -> NC1HWC0 (addresses / LocalTensor lists)
    uint64_t xBytes, zBytes;
    uint64_t n, c, h, w, type, tmpBytes;  // Transpose ext
    uint64_t repeat;                      // Sort32 repeats / MrgSort repeatTimes
    uint64_t len0, len1, len2, len3, validBit, suspend, mrgRepeat;
    uint64_t count;                       // Interleave
};

template <typename T>
class KernelSort : public ApiHarness<KernelSort<T>, uint8_t, uint8_t, 2> {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z0, GM_ADDR z, const SortTiling& tiling)
    {
        t = tiling;
        this->InitHarness(x, y, z0, z, t.xBytes, t.zBytes);
        this->pipe.InitBuffer(tmpBuf, t.tmpBytes ? t.tmpBytes : 32);
        this->pipe.InitBuffer(workBuf, t.repeat * 256 + 32);
    }
    __aicore__ inline void Compute(LocalTensor<uint8_t>& zLocal, LocalTensor<uint8_t>& xLocal,
                                   LocalTensor<uint8_t>& yLocal)
    {
        LocalTensor<T> dst = zLocal.ReinterpretCast<T>();
        LocalTensor<T> src = xLocal.ReinterpretCast<T>();
        switch (t.form) {
            case 0:
                if constexpr (sizeof(T) == 2) Transpose(dst, src);
                break;
            case 1: {
                LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
                TransposeParamsExt p{uint16_t(t.n), uint16_t(t.c), uint16_t(t.h), uint16_t(t.w),
                                     static_cast<TransposeType>(t.type)};
                Transpose(dst, src, tmp, p);
                break;
            }
            case 2:
                if constexpr (tuner_sim::support::Sort32<T>) {
                    Sort32(dst, src, yLocal.ReinterpretCast<uint32_t>(), int32_t(t.repeat));
                }
                break;
            case 3:
                if constexpr (tuner_sim::support::Sort32<T>) {
                    LocalTensor<T> work = workBuf.Get<T>();
                    Sort32(work, src, yLocal.ReinterpretCast<uint32_t>(), int32_t(t.repeat));
                    PipeBarrier<PIPE_V>();
                    const uint64_t len[4] = {t.len0, t.len1, t.len2, t.len3};
                    const uint32_t per = 8 / sizeof(T);  // elements of T per (score, index) entry
                    uint32_t at = 0;
                    LocalTensor<T> q[4];
                    for (int i = 0; i < 4; ++i) {
                        q[i] = work[at];
                        at += uint32_t(len[i]) * per;
                    }
                    MrgSortSrcList<T> list(q[0], q[1], q[2], q[3]);
                    uint16_t lengths[4] = {uint16_t(t.len0), uint16_t(t.len1), uint16_t(t.len2), uint16_t(t.len3)};
                    MrgSort4Info info(lengths, t.suspend != 0, uint16_t(t.validBit), uint16_t(t.mrgRepeat));
                    MrgSort(dst, list, info);
                    uint16_t r[4];
                    GetMrgSortResult(r[0], r[1], r[2], r[3]);
                    LocalTensor<uint16_t> tail = zLocal.ReinterpretCast<uint16_t>();
                    for (int i = 0; i < 4; ++i) tail.SetValue(uint32_t(t.zBytes / 2 - 4 + i), r[i]);
                }
                break;
            case 7:    // TransDataTo5HD, addresses as values: NCHW (n groups of 16 channels, h*w = 16 * repeat) ->
            case 8: {  // NC1HWC0 (dstRepStride c, srcRepStride type); form 8 passes LocalTensor lists
                if constexpr (sizeof(T) == 2 || sizeof(T) == 4) {
                    const uint32_t hw = uint32_t(t.h * t.w), per = 32 / sizeof(T);
                    TransDataTo5HDParams p{false, false, uint8_t(t.repeat), uint16_t(t.c), uint16_t(t.type)};
                    for (uint32_t g = 0; g < uint32_t(t.n); ++g) {
                        uint64_t dl[16], sl[16];
                        LocalTensor<T> dt[16], st[16];
                        for (uint32_t i = 0; i < 16; ++i) {
                            dt[i] = dst[g * 16 * hw + per * i];
                            st[i] = src[g * 16 * hw + hw * i];
                            dl[i] = dt[i].GetPhyAddr();
                            sl[i] = st[i].GetPhyAddr();
                        }
                        if (t.form == 7) TransDataTo5HD<T>(dl, sl, p);
                        else TransDataTo5HD<T>(dt, st, p);
                    }
                }
                break;
            }
#ifdef WITH_INTERLEAVE
            case 4:
            case 5:
            case 6: {
                const uint32_t half = uint32_t(t.zBytes / 2 / sizeof(T));
                LocalTensor<T> d1 = dst[half];
                if (t.form == 4) Interleave(dst, d1, src, yLocal.ReinterpretCast<T>(), int32_t(t.count));
                if (t.form == 5) DeInterleave(dst, d1, src, yLocal.ReinterpretCast<T>(), int32_t(t.count));
                if (t.form == 6) DeInterleave(dst, d1, src, int32_t(t.count));
                break;
            }
#endif
            default: break;
        }
    }

private:
    SortTiling t;
    TBuf<QuePosition::VECCALC> tmpBuf, workBuf;
};

extern "C" __global__ __aicore__ void rearrange_sort(GM_ADDR x, GM_ADDR y, GM_ADDR z0, GM_ADDR z, SortTiling tiling)
{
    KernelSort<DTYPE> op;
    op.Init(x, y, z0, z, tiling);
    op.Process();
}

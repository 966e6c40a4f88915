// Ascend C's sort APIs of 高阶API/排序操作 on Atlas A2/A3: Concat, Sort (without SortConfig), Extract, the
// MrgSort form with element counts, GetSortOffset, GetSortLen; and TopK. Each is expanded into Sort32, MrgSort,
// GatherMask and DataCopy as asc-devkit's A2 implementation issues them (impl/basic_api/
// kernel_operator_proposal_intf_impl.h, dav_c220/kernel_operator_proposal_impl.h).
#pragma once
#include <algorithm>
#include <type_traits>

#include "adv_filter.h"
#include "adv_math.h"
#include "adv_sort_host.h"
#include "copy.h"
#include "rearrange.h"
#include "sync.h"
#include "tpipe.h"
#include "vec.h"

namespace AscendC {
namespace adv {
constexpr uint32_t kSortGroup = 32;  // elements Sort32 orders per repeat
constexpr uint32_t kMrgLists = 4;
// The (score, index) layout of A2: 8 bytes per element, so an element offset is 2 floats or 4 halves.
template <typename T>
TUNER_SIM_UNCHARGED constexpr uint32_t sorted_stride() {
    return sorted_elems_per_score(sizeof(T));
}
template <typename T>
TUNER_SIM_UNCHARGED inline void require_sort_type(const char*) {
    TUNER_SIM_ADV_REQUIRE(Sort, T);
}
// Merges 4 sorted lists of `count` elements each, `repeat` times (consecutive groups of 4 lists).
template <typename T>
TUNER_SIM_UNCHARGED inline void merge4(const LocalTensor<T>& dst, const LocalTensor<T>& tmp, uint32_t base,
                                       const uint16_t counts[4], uint16_t validBit, uint16_t repeat, Loc loc) {
    MrgSortSrcList<T> list(tmp[0], tmp[base], tmp[2 * base], tmp[3 * base]);
    MrgSort4Info info(counts, false, validBit, repeat);
    MrgSort(dst, list, info, loc);
}
// DoFullSort: rounds of 4-way merges from the Sort32 groups until one list is left, through `tmp`.
template <typename T>
TUNER_SIM_UNCHARGED inline void full_sort(const LocalTensor<T>& dst, const LocalTensor<T>& tmp, int32_t repeatTime,
                                          Loc loc) {
    constexpr uint32_t stride = sorted_stride<T>();
    uint32_t loops = 0;
    for (int32_t q = repeatTime; q > 1; q = (q + 3) / 4) ++loops;
    uint16_t single = uint16_t(kSortGroup);
    const uint32_t srcCount = uint32_t(repeatTime) * kSortGroup;
    const uint32_t dstCount = srcCount * stride;
    int32_t total = repeatTime;
    int32_t tailQue = repeatTime % int32_t(kMrgLists);
    int32_t mainRepeat = repeatTime / int32_t(kMrgLists);
    DataCopy(tmp, dst, dstCount, loc);
    for (uint32_t i = 0; i < loops; ++i) {
        const uint32_t base = uint32_t(single) * stride;
        if (mainRepeat > 0) {
            const uint16_t counts[4] = {single, single, single, single};
            merge4(dst, tmp, base, counts, 0b1111, uint16_t(mainRepeat), loc);
        }
        const uint16_t tailCount = uint16_t(srcCount % single ? srcCount % single : single);
        if (tailQue > 0) {
            const uint32_t off0 = kMrgLists * base * uint32_t(mainRepeat);
            if (tailQue > 1) {
                uint16_t counts[4] = {single, single, single, single};
                uint16_t validBit = 0b1111;
                uint32_t off2 = 0, off3 = 0;
                if (tailQue == 2) {
                    counts[1] = tailCount;
                    counts[2] = counts[3] = 0;
                    validBit = 0b0011;
                } else if (tailQue == 3) {
                    off2 = off0 + 2 * base;
                    counts[2] = tailCount;
                    counts[3] = 0;
                    validBit = 0b0111;
                } else {
                    off2 = off0 + 2 * base;
                    off3 = off0 + 3 * base;
                    counts[3] = tailCount;
                }
                MrgSortSrcList<T> list(tmp[off0], tmp[off0 + base], tmp[off2], tmp[off3]);
                MrgSort4Info info(counts, false, validBit, 1);
                MrgSort(dst[off0], list, info, loc);
            } else {
                DataCopy(dst[off0], tmp[off0], uint32_t(tailCount) * stride, loc);
            }
        }
        DataCopy(tmp, dst, dstCount, loc);
        single = uint16_t(single * kMrgLists);
        total = total % int32_t(kMrgLists) ? total / int32_t(kMrgLists) + 1 : total / int32_t(kMrgLists);
        tailQue = total % int32_t(kMrgLists);
        if (tailQue == 0 && tailCount != single) tailQue = int32_t(kMrgLists);
        mainRepeat = (total - tailQue) / int32_t(kMrgLists);
    }
}
}  // namespace adv

// ---- Concat (排序操作/Concat.md): on A2/A3 the scores are sorted where they are ------------------------------
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void Concat(LocalTensor<T>& concat, const LocalTensor<T>& src,
                                                  const LocalTensor<T>& tmp, const int32_t repeatTime,
                                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_ADV_REQUIRE(Concat, T);
    tuner_sim::api_site("Concat", loc);
    (void)tmp;
    (void)repeatTime;
    concat = src;
}

// ---- Sort (排序操作/Sort.md, the form without SortConfig): Sort32 per 32 elements, descending, into
// (score, index) pairs; with isFullSort the groups are merged into one list through tmp (GetSortTmpSize). ------
template <typename T, bool isFullSort>
TUNER_SIM_UNCHARGED __aicore__ inline void Sort(const LocalTensor<T>& dst, const LocalTensor<T>& concat,
                                                const LocalTensor<uint32_t>& index, LocalTensor<T>& tmp,
                                                const int32_t repeatTime,
                                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::require_sort_type<T>("Sort");
    tuner_sim::api_site("Sort", loc);
    Sort32(dst, concat, index, repeatTime, loc);
    if constexpr (isFullSort) {
        const uint32_t need = uint32_t(repeatTime) * adv::kSortGroup * adv::sorted_stride<T>();
        if (tmp.GetSize() < need) {
            tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                             "Sort: tmp holds %u elements, below the %u the full sort of %d groups needs "
                             "(GetSortTmpSize)", tmp.GetSize(), need, repeatTime);
        }
        adv::full_sort(dst, tmp, repeatTime, loc);
    }
}
// The SortConfig forms are Ascend 950 only (Sort.md).
template <typename T, bool isReuseSource = false, const SortConfig& config = DEFAULT_SORT_CONFIG>
__aicore__ inline void Sort(LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t calCount) {
    static_assert(tuner_sim::dependent_false<T>,
                  "Sort with SortConfig is supported on Ascend 950 only; on Atlas A2/A3 use Concat, Sort<T, "
                  "isFullSort> and Extract (Sort.md)");
}
template <typename T, bool isReuseSource = false, const SortConfig& config = DEFAULT_SORT_CONFIG>
__aicore__ inline void Sort(LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {
    static_assert(tuner_sim::dependent_false<T>,
                  "Sort with SortConfig is supported on Ascend 950 only; on Atlas A2/A3 use Concat, Sort<T, "
                  "isFullSort> and Extract (Sort.md)");
}

// ---- Extract (排序操作/Extract.md): the scores and the indices out of the (score, index) pairs ------------
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void Extract(const LocalTensor<T>& dstValue,
                                                   const LocalTensor<uint32_t>& dstIndex,
                                                   const LocalTensor<T>& sorted, const int32_t repeatTime,
                                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_ADV_REQUIRE(Extract, T);
    tuner_sim::api_site("Extract", loc);
    uint64_t kept = 0;
    const LocalTensor<uint32_t> words = sorted.template ReinterpretCast<uint32_t>();
    if constexpr (std::is_same_v<T, half>) {
        GatherMask(dstValue, sorted, uint8_t(3), false, 0u, GatherMaskParams(1, uint16_t(repeatTime), 8, 0), kept,
                   loc);
        GatherMask(dstIndex, words, uint8_t(2), false, 0u, GatherMaskParams(1, uint16_t(repeatTime * 2), 8, 0),
                   kept, loc);
    } else {
        GatherMask(dstValue, sorted, uint8_t(1), false, 0u, GatherMaskParams(1, uint16_t(repeatTime), 8, 0), kept,
                   loc);
        GatherMask(dstIndex, words, uint8_t(2), false, 0u, GatherMaskParams(1, uint16_t(repeatTime), 8, 0), kept,
                   loc);
    }
}

// ---- MrgSort (排序操作/MrgSort-93.md): up to 4 sorted lists into one; with isExhaustedSuspension the
// counts taken from each list are returned in sortedNum. --------------------------------------------------
template <typename T, bool isExhaustedSuspension>
TUNER_SIM_UNCHARGED __aicore__ inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& sortList,
                                                   const uint16_t elementCountList[4], uint32_t sortedNum[4],
                                                   uint16_t validBit, const int32_t repeatTime,
                                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::require_sort_type<T>("MrgSort");
    MrgSort4Info info(elementCountList, isExhaustedSuspension, validBit, uint16_t(repeatTime));
    MrgSort(dst, sortList, info, loc);
    if constexpr (isExhaustedSuspension) {
        uint16_t c[4];
        GetMrgSortResult(c[0], c[1], c[2], c[3], loc);
        for (int i = 0; i < 4; ++i) sortedNum[i] = c[i];
    }
}

// ---- GetSortOffset / GetSortLen (排序操作/GetSortOffset.md, GetSortLen.md) ---------------------------------
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline uint32_t GetSortOffset(const uint32_t elemOffset) {
    adv::require_sort_type<T>("GetSortOffset");
    return elemOffset * adv::sorted_stride<T>();
}
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline uint32_t GetSortLen(const uint32_t elemCount) {
    adv::require_sort_type<T>("GetSortLen");
    return elemCount * adv::sorted_stride<T>();
}

// ---- TopK (排序操作/TopK.md), the MERGE_SORT algorithm of Atlas A2/A3 ----------------------------------------
// Normal mode, per row: Sort32 groups (scores negated for the smallest), 4-way merges while 4 lists fit, then
// 2-way merges of the leftovers (clipped to k), GatherMask of the first k scores and indices, finished rows'
// indices set to n. Small mode (inner 32): one Sort32 per row and a pattern GatherMask of all rows at once.
namespace adv {
template <HardEvent E>
TUNER_SIM_UNCHARGED inline void topk_sync(Loc loc) {
    TPipe* pipe = GetTPipePtr();
    const TEventID id = pipe != nullptr ? pipe->FetchEventID(E) : TEventID(0);
    SetFlag<E>(id, loc);
    WaitFlag<E>(id, loc);
}
template <typename T, bool isInitIndex, bool isHasfinish>
TUNER_SIM_UNCHARGED inline void topk_normal(const LocalTensor<T>& dstValue, const LocalTensor<int32_t>& dstIndex,
                                            const LocalTensor<T>& src, const LocalTensor<int32_t>& srcIndex,
                                            const LocalTensor<bool>& finish, const LocalTensor<T>& tmp, int32_t k,
                                            const TopkTiling& t, const TopKInfo& info, bool isLargest, Loc loc) {
    if constexpr (!isInitIndex) {
        const LocalTensor<int32_t> idx = tmp[uint32_t(t.srcIndexOffset)].template ReinterpretCast<int32_t>();
        Arange(idx, int32_t(0), int32_t(1), info.inner, loc);
    }
    const LocalTensor<uint32_t> index =
        isInitIndex ? srcIndex.template ReinterpretCast<uint32_t>()
                    : tmp[uint32_t(t.srcIndexOffset)].template ReinterpretCast<uint32_t>();
    const LocalTensor<T> half0 = tmp, half1 = tmp[uint32_t(t.innerDataSize)];
    const DataCopyParams copyAll(uint16_t(t.copyUbToUbBlockCount), 1, 0, 0);
    for (int32_t j = 0; j < info.outter; ++j) {
        const uint32_t dstOff4 = uint32_t(j * t.kAlignFourBytes);
        const uint32_t rowOff = uint32_t(j * info.inner);
        if (!isLargest) {
            Muls(half1, src[rowOff], T(-1.0f), info.inner, loc);
            Sort32(half0, half1, index, int32_t(t.sortRepeat), loc);
        } else {
            Sort32(half0, src[rowOff], index, int32_t(t.sortRepeat), loc);
        }
        DataCopy(half1, half0, copyAll, loc);
        int32_t rounds = 0, dstIdx = 0;
        uint16_t z = uint16_t(kSortGroup);
        for (; uint32_t(z) * kMrgLists <= uint32_t(uint16_t(info.inner)); z = uint16_t(z * kMrgLists)) {
            const LocalTensor<T> from = rounds % 2 == 1 ? half1 : half0;
            dstIdx = (rounds + 1) % 2;
            const LocalTensor<T> to = dstIdx == 1 ? half1 : half0;
            ++rounds;
            const uint16_t counts[4] = {z, z, z, z};
            MrgSortSrcList<T> list(from, from[uint32_t(z) * uint32_t(t.mrgSortSrc1offset)],
                                   from[uint32_t(z) * uint32_t(t.mrgSortSrc2offset)],
                                   from[uint32_t(z) * uint32_t(t.mrgSortSrc3offset)]);
            MrgSort(to, list, MrgSort4Info(counts, false, 0b1111, uint16_t(t.mrgSortRepeat / z)), loc);
            DataCopy(from, to, copyAll, loc);
        }
        if (int32_t(z) < info.inner) {
            int32_t lists[16] = {0};
            int32_t nLists = 0, left = info.inner;
            for (int32_t len = z; len >= int32_t(kSortGroup); len /= int32_t(kMrgLists)) {
                const int32_t c = left / len;
                for (int32_t q = 0; q < c && nLists < 16; ++q) lists[nLists++] = len;
                left -= c * len;
            }
            uint16_t merged = 0;
            for (int32_t i = 0; i < nLists - 1; ++i) {
                const LocalTensor<T> from = (rounds + i) % 2 == 1 ? half1 : half0;
                dstIdx = (rounds + 1 + i) % 2;
                const LocalTensor<T> to = dstIdx == 1 ? half1 : half0;
                merged = uint16_t(merged + lists[i]);
                const uint16_t counts[4] = {uint16_t(std::min<int32_t>(merged, k)),
                                            uint16_t(std::min<int32_t>(lists[i + 1], k)), 0, 0};
                MrgSortSrcList<T> list(from, from[uint32_t(merged) * uint32_t(t.mrgSortTwoQueueSrc1Offset)], from,
                                       from);
                MrgSort(to, list, MrgSort4Info(counts, false, 0b0011, 1), loc);
            }
        }
        const LocalTensor<T> sorted = dstIdx == 1 ? half1 : half0;
        uint64_t kept = 0;
        const GatherMaskParams one(1, 1, 8, 1);
        if constexpr (sizeof(T) == 4) {
            GatherMask(dstValue[dstOff4], sorted, uint8_t(1), true, uint32_t(t.maskVreducev2FourBytes), one, kept,
                       loc);
        } else {
            GatherMask(dstValue[uint32_t(j * t.kAlignTwoBytes)], sorted, uint8_t(3), true,
                       uint32_t(t.maskVreducev2TwoBytes), one, kept, loc);
        }
        GatherMask(dstIndex[dstOff4].template ReinterpretCast<float>(), sorted.template ReinterpretCast<float>(),
                   uint8_t(2), true, uint32_t(t.maskVreducev2FourBytes), one, kept, loc);
        if constexpr (isHasfinish) {
            const bool done = finish.GetValue(uint32_t(j), loc);
            topk_sync<HardEvent::S_V>(loc);
            if (done) Duplicate(dstIndex[dstOff4], int32_t(info.n), k, loc);
        }
    }
    if (!isLargest) Muls(dstValue, dstValue, T(-1.0f), t.maskOffset, loc);
}
template <typename T, bool isInitIndex>
TUNER_SIM_UNCHARGED inline void topk_small(const LocalTensor<T>& dstValue, const LocalTensor<int32_t>& dstIndex,
                                           const LocalTensor<T>& src, const LocalTensor<int32_t>& srcIndex,
                                           const LocalTensor<T>& tmp, const TopkTiling& t, const TopKInfo& info,
                                           bool isLargest, Loc loc) {
    if constexpr (!isInitIndex) {
        const LocalTensor<int32_t> idx =
            tmp[uint32_t(t.topkNSmallSrcIndexOffset)].template ReinterpretCast<int32_t>();
        Arange(idx, int32_t(0), int32_t(1), info.inner, loc);
        if (info.outter > 1) {
            Copy(idx[uint32_t(info.inner)], idx, uint64_t(32), uint8_t(info.outter - 1), CopyRepeatParams(1, 1, 4, 0),
                 loc);
        }
    }
    const LocalTensor<uint32_t> index =
        isInitIndex ? srcIndex.template ReinterpretCast<uint32_t>()
                    : tmp[uint32_t(t.topkNSmallSrcIndexOffset)].template ReinterpretCast<uint32_t>();
    if (!isLargest) {
        Muls(tmp[uint32_t(t.innerDataSize)], src, T(-1.0f), t.allDataSize, loc);
        Sort32(tmp, tmp[uint32_t(t.innerDataSize)], index, info.outter, loc);
    } else {
        Sort32(tmp, src, index, info.outter, loc);
    }
    uint64_t kept = 0;
    const GatherMaskParams rows(1, uint16_t(info.outter), 8, 0);
    topk_sync<HardEvent::V_S>(loc);
    if constexpr (sizeof(T) == 4) {
        const LocalTensor<uint32_t> pattern = tmp[uint32_t(t.topkMrgSrc1MaskSizeOffset)].template ReinterpretCast<uint32_t>();
        pattern.SetValue(0, t.vreduceValMask0, loc);
        pattern.SetValue(1, t.vreduceValMask1, loc);
        pattern.SetValue(8, t.vreduceIdxMask0, loc);
        pattern.SetValue(9, t.vreduceIdxMask1, loc);
        topk_sync<HardEvent::S_V>(loc);
        GatherMask(dstValue, tmp, pattern, true, 64u, rows, kept, loc);
        GatherMask(dstIndex.template ReinterpretCast<float>(), tmp, pattern[8], true, 64u, rows, kept, loc);
    } else {
        const LocalTensor<uint16_t> pattern = tmp[uint32_t(t.topkMrgSrc1MaskSizeOffset)].template ReinterpretCast<uint16_t>();
        const uint16_t masks[8] = {t.vreducehalfValMask0, t.vreducehalfValMask1, t.vreducehalfValMask2,
                                   t.vreducehalfValMask3, t.vreducehalfValMask4, t.vreducehalfValMask5,
                                   t.vreducehalfValMask6, t.vreducehalfValMask7};
        for (uint32_t w = 0; w < 8; ++w) pattern.SetValue(w, masks[w], loc);
        const LocalTensor<uint32_t> idxPattern =
            tmp[uint32_t(t.topkMrgSrc1MaskSizeOffset) + 16].template ReinterpretCast<uint32_t>();
        idxPattern.SetValue(0, t.vreduceIdxMask0, loc);
        idxPattern.SetValue(1, t.vreduceIdxMask1, loc);
        topk_sync<HardEvent::S_V>(loc);
        GatherMask(dstValue, tmp, pattern, true, 128u, rows, kept, loc);
        GatherMask(dstIndex.template ReinterpretCast<float>(), tmp.template ReinterpretCast<float>(), idxPattern, true,
                   64u, rows, kept, loc);
    }
    if (!isLargest) Muls(dstValue, dstValue, T(-1.0f), t.maskOffset, loc);
}
template <typename T, bool isInitIndex, bool isHasfinish, TopKMode topkMode>
TUNER_SIM_UNCHARGED inline void topk(const LocalTensor<T>& dstValue, const LocalTensor<int32_t>& dstIndex,
                                     const LocalTensor<T>& src, const LocalTensor<int32_t>& srcIndex,
                                     const LocalTensor<bool>& finish, const LocalTensor<uint8_t>& tmp, int32_t k,
                                     const TopkTiling& t, const TopKInfo& info, bool isLargest, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(TopK, T);
    tuner_sim::api_site("TopK", loc);
    if (topkMode == TopKMode::TOPK_NSMALL && isHasfinish) {  // a run-time check, as asc-devkit's
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "TopK: the Small mode (TOPK_NSMALL) takes isHasfinish = false only (TopK.md)");
    }
    if (k < 1 || k > info.n || info.n < 1 || info.n > info.inner || info.inner % 32 != 0 || info.outter < 1 ||
        (topkMode == TopKMode::TOPK_NORMAL && info.inner > 4096) ||
        (topkMode == TopKMode::TOPK_NSMALL && (info.inner != 32 || k > 32))) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "TopK: k %d, TopKInfo {outter %d, inner %d, n %d}: needs 1 <= k <= n <= inner, inner a "
                         "multiple of 32 (at most 4096; exactly 32 in the Small mode)",
                         k, info.outter, info.inner, info.n);
    }
    if (uint64_t(info.outter) * uint32_t(info.inner) > src.GetSize()) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds, "TopK: outter %d x inner %d exceeds srcLocal (%u)",
                         info.outter, info.inner, src.GetSize());
    }
    require_tmp("TopK", tmp, uint32_t(t.tmpLocalSize) * uint32_t(sizeof(T)), own);
    const LocalTensor<T> work = tmp.ReinterpretCast<T>();
    if constexpr (topkMode == TopKMode::TOPK_NORMAL) {
        topk_normal<T, isInitIndex, isHasfinish>(dstValue, dstIndex, src, srcIndex, finish, work, k, t, info,
                                                 isLargest, loc);
    } else {
        topk_small<T, isInitIndex>(dstValue, dstIndex, src, srcIndex, work, t, info, isLargest, loc);
    }
}
}  // namespace adv

template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL>
TUNER_SIM_UNCHARGED __aicore__ inline void TopK(const LocalTensor<T>& dstValueLocal,
                                                const LocalTensor<int32_t>& dstIndexLocal,
                                                const LocalTensor<T>& srcLocal,
                                                const LocalTensor<int32_t>& srcIndexLocal,
                                                const LocalTensor<bool>& finishLocal,
                                                const LocalTensor<uint8_t>& tmpLocal, const int32_t k,
                                                const TopkTiling& tilling, const TopKInfo& topKInfo,
                                                const bool isLargest = true,
                                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::topk<T, isInitIndex, isHasfinish, topkMode>(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal,
                                                     finishLocal, tmpLocal, k, tilling, topKInfo, isLargest, false,
                                                     loc);
}
template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL>
TUNER_SIM_UNCHARGED __aicore__ inline void TopK(const LocalTensor<T>& dstValueLocal,
                                                const LocalTensor<int32_t>& dstIndexLocal,
                                                const LocalTensor<T>& srcLocal,
                                                const LocalTensor<int32_t>& srcIndexLocal,
                                                const LocalTensor<bool>& finishLocal, const int32_t k,
                                                const TopkTiling& tilling, const TopKInfo& topKInfo,
                                                const bool isLargest = true,
                                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::topk<T, isInitIndex, isHasfinish, topkMode>(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal,
                                                     finishLocal, adv::own_tmp("TopK"), k, tilling, topKInfo,
                                                     isLargest, true, loc);
}

}  // namespace AscendC

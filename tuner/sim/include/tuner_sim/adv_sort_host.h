// The host side of the sort APIs (高阶API/排序操作): SortType / SortConfig and GetSortMaxMinTmpSize,
// GetConcatTmpSize, GetSortTmpSize. Those that take an AscendC::TensorDataType (ge::DataType) or a
// PlatformAscendC exist where the CANN host API is compiled too (TUNER_SIM_CANN_HOST; elsewhere the DT_* names
// are the preprocessor numbers of tiling_data.h).
#pragma once
#include <cstdint>
#include <cstdio>
#include <vector>

#include "adv_host.h"
#if defined(TUNER_SIM_CANN_HOST)
// Declared here, defined by cann_host.h (which may be the header that is including this one): the helpers
// that take them are templates, so their bodies are read where they are used.
namespace platform_ascendc {
class PlatformAscendC;
class PlatformAscendCManager;
}  // namespace platform_ascendc
#endif

namespace AscendC {
// Sort.md (the SortConfig form, Ascend 950 on the kernel side; the host helpers take it everywhere).
enum class SortType { RADIX_SORT, MERGE_SORT };
struct SortConfig {
    SortType type = SortType::RADIX_SORT;
    bool isDescend = false;
    bool hasSrcIndex = false;
    bool hasDstIndex = false;
};
constexpr SortConfig DEFAULT_SORT_CONFIG = {SortType::RADIX_SORT, false};

namespace adv {
// A2's Sort32 / MrgSort keep (score, index) pairs of 8 bytes: 2 floats or 4 halves per element.
TUNER_SIM_UNCHARGED constexpr uint32_t sorted_elems_per_score(uint32_t typeSize) { return typeSize == 4 ? 2 : 4; }
}  // namespace adv


// ---- TopK (排序操作/TopK.md, TopK-Tiling.md) -------------------------------------------------------------------
enum class TopKMode { TOPK_NORMAL, TOPK_NSMALL };
enum class TopKAlgo { RADIX_SELECT, MERGE_SORT };
enum class TopKOrder { UNSET, LARGEST, SMALLEST };
struct TopKConfig {
    TopKAlgo algo = TopKAlgo::MERGE_SORT;
    TopKOrder order = TopKOrder::UNSET;
    bool sorted = true;
};
constexpr TopKConfig defaultTopKConfig = {TopKAlgo::MERGE_SORT, TopKOrder::UNSET, true};
struct TopKInfo {
    int32_t outter = 1;
    int32_t inner;
    int32_t n;
};

namespace adv {
// The A2/A3 (NPU arch 2201) TopK tiling of asc-devkit's topk_tiling_impl.cpp: offsets and sizes in elements of
// T, and the GatherMask patterns of the Small mode.
inline uint32_t topk_ones10(int32_t k) {  // "10" repeated k times: the index words of k (score, index) pairs
    uint32_t m = 2;
    for (int i = 1; i < k; ++i) m = (m << 2) | m;
    return m;
}
inline uint32_t topk_ones01(int32_t k) {  // "01" repeated k times: the float score words
    uint32_t m = 1;
    for (int i = 1; i < k; ++i) m = (m << 2) | m;
    return m;
}
inline uint16_t topk_ones0001(int32_t k) {  // "0001" repeated k times: the half score of each 8-byte pair
    uint16_t m = 1;
    for (int i = 1; i < k; ++i) m = uint16_t((m << 4) | m);
    return m;
}
inline uint32_t topk_tmp_bytes(int32_t inner, int32_t outter, bool isInitIndex, TopKMode mode, bool isLargest) {
    const uint32_t in = uint32_t(inner), io = uint32_t(inner) * uint32_t(outter);
    if (mode == TopKMode::TOPK_NORMAL) return (16 + (isInitIndex ? 0 : 4)) * in;
    uint32_t bytes = io * 8 + 64;
    if (!isLargest) bytes += io * 4;
    if (!isInitIndex) bytes += io * 4;
    return bytes;
}
}  // namespace adv
}  // namespace AscendC

// TopkTiling (kernel_tiling: AscendC::tiling::TopkTiling; the host's optiling::TopkTiling is the same layout).
struct TopkTiling {
    int32_t tmpLocalSize = 0;
    int32_t allDataSize = 0;
    int32_t innerDataSize = 0;
    uint32_t sortRepeat = 0;
    int32_t mrgSortRepeat = 0;
    int32_t kAlignFourBytes = 0;
    int32_t kAlignTwoBytes = 0;
    int32_t maskOffset = 0;
    int32_t maskVreducev2FourBytes = 0;
    int32_t maskVreducev2TwoBytes = 0;
    int32_t mrgSortSrc1offset = 0;
    int32_t mrgSortSrc2offset = 0;
    int32_t mrgSortSrc3offset = 0;
    int32_t mrgSortTwoQueueSrc1Offset = 0;
    int32_t mrgFourQueueTailPara1 = 0;
    int32_t mrgFourQueueTailPara2 = 0;
    int32_t srcIndexOffset = 0;
    uint32_t copyUbToUbBlockCount = 0;
    int32_t topkMrgSrc1MaskSizeOffset = 0;
    int32_t topkNSmallSrcIndexOffset = 0;
    uint32_t vreduceValMask0 = 0;
    uint32_t vreduceValMask1 = 0;
    uint32_t vreduceIdxMask0 = 0;
    uint32_t vreduceIdxMask1 = 0;
    uint16_t vreducehalfValMask0 = 0;
    uint16_t vreducehalfValMask1 = 0;
    uint16_t vreducehalfValMask2 = 0;
    uint16_t vreducehalfValMask3 = 0;
    uint16_t vreducehalfValMask4 = 0;
    uint16_t vreducehalfValMask5 = 0;
    uint16_t vreducehalfValMask6 = 0;
    uint16_t vreducehalfValMask7 = 0;
};
namespace optiling {
using ::TopkTiling;
}  // namespace optiling

namespace AscendC {
namespace tiling {
using ::TopkTiling;
}  // namespace tiling
namespace adv {
inline void topk_tiling_a2(int32_t inner, int32_t outter, int32_t k, uint32_t dataTypeSize, bool isInitIndex,
                           TopKMode mode, bool isLargest, TopkTiling& t) {
    const bool isHalf = dataTypeSize == 2;
    t.allDataSize = inner * outter;
    t.kAlignFourBytes = (k + 7) / 8 * 8;
    if (mode == TopKMode::TOPK_NORMAL) {
        t.kAlignTwoBytes = (k + 15) / 16 * 16;
        t.tmpLocalSize = (isHalf ? 8 : 4) * inner;
        t.innerDataSize = (isHalf ? 4 : 2) * inner;
        t.copyUbToUbBlockCount = uint32_t(inner * 2 * 4 / 32);
        t.sortRepeat = uint32_t(inner / 32);
        t.mrgSortRepeat = inner / 4;
        t.maskOffset = outter * (isHalf ? t.kAlignTwoBytes : t.kAlignFourBytes);
        t.maskVreducev2FourBytes = 2 * k;
        t.maskVreducev2TwoBytes = 4 * k;
        const int32_t stride = isHalf ? 4 : 2;
        t.mrgSortSrc1offset = stride;
        t.mrgSortSrc2offset = 2 * stride;
        t.mrgSortSrc3offset = 3 * stride;
        t.mrgSortTwoQueueSrc1Offset = stride;
        t.mrgFourQueueTailPara1 = inner * 2;
        t.mrgFourQueueTailPara2 = int32_t(4 / dataTypeSize);
        if (!isInitIndex) {
            t.srcIndexOffset = (isHalf ? 8 : 4) * inner;
            t.tmpLocalSize = isHalf ? 8 * inner + 2 * inner : 4 * inner + inner;
        }
        return;
    }
    const int32_t innerDataSize = inner * outter * int32_t(8 / dataTypeSize);
    t.innerDataSize = innerDataSize;
    t.maskOffset = outter * k;
    const int32_t negative = isLargest ? 0 : inner * outter;
    t.topkMrgSrc1MaskSizeOffset = innerDataSize + negative;
    t.tmpLocalSize = t.topkMrgSrc1MaskSizeOffset + int32_t(64 / dataTypeSize);
    if (!isInitIndex) {
        t.topkNSmallSrcIndexOffset = t.tmpLocalSize;
        t.tmpLocalSize += inner * outter * int32_t(4 / dataTypeSize);
    }
    if (k < 17) {
        t.vreduceIdxMask0 = topk_ones10(k);
    } else if (k <= 32) {
        t.vreduceIdxMask0 = 2863311530u;
        t.vreduceIdxMask1 = topk_ones10(k - 16);
    }
    if (!isHalf) {
        if (k < 17) {
            t.vreduceValMask0 = topk_ones01(k);
        } else if (k <= 32) {
            t.vreduceValMask0 = topk_ones01(16);
            t.vreduceValMask1 = topk_ones01(k - 16);
        }
    } else {
        uint16_t* m[8] = {&t.vreducehalfValMask0, &t.vreducehalfValMask1, &t.vreducehalfValMask2,
                          &t.vreducehalfValMask3, &t.vreducehalfValMask4, &t.vreducehalfValMask5,
                          &t.vreducehalfValMask6, &t.vreducehalfValMask7};
        for (int w = 0; w < 8; ++w) {  // 4 halves of 4 pairs per 16-bit word
            const int32_t left = k - 4 * w;
            *m[w] = left <= 0 ? uint16_t(0) : (left >= 4 ? uint16_t(4369) : topk_ones0001(left));
        }
    }
}
}  // namespace adv

#if defined(TUNER_SIM_CANN_HOST)
namespace adv {
// The element size of a TensorDataType (the ge::DataType numbers: DT_FLOAT 0, DT_FLOAT16 1, DT_INT8 2, ...).
inline uint32_t data_type_size(int32_t t) {
    switch (t) {
        case 2: case 4: return 1;             // DT_INT8, DT_UINT8
        case 1: case 6: case 7: case 27: return 2;  // DT_FLOAT16, DT_INT16, DT_UINT16, DT_BF16
        case 0: case 3: case 8: return 4;     // DT_FLOAT, DT_INT32, DT_UINT32
        case 9: case 10: return 8;            // DT_INT64, DT_UINT64
        default: return 0;
    }
}
}  // namespace adv

// GetSortMaxMinTmpSize.md: the SortConfig Sort of Ascend 950 (NPU arch 3510 / 5102). On any other arch
// asc-devkit logs "Unsupported NpuArch" and leaves maxValue / minValue unset; here they are set to 0.
// (TensorDataType is ge::DataType, declared by cann_host.h after this header: DataType is deduced.)
template <class DataType, class Manager = platform_ascendc::PlatformAscendCManager>
inline void GetSortMaxMinTmpSize(const TensorShape& srcShape, DataType valueType, DataType indexType,
                                 bool isReuseSource, const SortConfig& config, uint32_t& maxValue,
                                 uint32_t& minValue) {
    maxValue = minValue = 0;
    const uint32_t arch = uint32_t(Manager::GetInstance()->GetCurNpuArch());
    if (arch != 3510 && arch != 5102) {
        std::fprintf(stderr, "[Sort][GetSortMaxMinTmpSize] Unsupported NpuArch for Sort API.\n");
        return;
    }
    const uint32_t valueSize = adv::data_type_size(int32_t(valueType));
    if (valueSize == 0 || (config.hasSrcIndex && !config.hasDstIndex)) {
        std::fprintf(stderr, "[Sort][GetSortMaxMinTmpSize] unsupported valueType or index configuration.\n");
        return;
    }
    uint32_t n = uint32_t(srcShape.GetShapeSize());
    if (config.type == SortType::MERGE_SORT) {
        maxValue = minValue = 8 * n;
        return;
    }
    n = (n + 31) / 32 * 32;
    uint32_t extraValue = valueSize, extraIndex = adv::data_type_size(int32_t(indexType));
    if (isReuseSource) extraValue = extraIndex = 0;
    const int mode = (!config.hasSrcIndex && !config.hasDstIndex) ? 1 : (!config.hasSrcIndex ? 0 : 2);
    uint32_t need = n * 7 + 512;
    if (valueSize != 1) {
        if (mode == 1) {
            need += n * extraValue;
        } else if (mode == 0) {
            need += n * (uint32_t(sizeof(uint32_t)) + extraValue);
        } else {
            need += n * (extraValue + extraIndex);
        }
    } else if (mode == 0) {
        need -= 2 * n;
    }
    maxValue = minValue = need;
}
// GetConcatTmpSize.md / GetSortTmpSize.md: A2/A3 and 950 sort in place (Concat needs nothing); the
// region-proposal SoCs keep 8 elements per proposal.
template <class Platform>
inline uint32_t GetConcatTmpSize(const Platform& ascendcPlatform, const uint32_t elemCount,
                                 const uint32_t dataTypeSize) {
    const uint32_t arch = uint32_t(ascendcPlatform.GetCurNpuArch());
    if (arch == 2201 || arch == 3510) return 0;
    return elemCount * 8 * dataTypeSize;
}
template <class Platform>
inline uint32_t GetSortTmpSize(const Platform& ascendcPlatform, const uint32_t elemCount,
                               const uint32_t dataTypeSize) {
    const uint32_t arch = uint32_t(ascendcPlatform.GetCurNpuArch());
    if (arch == 2201 || arch == 3510) return elemCount * adv::sorted_elems_per_score(dataTypeSize) * dataTypeSize;
    return elemCount * 8 * dataTypeSize;
}

// TopK-Tiling.md: the Atlas A2/A3 tiling and temporary size (the kernel side is the A2 expansion).
template <class Platform>
inline bool GetTopKMaxMinTmpSize(const Platform& ascendcPlatform, const int32_t inner, const int32_t outter,
                                 const bool isReuseSource, const bool isInitIndex, TopKMode mode, const bool isLargest,
                                 const uint32_t dataTypeSize, uint32_t& maxValue, uint32_t& minValue) {
    (void)ascendcPlatform;
    (void)isReuseSource;
    if (dataTypeSize != 2 && dataTypeSize != 4) return false;
    maxValue = minValue = adv::topk_tmp_bytes(inner, outter, isInitIndex, mode, isLargest);
    return true;
}
template <class Platform>
inline bool TopKTilingFunc(const Platform& ascendcPlatform, const int32_t inner, const int32_t outter,
                           const int32_t k, const uint32_t dataTypeSize, const bool isInitIndex, TopKMode mode,
                           const bool isLargest, TopkTiling& topKTiling) {
    (void)ascendcPlatform;
    if (dataTypeSize != 2 && dataTypeSize != 4) return false;
    adv::topk_tiling_a2(inner, outter, k, dataTypeSize, isInitIndex, mode, isLargest, topKTiling);
    return true;
}
#endif

}  // namespace AscendC

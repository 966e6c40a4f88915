// The host side of the quantization APIs (高阶API/量化操作): GetAscendQuantMaxMinTmpSize,
// GetAscendDequantMaxMinTmpSize, GetAscendAntiQuantMaxMinTmpSize and their TmpBufferFactorSize forms.
// Plain C++ with no kernel dependency.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "adv_host.h"

namespace AscendC {
namespace adv {
// AscendQuant works in half planes of the temporary space: two 256-byte repeats at least, two bytes per
// element at most (GetAscendQuantMaxMinTmpSize.md).
constexpr uint32_t kQuantMinTmp = 2 * kRepeatBytes;
// AscendDequant keeps the float deqScale (calCount rounded up to 8) ahead of the widened rows.
TUNER_SIM_UNCHARGED constexpr uint32_t dequant_tmp_floats(uint32_t rows, uint32_t n) {
    return kLanes + rows * n + (n + kBlkFloats);
}
}  // namespace adv

inline void GetAscendQuantMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                        uint32_t& minValue) {
    (void)typeSize;
    const uint32_t maxVal = std::max<uint32_t>(uint32_t(srcShape.GetShapeSize()) * 2, adv::kQuantMinTmp);
    maxValue = (maxVal + 31) / 32 * 32;
    minValue = adv::kQuantMinTmp;
}
inline void GetAscendQuantTmpBufferFactorSize(uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
    extraBuf = 0;
    maxLiveNodeCount = 2;
}

// srcShape is [m, n] or [n] (int32_t, typeSize 4): the minimum holds one row, the maximum all rows.
inline void GetAscendDequantMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                          uint32_t& minValue) {
    (void)typeSize;
    const std::vector<int64_t> d = srcShape.GetDims();
    uint32_t outer = 1, inner = 0;
    if (d.size() == 2) {
        outer = uint32_t(d[0]);
        inner = uint32_t(d[1]);
    } else if (d.size() == 1) {
        inner = uint32_t(d[0]);
    } else {
        maxValue = minValue = 0;
        return;
    }
    maxValue = adv::dequant_tmp_floats(outer, inner) * uint32_t(sizeof(float));
    minValue = adv::dequant_tmp_floats(1, inner) * uint32_t(sizeof(float));
}
inline void GetAscendDequantTmpBufferFactorSize(const TensorShape& srcShape, uint32_t& maxLiveNodeCount,
                                                uint32_t& extraBuf) {
    const std::vector<int64_t> d = srcShape.GetDims();
    extraBuf = adv::kBlkFloats + adv::kLanes;
    if (d.size() == 2) {
        extraBuf += uint32_t(d[1]);
        maxLiveNodeCount = 1;
    } else if (d.size() == 1) {
        maxLiveNodeCount = 2;
    } else {
        extraBuf = 0;
        maxLiveNodeCount = 0;
    }
}


// GetAscendAntiQuantMaxMinTmpSize.md: srcShape [K, N] (or [N, K] transposed), scaleShape; the data types are
// TensorDataType (ge::DataType, deduced here: cann_host.h declares it after this header). half output needs no
// temporary space; the float4 inputs are Ascend 950 only.
namespace adv {
inline uint32_t antiquant_tmp(const TensorShape& srcShape, const TensorShape& scaleShape, bool isTranspose,
                              int32_t outputType, bool isMax) {
    if (outputType == 1) return 0;  // DT_FLOAT16
    const uint32_t scaleSize = uint32_t(scaleShape.GetShapeSize()), srcSize = uint32_t(srcShape.GetShapeSize());
    const bool perChannel = scaleSize != 1;
    if (!perChannel) return isMax ? srcSize * 4 : 1024;
    if (isTranspose) return 8 * scaleSize * 4 + 8 * scaleSize * 4 + 64 * scaleSize * 4;
    const uint32_t k = uint32_t(srcShape.GetDim(0));
    return scaleSize * 2 * 4 + 64 * k * 4;
}
}  // namespace adv
template <class DataType>
inline uint32_t GetAscendAntiQuantMaxTmpSize(const TensorShape& srcShape, const TensorShape& scaleShape,
                                             bool isTranspose, DataType inputDataType, DataType outputDataType) {
    (void)inputDataType;
    return adv::antiquant_tmp(srcShape, scaleShape, isTranspose, int32_t(outputDataType), true);
}
template <class DataType>
inline uint32_t GetAscendAntiQuantMinTmpSize(const TensorShape& srcShape, const TensorShape& scaleShape,
                                             bool isTranspose, DataType inputDataType, DataType outputDataType) {
    (void)inputDataType;
    return adv::antiquant_tmp(srcShape, scaleShape, isTranspose, int32_t(outputDataType), false);
}
template <class DataType>
inline void GetAscendAntiQuantMaxMinTmpSize(const TensorShape& srcShape, const TensorShape& scaleShape,
                                            bool isTranspose, DataType inputDataType, DataType outputDataType,
                                            uint32_t& maxValue, uint32_t& minValue) {
    maxValue = GetAscendAntiQuantMaxTmpSize(srcShape, scaleShape, isTranspose, inputDataType, outputDataType);
    minValue = GetAscendAntiQuantMinTmpSize(srcShape, scaleShape, isTranspose, inputDataType, outputDataType);
}

}  // namespace AscendC
#include "adv_filter_host.h"  // Arange, DropOut, Select
#include "adv_sort_host.h"  // SortConfig, GetSortMaxMinTmpSize, GetSortTmpSize; TopK tiling

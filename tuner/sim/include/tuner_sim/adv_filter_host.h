// The host side of Arange (高阶API/索引计算), DropOut and Select (高阶API/数据过滤): GetArangeMaxMinTmpSize,
// GetDropOutMaxMinTmpSize, GetSelectMaxMinTmpSize and their Max / Min forms. Plain C++.
#pragma once
#include <algorithm>
#include <cstdint>

#include "adv_host.h"

namespace AscendC {
namespace adv {
// Select (GetSelectMaxMinTmpSize.md): the mask widened to half, one pass of at most 4096 elements at the
// minimum, all of them at the maximum, plus a compacted copy of the mask when it is wider than the source
// rows and may not be rewritten in place.
constexpr uint32_t kSelectMinTmp = 1024;
constexpr uint32_t kSelectReserved = 512;
constexpr uint32_t kSelectBlock = 4096;
TUNER_SIM_UNCHARGED inline bool select_is_scalar(const TensorShape& s) {
    return s.GetDimNum() == 0 || s.GetShapeSize() == 1;
}
TUNER_SIM_UNCHARGED inline uint32_t select_tmp(const TensorShape& src0, const TensorShape& src1,
                                               const TensorShape& mask, uint32_t maskTypeSize, bool isReuseMask,
                                               bool isMin) {
    const bool src0Scalar = select_is_scalar(src0);
    const TensorShape& src = src0Scalar ? src1 : src0;
    const uint32_t srcSize = uint32_t(src.GetShapeSize());
    const uint32_t maskLast = uint32_t(mask.GetDim(mask.GetDimNum() - 1));
    const uint32_t srcLast = uint32_t(src.GetDim(src.GetDimNum() - 1));
    const uint32_t cal = (isMin && srcSize > kSelectBlock) ? kSelectBlock : srcSize;
    uint32_t need = std::max(kSelectMinTmp, (cal + 31) / 32 * 32 * 2 + kSelectReserved);
    if (maskLast != srcLast && !isReuseMask && maskLast > 1) need += (srcSize * maskTypeSize + 31) / 32 * 32;
    return need;
}
// DropOut (GetDropOutMaxMinTmpSize.md): two repeats at least; a half and a float plane of the input at most.
constexpr uint32_t kDropOutMinTmp = 2 * kRepeatBytes;
}  // namespace adv

// ---- Arange (GetArangeMaxMinTmpSize.md): no temporary space -----------------------------------------------
inline void GetArangeMaxMinTmpSize(uint32_t& maxValue, uint32_t& minValue) {
    maxValue = 0;
    minValue = 0;
}
inline void GetArithProgressionMaxMinTmpSize(uint32_t& maxValue, uint32_t& minValue) {
    GetArangeMaxMinTmpSize(maxValue, minValue);
}

// ---- Select ------------------------------------------------------------------------------------------------
inline uint32_t GetSelectMinTmpSize(const TensorShape& src0Shape, const TensorShape& src1Shape,
                                    const uint32_t srcTypeSize, const TensorShape& maskShape,
                                    const uint32_t maskTypeSize, const bool isReuseMask) {
    (void)srcTypeSize;
    return adv::select_tmp(src0Shape, src1Shape, maskShape, maskTypeSize, isReuseMask, true);
}
inline uint32_t GetSelectMaxTmpSize(const TensorShape& src0Shape, const TensorShape& src1Shape,
                                    const uint32_t srcTypeSize, const TensorShape& maskShape,
                                    const uint32_t maskTypeSize, const bool isReuseMask) {
    (void)srcTypeSize;
    return adv::select_tmp(src0Shape, src1Shape, maskShape, maskTypeSize, isReuseMask, false);
}
inline void GetSelectMaxMinTmpSize(const TensorShape& src0Shape, const TensorShape& src1Shape,
                                   const uint32_t srcTypeSize, const TensorShape& maskShape,
                                   const uint32_t maskTypeSize, const bool isReuseMask, uint32_t& maxValue,
                                   uint32_t& minValue) {
    maxValue = GetSelectMaxTmpSize(src0Shape, src1Shape, srcTypeSize, maskShape, maskTypeSize, isReuseMask);
    minValue = GetSelectMinTmpSize(src0Shape, src1Shape, srcTypeSize, maskShape, maskTypeSize, isReuseMask);
}
// The deprecated names of the same (GetSelectMaxMinTmpSize.md).
inline uint32_t GetSelectWithBytesMaskMinTmpSize(const TensorShape& src0Shape, const TensorShape& src1Shape,
                                                 const uint32_t srcTypeSize, const TensorShape& maskShape,
                                                 const uint32_t maskTypeSize, const bool isReuseMask) {
    return GetSelectMinTmpSize(src0Shape, src1Shape, srcTypeSize, maskShape, maskTypeSize, isReuseMask);
}
inline uint32_t GetSelectWithBytesMaskMaxTmpSize(const TensorShape& src0Shape, const TensorShape& src1Shape,
                                                 const uint32_t srcTypeSize, const TensorShape& maskShape,
                                                 const uint32_t maskTypeSize, const bool isReuseMask) {
    return GetSelectMaxTmpSize(src0Shape, src1Shape, srcTypeSize, maskShape, maskTypeSize, isReuseMask);
}
inline void GetSelectWithBytesMaskMaxMinTmpSize(const TensorShape& src0Shape, const TensorShape& src1Shape,
                                                const uint32_t srcTypeSize, const TensorShape& maskShape,
                                                const uint32_t maskTypeSize, const bool isReuseMask,
                                                uint32_t& maxValue, uint32_t& minValue) {
    GetSelectMaxMinTmpSize(src0Shape, src1Shape, srcTypeSize, maskShape, maskTypeSize, isReuseMask, maxValue,
                           minValue);
}

// ---- DropOut -----------------------------------------------------------------------------------------------
inline uint32_t GetDropOutMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource) {
    (void)srcShape;
    (void)typeSize;
    (void)isReuseSource;
    return adv::kDropOutMinTmp;
}
inline uint32_t GetDropOutMaxTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource) {
    const uint32_t minValue = GetDropOutMinTmpSize(srcShape, typeSize, isReuseSource);
    return std::max<uint32_t>(minValue, 2 * uint32_t(srcShape.GetShapeSize()) * uint32_t(sizeof(float)));
}
inline void GetDropOutMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                    uint32_t& maxValue, uint32_t& minValue) {
    maxValue = GetDropOutMaxTmpSize(srcShape, typeSize, isReuseSource);
    minValue = GetDropOutMinTmpSize(srcShape, typeSize, isReuseSource);
}

}  // namespace AscendC

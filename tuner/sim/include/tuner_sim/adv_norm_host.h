// The host side of the normalization APIs in adv_norm.h: DeepNorm, LayerNormGrad, LayerNormGradBeta, the
// [A, R] LayerNorm (LayerNormSeparateTiling), Normalize, WelfordUpdate and WelfordFinalize. The tiling structs
// are those of asc-devkit's docs (DeepNorm-Tiling.md, LayerNormGrad-Tiling.md, LayerNormGradBeta-Tiling.md,
// LayerNorm-Tiling.md); the minimum and maximum temporary sizes are those of its A2 host code
// (impl/adv_api/tiling/normalization/*_tiling_impl.cpp). The tiling functions choose the rows per pass the
// simulator's expansion (adv_norm.h) fits in the stack buffer, and fill the other fields from that.
// Plain C++ with no kernel dependency (included at the end of adv_host.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "adv_host.h"

#include "securec.h"  // memcpy_s, which the samples call on their tiling structs

struct DeepNormTiling {
    uint32_t bLength = 0;
    uint32_t sLength = 0;
    uint32_t hLength = 0;
    uint32_t originalHLength = 0;
    uint32_t inputXSize = 0;
    uint32_t meanVarSize = 0;
    uint32_t numberOfTmpBuf = 0;
    uint32_t meanTmpTensorPos = 0;
    uint32_t meanTmpTensorSize = 0;
    uint32_t varianceTmpTensorPos = 0;
    uint32_t varianceTmpTensorSize = 0;
    uint32_t tmpBufSize = 0;
    uint32_t oneTmpSize = 0;
    uint32_t firstTmpStartPos = 0;
    uint32_t secondTmpStartPos = 0;
    uint32_t thirdTmpStartPos = 0;
    uint32_t loopRound = 0;
    uint32_t inputRoundSize = 0;
    uint32_t inputTailSize = 0;
    uint32_t inputTailPos = 0;
    uint32_t meanVarRoundSize = 0;
    uint32_t meanVarTailSize = 0;
    uint32_t meanVarTailPos = 0;
    uint32_t bshCurLength = 0;
    uint32_t bsCurLength = 0;
    float lastDimValueBack = 0;
};
struct LayerNormGradTiling {
    uint32_t stackBufferSize = 0;
    uint32_t bLength = 0;
    uint32_t sLength = 0;
    uint32_t hLength = 0;
    uint32_t originalHLength = 0;
    uint32_t oneCalSize = 0;
    uint32_t nohCalSize = 0;
    uint32_t loopNum = 0;
    uint32_t tailSize = 0;
    uint32_t nohTailSize = 0;
    uint32_t tmpTensorBSHPos = 0;
    uint32_t tmpTensorBSHSize = 0;
    uint32_t pdVarTensorPos = 0;
    uint32_t pdVarTensorSize = 0;
    uint32_t pdMeanTensorPos = 0;
    uint32_t pdMeanTensorSize = 0;
    uint32_t x1TensorPos = 0;
    uint32_t x1TensorSize = 0;
    uint32_t x2TensorPos = 0;
    uint32_t x2TensorSize = 0;
    uint32_t x3TensorPos = 0;
    uint32_t x3TensorSize = 0;
    uint32_t tmpTensorPos = 0;
    uint32_t tmpTensorSize = 0;
    uint32_t tmpTensor1Pos = 0;
    uint32_t tmpTensor1Size = 0;
    uint32_t tmpTensor2Pos = 0;
    uint32_t tmpTensor2Size = 0;
    uint32_t lastDimValueBack = 0;  // the bits of 1 / originalHLength as a float
    uint32_t lastDimValueBackMulTwo = 0;  // the bits of 2 / originalHLength
};
struct LayerNormGradBetaTiling {
    uint32_t stackBufferSize = 0;
    uint32_t bLength = 0;
    uint32_t sLength = 0;
    uint32_t hLength = 0;
    uint32_t originalHLength = 0;
    uint32_t bshLength = 0;
    uint32_t bsLength = 0;
    uint32_t oneCalSize = 0;
    uint32_t numberOfTmpBuf = 0;
    uint32_t loopRound = 0;
    uint32_t inputTailSize = 0;
    uint32_t inputTailPos = 0;
    uint32_t bsTailSize = 0;
    uint32_t bshCurLength = 0;
    uint32_t bsCurLength = 0;
    uint32_t gammaTempTensorPos = 0;
    uint32_t betaTempTensorPos = 0;
    uint32_t inputDyTmpTensorPos = 0;
    uint32_t resForGammaTmpTensorPos = 0;
    uint32_t reserved = 0;
};
struct LayerNormSeparateTiling {
    uint32_t aLength = 0;
    uint32_t rLength = 0;
    uint32_t halfAddRepeatTimes = 0;
    uint32_t rHeadLength = 0;
    float k2Rec = 0;
    float k2RRec = 0;
    uint32_t inputXSize = 0;
    uint32_t meanVarSize = 0;
    uint32_t numberOfTmpBuf = 0;
    uint32_t varianceTmpTensorPos = 0;
    uint32_t varianceTmpTensorSize = 0;
    uint32_t tmpBufSize = 0;
    uint32_t oneTmpSize = 0;
    uint32_t firstTmpStartPos = 0;
    uint32_t secondTmpStartPos = 0;
    uint32_t thirdTmpStartPos = 0;
    uint32_t loopRound = 0;
    uint32_t inputRoundSize = 0;
    uint32_t inputTailSize = 0;
    uint32_t inputTailPos = 0;
    uint32_t meanVarRoundSize = 0;
    uint32_t meanVarTailSize = 0;
    uint32_t meanVarTailPos = 0;
    uint32_t arCurLength = 0;
    uint32_t aCurLength = 0;
    float rValueBack = 0;
};

struct BatchNormTiling {
    uint32_t originalBLength = 0;
    uint32_t meanVarSize = 0;
    uint32_t meanTmpTensorPos = 0;
    uint32_t varianceTmpTensorPos = 0;
    uint32_t tmpBufSize = 0;
    uint32_t oneTmpSize = 0;
    uint32_t firstTmpStartPos = 0;
    uint32_t secondTmpStartPos = 0;
    uint32_t thirdTmpStartPos = 0;
    uint32_t loopRound = 0;
    uint32_t inputTailSize = 0;
    uint32_t inputTailPos = 0;
    uint32_t meanVarTailSize = 0;
    uint32_t meanVarTailPos = 0;
    uint32_t bshCurLength = 0;
    uint32_t shCurLength = 0;
    float firstDimValueBack = 0;
    uint32_t castHalfRepStride = 0;
    uint32_t shCurLengthBlockNum = 0;
    uint32_t castHalfOutRepStride = 0;
};

namespace AscendC {
namespace tiling {
using ::BatchNormTiling;
using ::DeepNormTiling;
using ::LayerNormGradBetaTiling;
using ::LayerNormGradTiling;
using ::LayerNormSeparateTiling;
}  // namespace tiling

namespace adv {
TUNER_SIM_UNCHARGED constexpr uint32_t blk_floats(uint32_t bytes) { return (bytes + 31) / 32 * 8; }
// The floats each expansion of adv_norm.h uses for a pass of m rows of h (32-byte aligned) elements.
// DeepNorm: x1 = alpha * x + gx (not with isReuseSource: computed in x), x1 - mean, the squares / folds (at
// least the row blocks), mean and rstd rows.
TUNER_SIM_UNCHARGED constexpr uint32_t deepnorm_floats(uint32_t m, uint32_t h, bool reuse) {
    return (reuse ? 1 : 2) * m * h + rms_sq_floats(m, h) + 2 * align8(m);
}
// LayerNormGrad: dy * gamma, x - mean, a product plane, the row blocks and five row arrays (rstd, pd_var,
// pd_mean and two sums); for half also dy and x widened and gamma widened.
TUNER_SIM_UNCHARGED constexpr uint32_t lngrad_floats(uint32_t m, uint32_t h, uint32_t typeSize) {
    return 3 * m * h + align8(m) * kBlkFloats + 5 * align8(m) + (typeSize == 2 ? 2 * m * h + align8(h) : 0);
}
// LayerNormGradBeta: dy * resForGamma per pass; for half also the widened operands and the two float sums.
TUNER_SIM_UNCHARGED constexpr uint32_t lngradbeta_floats(uint32_t m, uint32_t h, uint32_t typeSize) {
    return typeSize == 2 ? 2 * m * h + 2 * align8(h) : m * h;
}
// The [A, R] LayerNorm's mean / variance passes: the scaled rows (folded in place) and one row array.
TUNER_SIM_UNCHARGED constexpr uint32_t lnsep_floats(uint32_t m, uint32_t r) { return m * r + align8(m); }
// BatchNorm: per pass of w columns of the [B, S*H] input, x - mean and its squares (B * w each), the rstd
// columns; for half also x widened and the mean and variance columns.
TUNER_SIM_UNCHARGED constexpr uint32_t batchnorm_floats(uint32_t b, uint32_t w, uint32_t typeSize) {
    return typeSize == 2 ? 3 * b * w + 3 * w : 2 * b * w + w;
}
// The most rows of h whose floats fit `floats` (rounded down to 8 when not all of them: row results then start
// on 32 bytes); 0 when not even one row fits.
template <typename F>
inline uint32_t rows_fitting(uint32_t rows, uint32_t floats, F need) {
    uint32_t m = rows;
    while (m > 0 && need(m) > floats) --m;
    if (m < rows && m > kBlkFloats) m = m / kBlkFloats * kBlkFloats;
    return m;
}
}  // namespace adv

// ---- DeepNorm (DeepNorm-Tiling.md; deepnorm_tiling_impl.cpp): shape [B, S, H], H 32-byte aligned, <= 2040 --
inline bool GetDeepNormMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                     const bool isBasicBlock, uint32_t& maxValue, uint32_t& minValue) {
    const std::vector<int64_t> d = srcShape.GetDims();
    if (d.size() != 3 || (typeSize != 2 && typeSize != 4) || srcShape.GetShapeSize() <= 0) return false;
    const uint32_t bs = uint32_t(d[0] * d[1]), h = uint32_t(d[2]);
    if (isBasicBlock && (h % 64 != 0 || bs % 8 != 0)) return false;
    const uint32_t planes = isReuseSource && typeSize == 4 ? 2 : 3;
    const uint32_t bsBytes = adv::blk_floats(bs * 4) * 4;
    maxValue = planes * adv::blk_floats(bs * h * 4) * 4 + 2 * bsBytes;
    minValue = planes * adv::blk_floats(h * 4) * 4 + 2 * bsBytes;
    return true;
}
inline bool GetDeepNormTilingInfo(const TensorShape& srcShape, const TensorShape& originSrcShape,
                                  const uint32_t stackBufferSize, const uint32_t typeSize, const bool isReuseSource,
                                  const bool isBasicBlock, DeepNormTiling& tiling) {
    uint32_t maxSize = 0, minSize = 0;
    if (!GetDeepNormMaxMinTmpSize(srcShape, typeSize, isReuseSource, isBasicBlock, maxSize, minSize)) return false;
    const std::vector<int64_t> d = srcShape.GetDims(), o = originSrcShape.GetDims();
    if (o.size() != 3 || d[0] != o[0] || d[1] != o[1]) return false;
    const uint32_t b = uint32_t(d[0]), s = uint32_t(d[1]), h = uint32_t(d[2]), oh = uint32_t(o[2]);
    if (h * typeSize % 32 != 0 || oh == 0 || oh > h || h > 2040 || (isBasicBlock && oh != h)) return false;
    if (stackBufferSize < minSize) return false;
    const uint32_t rows = b * s;
    const bool reuse = isReuseSource && typeSize == 4;
    const uint32_t m = adv::rows_fitting(rows, stackBufferSize / 4,
                                         [h, reuse](uint32_t r) { return adv::deepnorm_floats(r, h, reuse); });
    if (m == 0) return false;
    DeepNormTiling t;
    t.bLength = b;
    t.sLength = s;
    t.hLength = h;
    t.originalHLength = oh;
    t.inputXSize = rows * h;
    t.meanVarSize = rows;
    t.numberOfTmpBuf = reuse ? 2 : 3;
    t.meanTmpTensorPos = 0;
    t.meanTmpTensorSize = adv::align8(m);
    t.varianceTmpTensorPos = t.meanTmpTensorSize;
    t.varianceTmpTensorSize = t.meanTmpTensorSize;
    t.tmpBufSize = stackBufferSize / 4;
    t.oneTmpSize = m * h;
    t.firstTmpStartPos = 2 * adv::align8(m);
    t.secondTmpStartPos = t.firstTmpStartPos + t.oneTmpSize;
    t.thirdTmpStartPos = t.secondTmpStartPos + t.oneTmpSize;
    t.loopRound = rows / m;
    t.inputRoundSize = m * h;
    t.inputTailSize = rows % m * h;
    t.inputTailPos = t.inputXSize - t.inputTailSize;
    t.meanVarRoundSize = m;
    t.meanVarTailSize = rows % m;
    t.meanVarTailPos = rows - t.meanVarTailSize;
    t.bshCurLength = m * h;
    t.bsCurLength = m;
    t.lastDimValueBack = 1.0f / float(oh);
    tiling = t;
    return true;
}

// ---- BatchNorm (BatchNorm-Tiling.md; batchnorm_tiling_impl.cpp): shape [B, S, H], S*H 32-byte aligned ------
inline bool GetBatchNormMaxMinTmpSize(const TensorShape& srcShape, const TensorShape& originSrcShape,
                                      const uint32_t typeSize, const bool isReuseSource, uint32_t& maxValue,
                                      uint32_t& minValue, const bool isBasicBlock = false) {
    (void)isReuseSource;
    const std::vector<int64_t> d = srcShape.GetDims(), o = originSrcShape.GetDims();
    if (d.size() != 3 || o.size() != 3) return false;
    const uint32_t b = uint32_t(o[0]), sh = uint32_t(d[1] * d[2]);
    if (isBasicBlock && (sh % 64 != 0 || b % 8 != 0)) return false;
    const uint32_t mv = adv::blk_floats(sh * 4) * 4;
    maxValue = 3 * adv::blk_floats(b * sh * 4) * 4 + 2 * mv;
    const uint32_t perB = isBasicBlock ? 64 * 4 : (typeSize == 2 ? 64 : 32);
    minValue = 3 * b * perB + 2 * mv;
    return true;
}
inline bool GetBatchNormNDTilingInfo(const TensorShape& srcShape, const TensorShape& originSrcShape,
                                     const uint32_t stackBufferByteSize, const uint32_t typeSize,
                                     const bool isReuseSource, BatchNormTiling& tiling,
                                     const bool isBasicBlock = false) {
    uint32_t maxSize = 0, minSize = 0;
    if (!GetBatchNormMaxMinTmpSize(srcShape, originSrcShape, typeSize, isReuseSource, maxSize, minSize,
                                   isBasicBlock)) {
        return false;
    }
    const std::vector<int64_t> d = srcShape.GetDims(), o = originSrcShape.GetDims();
    const uint32_t b = uint32_t(o[0]), sh = uint32_t(d[1] * d[2]);
    if (b == 0 || sh == 0 || sh * typeSize % 32 != 0 || stackBufferByteSize < minSize) return false;
    const uint32_t step = isBasicBlock ? 64 : 32 / typeSize;  // columns per pass: whole 32-byte blocks
    uint32_t w = sh;
    while (w > 0 && adv::batchnorm_floats(b, w, typeSize) * 4 > stackBufferByteSize) w -= std::min(w, step);
    if (w == 0) return false;
    BatchNormTiling t;
    t.originalBLength = b;
    t.meanVarSize = sh;
    t.meanTmpTensorPos = 0;
    t.varianceTmpTensorPos = adv::align8(sh);
    t.tmpBufSize = stackBufferByteSize / 4;
    t.oneTmpSize = b * w;
    t.firstTmpStartPos = typeSize == 2 ? 2 * adv::align8(sh) : 0;
    t.secondTmpStartPos = t.firstTmpStartPos + t.oneTmpSize;
    t.thirdTmpStartPos = t.secondTmpStartPos + t.oneTmpSize;
    t.loopRound = sh / w;
    t.meanVarTailSize = sh % w;
    t.meanVarTailPos = sh - t.meanVarTailSize;
    t.inputTailSize = t.meanVarTailSize * b;
    t.inputTailPos = t.meanVarTailPos;
    t.bshCurLength = b * w;
    t.shCurLength = w;
    t.firstDimValueBack = 1.0f / float(b);
    t.castHalfRepStride = 4;
    t.shCurLengthBlockNum = w / 8;
    t.castHalfOutRepStride = sh / 16;
    tiling = t;
    return true;
}

// ---- LayerNormGrad (LayerNormGrad-Tiling.md): shape [B, S, H, originH] ------------------------------------
inline void GetLayerNormGradMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize,
                                          const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    const std::vector<int64_t> d = srcShape.GetDims();
    maxValue = minValue = 0;
    if (d.size() != 4) return;
    const uint32_t n = uint32_t(d[0] * d[1] * d[2]), hh = uint32_t(d[2] * d[2]);
    const uint32_t bufs = typeSize == 2 ? 9 : (isReuseSource ? 4 : 6);
    maxValue = bufs * std::max(n, hh) * typeSize;
    minValue = bufs * std::min(n, hh) * typeSize;
}
inline void GetLayerNormGradNDTilingInfo(const TensorShape srcShape, const uint32_t stackBufferSize,
                                         const uint32_t typeSize, const bool isReuseSource,
                                         LayerNormGradTiling& tiling) {
    (void)isReuseSource;
    const std::vector<int64_t> d = srcShape.GetDims();
    if (d.size() != 4 || d[2] == 0) return;
    const uint32_t b = uint32_t(d[0]), s = uint32_t(d[1]), h = uint32_t(d[2]), oh = uint32_t(d[3]);
    const uint32_t rows = b * s;
    const uint32_t m = adv::rows_fitting(rows, stackBufferSize / 4,
                                         [h, typeSize](uint32_t r) { return adv::lngrad_floats(r, h, typeSize); });
    LayerNormGradTiling t;
    t.stackBufferSize = stackBufferSize / 4;
    t.bLength = b;
    t.sLength = s;
    t.hLength = h;
    t.originalHLength = oh;
    t.nohCalSize = m;
    t.oneCalSize = m * h;
    t.loopNum = m ? rows / m : 0;
    t.nohTailSize = m ? rows % m : 0;
    t.tailSize = t.nohTailSize * h;
    t.tmpTensorBSHSize = t.pdVarTensorSize = t.pdMeanTensorSize = t.x1TensorSize = t.x2TensorSize =
        t.x3TensorSize = t.oneCalSize;
    t.pdVarTensorPos = t.oneCalSize;
    t.pdMeanTensorPos = 2 * t.oneCalSize;
    t.x1TensorPos = 3 * t.oneCalSize;
    t.x2TensorPos = 4 * t.oneCalSize;
    t.x3TensorPos = 5 * t.oneCalSize;
    const float inv = 1.0f / float(oh), inv2 = 2.0f / float(oh);
    std::memcpy(&t.lastDimValueBack, &inv, 4);
    std::memcpy(&t.lastDimValueBackMulTwo, &inv2, 4);
    tiling = t;
}

// ---- LayerNormGradBeta (LayerNormGradBeta-Tiling.md): shape [B, S, H, originH] -----------------------------
inline void GetLayerNormGradBetaMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize,
                                              const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    const std::vector<int64_t> d = srcShape.GetDims();
    maxValue = minValue = 0;
    if (d.size() != 4) return;
    const uint32_t bufs = typeSize == 2 ? 4 : 2;
    maxValue = bufs * uint32_t(d[0] * d[1] * d[2]) * 4;
    minValue = bufs * uint32_t(d[2]) * 4;
}
inline void GetLayerNormGradBetaNDTilingInfo(const TensorShape srcShape, const uint32_t stackBufferSize,
                                             const uint32_t typeSize, const bool isReuseSource,
                                             LayerNormGradBetaTiling& tiling) {
    (void)isReuseSource;
    const std::vector<int64_t> d = srcShape.GetDims();
    if (d.size() != 4 || d[2] == 0) return;
    const uint32_t b = uint32_t(d[0]), s = uint32_t(d[1]), h = uint32_t(d[2]);
    const uint32_t rows = b * s;
    const uint32_t m = adv::rows_fitting(
        rows, stackBufferSize / 4, [h, typeSize](uint32_t r) { return adv::lngradbeta_floats(r, h, typeSize); });
    LayerNormGradBetaTiling t;
    t.stackBufferSize = stackBufferSize / 4;
    t.bLength = b;
    t.sLength = s;
    t.hLength = h;
    t.originalHLength = uint32_t(d[3]);
    t.bshLength = rows * h;
    t.bsLength = rows;
    t.oneCalSize = m * h;
    t.numberOfTmpBuf = typeSize == 2 ? 2 : 1;
    t.loopRound = m ? rows / m : 0;
    t.bsTailSize = m ? rows % m : 0;
    t.inputTailSize = t.bsTailSize * h;
    t.inputTailPos = t.bshLength - t.inputTailSize;
    t.bshCurLength = m * h;
    t.bsCurLength = m;
    if (typeSize == 2) {
        t.betaTempTensorPos = adv::align8(h);
        t.inputDyTmpTensorPos = 2 * adv::align8(h);
        t.resForGammaTmpTensorPos = t.inputDyTmpTensorPos + t.oneCalSize;
    }
    tiling = t;
}

// ---- Normalize (Normalize-Tiling.md; normalize_tiling_impl.cpp): shape [A, R] ------------------------------
inline void GetNormalizeMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSizeU, const uint32_t typeSizeT,
                                      const bool isReuseSource, const bool isComputeRstd, const bool isOnlyOutput,
                                      uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    (void)isComputeRstd;
    (void)isOnlyOutput;
    const std::vector<int64_t> d = srcShape.GetDims();
    maxValue = minValue = 0;
    if (d.size() < 2 || typeSizeT == 0) return;
    const uint32_t a = uint32_t(d[0]), align = 32 / typeSizeT;
    const uint32_t rwp = (uint32_t(d[1]) + align - 1) / align * align;
    const uint32_t rBytes = adv::blk_floats(rwp * 4) * 4;
    maxValue = 2 * rBytes + 2 * adv::blk_floats(adv::align8(a) * rwp * 4) * 4;
    minValue = std::max(adv::blk_floats(a * 4) * 4, (typeSizeU == 4 ? 2 : 4) * rBytes);
}

// ---- LayerNorm, the [A, R] form with rstd (LayerNorm-Tiling.md; layernorm_tiling_impl.cpp) --------------
inline void GetLayerNormMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                      const bool isComputeRstd, const bool isOnlyOutput, uint32_t& maxValue,
                                      uint32_t& minValue) {
    const std::vector<int64_t> d = srcShape.GetDims();
    maxValue = minValue = 0;
    if (d.size() != 2 || typeSize == 0) return;
    const uint32_t a = uint32_t(d[0]), align = 32 / typeSize;
    const uint32_t rwp = (uint32_t(d[1]) + align - 1) / align * align;
    const uint32_t mv = adv::blk_floats(a * 4) * 4;
    maxValue = 2 * adv::blk_floats(a * rwp * 4) * 4 + mv;
    minValue = 2 * adv::blk_floats(rwp * 4) * 4 + mv;
    uint32_t nMax = 0, nMin = 0;
    GetNormalizeMaxMinTmpSize(srcShape, typeSize, typeSize, isReuseSource, isComputeRstd, isOnlyOutput, nMax, nMin);
    if (minValue - mv <= nMin) minValue = nMin + mv;
    if (maxValue - mv <= nMax) maxValue = nMax + mv;
}
inline void GetLayerNormNDTilingInfo(const TensorShape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t typeSize, const bool isReuseSource, const bool isComputeRstd,
                                     LayerNormSeparateTiling& tiling) {
    (void)isReuseSource;
    (void)isComputeRstd;
    const std::vector<int64_t> d = srcShape.GetDims();
    if (d.size() != 2 || typeSize == 0) return;
    const uint32_t a = uint32_t(d[0]), r = uint32_t(d[1]), align = 32 / typeSize;
    const uint32_t rwp = (r + align - 1) / align * align;
    const uint32_t varFloats = adv::align8(a);
    const uint32_t floats = stackBufferSize / 4 > varFloats ? stackBufferSize / 4 - varFloats : 0;
    const uint32_t m = adv::rows_fitting(a, floats, [rwp](uint32_t k) { return adv::lnsep_floats(k, rwp); });
    if (m == 0) return;
    LayerNormSeparateTiling t;
    t.aLength = a;
    t.rLength = r;
    t.inputXSize = a * rwp;
    t.meanVarSize = a;
    t.numberOfTmpBuf = 2;
    t.varianceTmpTensorPos = 0;
    t.varianceTmpTensorSize = varFloats;
    t.tmpBufSize = stackBufferSize / 4;
    t.oneTmpSize = m * rwp;
    t.firstTmpStartPos = varFloats;
    t.secondTmpStartPos = varFloats + t.oneTmpSize;
    t.loopRound = a / m;
    t.inputRoundSize = t.oneTmpSize;
    t.inputTailSize = a % m * rwp;
    t.inputTailPos = t.inputXSize - t.inputTailSize;
    t.meanVarRoundSize = m;
    t.meanVarTailSize = a % m;
    t.meanVarTailPos = a - t.meanVarTailSize;
    t.arCurLength = t.oneTmpSize;
    t.aCurLength = m;
    t.rValueBack = 1.0f / float(r);
    tiling = t;
}

// ---- WelfordUpdate (WelfordUpdate-Tiling.md) and WelfordFinalize (WelfordFinalize-Tiling.md) --------------
// WelfordUpdate: one (float input, reusing it), two (float) or three (half) 256-byte buffers at least, as many
// as the [rn, ab] input needs repeats at most.
inline void GetWelfordUpdateMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSizeT,
                                          const uint32_t typeSizeU, const bool isReuseSource, const bool isInplace,
                                          uint32_t& maxValue, uint32_t& minValue) {
    (void)typeSizeU;
    (void)isInplace;
    const std::vector<int64_t> d = srcShape.GetDims();
    maxValue = minValue = 0;
    if (d.size() != 2) return;
    const uint32_t bufs = typeSizeT == 2 ? 3 : (isReuseSource ? 1 : 2);
    minValue = bufs * adv::kRepeatBytes;
    maxValue = (uint32_t(d[0] * d[1]) + adv::kLanes - 1) / adv::kLanes * minValue;
}
// WelfordFinalize: shape [abLength] (32-byte aligned): four 64-float buffers at least; two of 64 and two of
// abLength at most.
inline void GetWelfordFinalizeMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize,
                                            const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    (void)typeSize;
    (void)isReuseSource;
    const std::vector<int64_t> d = srcShape.GetDims();
    maxValue = minValue = 0;
    if (d.size() != 1 || d[0] <= 0 || d[0] % 8 != 0) return;
    const uint32_t ab = uint32_t(d[0]);
    minValue = 4 * adv::kLanes * 4;
    maxValue = ab <= adv::kLanes ? minValue : (2 * adv::kLanes + 2 * ab) * 4;
}

}  // namespace AscendC

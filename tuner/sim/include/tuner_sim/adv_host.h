// The host side of the advanced APIs: TensorShape, the tiling structs the kernel side takes, and the helpers
// that size temporary space and fill tiling (GetXxxMaxMinTmpSize, SoftMaxTilingFunc, LogSoftMaxTilingFunc,
// SoftMaxFlashTilingFunc, SoftMaxFlashV2TilingFunc, SoftMaxFlashV3TilingFunc, SoftMaxGradTilingFunc,
// GetRmsNormTilingInfo, GetLayerNormNDTilingInfo).
// Plain C++ with no kernel dependency, so a host tiling function can include it as well as a kernel.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "uncharged.h"

// The kernel-side tiling structs (SoftMax-Tiling使用说明.md, RmsNorm-Tiling.md): plain structs, filled on the
// host by SoftMaxTilingFunc / GetRmsNormTilingInfo and passed to the kernel as they are.
struct SoftMaxTiling {
    uint32_t srcM = 0;
    uint32_t srcK = 0;
    uint32_t srcSize = 0;
    uint32_t outMaxM = 0;
    uint32_t outMaxK = 0;
    uint32_t outMaxSize = 0;
    uint32_t splitM = 0;
    uint32_t splitK = 0;
    uint32_t splitSize = 0;
    uint32_t reduceM = 0;
    uint32_t reduceK = 0;
    uint32_t reduceSize = 0;
    uint32_t rangeM = 0;
    uint32_t tailM = 0;
    uint32_t tailSplitSize = 0;
    uint32_t tailReduceSize = 0;
};
// LogSoftMax-Tiling.md: the same fields, filled by LogSoftMaxTilingFunc.
struct LogSoftMaxTiling : SoftMaxTiling {};
// LayerNorm-Tiling.md (the [B, S, H] form). The simulator's LayerNorm reads bLength, sLength, hLength,
// bsCurLength (rows per pass) and lastDimValueBack (1 / H); GetLayerNormNDTilingInfo fills those and the
// sizes and positions that follow from them.
struct LayerNormTiling {
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
    float lastDimValueBack = 0.0;
};
struct RmsNormTiling {
    uint32_t bLength = 0;
    uint32_t sLength = 0;
    uint32_t hLength = 0;
    uint32_t originalHLength = 0;
    float reciprocalOfHLength = 0;
    uint32_t mainBshLength = 0;
    uint32_t mainBsLength = 0;
    uint32_t mainBsLengthAlign = 0;
    uint32_t loopRound = 0;
    uint32_t inputTailPos = 0;
    uint32_t tailBshLength = 0;
    uint32_t tailBsLength = 0;
};

namespace AscendC {
namespace tiling {
using ::LayerNormTiling;
using ::LogSoftMaxTiling;
using ::RmsNormTiling;
using ::SoftMaxTiling;
}  // namespace tiling

// The shape the host helpers take (高阶API/数据结构/TensorShape.md).
class TensorShape {
public:
    TensorShape() = default;
    explicit TensorShape(const std::vector<int64_t>& dims) : dims_(dims) {}
    std::vector<int64_t> GetDims() const { return dims_; }
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (int64_t d : dims_) n *= d;
        return n;
    }

private:
    std::vector<int64_t> dims_;
};

namespace adv {
constexpr uint32_t kRepeatBytes = 256;  // one vector repeat: the unit of every minimum temporary size
constexpr uint32_t kLanes = 64;        // float lanes of one repeat
constexpr uint32_t kMaxRepeat = 255;   // repeat counts and repeat strides are 8-bit
constexpr uint32_t kBlkFloats = 8;     // floats per 32-byte block
TUNER_SIM_UNCHARGED constexpr uint32_t align8(uint32_t n) { return (n + 7) / 8 * 8; }
// RmsNorm's temporaries per pass of m rows of h, in floats (x^2, reused for the row blocks; the widened x
// for half; the row results).
TUNER_SIM_UNCHARGED constexpr uint32_t rms_sq_floats(uint32_t m, uint32_t h) {
    return std::max(m * h, align8(m) * kBlkFloats);
}
TUNER_SIM_UNCHARGED constexpr uint32_t rms_floats(uint32_t m, uint32_t h, uint32_t typeSize) {
    return rms_sq_floats(m, h) + (typeSize == 2 ? m * h : 0) + align8(m);
}
// LayerNorm's, in floats: x - mean (m * h), its square (as RmsNorm's x^2), the widened x for half, and the
// means and variances (m rounded up to 8 each).
TUNER_SIM_UNCHARGED constexpr uint32_t layernorm_floats(uint32_t m, uint32_t h, uint32_t typeSize) {
    return m * h + rms_sq_floats(m, h) + (typeSize == 2 ? m * h : 0) + 2 * align8(m);
}
inline void tmp_range(const TensorShape& shape, uint32_t bytesPerElem, uint32_t minBytes, uint32_t& maxValue,
                      uint32_t& minValue) {
    minValue = minBytes;
    maxValue = std::max<uint32_t>(minBytes, uint32_t(shape.GetShapeSize()) * bytesPerElem);
}
}  // namespace adv

// ---- elementwise APIs (the GetXxxMaxMinTmpSize pages next to each API) --------------------------------
// min: the size the kernel side requires; max: what a single pass over the input uses.
inline void GetSigmoidMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, bool isReuseSource,
                                    uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    adv::tmp_range(srcShape, typeSize, adv::kRepeatBytes, maxValue, minValue);
}
inline void GetTanhMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                 uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    const uint32_t k = typeSize == 4 ? 1 : 4;  // temporaries counted in input-sized planes
    adv::tmp_range(srcShape, k * typeSize, k * adv::kRepeatBytes, maxValue, minValue);
}
inline void GetErfMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    const uint32_t k = typeSize == 4 ? 3 : 8;
    adv::tmp_range(srcShape, k * typeSize, k * adv::kRepeatBytes, maxValue, minValue);
}
// Gelu, FasterGelu, FasterGeluV2 (GetGeluMaxMinTmpSize.md, with its GetGeluMaxTmpSize / GetGeluMinTmpSize forms).
inline void GetGeluMaxMinTmpSize(const TensorShape& srcShape, const uint32_t /*typeSize*/, uint32_t& maxValue,
                                 uint32_t& minValue) {
    adv::tmp_range(srcShape, 3 * sizeof(float), 3 * adv::kRepeatBytes, maxValue, minValue);
}
inline uint32_t GetGeluMaxTmpSize(const TensorShape& srcShape, const uint32_t typeSize) {
    uint32_t maxValue = 0, minValue = 0;
    GetGeluMaxMinTmpSize(srcShape, typeSize, maxValue, minValue);
    return maxValue;
}
inline uint32_t GetGeluMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize) {
    uint32_t maxValue = 0, minValue = 0;
    GetGeluMaxMinTmpSize(srcShape, typeSize, maxValue, minValue);
    return minValue;
}
inline bool GetExpMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                uint32_t& maxValue, uint32_t& minValue) {
    const uint32_t planes = typeSize == 2 ? 4 : (isReuseSource ? 2 : 3);  // float planes
    adv::tmp_range(srcShape, planes * sizeof(float), planes * adv::kRepeatBytes, maxValue, minValue);
    return true;
}
inline void GetSwiGLUMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                   uint32_t& minValue, const bool isReuseSource = false) {
    (void)isReuseSource;
    const uint32_t k = typeSize == 4 ? 0 : 6;  // half: three float planes
    adv::tmp_range(srcShape, k * typeSize, k * adv::kRepeatBytes, maxValue, minValue);
}
inline void GetGeGLUMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                  uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    const uint32_t k = typeSize == 4 ? 0 : 4;  // half: two float planes
    adv::tmp_range(srcShape, k * typeSize, k * adv::kRepeatBytes, maxValue, minValue);
}
inline void GetLogMaxMinTmpSize(const TensorShape&, const uint32_t, const bool, uint32_t& maxValue,
                                uint32_t& minValue) {
    maxValue = minValue = 0;
}
inline void GetLog10MaxMinTmpSize(const TensorShape&, const uint32_t, const bool, uint32_t& maxValue,
                                  uint32_t& minValue) {
    maxValue = minValue = 0;
}
inline void GetLog2MaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                 uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    if (typeSize == 4) {
        maxValue = minValue = 0;
        return;
    }
    adv::tmp_range(srcShape, sizeof(float), adv::kRepeatBytes, maxValue, minValue);
}
inline void GetSiluTmpSize(const TensorShape&, const uint32_t, const bool, uint32_t& maxValue, uint32_t& minValue) {
    maxValue = minValue = 0;
}
inline void GetSwishTmpSize(const TensorShape&, const uint32_t, const bool, uint32_t& maxValue, uint32_t& minValue) {
    maxValue = minValue = 0;
}

// Ceil, Floor, Trunc, Frac, Acosh, Fmod, Xor, ClampMin/ClampMax (数学计算/<API>接口/GetXxxMaxMinTmpSize.md and
// GetXxxTmpBufferFactorSize.md): `k` live nodes of the input's size (at least one 256-byte repeat each).
namespace adv {
inline void nodes_range(const TensorShape& shape, uint32_t typeSize, uint32_t k, uint32_t& maxValue,
                        uint32_t& minValue) {
    minValue = k * kRepeatBytes;
    maxValue = k * std::max<uint32_t>(uint32_t(shape.GetShapeSize()) * typeSize, kRepeatBytes);
}
TUNER_SIM_UNCHARGED constexpr uint32_t ceil_nodes(uint32_t typeSize) { return typeSize == 4 ? 1 : 2; }
TUNER_SIM_UNCHARGED constexpr uint32_t floor_nodes(uint32_t typeSize) { return typeSize == 4 ? 0 : 2; }
TUNER_SIM_UNCHARGED constexpr uint32_t frac_nodes(uint32_t typeSize) { return typeSize == 4 ? 0 : 4; }
// Fmod: Trunc's nodes and, for half, three float planes (6 half-sized nodes).
TUNER_SIM_UNCHARGED constexpr uint32_t fmod_nodes(uint32_t typeSize) { return typeSize == 4 ? 1 : 2 + 6; }
}  // namespace adv
#define TUNER_SIM_ADV_NODES(NAME, NODES)                                                                      \
    inline void Get##NAME##MaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize,               \
                                         const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) { \
        (void)isReuseSource;                                                                                 \
        adv::nodes_range(srcShape, typeSize, NODES(typeSize), maxValue, minValue);                           \
    }                                                                                                        \
    inline void Get##NAME##TmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount,          \
                                               uint32_t& extraBuf) {                                         \
        extraBuf = 0;                                                                                        \
        maxLiveNodeCount = NODES(typeSize);                                                                  \
    }
TUNER_SIM_ADV_NODES(Ceil, adv::ceil_nodes)
TUNER_SIM_ADV_NODES(Trunc, adv::ceil_nodes)
TUNER_SIM_ADV_NODES(Floor, adv::floor_nodes)
TUNER_SIM_ADV_NODES(Frac, adv::frac_nodes)
TUNER_SIM_ADV_NODES(Fmod, adv::fmod_nodes)
#undef TUNER_SIM_ADV_NODES
// Acosh: 1 (float) or 2 (half) nodes, the maximum counted in elements before the type size.
inline void GetAcoshMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                  uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    const uint32_t k = adv::ceil_nodes(typeSize);
    minValue = k * adv::kRepeatBytes;
    maxValue = std::max<uint32_t>(k * uint32_t(srcShape.GetShapeSize()), adv::kRepeatBytes) * typeSize;
}
inline void GetAcoshTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
    extraBuf = 0;
    maxLiveNodeCount = adv::ceil_nodes(typeSize);
}
// Xor: one node of T.
inline void GetXorMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    minValue = adv::kRepeatBytes;
    maxValue = std::max<uint32_t>(uint32_t(srcShape.GetShapeSize()) * typeSize, minValue);
}
inline void GetXorTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount, uint32_t& extraBuffer) {
    (void)typeSize;
    extraBuffer = 0;
    maxLiveNodeCount = 1;
}
// ClampMax / ClampMin: 64 bytes (float) or 128 bytes (half) at least, a byte per element at most.
inline void GetClampMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                  uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    minValue = typeSize == 4 ? 64 : 128;
    maxValue = std::max<uint32_t>(uint32_t(srcShape.GetShapeSize()), minValue);
}
// CumSum (CumSum接口/GetCumSumMaxMinTmpSize.md), shape [outter, inner]: the first axis needs outter x inner
// floats for half and nothing for float; the last axis two 16-row transposes (and, for half, a 16-row float
// plane) at least, the rows rounded up to 16 at most.
inline void GetCumSumMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isLastAxis,
                                   const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    const uint32_t m = uint32_t(srcShape.GetDim(0)), k = uint32_t(srcShape.GetDim(1));
    if (!isLastAxis) {
        maxValue = minValue = typeSize == 2 ? m * k * uint32_t(sizeof(float)) : 0;
        return;
    }
    const uint32_t alignM = (m + 15) / 16 * 16;
    const uint32_t castMin = typeSize == 2 ? k * 16 * 2 : 0, castMax = typeSize == 2 ? k * alignM * 2 : 0;
    minValue = castMin + 16 * k * typeSize * 2;
    maxValue = castMax + alignM * k * typeSize * 2;
}
// Sum (归约操作/Sum接口/GetSumMaxMinTmpSize.md): one partial sum per 256-byte repeat of a row, in 32-byte blocks.
inline void GetSumMaxMinTmpSize(const uint32_t n, const uint32_t typeSize, const bool isReuseSource, uint32_t& maxSize,
                                uint32_t& minSize) {
    (void)isReuseSource;
    const uint32_t perBlk = 32 / typeSize, perRep = adv::kRepeatBytes / typeSize;
    const uint32_t repeats = (n + perRep - 1) / perRep;
    maxSize = minSize = (repeats + perBlk - 1) / perBlk * perBlk * typeSize;
}
// Power (数学计算/Power接口/GetPowerMaxMinTmpSize.md), the A2/A3 figures: a shape of one element {1} is the
// scalar operand. Nodes of 256 bytes: float 4 (tensor ^ tensor) or 5 plus 256 bytes; half 14 / 2 plus 256
// bytes; int32_t 6 or 7 (the integer form is not provided by the kernel side).
inline void GetPowerMaxMinTmpSize(const TensorShape& srcShape1, const TensorShape& srcShape2, const bool typeIsInt,
                                  const uint32_t typeSize, const bool isReuseSource, uint32_t& maxValue,
                                  uint32_t& minValue) {
    (void)isReuseSource;
    auto isTensor = [](const TensorShape& s) { return !(s.GetDimNum() == 1 && s.GetDim(0) == 1); };
    const bool tt = isTensor(srcShape1) && isTensor(srcShape2);
    const uint32_t size = uint32_t(isTensor(srcShape1) ? srcShape1.GetShapeSize() : srcShape2.GetShapeSize());
    const uint32_t nodes = typeIsInt ? (tt ? 6 : 7) : (typeSize == 4 ? (tt ? 4 : 5) : 14);
    const uint32_t proc = typeSize == 4 || typeIsInt ? std::max(size * typeSize, adv::kRepeatBytes)
                                                     : std::max(size * typeSize, adv::kRepeatBytes / 2);
    if (typeIsInt) {
        minValue = nodes * adv::kRepeatBytes;
        maxValue = nodes * proc;
    } else if (typeSize == 4) {
        minValue = nodes * adv::kRepeatBytes + adv::kRepeatBytes;
        maxValue = nodes * proc + adv::kRepeatBytes;
    } else {
        minValue = nodes * adv::kRepeatBytes / 2 + adv::kRepeatBytes;
        maxValue = nodes * proc + adv::kRepeatBytes;
    }
}
inline void GetClampTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
    (void)typeSize;
    extraBuf = 0;
    maxLiveNodeCount = 1;
}
namespace adv {
// The rows per pass a budget of `floats` holds, a multiple of 8 when not all of them.
inline uint32_t split_rows(uint32_t floats, uint32_t perRow, uint32_t m) {
    uint32_t split = std::min(floats / perRow, m);
    if (split < m && split > kBlkFloats) split = split / kBlkFloats * kBlkFloats;
    return split;
}
// The SoftMaxTiling fields that follow from the shape, the rows per pass and the 32-byte block of `blk`.
inline SoftMaxTiling softmax_tiling(uint32_t m, uint32_t k, uint32_t split, uint32_t blk) {
    SoftMaxTiling t;
    t.srcM = m;
    t.srcK = k;
    t.srcSize = m * k;
    t.outMaxM = m;
    t.outMaxK = blk;
    t.outMaxSize = m * blk;
    t.splitM = split;
    t.splitK = k;
    t.splitSize = split * k;
    t.reduceM = split;
    t.reduceK = blk;
    t.reduceSize = split * blk;
    t.rangeM = split ? m / split : 0;
    t.tailM = split ? m % split : 0;
    t.tailSplitSize = t.tailM * k;
    t.tailReduceSize = t.tailM * blk;
    return t;
}
inline void shape_mk(const TensorShape& shape, uint32_t& m, uint32_t& k) {
    const std::vector<int64_t> d = shape.GetDims();
    k = d.empty() ? 0 : uint32_t(d.back());
    m = k ? uint32_t(shape.GetShapeSize() / k) : 0;
}
// asc-devkit's AdjustToBasicBlockBaseM: a basic-block split divides M in multiples of 8 rows and keeps
// split * k under 64 * 256.
inline void basic_block_split(uint32_t& split, uint32_t m, uint32_t k) {
    if (split > kBlkFloats && m % kBlkFloats == 0 && k % kLanes == 0) {
        split = split / kBlkFloats * kBlkFloats;
        while (split > 0 && m % split != 0) split -= kBlkFloats;
        while (split * k >= kLanes * 256) split /= 2;
    }
}
}  // namespace adv

// Host side (SoftMax-SimpleSoftMax-Tiling.md), A2/A3 budget: (32 / dataTypeSize + k + 64) floats per row;
// the minimum is one row, the maximum all rows at once. dataTypeSize is the size of the max/sum type.
inline uint32_t GetSoftMaxMinTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize, const bool) {
    const std::vector<int64_t> d = srcShape.GetDims();
    return (32 / dataTypeSize + uint32_t(d.back()) + adv::kLanes) * sizeof(float);
}
inline uint32_t GetSoftMaxMaxTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize, const bool reuse) {
    const std::vector<int64_t> d = srcShape.GetDims();
    const uint32_t m = uint32_t(srcShape.GetShapeSize() / d.back());
    return m * GetSoftMaxMinTmpSize(srcShape, dataTypeSize, reuse);
}
// The rows per pass that localWorkSpaceSize holds (a multiple of 8 when it is not all of them, then adjusted
// for a basic block as asc-devkit's AdjustToBasicBlockBaseM does), and the passes that make up the m rows.
inline void SoftMaxTilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize,
                              const uint32_t localWorkSpaceSize, SoftMaxTiling& softmaxTiling) {
    uint32_t m = 0, k = 0;
    adv::shape_mk(srcShape, m, k);
    const uint32_t blk = 32 / dataTypeSize;
    uint32_t split = adv::split_rows(localWorkSpaceSize / uint32_t(sizeof(float)), blk + k + adv::kLanes, m);
    adv::basic_block_split(split, m, k);
    softmaxTiling = adv::softmax_tiling(m, k, split, blk);
}

// LogSoftMax-Tiling.md: the same budget and tiling as SoftMax.
inline uint32_t GetLogSoftMaxMinTmpSize(const TensorShape srcShape, const uint32_t dataTypeSize, const bool reuse) {
    return GetSoftMaxMinTmpSize(srcShape, dataTypeSize, reuse);
}
inline uint32_t GetLogSoftMaxMaxTmpSize(const TensorShape srcShape, const uint32_t dataTypeSize, const bool reuse) {
    return GetSoftMaxMaxTmpSize(srcShape, dataTypeSize, reuse);
}
inline void LogSoftMaxTilingFunc(const TensorShape srcShape, const uint32_t dataTypeSize,
                                 const uint32_t localWorkSpaceSize, LogSoftMaxTiling& softmaxTiling) {
    SoftMaxTilingFunc(srcShape, dataTypeSize, localWorkSpaceSize, softmaxTiling);
}

// Host side (SoftmaxFlash-Tiling接口.md), A2/A3 budget per row in floats (blk = 32 / dataTypeSize): SoftMax's
// blk + k + 64, or 4 * blk + 2k with isUpdate. Minimum one row, maximum all rows.
namespace adv {
inline uint32_t flash_row_floats(uint32_t k, uint32_t typeSize, bool isUpdate) {
    const uint32_t blk = 32 / typeSize;
    return isUpdate ? 4 * blk + 2 * k : blk + k + kLanes;
}
}  // namespace adv
inline uint32_t GetSoftMaxFlashMinTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize,
                                          const bool isUpdate, const bool isReuseSource) {
    (void)isReuseSource;
    uint32_t m = 0, k = 0;
    adv::shape_mk(srcShape, m, k);
    return adv::flash_row_floats(k, dataTypeSize, isUpdate) * uint32_t(sizeof(float));
}
inline uint32_t GetSoftMaxFlashMaxTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize,
                                          const bool isUpdate, const bool isReuseSource) {
    uint32_t m = 0, k = 0;
    adv::shape_mk(srcShape, m, k);
    return m * GetSoftMaxFlashMinTmpSize(srcShape, dataTypeSize, isUpdate, isReuseSource);
}
inline void SoftMaxFlashTilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize,
                                   const uint32_t localWorkSpaceSize, SoftMaxTiling& softmaxFlashTiling,
                                   const bool isUpdate = false) {
    uint32_t m = 0, k = 0;
    adv::shape_mk(srcShape, m, k);
    const uint32_t perRow = adv::flash_row_floats(k, dataTypeSize, isUpdate);
    uint32_t split = adv::split_rows(localWorkSpaceSize / uint32_t(sizeof(float)), perRow, m);
    adv::basic_block_split(split, m, k);
    softmaxFlashTiling = adv::softmax_tiling(m, k, split, 32 / dataTypeSize);
}

// IsBasicBlockInSoftMax.md: whether a SoftMaxTiling's shape takes the basic-block path (no tail rows, k a
// multiple of 64 in [256 / dataTypeSize, 2048)).
inline bool IsBasicBlockInSoftMax(const SoftMaxTiling& tiling, const uint32_t dataTypeSize = 2) {
    if (dataTypeSize == 0) return false;
    return tiling.tailM == 0 && tiling.srcK >= 256 / dataTypeSize && tiling.srcK < 2048 &&
           tiling.srcK % adv::kLanes == 0;
}

// Host side (SoftmaxGrad-Tiling接口.md), A2/A3 budget per row in floats: half 2 * 16 + 3k + 64; float
// 2 * 8 + k + 64, or 8 + k + 64 with isFront. Minimum one row, maximum all rows.
namespace adv {
inline uint32_t grad_row_floats(uint32_t k, uint32_t typeSize, bool isFront) {
    const uint32_t blk = 32 / typeSize;
    if (typeSize == 2) return 2 * blk + 3 * k + kLanes;
    return (isFront ? blk : 2 * blk) + k + kLanes;
}
}  // namespace adv
inline uint32_t GetSoftMaxGradMinTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize, const bool isFront,
                                         const bool isReuseSource) {
    (void)isReuseSource;
    uint32_t m = 0, k = 0;
    adv::shape_mk(srcShape, m, k);
    return adv::grad_row_floats(k, dataTypeSize, isFront) * sizeof(float);
}
inline uint32_t GetSoftMaxGradMaxTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize, const bool isFront,
                                         const bool isReuseSource) {
    uint32_t m = 0, k = 0;
    adv::shape_mk(srcShape, m, k);
    return m * GetSoftMaxGradMinTmpSize(srcShape, dataTypeSize, isFront, isReuseSource);
}
inline void SoftMaxGradTilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize,
                                  const uint32_t localWorkSpaceSize, SoftMaxTiling& softmaxGradTiling,
                                  const bool isFront = false) {
    uint32_t m = 0, k = 0;
    adv::shape_mk(srcShape, m, k);
    const uint32_t perRow = adv::grad_row_floats(k, dataTypeSize, isFront);
    uint32_t split = adv::split_rows(localWorkSpaceSize / uint32_t(sizeof(float)), perRow, m);
    adv::basic_block_split(split, m, k);
    softmaxGradTiling = adv::softmax_tiling(m, k, split, 32 / dataTypeSize);
}

// Host side (SoftmaxFlashV2-Tiling接口.md), the A2/A3 figures in floats; blk = 32 / dataTypeSize2 (the sum and
// max type). Per row: half src 2 * blk + k + 64, float blk + 64; with isBasicBlock (k a multiple of 64, and for
// the maximum and the tiling M a multiple of 8) half blk + k + 64 and float blk + 64, k = 1024 taking 128 for 64;
// the basic-block minimum is 8 rows. isFlashOutputBrc multiplies the minimum by min(32 / dataTypeSize1, M) rows.
namespace adv {
inline uint32_t flashv2_row_floats(uint32_t k, uint32_t dt1, uint32_t blk, bool basic) {
    const uint32_t unit = basic && k == 1024 ? 2 * kLanes : kLanes;
    if (basic) return dt1 == 2 ? blk + k + unit : blk + unit;
    return dt1 == 2 ? 2 * blk + k + kLanes : blk + kLanes;
}
}  // namespace adv
inline uint32_t GetSoftMaxFlashV2MinTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize1,
                                            const uint32_t dataTypeSize2, const bool isUpdate,
                                            const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
    (void)isUpdate;
    uint32_t m = 0, k = 0;
    adv::shape_mk(srcShape, m, k);
    const uint32_t blk = 32 / dataTypeSize2;
    const bool basic = isBasicBlock && k % adv::kLanes == 0;
    uint32_t need = (basic ? adv::kBlkFloats : 1) * adv::flashv2_row_floats(k, dataTypeSize1, blk, basic);
    if (isFlashOutputBrc) need = (basic ? need / adv::kBlkFloats : need) * std::min(32 / dataTypeSize1, m);
    return need * uint32_t(sizeof(float));
}
inline uint32_t GetSoftMaxFlashV2MaxTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize1,
                                            const uint32_t dataTypeSize2, const bool isUpdate,
                                            const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
    (void)isUpdate;
    (void)isFlashOutputBrc;
    uint32_t m = 0, k = 0;
    adv::shape_mk(srcShape, m, k);
    const bool basic = isBasicBlock && k % adv::kLanes == 0 && m % adv::kBlkFloats == 0;
    if (basic) {
        while (m * k >= adv::kLanes * 256) m /= 2;
    }
    return m * adv::flashv2_row_floats(k, dataTypeSize1, 32 / dataTypeSize2, basic) * uint32_t(sizeof(float));
}
inline void SoftMaxFlashV2TilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize1,
                                     const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                     SoftMaxTiling& softmaxFlashTiling, const bool isUpdate,
                                     const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
    (void)isUpdate;
    uint32_t m = 0, k = 0;
    adv::shape_mk(srcShape, m, k);
    const uint32_t blk = 32 / dataTypeSize2, floats = localWorkSpaceSize / uint32_t(sizeof(float));
    const bool basic = isBasicBlock && k % adv::kLanes == 0 && m % adv::kBlkFloats == 0;
    uint32_t split = floats / adv::flashv2_row_floats(k, dataTypeSize1, blk, basic);
    if (basic) {
        split = std::min(split, m);
        adv::basic_block_split(split, m, k);
    }
    const uint32_t tile = isFlashOutputBrc && dataTypeSize1 == 2 ? 16 : adv::kBlkFloats;
    split = std::min(split, m);
    if (split < m && split > tile) split = split / tile * tile;
    softmaxFlashTiling = adv::softmax_tiling(m, k, split, blk);
}

// Host side (SoftmaxFlashV3-Tiling接口.md), A2/A3: (8 * 5 + 2k + 64) floats a row with blk = 32 /
// dataTypeSize2 = 8; the minimum one row, the maximum all rows.
inline void GetSoftMaxFlashV3MaxMinTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize1,
                                           const uint32_t dataTypeSize2, uint32_t& maxValue, uint32_t& minValue,
                                           const bool isUpdate = false, const bool isBasicBlock = false) {
    (void)dataTypeSize1;
    (void)isUpdate;
    (void)isBasicBlock;
    uint32_t m = 0, k = 0;
    adv::shape_mk(srcShape, m, k);
    minValue = ((32 / dataTypeSize2) * 5 + 2 * k + adv::kLanes) * uint32_t(sizeof(float));
    maxValue = m * minValue;
}
inline void SoftMaxFlashV3TilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize1,
                                     const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                     SoftMaxTiling& softmaxFlashV3Tiling, const bool isUpdate = false,
                                     const bool isBasicBlock = false) {
    (void)dataTypeSize1;
    (void)isUpdate;
    (void)isBasicBlock;
    uint32_t m = 0, k = 0;
    adv::shape_mk(srcShape, m, k);
    const uint32_t blk = 32 / dataTypeSize2;
    const uint32_t perRow = blk * 5 + 2 * k + adv::kLanes;
    const uint32_t split = adv::split_rows(localWorkSpaceSize / uint32_t(sizeof(float)), perRow, m);
    softmaxFlashV3Tiling = adv::softmax_tiling(m, k, split, blk);
}

// Host side (RmsNorm-Tiling.md), shapes [B, S, H] (H 32-byte aligned; originSrcShape's H the real length).
inline bool GetRmsNormMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                    uint32_t& minValue, const bool isBasicBlock = false) {
    (void)isBasicBlock;
    const std::vector<int64_t> d = srcShape.GetDims();
    if (d.size() != 3) return false;
    const uint32_t h = uint32_t(d[2]), rows = uint32_t(d[0] * d[1]);
    minValue = adv::rms_floats(1, h, typeSize) * sizeof(float);
    maxValue = adv::rms_floats(rows, h, typeSize) * sizeof(float);
    return true;
}
inline bool GetRmsNormTilingInfo(const TensorShape& srcShape, const TensorShape& originSrcShape,
                                 const uint32_t stackBufferByteSize, const uint32_t typeSize, RmsNormTiling& tiling,
                                 const bool isBasicBlock = false) {
    (void)isBasicBlock;
    const std::vector<int64_t> d = srcShape.GetDims(), o = originSrcShape.GetDims();
    if (d.size() != 3 || o.size() != 3 || d[0] != o[0] || d[1] != o[1] || d[2] < o[2] || o[2] == 0 ||
        d[2] * typeSize % 32 != 0) {
        return false;
    }
    const uint32_t h = uint32_t(d[2]), rows = uint32_t(d[0] * d[1]);
    // The most rows whose temporaries fit the stack.
    uint32_t split = std::min(rows, stackBufferByteSize / uint32_t(sizeof(float)) / h);
    while (split > 0 && adv::rms_floats(split, h, typeSize) * sizeof(float) > stackBufferByteSize) --split;
    if (split == 0) return false;
    RmsNormTiling t;
    t.bLength = uint32_t(d[0]);
    t.sLength = uint32_t(d[1]);
    t.hLength = h;
    t.originalHLength = uint32_t(o[2]);
    t.reciprocalOfHLength = 1.0f / float(o[2]);
    t.mainBsLength = split;
    t.mainBshLength = split * h;
    t.mainBsLengthAlign = adv::align8(split);
    t.loopRound = rows / split;
    t.inputTailPos = t.loopRound * split * h;
    t.tailBsLength = rows % split;
    t.tailBshLength = t.tailBsLength * h;
    tiling = t;
    return true;
}

// Host side (LayerNorm-Tiling.md), the [B, S, H] form: the minimum is one row's temporaries, the maximum all
// rows at once; the tiling takes as many rows per pass as stackBufferSize holds.
inline void GetLayerNormMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                      uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    const std::vector<int64_t> d = srcShape.GetDims();
    const uint32_t h = uint32_t(d.back()), rows = uint32_t(srcShape.GetShapeSize() / d.back());
    minValue = adv::layernorm_floats(1, h, typeSize) * sizeof(float);
    maxValue = adv::layernorm_floats(rows, h, typeSize) * sizeof(float);
}
inline void GetLayerNormNDTilingInfo(const TensorShape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t typeSize, const bool isReuseSource, LayerNormTiling& tiling) {
    (void)isReuseSource;
    const std::vector<int64_t> d = srcShape.GetDims();
    LayerNormTiling t;
    t.bLength = uint32_t(d[0]);
    t.sLength = uint32_t(d[1]);
    t.hLength = uint32_t(d[2]);
    t.originalHLength = t.hLength;
    const uint32_t h = t.hLength, rows = t.bLength * t.sLength;
    uint32_t split = std::min(rows, stackBufferSize / uint32_t(sizeof(float)) / h);
    while (split > 0 && adv::layernorm_floats(split, h, typeSize) * sizeof(float) > stackBufferSize) --split;
    if (split < rows && split > 16) split = split / 16 * 16;  // passes start on 32 bytes of the [B*S] outputs
    t.inputXSize = rows * h;
    t.meanVarSize = rows;
    t.tmpBufSize = stackBufferSize / sizeof(float);
    t.bsCurLength = split;
    t.bshCurLength = split * h;
    t.loopRound = split ? rows / split : 0;
    t.inputRoundSize = t.bshCurLength;
    t.inputTailSize = split ? rows % split * h : 0;
    t.inputTailPos = t.loopRound * t.bshCurLength;
    t.meanVarRoundSize = split;
    t.meanVarTailSize = split ? rows % split : 0;
    t.meanVarTailPos = t.loopRound * split;
    t.lastDimValueBack = 1.0f / float(h);
    tiling = t;
}

}  // namespace AscendC
#include "adv_transform_host.h"  // Pad / UnPad / Broadcast / Transpose tiling and temporary sizes
#include "adv_quant_host.h"  // quantization, sort/TopK, Arange, DropOut/Select temporary sizes and tiling
#include "adv_norm_host.h"  // DeepNorm, LayerNormGrad(Beta), [A, R] LayerNorm, Normalize, Welford
#include "adv_reduce_host.h"  // ReducePattern; ReduceMax/ReduceMin and Axpy temporary sizes

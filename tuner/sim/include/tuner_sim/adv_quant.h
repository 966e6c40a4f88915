// Ascend C's quantization APIs (高阶API/量化操作): AscendQuant and AscendDequant, each expanded into the basic
// vector APIs in the order asc-devkit's A2 implementation issues them (impl/adv_api/detail/quantization), so
// their checks, arithmetic and modelled time are those of the instructions they issue.
#pragma once
#include <algorithm>
#include <type_traits>

#include "adv_filter.h"  // Arange; DropOut, Select (and adv_sync)
#include "adv_math.h"
#include "adv_quant_host.h"
#include "vec.h"
#include "rearrange.h"

namespace AscendC {

// AscendQuant.md: the compile-time form of the counts (all 0: the run-time counts are used).
struct AscendQuantConfig {
    uint32_t calcCount = 0;
    uint32_t offsetCount = 0;
    uint32_t scaleCount = 0;
    uint32_t workLocalSize = 0;
};
constexpr AscendQuantConfig ASCEND_QUANT_DEFAULT_CFG = {0, 0, 0, 0};

// AscendDequant.md
struct DequantParams {
    uint32_t m;
    uint32_t n;
    uint32_t calCount;
};
enum class DeQuantMode { DEQUANT_WITH_SINGLE_ROW = 0, DEQUANT_WITH_MULTI_ROW };

namespace adv {

// ---- AscendQuant (量化操作/AscendQuant.md): dst = int8(half(src) * scale + offset), in half -------------
// The temporary space is one half plane (two repeats at least, GetAscendQuantMaxMinTmpSize); float input is
// narrowed into it first. Per channel, a float scale/offset tensor is narrowed to half in place (the NPU
// reuses the caller's buffer), and each row of scaleCount elements is processed against it.
template <typename T>
TUNER_SIM_UNCHARGED inline void quant_pass(const LocalTensor<int8_t>& dst, const LocalTensor<T>& src,
                                           const LocalTensor<half>& work, const LocalTensor<half>* scale,
                                           half scaleValue, const LocalTensor<half>* offset, half offsetValue,
                                           uint32_t n, Loc loc) {
    LocalTensor<half> x = work;
    if constexpr (std::is_same_v<T, float>) {
        Cast(work, src, RoundMode::CAST_NONE, n, loc);
    } else {
        x = src;
    }
    if (scale != nullptr) {
        Mul(work, x, *scale, int32_t(n), loc);
    } else {
        Muls(work, x, scaleValue, int32_t(n), loc);
    }
    if (offset != nullptr) {
        Add(work, work, *offset, int32_t(n), loc);
    } else {
        Adds(work, work, offsetValue, int32_t(n), loc);
    }
    Cast(dst, work, RoundMode::CAST_NONE, n, loc);
}
template <typename T>
TUNER_SIM_UNCHARGED inline uint32_t quant_split(const LocalTensor<uint8_t>& tmp) {
    return tmp.GetSize() / uint32_t(sizeof(half)) / 32u * 32u;
}
template <typename T>
TUNER_SIM_UNCHARGED inline void quant_tensor(const LocalTensor<int8_t>& dst, const LocalTensor<T>& src,
                                             const LocalTensor<uint8_t>& tmp, float scale, float offset,
                                             uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(AscendQuant, T);
    tuner_sim::api_site("AscendQuant", loc);
    if (count > src.GetSize() || count > dst.GetSize()) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                         "AscendQuant: calCount %u is larger than the tensors (src %u, dst %u elements)", count,
                         src.GetSize(), dst.GetSize());
    }
    require_tmp("AscendQuant", tmp, kQuantMinTmp, own);
    const uint32_t split = quant_split<T>(tmp);
    const LocalTensor<half> work = tmp.ReinterpretCast<half>();
    for (uint32_t i = 0; i < count; i += split) {
        const uint32_t n = std::min(split, count - i);
        quant_pass<T>(dst[i], src[i], work, nullptr, half(scale), nullptr, half(offset), n, loc);
    }
}
template <typename T>
TUNER_SIM_UNCHARGED inline void quant_channel(const LocalTensor<int8_t>& dst, const LocalTensor<T>& src,
                                              const LocalTensor<uint8_t>& tmp, const LocalTensor<T>& scale,
                                              const LocalTensor<T>* offset, T offsetValue, uint32_t scaleCount,
                                              uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(AscendQuant, T);
    tuner_sim::api_site("AscendQuant", loc);
    if (count > src.GetSize() || count > dst.GetSize() || scaleCount > scale.GetSize() ||
        (offset != nullptr && scaleCount > offset->GetSize())) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                         "AscendQuant: calCount %u / scaleCount %u exceed the tensors (src %u, dst %u, scale %u)",
                         count, scaleCount, src.GetSize(), dst.GetSize(), scale.GetSize());
    }
    if (scaleCount == 0 || count % scaleCount != 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "AscendQuant: calCount %u must be a non-zero multiple of scaleCount %u", count, scaleCount);
    }
    require_tmp("AscendQuant", tmp, kQuantMinTmp, own);
    const LocalTensor<half> work = tmp.ReinterpretCast<half>();
    LocalTensor<half> hScale, hOffset;
    if constexpr (std::is_same_v<T, float>) {
        hScale = scale.template ReinterpretCast<half>();
        Cast(hScale, scale, RoundMode::CAST_NONE, scaleCount, loc);
        if (offset != nullptr) {
            hOffset = offset->template ReinterpretCast<half>();
            Cast(hOffset, *offset, RoundMode::CAST_NONE, scaleCount, loc);
        }
    } else {
        hScale = scale;
        if (offset != nullptr) hOffset = *offset;
    }
    const uint32_t split = quant_split<T>(tmp);
    for (uint32_t row = 0; row < count / scaleCount; ++row) {
        const uint32_t base = row * scaleCount;
        for (uint32_t i = 0; i < scaleCount; i += split) {
            const uint32_t n = std::min(split, scaleCount - i);
            const LocalTensor<half> s = hScale[i];
            const LocalTensor<half> o = offset != nullptr ? hOffset[i] : hScale;
            quant_pass<T>(dst[base + i], src[base + i], work, &s, half(0.0f), offset != nullptr ? &o : nullptr,
                          half(float(offsetValue)), n, loc);
        }
    }
}

// ---- AscendDequant (量化操作/AscendDequant.md): dst[r][i] = dstT(float(src[r][i]) * deqScale[i]) ------------
// for i < calCount of each row of n. The temporary space holds deqScale as float (calCount rounded up to 8)
// and then as many whole widened rows as fit. A2 takes (deqScale, dst) = (uint64_t, half), (float, float),
// (bfloat16_t, float), (bfloat16_t, bfloat16_t), (float, bfloat16_t); a scalar deqScale float or bfloat16_t.
template <typename dstT, typename scaleT, bool isTensor>
constexpr bool dequant_types_ok() {
    if constexpr (isTensor) {
        return (std::is_same_v<scaleT, uint64_t> && std::is_same_v<dstT, half>) ||
               (std::is_same_v<scaleT, float> && std::is_same_v<dstT, float>) ||
               (std::is_same_v<scaleT, bfloat16_t> && std::is_same_v<dstT, float>) ||
               (std::is_same_v<scaleT, bfloat16_t> && std::is_same_v<dstT, bfloat16_t>) ||
               (std::is_same_v<scaleT, float> && std::is_same_v<dstT, bfloat16_t>);
    } else {
        return (std::is_same_v<scaleT, bfloat16_t> && std::is_same_v<dstT, bfloat16_t>) ||
               (std::is_same_v<scaleT, bfloat16_t> && std::is_same_v<dstT, float>) ||
               (std::is_same_v<scaleT, float> && std::is_same_v<dstT, float>) ||
               (std::is_same_v<scaleT, float> && std::is_same_v<dstT, bfloat16_t>);
    }
}
template <typename dstT, DeQuantMode mode>
TUNER_SIM_UNCHARGED inline void dequant_update(DequantParams& p) {
    if constexpr (mode == DeQuantMode::DEQUANT_WITH_SINGLE_ROW) {
        const uint32_t blk = 32 / sizeof(dstT);
        if (p.m == 1 && p.calCount != 0 && p.calCount % blk == 0 && p.n % p.calCount == 0) {
            p.m = p.n / p.calCount;
            p.n = p.calCount;
        }
    }
}
// rows x n floats in `x` times the first calCount floats of `scale`, in 64-lane blocks with one repeat per
// row (the row stride n / 8 blocks must fit 8 bits; otherwise one instruction per row).
TUNER_SIM_UNCHARGED inline void dequant_mul(const LocalTensor<float>& x, const LocalTensor<float>& scale,
                                            uint32_t rows, uint32_t n, uint32_t calCount, Loc loc) {
    if (rows == 0) return;
    if (n / kBlkFloats > kMaxRepeat) {
        for (uint32_t r = 0; r < rows; ++r) Mul(x[r * n], x[r * n], scale, int32_t(calCount), loc);
        return;
    }
    const uint8_t stride = uint8_t(n / kBlkFloats);
    const BinaryRepeatParams p(1, 1, 1, stride, stride, 0);
    for (uint32_t c = 0; c < calCount; c += kLanes) {
        const uint32_t lanes = std::min(kLanes, calCount - c);
        uint64_t mask[2] = {lanes == 64 ? ~uint64_t(0) : ((uint64_t(1) << lanes) - 1), 0};
        for (uint32_t r = 0; r < rows; r += kMaxRepeat) {
            const uint32_t rep = std::min(kMaxRepeat, rows - r);
            Mul(x[r * n + c], x[r * n + c], scale[c], mask, uint8_t(rep), p, loc);
        }
    }
}
template <typename dstT>
TUNER_SIM_UNCHARGED inline void dequant_out(const LocalTensor<dstT>& dst, const LocalTensor<float>& x,
                                            uint32_t rows, uint32_t n, uint32_t dstInner, Loc loc) {
    constexpr RoundMode mode = std::is_same_v<dstT, bfloat16_t> ? RoundMode::CAST_RINT : RoundMode::CAST_NONE;
    if constexpr (std::is_same_v<dstT, float>) {
        Adds(dst, x, 0.0f, int32_t(rows * n), loc);
    } else if (n == dstInner) {
        Cast(dst, x, mode, rows * n, loc);
    } else {
        for (uint32_t r = 0; r < rows; ++r) Cast(dst[r * dstInner], x[r * n], mode, n, loc);
    }
}
template <typename dstT, typename scaleT, DeQuantMode mode, bool isTensor>
TUNER_SIM_UNCHARGED inline void dequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src,
                                        const LocalTensor<scaleT>* scale, scaleT scaleValue,
                                        const LocalTensor<uint8_t>& tmp, DequantParams p, bool own, Loc loc,
                                        uint32_t calCount = 0) {
    static_assert(dequant_types_ok<dstT, scaleT, isTensor>(),
                  "AscendDequant: this (dstT, deqScale type) pair is not supported on Atlas A2 (AscendDequant.md)");
    TUNER_SIM_ADV_REQUIRE(AscendDequant, dstT);
    tuner_sim::api_site("AscendDequant", loc);
    dequant_update<dstT, mode>(p);
    const uint32_t dstBlk = 32 / sizeof(dstT);
    const uint32_t dstInner = (p.n + dstBlk - 1) / dstBlk * dstBlk;
    if (p.n == 0 || p.n % kBlkFloats != 0 || p.calCount == 0 || p.calCount > p.n) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "AscendDequant: DequantParams {m %u, n %u, calCount %u}: n must be 32-byte aligned and "
                         "0 < calCount <= n", p.m, p.n, p.calCount);
    }
    if (uint64_t(p.m) * p.n > src.GetSize() || uint64_t(p.m) * dstInner > dst.GetSize() ||
        (scale != nullptr && p.calCount > scale->GetSize())) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                         "AscendDequant: DequantParams {m %u, n %u, calCount %u} exceed the tensors (src %u, dst %u "
                         "elements)", p.m, p.n, p.calCount, src.GetSize(), dst.GetSize());
    }
    require_tmp("AscendDequant", tmp, dequant_tmp_floats(1, p.n) * uint32_t(sizeof(float)), own);
    const LocalTensor<float> planes = tmp.ReinterpretCast<float>();
    const uint32_t scaleSize = align8(p.calCount);
    // The calCount forms (deprecated) take the first calCount elements, the last row possibly in part.
    const uint32_t total = calCount != 0 ? std::min(calCount, p.m * p.n) : p.m * p.n;
    const uint32_t chunk = std::min(total, (planes.GetSize() - scaleSize) / p.n * p.n);  // whole rows
    const LocalTensor<float> fScale = planes;
    const LocalTensor<float> x = planes[scaleSize];
    if constexpr (!isTensor) {
        Duplicate(fScale, float(scaleValue), int32_t(p.calCount), loc);
    } else if constexpr (std::is_same_v<scaleT, float>) {
        Adds(fScale, *scale, 0.0f, int32_t(p.calCount), loc);
    } else if constexpr (std::is_same_v<scaleT, uint64_t>) {
        // the low 32 bits of each uint64_t hold the float scale: take the even words
        GatherMaskParams gp;
        gp.repeatTimes = 1;
        uint64_t kept = 0;
        GatherMask(fScale, scale->template ReinterpretCast<float>(), uint8_t(1), true, p.calCount * 2, gp, kept,
                   loc);
    } else {
        Cast(fScale, *scale, RoundMode::CAST_NONE, p.calCount, loc);
    }
    for (uint32_t off = 0; off < total; off += chunk) {
        const uint32_t n = std::min(chunk, total - off);
        const uint32_t rows = n / p.n;
        Cast(x, src[off], RoundMode::CAST_NONE, n, loc);
        dequant_mul(x, fScale, rows, p.n, p.calCount, loc);
        const uint32_t tail = n - rows * p.n;
        if (tail != 0) Mul(x[rows * p.n], x[rows * p.n], fScale, int32_t(std::min(tail, p.calCount)), loc);
        dequant_out(dst[off / p.n * dstInner], x, rows, p.n, dstInner, loc);
        if (tail != 0) {
            if constexpr (std::is_same_v<dstT, float>) {
                Adds(dst[off / p.n * dstInner + rows * dstInner], x[rows * p.n], 0.0f, int32_t(tail), loc);
            } else {
                Cast(dst[off / p.n * dstInner + rows * dstInner], x[rows * p.n],
                     std::is_same_v<dstT, bfloat16_t> ? RoundMode::CAST_RINT : RoundMode::CAST_NONE, tail, loc);
            }
        }
    }
}

// The deprecated forms without DequantParams (AscendDequant.md): deqScale's size is the row length n, src holds
// src.GetSize() / n rows, and the first calCount elements (all of src without it) are dequantized.
template <typename dstT, typename scaleT, DeQuantMode mode>
TUNER_SIM_UNCHARGED inline void dequant_rows(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src,
                                             const LocalTensor<scaleT>& scale, const LocalTensor<uint8_t>& tmp,
                                             uint32_t calCount, bool own, Loc loc) {
    const uint32_t n = scale.GetSize();
    if (n == 0 || src.GetSize() % n != 0 || calCount > src.GetSize()) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "AscendDequant: src (%u elements) must be whole rows of deqScale's %u, calCount %u at most "
                         "src's size", src.GetSize(), n, calCount);
    }
    const DequantParams p{src.GetSize() / n, n, n};
    dequant<dstT, scaleT, mode, true>(dst, src, &scale, scaleT{}, tmp, p, own, loc, calCount);
}
}  // namespace adv

// ---- AscendQuant: per tensor ----------------------------------------------------------------------------
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendQuant(const LocalTensor<int8_t>& dstTensor,
                                                       const LocalTensor<T>& srcTensor,
                                                       const LocalTensor<uint8_t>& sharedTmpBuffer, const float scale,
                                                       const float offset, const uint32_t calCount,
                                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::quant_tensor(dstTensor, srcTensor, sharedTmpBuffer, scale, offset, calCount, false, loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendQuant(const LocalTensor<int8_t>& dstTensor,
                                                       const LocalTensor<T>& srcTensor,
                                                       const LocalTensor<uint8_t>& sharedTmpBuffer, const float scale,
                                                       const float offset, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::quant_tensor(dstTensor, srcTensor, sharedTmpBuffer, scale, offset, srcTensor.GetSize(), false, loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendQuant(const LocalTensor<int8_t>& dstTensor,
                                                       const LocalTensor<T>& srcTensor, const float scale,
                                                       const float offset, const uint32_t calCount,
                                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::quant_tensor(dstTensor, srcTensor, adv::own_tmp("AscendQuant"), scale, offset, calCount, true, loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendQuant(const LocalTensor<int8_t>& dstTensor,
                                                       const LocalTensor<T>& srcTensor, const float scale,
                                                       const float offset, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::quant_tensor(dstTensor, srcTensor, adv::own_tmp("AscendQuant"), scale, offset, srcTensor.GetSize(), true,
                      loc);
}
// ---- AscendQuant: per channel (scale a tensor of scaleCount, offset a scalar or a tensor) ------------------
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendQuant(const LocalTensor<int8_t>& dstTensor,
                                                       const LocalTensor<T>& srcTensor,
                                                       const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                       const LocalTensor<T>& scaleTensor, const T offset,
                                                       const uint32_t scaleCount, const uint32_t calCount,
                                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::quant_channel<T>(dstTensor, srcTensor, sharedTmpBuffer, scaleTensor, nullptr, offset, scaleCount, calCount,
                          false, loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendQuant(const LocalTensor<int8_t>& dstTensor,
                                                       const LocalTensor<T>& srcTensor,
                                                       const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                       const LocalTensor<T>& scaleTensor,
                                                       const LocalTensor<T>& offsetTensor, const uint32_t scaleCount,
                                                       const uint32_t offsetCount, const uint32_t calCount,
                                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    if (offsetCount != scaleCount) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "AscendQuant: offsetCount %u must equal scaleCount %u", offsetCount, scaleCount);
    }
    adv::quant_channel<T>(dstTensor, srcTensor, sharedTmpBuffer, scaleTensor, &offsetTensor, T(0.0f), scaleCount,
                          calCount, false, loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendQuant(const LocalTensor<int8_t>& dstTensor,
                                                       const LocalTensor<T>& srcTensor,
                                                       const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                       const LocalTensor<T>& scaleTensor, const T offset,
                                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::quant_channel<T>(dstTensor, srcTensor, sharedTmpBuffer, scaleTensor, nullptr, offset, scaleTensor.GetSize(),
                          srcTensor.GetSize(), false, loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendQuant(const LocalTensor<int8_t>& dstTensor,
                                                       const LocalTensor<T>& srcTensor,
                                                       const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                       const LocalTensor<T>& scaleTensor,
                                                       const LocalTensor<T>& offsetTensor,
                                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::quant_channel<T>(dstTensor, srcTensor, sharedTmpBuffer, scaleTensor, &offsetTensor, T(0.0f),
                          scaleTensor.GetSize(), srcTensor.GetSize(), false, loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendQuant(const LocalTensor<int8_t>& dstTensor,
                                                       const LocalTensor<T>& srcTensor,
                                                       const LocalTensor<T>& scaleTensor, const T offset,
                                                       const uint32_t scaleCount, const uint32_t calCount,
                                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::quant_channel<T>(dstTensor, srcTensor, adv::own_tmp("AscendQuant"), scaleTensor, nullptr, offset,
                          scaleCount, calCount, true, loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendQuant(const LocalTensor<int8_t>& dstTensor,
                                                       const LocalTensor<T>& srcTensor,
                                                       const LocalTensor<T>& scaleTensor,
                                                       const LocalTensor<T>& offsetTensor, const uint32_t scaleCount,
                                                       const uint32_t offsetCount, const uint32_t calCount,
                                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    if (offsetCount != scaleCount) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "AscendQuant: offsetCount %u must equal scaleCount %u", offsetCount, scaleCount);
    }
    adv::quant_channel<T>(dstTensor, srcTensor, adv::own_tmp("AscendQuant"), scaleTensor, &offsetTensor, T(0.0f),
                          scaleCount, calCount, true, loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendQuant(const LocalTensor<int8_t>& dstTensor,
                                                       const LocalTensor<T>& srcTensor,
                                                       const LocalTensor<T>& scaleTensor, const T offset,
                                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::quant_channel<T>(dstTensor, srcTensor, adv::own_tmp("AscendQuant"), scaleTensor, nullptr, offset,
                          scaleTensor.GetSize(), srcTensor.GetSize(), true, loc);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendQuant(const LocalTensor<int8_t>& dstTensor,
                                                       const LocalTensor<T>& srcTensor,
                                                       const LocalTensor<T>& scaleTensor,
                                                       const LocalTensor<T>& offsetTensor,
                                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::quant_channel<T>(dstTensor, srcTensor, adv::own_tmp("AscendQuant"), scaleTensor, &offsetTensor, T(0.0f),
                          scaleTensor.GetSize(), srcTensor.GetSize(), true, loc);
}

// ---- AscendDequant: deqScale a tensor or a scalar, DequantParams {m, n, calCount} --------------------------
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor,
                                                         const LocalTensor<int32_t>& srcTensor,
                                                         const LocalTensor<scaleT>& deqScale,
                                                         const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                         const uint32_t calCount,
                                                         tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::dequant_rows<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, sharedTmpBuffer, calCount, false, loc);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor,
                                                         const LocalTensor<int32_t>& srcTensor,
                                                         const LocalTensor<scaleT>& deqScale, const uint32_t calCount,
                                                         tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::dequant_rows<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, adv::own_tmp("AscendDequant"), calCount,
                                          true, loc);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor,
                                                         const LocalTensor<int32_t>& srcTensor,
                                                         const LocalTensor<scaleT>& deqScale,
                                                         const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                         tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::dequant_rows<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, sharedTmpBuffer, srcTensor.GetSize(), false,
                                          loc);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor,
                                                         const LocalTensor<int32_t>& srcTensor,
                                                         const LocalTensor<scaleT>& deqScale,
                                                         tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::dequant_rows<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, adv::own_tmp("AscendDequant"),
                                          srcTensor.GetSize(), true, loc);
}

template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor,
                                                         const LocalTensor<int32_t>& srcTensor,
                                                         const LocalTensor<scaleT>& deqScale,
                                                         const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                         DequantParams params,
                                                         tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::dequant<dstT, scaleT, mode, true>(dstTensor, srcTensor, &deqScale, scaleT{}, sharedTmpBuffer, params, false,
                                           loc);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor,
                                                         const LocalTensor<int32_t>& srcTensor,
                                                         const LocalTensor<scaleT>& deqScale, DequantParams params,
                                                         tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::dequant<dstT, scaleT, mode, true>(dstTensor, srcTensor, &deqScale, scaleT{}, adv::own_tmp("AscendDequant"),
                                           params, true, loc);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor,
                                                         const LocalTensor<int32_t>& srcTensor, const scaleT deqScale,
                                                         const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                         DequantParams params,
                                                         tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::dequant<dstT, scaleT, mode, false>(dstTensor, srcTensor, nullptr, deqScale, sharedTmpBuffer, params, false,
                                            loc);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendDequant(const LocalTensor<dstT>& dstTensor,
                                                         const LocalTensor<int32_t>& srcTensor, const scaleT deqScale,
                                                         DequantParams params,
                                                         tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::dequant<dstT, scaleT, mode, false>(dstTensor, srcTensor, nullptr, deqScale, adv::own_tmp("AscendDequant"),
                                            params, true, loc);
}


// ---- AscendAntiQuant (量化操作/AscendAntiQuant.md), Atlas A2/A3: dst = scale * (src + offset) -------------------
// int8_t in, half or bfloat16_t out. Not transposed (src [K, N], offset / scale one row of N): half widens src
// into dst and adds / multiplies 128 columns at a time over K rows (asc-devkit's A2 "performance" path, which
// takes the first row of offset and scale); bfloat16_t goes through float in the temporary space (offset and
// scale widened first, then 64 columns at a time; src is widened to half in dst's own bytes). Transposed (src [N, K], offset / scale [N, K / groupSize],
// the group count from shapeInfo.offsetWidth / scaleWidth or the tensor's ShapeInfo): each group of each row
// with scalar offset and scale read back (asc-devkit's scalar path). Per tensor: scalar offset and scale.
struct AntiQuantShapeInfo {
    uint32_t offsetHeight{0};
    uint32_t offsetWidth{0};
    uint32_t scaleHeight{0};
    uint32_t scaleWidth{0};
};
namespace adv {
constexpr uint32_t kAntiQuantMinTmp = 1024;  // the per-tensor minimum of GetAscendAntiQuantMaxMinTmpSize
template <typename Src, typename Dst>
TUNER_SIM_UNCHARGED inline void antiquant_types() {
    static_assert(std::is_same_v<Src, int8_t>,
                  "AscendAntiQuant: the simulator offers int8_t input (int4b_t is not offered)");
    static_assert(std::is_same_v<Dst, half> || std::is_same_v<Dst, bfloat16_t>,
                  "AscendAntiQuant: the output type must be half or bfloat16_t on Atlas A2/A3");
}
// Scalar offset / scale over n contiguous elements. half: in half; bfloat16_t: widened to half in dst's bytes,
// to float in `tmp`, rounded back with CAST_RINT.
template <typename Dst, bool withOffset>
TUNER_SIM_UNCHARGED inline void antiquant_scalar(const LocalTensor<Dst>& dst, const LocalTensor<int8_t>& src,
                                                 Dst offset, Dst scale, const LocalTensor<uint8_t>& tmp, uint32_t n,
                                                 Loc loc) {
    if constexpr (std::is_same_v<Dst, half>) {
        Cast(dst, src, RoundMode::CAST_NONE, n, loc);
        if constexpr (withOffset) Adds(dst, dst, offset, int32_t(n), loc);
        Muls(dst, dst, scale, int32_t(n), loc);
    } else {
        const uint32_t split = tmp.GetSize() / uint32_t(sizeof(float)) / 64 * 64;
        const LocalTensor<float> f = tmp.ReinterpretCast<float>();
        const LocalTensor<half> h = dst.template ReinterpretCast<half>();  // src widened in dst's own bytes
        for (uint32_t i = 0; i < n; i += split) {
            const uint32_t c = std::min(split, n - i);
            Cast(h[i], src[i], RoundMode::CAST_NONE, c, loc);
            Cast(f, h[i], RoundMode::CAST_NONE, c, loc);
            if constexpr (withOffset) Adds(f, f, float(offset), int32_t(c), loc);
            Muls(f, f, float(scale), int32_t(c), loc);
            Cast(dst[i], f, RoundMode::CAST_RINT, c, loc);
        }
    }
}
template <typename Dst, bool withOffset>
TUNER_SIM_UNCHARGED inline void antiquant_rows(const LocalTensor<Dst>& dst, const LocalTensor<int8_t>& src,
                                               const LocalTensor<Dst>& offset, const LocalTensor<Dst>& scale,
                                               const LocalTensor<uint8_t>& tmp, uint32_t K, uint32_t N, Loc loc) {
    if constexpr (std::is_same_v<Dst, half>) {
        Cast(dst, src, RoundMode::CAST_NONE, K * N, loc);
        const bool strided = N % 16 == 0 && N * 2 / 32 <= kMaxRepeat;
        const uint8_t stride = uint8_t(strided ? N * 2 / 32 : 0);
        const BinaryRepeatParams p(1, 1, 1, stride, stride, 0);
        for (uint32_t c = 0; c < N; c += 128) {
            const uint32_t lanes = std::min(128u, N - c);
            for (uint32_t r = 0; r < K; r += kMaxRepeat) {
                const uint32_t rep = std::min(kMaxRepeat, K - r);
                if (strided) {
                    if constexpr (withOffset) Add(dst[r * N + c], dst[r * N + c], offset[c], uint64_t(lanes), uint8_t(rep), p, loc);
                    Mul(dst[r * N + c], dst[r * N + c], scale[c], uint64_t(lanes), uint8_t(rep), p, loc);
                } else {
                    for (uint32_t q = r; q < r + rep; ++q) {
                        if constexpr (withOffset) Add(dst[q * N + c], dst[q * N + c], offset[c], int32_t(lanes), loc);
                        Mul(dst[q * N + c], dst[q * N + c], scale[c], int32_t(lanes), loc);
                    }
                }
            }
        }
    } else {
        const LocalTensor<float> fOffset = tmp.ReinterpretCast<float>();
        const LocalTensor<float> fScale = fOffset[N];
        const LocalTensor<float> res = fOffset[2 * N];
        const LocalTensor<half> h = dst.template ReinterpretCast<half>();  // src widened in dst's own bytes
        if constexpr (withOffset) Cast(fOffset, offset, RoundMode::CAST_NONE, N, loc);
        Cast(fScale, scale, RoundMode::CAST_NONE, N, loc);
        for (uint32_t c = 0; c < N; c += 64) {
            const uint32_t lanes = std::min(64u, N - c);
            for (uint32_t q = 0; q < K; ++q) {
                Cast(h[q * N + c], src[q * N + c], RoundMode::CAST_NONE, lanes, loc);
                Cast(res[q * 64], h[q * N + c], RoundMode::CAST_NONE, lanes, loc);
                if constexpr (withOffset) Add(res[q * 64], res[q * 64], fOffset[c], int32_t(lanes), loc);
                Mul(res[q * 64], res[q * 64], fScale[c], int32_t(lanes), loc);
                Cast(dst[q * N + c], res[q * 64], RoundMode::CAST_RINT, lanes, loc);
            }
        }
    }
}
template <typename Src, typename Dst, bool isTranspose, bool withOffset>
TUNER_SIM_UNCHARGED inline void antiquant(const LocalTensor<Dst>& dst, const LocalTensor<Src>& src,
                                          const LocalTensor<Dst>* offset, const LocalTensor<Dst>& scale,
                                          const LocalTensor<uint8_t>& tmp, uint32_t K,
                                          const AntiQuantShapeInfo& info, bool own, Loc loc) {
    antiquant_types<Src, Dst>();
    TUNER_SIM_ADV_REQUIRE(AscendAntiQuant, Dst);
    tuner_sim::api_site("AscendAntiQuant", loc);
    const uint32_t total = src.GetSize();
    if (K == 0 || total % K != 0 || dst.GetSize() < total) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "AscendAntiQuant: k %u does not divide src (%u elements) or dst is smaller", K, total);
    }
    const uint32_t N = total / K;
    if constexpr (!isTranspose) {
        if (scale.GetSize() < N || (offset != nullptr && offset->GetSize() < N)) {
            tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                             "AscendAntiQuant: offset / scale hold fewer than the %u columns of src", N);
        }
        if constexpr (std::is_same_v<Dst, bfloat16_t>) {
            require_tmp("AscendAntiQuant", tmp, (scale.GetSize() * 2 + 64 * K) * 4, own);
        }
        antiquant_rows<Dst, withOffset>(dst, src, offset != nullptr ? *offset : scale, scale, tmp, K, N, loc);
    } else {
        if constexpr (std::is_same_v<Dst, bfloat16_t>) require_tmp("AscendAntiQuant", tmp, kAntiQuantMinTmp, own);
        // src [N, K] here: rows of K, offset / scale [rows, groups]
        const uint32_t rows = total / K;
        const uint32_t width = withOffset ? (info.offsetWidth ? info.offsetWidth : offset->GetShapeInfo().shape[1])
                                          : (info.scaleWidth ? info.scaleWidth : scale.GetShapeInfo().shape[1]);
        if (width == 0 || K % width != 0 || scale.GetSize() < rows * width) {
            tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                             "AscendAntiQuant: the transposed form needs the offset / scale width (%u, from "
                             "AntiQuantShapeInfo or the tensor's ShapeInfo) to divide k %u",
                             width, K);
        }
        const uint32_t group = K / width;
        adv_sync<HardEvent::V_S>(loc);
        for (uint32_t i = 0; i < rows; ++i) {
            for (uint32_t j = 0; j < width; ++j) {
                const Dst o = withOffset ? offset->GetValue(i * width + j, loc) : Dst(0.0f);
                const Dst sc = scale.GetValue(i * width + j, loc);
                antiquant_scalar<Dst, withOffset>(dst[i * K + j * group], src[i * K + j * group], o, sc, tmp, group,
                                                  loc);
            }
        }
    }
}
template <typename Src, typename Dst, bool withOffset>
TUNER_SIM_UNCHARGED inline void antiquant_tensor(const LocalTensor<Dst>& dst, const LocalTensor<Src>& src, Dst offset,
                                                 Dst scale, const LocalTensor<uint8_t>& tmp, bool own, Loc loc) {
    antiquant_types<Src, Dst>();
    TUNER_SIM_ADV_REQUIRE(AscendAntiQuant, Dst);
    tuner_sim::api_site("AscendAntiQuant", loc);
    if (dst.GetSize() < src.GetSize()) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds, "AscendAntiQuant: dst is smaller than src");
    }
    if constexpr (std::is_same_v<Dst, bfloat16_t>) require_tmp("AscendAntiQuant", tmp, kAntiQuantMinTmp, own);
    antiquant_scalar<Dst, withOffset>(dst, src, offset, scale, tmp, src.GetSize(), loc);
}
}  // namespace adv

template <typename InputDataType, typename OutputDataType, bool isTranspose>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendAntiQuant(
    const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
    const LocalTensor<OutputDataType>& offset, const LocalTensor<OutputDataType>& scale,
    const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {},
    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::antiquant<InputDataType, OutputDataType, isTranspose, true>(dst, src, &offset, scale, sharedTmpBuffer, k,
                                                                    shapeInfo, false, loc);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendAntiQuant(
    const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
    const LocalTensor<OutputDataType>& scale, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
    const AntiQuantShapeInfo& shapeInfo = {}, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::antiquant<InputDataType, OutputDataType, isTranspose, false>(dst, src, nullptr, scale, sharedTmpBuffer, k,
                                                                     shapeInfo, false, loc);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendAntiQuant(
    const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src, const OutputDataType offset,
    const OutputDataType scale, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
    const AntiQuantShapeInfo& shapeInfo = {}, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    (void)k;
    (void)shapeInfo;
    adv::antiquant_tensor<InputDataType, OutputDataType, true>(dst, src, offset, scale, sharedTmpBuffer, false, loc);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendAntiQuant(
    const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src, const OutputDataType scale,
    const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {},
    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    (void)k;
    (void)shapeInfo;
    adv::antiquant_tensor<InputDataType, OutputDataType, false>(dst, src, scale, scale, sharedTmpBuffer, false, loc);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendAntiQuant(
    const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
    const LocalTensor<OutputDataType>& offset, const LocalTensor<OutputDataType>& scale, const uint32_t k,
    const AntiQuantShapeInfo& shapeInfo = {}, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::antiquant<InputDataType, OutputDataType, isTranspose, true>(
        dst, src, &offset, scale, adv::own_tmp("AscendAntiQuant"), k, shapeInfo, true, loc);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
TUNER_SIM_UNCHARGED __aicore__ inline void AscendAntiQuant(
    const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src, const OutputDataType offset,
    const OutputDataType scale, const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {},
    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    (void)k;
    (void)shapeInfo;
    adv::antiquant_tensor<InputDataType, OutputDataType, true>(dst, src, offset, scale,
                                                               adv::own_tmp("AscendAntiQuant"), true, loc);
}

}  // namespace AscendC
#include "adv_sort.h"  // Concat, Sort, Extract, MrgSort; TopK

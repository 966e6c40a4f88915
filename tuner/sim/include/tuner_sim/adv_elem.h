// Ascend C's elementwise math APIs of the rounding, clamping, bitwise and inverse-hyperbolic kind (Ceil, Floor,
// Trunc, Frac, ClampMin, ClampMax, Xor, Acosh, Fmod), the running sum CumSum and the row reduction Sum. Each
// is expanded into basic vector APIs of vec.h in the order asc-devkit's A2/A3 implementation issues them
// (impl/adv_api/detail/{math,reduce}/<api>/, the v220 path), on the caller's tensors and temporary space, so
// the checks, the arithmetic and the modelled time are the basic instructions'.
// Docs: asc-devkit docs/zh/api/SIMD-API/高阶API/数学计算/<API>接口/<API>.md, Sum under 归约操作/ (cited per API).
//
// One difference from the NPU's instruction stream: A2 rounds a float to an integral float with a single
// float-to-float Cast (CAST_CEIL / CAST_FLOOR / CAST_TRUNC), a pair the simulator's Cast table does not
// hold; it is issued here as float -> int32_t with the round mode and int32_t -> float back (two Casts, so
// twice the cost, and values beyond +-2^31 saturate where the NPU keeps them).
#pragma once
#include <algorithm>

#include "adv_math.h"

namespace AscendC {

constexpr uint32_t FMOD_ITERATION_NUM_MAX = 11;
enum class FmodAlgo { NORMAL = 0, ITERATION_COMPENSATION = 1 };
struct FmodConfig {
    FmodAlgo algo = FmodAlgo::NORMAL;
    uint32_t iterationNum = FMOD_ITERATION_NUM_MAX;
};
constexpr FmodConfig DEFAULT_FMOD_CONFIG = {};

// CumSum (CumSum接口/CumSum.md)
enum class CumSumAlgorithm { CUMSUM_ALGORITHM_LINEBYLINE = 0, CUMSUM_ALGORITHM_SKLANSKY = 1 };
struct CumSumConfig {
    bool isLastAxis{true};
    bool isReuseSource{false};
    bool outputLastRow{false};
    CumSumAlgorithm algorithm{CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE};
};
struct CumSumInfo {
    uint32_t outter{0};
    uint32_t inner{0};
};
constexpr CumSumConfig defaultCumSumConfig = {true, false, true};
// Sum (归约操作/Sum接口/Sum.md)
struct SumParams {
    uint32_t outter = 1;
    uint32_t inner;
    uint32_t n;
};

namespace adv {

// float -> integral float with `mode` (asc-devkit: one float<-float Cast; here through int32_t, see above).
// The float helpers here are templates (F = float) so that the element-type checks of the instructions they
// issue apply where the API is used, not to every kernel that includes the header.
template <typename F>
TUNER_SIM_UNCHARGED inline void round_f32(const LocalTensor<F>& dst, const LocalTensor<F>& src, RoundMode mode,
                                          uint32_t n, Loc loc) {
    const LocalTensor<int32_t> i = dst.template ReinterpretCast<int32_t>();
    Cast(i, src, mode, n, loc);
    Cast(dst, i, RoundMode::CAST_NONE, n, loc);
}

// ---- Ceil, Floor, Trunc (Ceil接口/Ceil.md, Floor接口/Floor.md, Trunc接口/Trunc.md) -------------------------
// float rounds in dst; half is widened into one float plane (the temporary space holds 2 bytes x 2 per
// element), rounded there and narrowed back. Minimum temporary space (GetXxxMaxMinTmpSize): Ceil and Trunc
// 256 bytes (float) / 512 (half); Floor 0 (float) / 512 (half).
template <typename T>
TUNER_SIM_UNCHARGED inline void round_api(const char* api, RoundMode mode, uint32_t floatMin,
                                          const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                          const LocalTensor<uint8_t>& tmp, uint32_t count, bool own, Loc loc) {
    tuner_sim::api_site(api, loc);
    require_count(api, dst, src, count);
    constexpr bool isHalf = sizeof(T) == 2;
    require_tmp(api, tmp, isHalf ? 2 * kRepeatBytes : floatMin, own);
    if constexpr (!isHalf) {
        round_f32(dst, src, mode, count, loc);
    } else {
        const uint32_t split = tmp.GetSize() / sizeof(T) / 2 / 32 * 32;
        const LocalTensor<float> f = tmp.ReinterpretCast<float>();
        for (uint32_t i = 0; i < count; i += split) {
            const uint32_t n = std::min(split, count - i);
            widen(f, src[i], n, loc);
            round_f32(f, f, mode, n, loc);
            narrow(dst[i], f, n, loc);
        }
    }
}
template <typename T>
TUNER_SIM_UNCHARGED inline void ceil(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                     const LocalTensor<uint8_t>& tmp, uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Ceil, T);
    round_api("Ceil", RoundMode::CAST_CEIL, kRepeatBytes, dst, src, tmp, count, own, loc);
}
template <typename T>
TUNER_SIM_UNCHARGED inline void floor(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                      const LocalTensor<uint8_t>& tmp, uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Floor, T);
    round_api("Floor", RoundMode::CAST_FLOOR, 0, dst, src, tmp, count, own, loc);
}
template <typename T>
TUNER_SIM_UNCHARGED inline void trunc(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                      const LocalTensor<uint8_t>& tmp, uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Trunc, T);
    round_api("Trunc", RoundMode::CAST_TRUNC, kRepeatBytes, dst, src, tmp, count, own, loc);
}

// ---- Frac (Frac接口/Frac.md): x - trunc(x) ----------------------------------------------------------------
// float in dst, no temporary space; half in two float planes (the widened x and its trunc), min 1024 bytes.
template <typename T>
TUNER_SIM_UNCHARGED inline void frac(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                     const LocalTensor<uint8_t>& tmp, uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Frac, T);
    tuner_sim::api_site("Frac", loc);
    require_count("Frac", dst, src, count);
    if constexpr (sizeof(T) == 4) {
        round_f32(dst, src, RoundMode::CAST_TRUNC, count, loc);
        Sub(dst, src, dst, int32_t(count), loc);
    } else {
        require_tmp("Frac", tmp, 4 * kRepeatBytes, own);
        const uint32_t split = tmp.GetSize() / sizeof(float) / 2 / 32 * 32;
        const LocalTensor<float> x = tmp.ReinterpretCast<float>(), t = x[split];
        for (uint32_t i = 0; i < count; i += split) {
            const uint32_t n = std::min(split, count - i);
            widen(x, src[i], n, loc);
            round_f32(t, x, RoundMode::CAST_TRUNC, n, loc);
            Sub(t, x, t, int32_t(n), loc);
            narrow(dst[i], t, n, loc);
        }
    }
}

// ---- ClampMin / ClampMax (Clamp接口/ClampMin.md, ClampMax.md): one Maxs / Mins -------------------------------
// The temporary space is not used, but the docs require GetClampMaxMinTmpSize's minimum: 64 bytes (float),
// 128 bytes (half).
template <typename T, bool isMin>
TUNER_SIM_UNCHARGED inline void clamp(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                      const LocalTensor<uint8_t>& tmp, T scalar, uint32_t count, bool own, Loc loc) {
    const char* api = isMin ? "ClampMin" : "ClampMax";
    if constexpr (isMin) {
        TUNER_SIM_ADV_REQUIRE(ClampMin, T);
    } else {
        TUNER_SIM_ADV_REQUIRE(ClampMax, T);
    }
    tuner_sim::api_site(api, loc);
    require_count(api, dst, src, count);
    require_tmp(api, tmp, sizeof(T) == 4 ? 64 : 128, own);
    if constexpr (isMin) {
        Maxs(dst, src, scalar, int32_t(count), loc);
    } else {
        Mins(dst, src, scalar, int32_t(count), loc);
    }
}

// ---- Xor (Xor接口/Xor-82.md): a ^ b = (a | b) & ~(a & b), with (a | b) in one plane of T, min 256 bytes -------
template <typename T>
TUNER_SIM_UNCHARGED inline void xor_(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                                     const LocalTensor<uint8_t>& tmp, uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Xor, T);
    tuner_sim::api_site("Xor", loc);
    require_count("Xor", dst, src0, count);
    require_count("Xor", dst, src1, count);
    require_tmp("Xor", tmp, kRepeatBytes, own);
    const uint32_t split = tmp.GetSize() / sizeof(T) / 32 * 32;
    const LocalTensor<T> orPlane = tmp.ReinterpretCast<T>();
    for (uint32_t i = 0; i < count; i += split) {
        const int32_t n = int32_t(std::min(split, count - i));
        const LocalTensor<T> d = dst[i];
        And(d, src0[i], src1[i], n, loc);
        Or(orPlane, src0[i], src1[i], n, loc);
        Not(d, d, n, loc);
        And(d, orPlane, d, n, loc);
    }
}

// ---- Acosh (Acosh接口/Acosh.md): ln(x + sqrt(x^2 - 1)) ------------------------------------------------------
// In float planes: one (float, min 256 bytes) or two (half: the widened x and the work plane, min 512 bytes).
// asc-devkit divides the sum by itself and multiplies it back in (t * (t / t)), which turns x = 1's
// intermediate 1 into 1 and a NaN or inf into NaN; kept.
template <typename F>
TUNER_SIM_UNCHARGED inline void acosh_f32(const LocalTensor<F>& dst, const LocalTensor<F>& x, const LocalTensor<F>& t,
                                          uint32_t n, Loc loc) {
    const int32_t c = int32_t(n);
    Mul(t, x, x, c, loc);
    Adds(t, t, -1.0f, c, loc);
    Sqrt(t, t, c, loc);
    Add(t, x, t, c, loc);
    Div(dst, t, t, c, loc);
    Mul(t, t, dst, c, loc);
    Ln(dst, t, c, loc);
}
template <typename T>
TUNER_SIM_UNCHARGED inline void acosh(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                      const LocalTensor<uint8_t>& tmp, uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Acosh, T);
    tuner_sim::api_site("Acosh", loc);
    require_count("Acosh", dst, src, count);
    constexpr bool isHalf = sizeof(T) == 2;
    require_tmp("Acosh", tmp, (isHalf ? 2 : 1) * kRepeatBytes, own);
    const uint32_t split = tmp.GetSize() / sizeof(float) / (isHalf ? 2 : 1) / 32 * 32;
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    for (uint32_t i = 0; i < count; i += split) {
        const uint32_t n = std::min(split, count - i);
        if constexpr (isHalf) {
            const LocalTensor<float> x = f, t = f[split];
            widen(x, src[i], n, loc);
            acosh_f32(x, x, t, n, loc);
            narrow(dst[i], x, n, loc);
        } else {
            acosh_f32(dst[i], src[i], f, n, loc);
        }
    }
}

// ---- Fmod (Fmod接口/Fmod.md): a - trunc(a / b) * b -----------------------------------------------------------
// float: in dst, the temporary space handed to Trunc (min 256 bytes). half: four float planes of equal size
// (the result, a and b widened, Trunc's space), min 2048 bytes (GetFmodMaxMinTmpSize). config.algo is an
// Ascend 950 option; A2 computes NORMAL.
template <typename F>
TUNER_SIM_UNCHARGED inline void fmod_f32(const LocalTensor<F>& dst, const LocalTensor<F>& a, const LocalTensor<F>& b,
                                         const LocalTensor<uint8_t>& truncTmp, uint32_t n, Loc loc) {
    Div(dst, a, b, int32_t(n), loc);
    trunc(dst, dst, truncTmp, n, false, loc);
    Mul(dst, dst, b, int32_t(n), loc);
    Sub(dst, a, dst, int32_t(n), loc);
}
template <typename T>
TUNER_SIM_UNCHARGED inline void fmod(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                                     const LocalTensor<uint8_t>& tmp, uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Fmod, T);
    tuner_sim::api_site("Fmod", loc);
    require_count("Fmod", dst, src0, count);
    require_count("Fmod", dst, src1, count);
    if constexpr (sizeof(T) == 4) {
        require_tmp("Fmod", tmp, kRepeatBytes, own);
        fmod_f32(dst, src0, src1, tmp, count, loc);
    } else {
        require_tmp("Fmod", tmp, 8 * kRepeatBytes, own);
        const uint32_t split = std::min<uint32_t>(tmp.GetSize() / sizeof(T) / 8 / 32 * 32, src0.GetSize());
        const LocalTensor<float> f = tmp.ReinterpretCast<float>();
        const LocalTensor<float> r = f, a = f[split], b = f[2 * split];
        LocalTensor<uint8_t> truncTmp = tmp[3 * split * uint32_t(sizeof(float))];
        for (uint32_t i = 0; i < count; i += split) {
            const uint32_t n = std::min(split, count - i);
            widen(a, src0[i], n, loc);
            widen(b, src1[i], n, loc);
            fmod_f32(r, a, b, truncTmp, n, loc);
            narrow(dst[i], r, n, loc);
        }
    }
}
// ---- CumSum (CumSum接口/CumSum.md): running sums over the rows of [outter, inner] --------------------------
// First axis (isLastAxis = false), the A2 line-by-line algorithm: float adds row r-1 of dst to row r of src in
// dst, one Add of `inner` elements per row; half is widened whole into the temporary space (outter x inner
// floats, the minimum the docs' GetCumSumMaxMinTmpSize gives), summed there and narrowed into dst. With
// outputLastRow the last row is copied to lastRowTensor (Adds of 0). The last-axis form transposes 16-row
// blocks with TransDataTo5HD around the same adds; it is not provided (a compile error says so).
template <typename T, const CumSumConfig& config>
TUNER_SIM_UNCHARGED inline void cumsum(const LocalTensor<T>& dst, const LocalTensor<T>& lastRow,
                                       const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
                                       const CumSumInfo& info, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(CumSum, T);
    static_assert(!config.isLastAxis, "CumSum: the last-axis form (CumSumConfig::isLastAxis = true) is not "
                  "provided by the tuner simulator yet; the first-axis form is");
    tuner_sim::api_site("CumSum", loc);
    const uint32_t m = info.outter, k = info.inner, total = m * k;
    if (m == 0 || k == 0 || (k * sizeof(T)) % 32 != 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Misaligned,
                         "CumSum: cumSumInfo {outter %u, inner %u}: both must be > 0 and inner * sizeof(T) a "
                         "multiple of 32 bytes", m, k);
    }
    require_count("CumSum", dst, src, total);
    if (config.outputLastRow && lastRow.GetSize() < k) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds, "CumSum: lastRowTensor holds %u elements, below "
                         "cumSumInfo.inner %u", lastRow.GetSize(), k);
    }
    if constexpr (sizeof(T) == 2) {
        require_tmp("CumSum", tmp, total * uint32_t(sizeof(float)), own);
        const LocalTensor<float> f = tmp.ReinterpretCast<float>();
        widen(f, src, total, loc);
        for (uint32_t r = 1; r < m; ++r) Add(f[r * k], f[(r - 1) * k], f[r * k], int32_t(k), loc);
        narrow(dst, f, total, loc);
    } else {
        Adds(dst, src, T(0), int32_t(k), loc);
        for (uint32_t r = 1; r < m; ++r) Add(dst[r * k], dst[(r - 1) * k], src[r * k], int32_t(k), loc);
    }
    if constexpr (config.outputLastRow) Adds(lastRow, dst[(m - 1) * k], T(0), int32_t(k), loc);
}
// ---- Sum (归约操作/Sum接口/Sum.md): dst[r] = the sum of row r's first n elements, rows `inner` apart -------
// The A2 expansion: per row, RepeatReduceSum in counter mode over the n elements (one sum per 256-byte
// repeat) into the temporary space, then again over those partial sums until one is left, the last pass
// writing dst[r]; a row of one repeat or less is summed straight into dst[r]. The temporary space holds the
// first pass's sums: ceil(n / (256 / sizeof(T))) elements rounded up to a 32-byte block (GetSumMaxMinTmpSize).
template <typename T>
TUNER_SIM_UNCHARGED inline void sum_rows(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                         const LocalTensor<uint8_t>& tmp, const SumParams& p, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Sum, T);
    tuner_sim::api_site("Sum", loc);
    constexpr uint32_t perRep = kRepeatBytes / sizeof(T), perBlk = 32 / sizeof(T);
    if (p.n == 0 || p.n > p.inner || (p.inner * sizeof(T)) % 32 != 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Misaligned,
                         "Sum: sumParams {outter %u, inner %u, n %u}: need 1 <= n <= inner and inner * sizeof(T) a "
                         "multiple of 32 bytes", p.outter, p.inner, p.n);
    }
    if (uint64_t(p.outter) * p.inner > src.GetSize() || p.outter > dst.GetSize()) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                         "Sum: sumParams {outter %u, inner %u} is larger than srcTensor (%u elements) or "
                         "dstTensor (%u)",
                         p.outter, p.inner, src.GetSize(), dst.GetSize());
    }
    const uint32_t first = (p.n + perRep - 1) / perRep;
    SetMaskCount();
    if (first == 1) {
        for (uint32_t r = 0; r < p.outter; ++r) {
            SetVectorMask<T>(0, p.n);
            RepeatReduceSum<T, false>(dst[r], src[r * p.inner], 1, 0, 1, 1, 1, 8, loc);
        }
    } else {
        require_tmp("Sum", tmp, (first + perBlk - 1) / perBlk * perBlk * uint32_t(sizeof(T)), own);
        uint32_t passes = 1;
        for (uint32_t left = first; left > 1; left = (left + perRep - 1) / perRep) ++passes;
        const LocalTensor<T> t = tmp.ReinterpretCast<T>();
        for (uint32_t r = 0; r < p.outter; ++r) {
            uint32_t count = p.n;
            SetVectorMask<T>(0, count);
            RepeatReduceSum<T, false>(t, src[r * p.inner], 1, 0, 1, 1, 1, 8, loc);
            count = (count + perRep - 1) / perRep;
            for (uint32_t k = passes - 1; k != 0; --k) {
                SetVectorMask<T>(0, count);
                RepeatReduceSum<T, false>(k == 1 ? dst[r] : t, t, 1, 0, 1, 1, 1, 8, loc);
                count = (count + perRep - 1) / perRep;
            }
        }
    }
    SetMaskNorm();
    ResetMask();
}
}  // namespace adv

// ---- the public forms --------------------------------------------------------------------------------
// (dst, src, sharedTmpBuffer, calCount) and (dst, src, calCount), the API's own space in the second.
#define TUNER_SIM_ADV_UNARY2(NAME, CALL)                                                                       \
    template <typename T, bool isReuseSource = false>                                                         \
    TUNER_SIM_UNCHARGED __aicore__ inline void NAME(                                                          \
        const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                     \
        const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,                                 \
        tuner_sim::Loc loc = tuner_sim::Loc::here()) {                                                        \
        CALL(dstTensor, srcTensor, sharedTmpBuffer, calCount, false, loc);                                    \
    }                                                                                                         \
    template <typename T, bool isReuseSource = false>                                                         \
    TUNER_SIM_UNCHARGED __aicore__ inline void NAME(const LocalTensor<T>& dstTensor,                          \
                                                    const LocalTensor<T>& srcTensor, const uint32_t calCount, \
                                                    tuner_sim::Loc loc = tuner_sim::Loc::here()) {            \
        CALL(dstTensor, srcTensor, adv::own_tmp(#NAME), calCount, true, loc);                                 \
    }
// The two forms above and the two over the whole source: (dst, src, sharedTmpBuffer), (dst, src).
#define TUNER_SIM_ADV_UNARY4(NAME, CALL)                                                                       \
    TUNER_SIM_ADV_UNARY2(NAME, CALL)                                                                          \
    template <typename T, bool isReuseSource = false>                                                         \
    TUNER_SIM_UNCHARGED __aicore__ inline void NAME(                                                          \
        const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                     \
        const LocalTensor<uint8_t>& sharedTmpBuffer, tuner_sim::Loc loc = tuner_sim::Loc::here()) {          \
        CALL(dstTensor, srcTensor, sharedTmpBuffer, srcTensor.GetSize(), false, loc);                         \
    }                                                                                                         \
    template <typename T, bool isReuseSource = false>                                                         \
    TUNER_SIM_UNCHARGED __aicore__ inline void NAME(const LocalTensor<T>& dstTensor,                          \
                                                    const LocalTensor<T>& srcTensor,                          \
                                                    tuner_sim::Loc loc = tuner_sim::Loc::here()) {            \
        CALL(dstTensor, srcTensor, adv::own_tmp(#NAME), srcTensor.GetSize(), true, loc);                     \
    }
// Ceil: 数学计算/Ceil接口/Ceil.md; Floor: Floor接口/Floor.md (two forms each)
TUNER_SIM_ADV_UNARY2(Ceil, adv::ceil<T>)
TUNER_SIM_ADV_UNARY2(Floor, adv::floor<T>)
// Trunc: Trunc接口/Trunc.md; Frac: Frac接口/Frac.md; Acosh: Acosh接口/Acosh.md (four forms each)
TUNER_SIM_ADV_UNARY4(Trunc, adv::trunc<T>)
TUNER_SIM_ADV_UNARY4(Frac, adv::frac<T>)
TUNER_SIM_ADV_UNARY4(Acosh, adv::acosh<T>)
#undef TUNER_SIM_ADV_UNARY4
#undef TUNER_SIM_ADV_UNARY2

// ClampMin / ClampMax: 数学计算/Clamp接口/ClampMin.md, ClampMax.md
#define TUNER_SIM_ADV_CLAMP(NAME, IS_MIN)                                                                     \
    template <typename T, bool isReuseSource = false>                                                         \
    TUNER_SIM_UNCHARGED __aicore__ inline void NAME(                                                          \
        const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                     \
        const LocalTensor<uint8_t>& sharedTmpBuffer, const T scalar, const uint32_t calCount,                 \
        tuner_sim::Loc loc = tuner_sim::Loc::here()) {                                                        \
        adv::clamp<T, IS_MIN>(dstTensor, srcTensor, sharedTmpBuffer, scalar, calCount, false, loc);           \
    }                                                                                                         \
    template <typename T, bool isReuseSource = false>                                                         \
    TUNER_SIM_UNCHARGED __aicore__ inline void NAME(const LocalTensor<T>& dstTensor,                          \
                                                    const LocalTensor<T>& srcTensor, const T scalar,          \
                                                    const uint32_t calCount,                                  \
                                                    tuner_sim::Loc loc = tuner_sim::Loc::here()) {            \
        adv::clamp<T, IS_MIN>(dstTensor, srcTensor, adv::own_tmp(#NAME), scalar, calCount, true, loc);        \
    }
TUNER_SIM_ADV_CLAMP(ClampMin, true)
TUNER_SIM_ADV_CLAMP(ClampMax, false)
#undef TUNER_SIM_ADV_CLAMP

// Xor (Xor接口/Xor-82.md) and Fmod (Fmod接口/Fmod.md): the four forms of a binary API with temporary space.
#define TUNER_SIM_ADV_BINARY4(NAME, CALL, ...)                                                                 \
    __VA_ARGS__ TUNER_SIM_UNCHARGED __aicore__ inline void NAME(                                              \
        const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,  \
        const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,                                 \
        tuner_sim::Loc loc = tuner_sim::Loc::here()) {                                                        \
        CALL(dstTensor, src0Tensor, src1Tensor, sharedTmpBuffer, calCount, false, loc);                       \
    }                                                                                                         \
    __VA_ARGS__ TUNER_SIM_UNCHARGED __aicore__ inline void NAME(                                              \
        const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,  \
        const LocalTensor<uint8_t>& sharedTmpBuffer, tuner_sim::Loc loc = tuner_sim::Loc::here()) {          \
        CALL(dstTensor, src0Tensor, src1Tensor, sharedTmpBuffer, src0Tensor.GetSize(), false, loc);           \
    }                                                                                                         \
    __VA_ARGS__ TUNER_SIM_UNCHARGED __aicore__ inline void NAME(                                              \
        const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,  \
        const uint32_t calCount, tuner_sim::Loc loc = tuner_sim::Loc::here()) {                               \
        CALL(dstTensor, src0Tensor, src1Tensor, adv::own_tmp(#NAME), calCount, true, loc);                    \
    }                                                                                                         \
    __VA_ARGS__ TUNER_SIM_UNCHARGED __aicore__ inline void NAME(                                              \
        const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,  \
        tuner_sim::Loc loc = tuner_sim::Loc::here()) {                                                        \
        CALL(dstTensor, src0Tensor, src1Tensor, adv::own_tmp(#NAME), src0Tensor.GetSize(), true, loc);        \
    }
TUNER_SIM_ADV_BINARY4(Xor, adv::xor_<T>, template <typename T, bool isReuseSource = false>)
TUNER_SIM_ADV_BINARY4(Fmod, adv::fmod<T>,
                      template <typename T, bool isReuseSource = false, const FmodConfig& config = DEFAULT_FMOD_CONFIG>)
#undef TUNER_SIM_ADV_BINARY4

// CumSum: 数学计算/CumSum接口/CumSum.md
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
TUNER_SIM_UNCHARGED __aicore__ inline void CumSum(LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor,
                                                  const LocalTensor<T>& srcTensor,
                                                  LocalTensor<uint8_t>& sharedTmpBuffer, const CumSumInfo& cumSumInfo,
                                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::cumsum<T, config>(dstTensor, lastRowTensor, srcTensor, sharedTmpBuffer, cumSumInfo, false, loc);
}
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
TUNER_SIM_UNCHARGED __aicore__ inline void CumSum(LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor,
                                                  const LocalTensor<T>& srcTensor, const CumSumInfo& cumSumInfo,
                                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::cumsum<T, config>(dstTensor, lastRowTensor, srcTensor, adv::own_tmp("CumSum"), cumSumInfo, true, loc);
}

// Sum: 归约操作/Sum接口/Sum.md
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
TUNER_SIM_UNCHARGED __aicore__ inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                               const LocalTensor<uint8_t>& sharedTmpBuffer, const SumParams& sumParams,
                                               tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::sum_rows(dstTensor, srcTensor, sharedTmpBuffer, sumParams, false, loc);
}
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
TUNER_SIM_UNCHARGED __aicore__ inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                               const SumParams& sumParams,
                                               tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::sum_rows(dstTensor, srcTensor, adv::own_tmp("Sum"), sumParams, true, loc);
}

}  // namespace AscendC

// Power (asc-devkit docs/zh/api/SIMD-API/高阶API/数学计算/Power接口/Power.md) of half and float: x^y =
// exp(y * ln|x|) with the sign, ones and NaNs of pow() put back by compares and selects. Expanded into basic
// vector APIs in the order of asc-devkit's A2 implementation (impl/adv_api/detail/math/power/
// power_float_impl.h, power_common_impl.h, v220 path), so checks, arithmetic and modelled time are theirs.
// The float-to-float Casts with CAST_RINT / CAST_FLOOR it issues go through int32_t here (adv_elem.h's
// round_f32), and its compare-into-CMPMASK selects are the tensor-scalar Select of vec.h. Integer Power
// (the fast-power loop of power_int_impl.h) is not provided.
#pragma once
#include <algorithm>
#include <cstring>

#include "adv_elem.h"

namespace AscendC {
enum class PowerAlgo { INTRINSIC = 0, DOUBLE_FLOAT_TECH };
struct PowerConfig {
    PowerAlgo algo = PowerAlgo::INTRINSIC;
};
constexpr PowerConfig defaultPowerConfig = {};

namespace adv {
// The working planes of one pass of n (<= split) elements: three float planes and four masks of `split`
// bytes (asc-devkit's AscPowerFParams).
struct PowPlanes {
    LocalTensor<float> t1, t2, t3;
    LocalTensor<uint8_t> m1, m2, m3, fin;
};
TUNER_SIM_UNCHARGED inline PowPlanes pow_planes(const LocalTensor<uint8_t>& at, uint32_t split) {
    PowPlanes p;
    const LocalTensor<float> f = at.ReinterpretCast<float>();
    p.t1 = f;
    p.t2 = f[split];
    p.t3 = f[2 * split];
    const LocalTensor<uint8_t> m = at[3 * split * uint32_t(sizeof(float))];
    p.m1 = m;
    p.m2 = m[split];
    p.m3 = m[2 * split];
    p.fin = m[3 * split];
    return p;
}
TUNER_SIM_UNCHARGED inline float bits_float(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}
// dst = x^y, n elements. The compares and the mask logic run over whole 64-lane repeats (`whole`: n rounded up
// to 64; asc-devkit's repeat-form compares under a counter mask, which the count form of Compares cannot
// express below 64 lanes), so they read work planes only: an x that is the caller's tensor (xPlane false) is
// first copied into t3 once t3 is free (one Adds that asc-devkit does not issue). A template (F = float) so
// that the element-type checks of what it issues apply where Power is used, not to every kernel.
template <typename F>
TUNER_SIM_UNCHARGED inline void pow_f32(const LocalTensor<F>& dst, const LocalTensor<F>& x, const LocalTensor<F>& y,
                                        const PowPlanes& p, uint32_t n, bool xPlane, Loc loc) {
    const int32_t c = int32_t(n);
    const uint32_t whole = (n + 63) / 64 * 64;
    const int32_t words = int32_t(whole / 16);  // mask bits as uint16_t
    const float inf = bits_float(0x7f800000u), negInf = bits_float(0xff800000u), nan = bits_float(0x7fc00000u);
    auto u16 = [](const LocalTensor<uint8_t>& m) { return m.ReinterpretCast<uint16_t>(); };
    // |x|^y
    Abs(dst, x, c, loc);
    Ln(dst, dst, c, loc);
    Mul(dst, y, dst, c, loc);
    Exp(dst, dst, c, loc);
    // t1 = -1 for odd integral y, else 1
    Abs(p.t1, y, c, loc);
    round_f32(p.t1, p.t1, RoundMode::CAST_RINT, n, loc);
    Muls(p.t2, p.t1, 0.5f, c, loc);
    round_f32(p.t2, p.t2, RoundMode::CAST_FLOOR, n, loc);
    Muls(p.t2, p.t2, 2.0f, c, loc);
    Sub(p.t1, p.t1, p.t2, c, loc);
    Muls(p.t1, p.t1, -2.0f, c, loc);
    Adds(p.t1, p.t1, 1.0f, c, loc);
    round_f32(p.t1, p.t1, RoundMode::CAST_RINT, n, loc);
    // m1 = x's sign bit set and y integral (fin: |y - rint(y)| < 1e-8)
    ShiftRight(p.t2.ReinterpretCast<uint32_t>(), x.template ReinterpretCast<uint32_t>(), uint32_t(31), c, loc);
    Compares(p.m1, p.t2.ReinterpretCast<int32_t>(), int32_t(1), CMPMODE::EQ, whole, loc);
    Abs(p.t2, y, c, loc);
    round_f32(p.t3, p.t2, RoundMode::CAST_RINT, n, loc);
    Sub(p.t3, p.t2, p.t3, c, loc);
    Abs(p.t3, p.t3, c, loc);
    Compares(p.fin, p.t3, 1e-8f, CMPMODE::LT, whole, loc);
    And(u16(p.m1), u16(p.fin), u16(p.m1), words, loc);
    const LocalTensor<F> xc = xPlane ? x : p.t3;
    if (!xPlane) Adds(p.t3, x, 0.0f, c, loc);
    Select(p.t2, p.m1, p.t1, 1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n, loc);
    Mul(dst, p.t2, dst, c, loc);
    // 1 where y == 0 or x == 1, or x == -1 and |y| == inf
    Abs(p.t1, y, c, loc);
    Compares(p.m1, p.t1, 0.0f, CMPMODE::NE, whole, loc);
    Compares(p.m2, xc, 1.0f, CMPMODE::NE, whole, loc);
    And(u16(p.m1), u16(p.m2), u16(p.m1), words, loc);
    Compares(p.m2, xc, -1.0f, CMPMODE::NE, whole, loc);
    Compares(p.m3, p.t1, inf, CMPMODE::NE, whole, loc);
    Or(u16(p.m2), u16(p.m3), u16(p.m2), words, loc);
    And(u16(p.m1), u16(p.m2), u16(p.m1), words, loc);
    Select(dst, p.m1, dst, 1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n, loc);
    // NaN where x < 0 (not -inf) and y finite and not integral
    Abs(p.t1, y, c, loc);
    Compares(p.m1, p.t1, inf, CMPMODE::EQ, whole, loc);
    Or(u16(p.m1), u16(p.fin), u16(p.m1), words, loc);
    Compares(p.m2, xc, 0.0f, CMPMODE::GE, whole, loc);
    Compares(p.m3, xc, negInf, CMPMODE::EQ, whole, loc);
    Or(u16(p.m2), u16(p.m3), u16(p.m2), words, loc);
    Or(u16(p.m1), u16(p.m2), u16(p.m1), words, loc);
    Select(dst, p.m1, dst, nan, SELMODE::VSEL_TENSOR_SCALAR_MODE, n, loc);
}

// Which operand is a scalar: none (tensor ^ tensor), the exponent, or the base.
enum class PowForm { TT, TS, ST };
// The temporary space: 256 bytes (asc-devkit's CMPMASK scalars), then `planes` float planes of `split`: float
// TT 4 (the three work planes and the masks), float TS/ST 5 (and the duplicated scalar), half 7 (the base,
// exponent and result widened, and the four). The minimum is GetPowerMaxMinTmpSize's: float 4 / 5 x 256 +
// 256 bytes, half 7 x 256 + 256 bytes.
template <typename T, PowForm F>
TUNER_SIM_UNCHARGED constexpr uint32_t pow_planes_count() {
    return sizeof(T) == 2 ? 7 : (F == PowForm::TT ? 4 : 5);
}
template <typename T, PowForm F>
TUNER_SIM_UNCHARGED inline void power(const LocalTensor<T>& dst, const LocalTensor<T>& base, T baseScalar,
                                      const LocalTensor<T>& exp, T expScalar, const LocalTensor<uint8_t>& tmp,
                                      uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Power, T);
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Power: integer types are not provided by the tuner simulator");
    tuner_sim::api_site("Power", loc);
    if constexpr (F != PowForm::ST) require_count("Power", dst, base, count);
    if constexpr (F != PowForm::TS) require_count("Power", dst, exp, count);
    constexpr uint32_t planes = pow_planes_count<T, F>();
    require_tmp("Power", tmp, planes * kRepeatBytes + kRepeatBytes, own);
    const uint32_t split = (tmp.GetSize() - kRepeatBytes) / uint32_t(sizeof(float)) / planes / 64 * 64;
    const LocalTensor<float> f = tmp[kRepeatBytes].ReinterpretCast<float>();
    constexpr bool isHalf = sizeof(T) == 2;
    // half: x, y, result widened; float: the scalar operand's plane (TS / ST)
    const uint32_t extra = isHalf ? 3 : (F == PowForm::TT ? 0 : 1);
    const PowPlanes p = pow_planes(tmp[kRepeatBytes + extra * split * uint32_t(sizeof(float))], split);
    const LocalTensor<float> px = f, py = isHalf ? f[split] : f, pr = f[2 * split];
    if constexpr (F == PowForm::TS) Duplicate(py, float(expScalar), int32_t(split), loc);
    if constexpr (F == PowForm::ST) Duplicate(px, float(baseScalar), int32_t(split), loc);
    for (uint32_t i = 0; i < count; i += split) {
        const uint32_t n = std::min(split, count - i);
        if constexpr (isHalf) {
            if constexpr (F != PowForm::ST) widen(px, base[i], n, loc);
            if constexpr (F != PowForm::TS) widen(py, exp[i], n, loc);
            pow_f32(pr, px, py, p, n, true, loc);
            narrow(dst[i], pr, n, loc);
        } else {
            const LocalTensor<float> x = F == PowForm::ST ? f : base[i].template ReinterpretCast<float>();
            const LocalTensor<float> y = F == PowForm::TS ? f : exp[i].template ReinterpretCast<float>();
            pow_f32(dst[i].template ReinterpretCast<float>(), x, y, p, n, F == PowForm::ST, loc);
        }
    }
}
}  // namespace adv

// ---- the public forms (Power.md): tensor ^ tensor, tensor ^ scalar, scalar ^ tensor; each with
// (sharedTmpBuffer, calCount), (sharedTmpBuffer), (calCount) and () -- the last two with the API's own space.
#define TUNER_SIM_ADV_POWER(FORM, A, B, BASE, BASES, EXP, EXPS, SIZE)                                          \
    template <typename T, bool isReuseSource = false, const PowerConfig& config = defaultPowerConfig>         \
    TUNER_SIM_UNCHARGED __aicore__ inline void Power(const LocalTensor<T>& dstTensor, A, B,                   \
                                                     const LocalTensor<uint8_t>& sharedTmpBuffer,             \
                                                     uint32_t calCount,                                       \
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {           \
        adv::power<T, adv::PowForm::FORM>(dstTensor, BASE, BASES, EXP, EXPS, sharedTmpBuffer, calCount, false, \
                                          loc);                                                               \
    }                                                                                                         \
    template <typename T, bool isReuseSource = false, const PowerConfig& config = defaultPowerConfig>         \
    TUNER_SIM_UNCHARGED __aicore__ inline void Power(const LocalTensor<T>& dstTensor, A, B,                   \
                                                     const LocalTensor<uint8_t>& sharedTmpBuffer,             \
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {           \
        adv::power<T, adv::PowForm::FORM>(dstTensor, BASE, BASES, EXP, EXPS, sharedTmpBuffer, SIZE, false,     \
                                          loc);                                                               \
    }                                                                                                         \
    template <typename T, bool isReuseSource = false, const PowerConfig& config = defaultPowerConfig>         \
    TUNER_SIM_UNCHARGED __aicore__ inline void Power(const LocalTensor<T>& dstTensor, A, B, uint32_t calCount, \
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {           \
        adv::power<T, adv::PowForm::FORM>(dstTensor, BASE, BASES, EXP, EXPS, adv::own_tmp("Power"), calCount, \
                                          true, loc);                                                         \
    }                                                                                                         \
    template <typename T, bool isReuseSource = false, const PowerConfig& config = defaultPowerConfig>         \
    TUNER_SIM_UNCHARGED __aicore__ inline void Power(const LocalTensor<T>& dstTensor, A, B,                   \
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {           \
        adv::power<T, adv::PowForm::FORM>(dstTensor, BASE, BASES, EXP, EXPS, adv::own_tmp("Power"), SIZE,     \
                                          true, loc);                                                         \
    }
TUNER_SIM_ADV_POWER(TT, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor, src0Tensor, T(0),
                    src1Tensor, T(0), src0Tensor.GetSize())
TUNER_SIM_ADV_POWER(TS, const LocalTensor<T>& src0Tensor, const T& src1Scalar, src0Tensor, T(0), src0Tensor,
                    src1Scalar, src0Tensor.GetSize())
TUNER_SIM_ADV_POWER(ST, const T& src0Scalar, const LocalTensor<T>& src1Tensor, src1Tensor, src0Scalar, src1Tensor,
                    T(0), src1Tensor.GetSize())
#undef TUNER_SIM_ADV_POWER
}  // namespace AscendC

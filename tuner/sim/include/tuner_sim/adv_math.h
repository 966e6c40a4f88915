// Ascend C's advanced (高阶) math and activation APIs. Each one is expanded into the basic vector APIs of
// vec.h in the order Huawei's implementation issues them (asc-devkit impl/adv_api, A2/A3 path), on the
// caller's tensors and its temporary space, so every instruction is checked, computed with the NPU's
// arithmetic and charged by the basic API itself: an advanced call costs what its expansion costs.
// Docs: asc-devkit docs/zh/api/SIMD-API/高阶API/<group>/<API>接口/<API>.md (cited per API below).
#pragma once
#include <algorithm>
#include <vector>

#include "adv_host.h"
#include "vec.h"

namespace AscendC {

enum class TanhAlgo { INTRINSIC = 0, SUBSECTION_COMPENSATION };
struct TanhConfig {
    TanhAlgo algo = TanhAlgo::INTRINSIC;
};
constexpr TanhConfig DEFAULT_TANH_CONFIG = {};
enum class ErfAlgo { PADE_APPROXIMATION = 0, SUBSECTION_POLYNOMIAL_APPROXIMATION };
struct ErfConfig {
    ErfAlgo algo = ErfAlgo::PADE_APPROXIMATION;
};
constexpr ErfConfig defaultErfConfig = {};

namespace adv {
using tuner_sim::Loc;

// The element types each API takes on the SoC (tuner/data/api_support.yaml, the advanced-API block).
#define TUNER_SIM_ADV_REQUIRE(API, T) \
    static_assert(tuner_sim::support::API<T>, #API ": this element type is not supported on " TUNER_SIM_SOC_NAME)
template <typename T>
constexpr bool half_or_float = std::is_same_v<T, half> || std::is_same_v<T, float>;

// The temporary space of the forms without sharedTmpBuffer. asc-devkit takes it with PopStackBuffer: the UB
// left after the TPipe's InitBuffer buffers, which the developer must keep free ("需要预留临时空间").
TUNER_SIM_UNCHARGED inline LocalTensor<uint8_t> own_tmp(const char* api) {
    LocalTensor<uint8_t> t;
    PopStackBuffer<uint8_t, TPosition::VECCALC>(t, api);
    return t;
}
// The temporary space must hold the minimum GetXxxMaxMinTmpSize gives ("预留/申请的临时空间大小不能小于最小
// 临时空间大小"); below it the NPU computes garbage or overruns the buffer.
TUNER_SIM_UNCHARGED
inline void require_tmp(const char* api, const LocalTensor<uint8_t>& tmp, uint32_t min_bytes, bool own) {
    if (tmp.GetSize() >= min_bytes) return;
    if (own) {
        tuner_sim::fault(tuner_sim::FaultClass::UbOverflow,
                         "%s takes its temporary space from the UB left after InitBuffer: %u bytes left, at least "
                         "%u needed (Get%sMaxMinTmpSize); shrink the buffers or pass a sharedTmpBuffer",
                         api, tmp.GetSize(), min_bytes, api);
    }
    tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                     "%s: sharedTmpBuffer holds %u bytes, below the minimum temporary size %u bytes "
                     "(Get%sMaxMinTmpSize)",
                     api, tmp.GetSize(), min_bytes, api);
}
template <typename T>
TUNER_SIM_UNCHARGED
inline void require_count(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
    const uint32_t size = std::min(dst.GetSize(), src.GetSize());
    if (count > size) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                         "%s: calCount %u is larger than the tensors (%u elements)", api, count, size);
    }
}
// Elements per pass when the temporary space is cut into `planes` equal parts of E, each a whole number of
// 32-element groups (the ONE_BLK_SIZE rounding of asc-devkit's stackSize).
template <typename E>
TUNER_SIM_UNCHARGED inline uint32_t plane_elems(const LocalTensor<uint8_t>& tmp, uint32_t planes) {
    return tmp.GetSize() / sizeof(E) / planes / 32u * 32u;
}

// half -> float plane and back (CAST_NONE both ways, as the half paths of Tanh, Gelu and Erf do).
TUNER_SIM_UNCHARGED
inline void widen(const LocalTensor<float>& dst, const LocalTensor<half>& src, uint32_t n, Loc loc) {
    Cast(dst, src, RoundMode::CAST_NONE, n, loc);
}
TUNER_SIM_UNCHARGED
inline void narrow(const LocalTensor<half>& dst, const LocalTensor<float>& src, uint32_t n, Loc loc) {
    Cast(dst, src, RoundMode::CAST_NONE, n, loc);
}

// ---- Sigmoid (激活函数/Sigmoid接口/Sigmoid.md): y = 1 / (1 + e^-x), in T; one plane of T ----------------
template <typename T>
TUNER_SIM_UNCHARGED inline void sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                        const LocalTensor<uint8_t>& tmp, uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Sigmoid, T);
    tuner_sim::api_site("Sigmoid", loc);
    require_count("Sigmoid", dst, src, count);
    require_tmp("Sigmoid", tmp, kRepeatBytes, own);
    const uint32_t split = tmp.GetSize() / sizeof(T);
    const LocalTensor<T> ones = tmp.ReinterpretCast<T>();
    for (uint32_t i = 0; i < count; i += split) {
        const uint32_t n = std::min(split, count - i);
        const LocalTensor<T> d = dst[i];
        Muls(d, src[i], T(-1.0f), n, loc);
        Exp(d, d, n, loc);
        Adds(d, d, T(1.0f), n, loc);
        Duplicate(ones, T(1.0f), n, loc);
        Div(d, ones, d, n, loc);
    }
}
// Silu (Silu接口/Silu.md): y = x / (1 + e^-x); Swish (Swish接口/Swish.md): y = x / (1 + e^(-beta x)).
// Neither takes temporary space (GetSiluTmpSize / GetSwishTmpSize give 0): dst holds the intermediates.
template <typename T>
TUNER_SIM_UNCHARGED inline void swish(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                      uint32_t count, T negBeta, Loc loc) {
    tuner_sim::api_site(api, loc);
    require_count(api, dst, src, count);
    Muls(dst, src, negBeta, count, loc);
    Exp(dst, dst, count, loc);
    Adds(dst, dst, T(1.0f), count, loc);
    Div(dst, src, dst, count, loc);
}

// ---- Tanh (数学计算/Tanh接口/Tanh.md): y = (e^2x - 1) / (e^2x + 1), x clipped to [-8.8, 8.8] -------------
// Computed in float; half is widened into a float plane first. Temporary space: one float plane (float),
// two (half); the minimum is GetTanhMaxMinTmpSize's 256 bytes (float) or 1024 bytes (half).
TUNER_SIM_UNCHARGED inline void tanh_f32(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                         const LocalTensor<float>& clip, uint32_t n, Loc loc) {
    Mins(clip, src, 8.8f, n, loc);
    Maxs(clip, clip, -8.8f, n, loc);
    Muls(clip, clip, 2.0f, n, loc);
    Exp(clip, clip, n, loc);
    Adds(dst, clip, -1.0f, n, loc);
    Adds(clip, clip, 1.0f, n, loc);
    Div(dst, dst, clip, n, loc);
}
template <typename T>
TUNER_SIM_UNCHARGED inline void tanh(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                     const LocalTensor<uint8_t>& tmp, uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Tanh, T);
    tuner_sim::api_site("Tanh", loc);
    require_count("Tanh", dst, src, count);
    constexpr bool isHalf = sizeof(T) == 2;
    require_tmp("Tanh", tmp, kRepeatBytes * (isHalf ? 4 : 1), own);
    const uint32_t split = plane_elems<float>(tmp, isHalf ? 2 : 1);
    const LocalTensor<float> planes = tmp.ReinterpretCast<float>();
    for (uint32_t i = 0; i < count; i += split) {
        const uint32_t n = std::min(split, count - i);
        if constexpr (isHalf) {
            const LocalTensor<float> x = planes;
            widen(x, src[i], n, loc);
            tanh_f32(x, x, planes[split], n, loc);
            narrow(dst[i], x, n, loc);
        } else {
            tanh_f32(dst[i], src[i], planes, n, loc);
        }
    }
}

// ---- Gelu family (激活函数/Gelu接口/Gelu.md, FasterGelu.md, FasterGeluV2.md) ------------------------------
// In T, or for half with highPrecision in float planes (one more plane holds the widened input). The
// minimum temporary space is GetGeluMaxMinTmpSize's 3 x 256 bytes for all three.
enum class GeluKind { Gelu, Faster, FasterV2 };
// Gelu, tanh approximation: y = x * e^min(u,0) / (1 + e^-|u|), u = 1.5957691 * (x + 0.044715 x^3)
// (= x * sigmoid(u), written to avoid overflow). highPerformance: Reciprocal + Mul instead of Div.
template <typename E, bool highPerformance>
TUNER_SIM_UNCHARGED inline void gelu_pass(const LocalTensor<E>& dst, const LocalTensor<E>& x,
                                          const LocalTensor<E>& a, const LocalTensor<E>& b, uint32_t n, Loc loc) {
    Mul(a, x, x, n, loc);
    Mul(b, x, a, n, loc);
    Muls(a, b, E(0.044715f), n, loc);
    Add(b, x, a, n, loc);
    Muls(a, b, E(1.5957691216057308f), n, loc);
    Mins(b, a, E(0.0f), n, loc);
    Exp(b, b, n, loc);
    Abs(a, a, n, loc);
    Muls(a, a, E(-1.0f), n, loc);
    Exp(a, a, n, loc);
    Adds(a, a, E(1.0f), n, loc);
    if constexpr (highPerformance) {
        Reciprocal(a, a, n, loc);
        Mul(a, x, a, n, loc);
    } else {
        Div(a, x, a, n, loc);
    }
    Mul(dst, a, b, n, loc);
}
// FasterGelu: y = x / (1 + e^(-1.702 x)).
template <typename E, bool highPerformance>
TUNER_SIM_UNCHARGED inline void faster_gelu_pass(const LocalTensor<E>& dst, const LocalTensor<E>& x,
                                                 const LocalTensor<E>& a, uint32_t n, Loc loc) {
    Muls(a, x, E(-1.702f), n, loc);
    Exp(a, a, n, loc);
    Adds(a, a, E(1.0f), n, loc);
    if constexpr (highPerformance) {
        Reciprocal(a, a, n, loc);
        Mul(dst, x, a, n, loc);
    } else {
        Div(dst, x, a, n, loc);
    }
}
// FasterGeluV2: y = x * (0.5 + sgn(x) * (0.5 - 0.1444 * (min(|0.7071 x|, 1.769) - 1.769)^2)), the sign taken
// as (x + 1e-12) / |x + 1e-12| (in half the 1e-12 rounds to 0, so x = 0 gives NaN, as on the NPU).
template <typename E, bool highPerformance>
TUNER_SIM_UNCHARGED inline void faster_gelu_v2_pass(const LocalTensor<E>& dst, const LocalTensor<E>& x,
                                                    const LocalTensor<E>& a, const LocalTensor<E>& b,
                                                    const LocalTensor<E>& c, uint32_t n, Loc loc) {
    Muls(a, x, E(0.7071f), n, loc);
    Abs(a, a, n, loc);
    Mins(a, a, E(1.769f), n, loc);
    Adds(a, a, E(-1.769f), n, loc);
    Mul(a, a, a, n, loc);
    Muls(a, a, E(-0.1444f), n, loc);
    Adds(a, a, E(0.5f), n, loc);
    Adds(b, x, E(1e-12f), n, loc);
    Abs(c, b, n, loc);
    if constexpr (highPerformance) {
        Reciprocal(c, c, n, loc);
        Mul(b, b, c, n, loc);
    } else {
        Div(b, b, c, n, loc);
    }
    Mul(a, a, b, n, loc);
    Adds(a, a, E(0.5f), n, loc);
    Mul(dst, x, a, n, loc);
}
template <GeluKind K, typename E, bool highPerformance>
TUNER_SIM_UNCHARGED inline void gelu_dispatch(const LocalTensor<E>& dst, const LocalTensor<E>& x,
                                              const LocalTensor<E>& planes, uint32_t split, uint32_t n, Loc loc) {
    if constexpr (K == GeluKind::Gelu) {
        gelu_pass<E, highPerformance>(dst, x, planes, planes[split], n, loc);
    } else if constexpr (K == GeluKind::Faster) {
        faster_gelu_pass<E, highPerformance>(dst, x, planes, n, loc);
    } else {
        faster_gelu_v2_pass<E, highPerformance>(dst, x, planes, planes[split], planes[2 * split], n, loc);
    }
}
template <GeluKind K, typename T, bool highPrecision, bool highPerformance>
TUNER_SIM_UNCHARGED inline void gelu(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                     const LocalTensor<uint8_t>& tmp, uint32_t count, bool own, Loc loc) {
    if constexpr (K == GeluKind::Gelu) {
        TUNER_SIM_ADV_REQUIRE(Gelu, T);
    } else if constexpr (K == GeluKind::Faster) {
        TUNER_SIM_ADV_REQUIRE(FasterGelu, T);
    } else {
        TUNER_SIM_ADV_REQUIRE(FasterGeluV2, T);
    }
    tuner_sim::api_site(api, loc);
    require_count(api, dst, src, count);
    require_tmp(api, tmp, 3 * kRepeatBytes, own);
    constexpr uint32_t work = K == GeluKind::Gelu ? 2 : (K == GeluKind::Faster ? 1 : 3);
    constexpr bool widened = highPrecision && sizeof(T) == 2;
    using E = std::conditional_t<widened, float, T>;
    const uint32_t split = plane_elems<E>(tmp, work + (widened ? 1 : 0));
    const LocalTensor<E> planes = tmp.ReinterpretCast<E>();
    for (uint32_t i = 0; i < count; i += split) {
        const uint32_t n = std::min(split, count - i);
        if constexpr (widened) {
            const LocalTensor<float> x = planes[work * split];
            widen(x, src[i], n, loc);
            gelu_dispatch<K, float, highPerformance>(x, x, planes, split, n, loc);
            narrow(dst[i], x, n, loc);
        } else {
            gelu_dispatch<K, T, highPerformance>(dst[i], src[i], planes, split, n, loc);
        }
    }
}

// ---- Erf (数学计算/Erf接口/Erf.md): Padé approximation erf(x) ~ x P(x^2) / Q(x^2), x clipped to +-3.92 ------
// P(s) = ((((0.053443748819 s + 7.5517016694) s + 101.62808918) s + 1393.8061484) s + 5063.7915060) s
//        + 29639.384698, Q(s) = ((((s + 31.212858877) s + 398.56963806) s + 3023.1248150) s + 13243.365831) s
//        + 26267.224157. In float: three float planes (min 3 x 256 bytes); half: widened, four float planes,
// the minimum 8 x 256 bytes (GetErfMaxMinTmpSize).
TUNER_SIM_UNCHARGED inline void erf_f32(const LocalTensor<float>& dst, const LocalTensor<float>& x,
                                        const LocalTensor<float>& planes, uint32_t split, uint32_t n, Loc loc) {
    const LocalTensor<float> s = planes, p = planes[split], q = planes[2 * split];
    Mins(s, x, 3.92f, n, loc);
    Maxs(dst, s, -3.92f, n, loc);  // dst holds the clipped x from here on
    Mul(s, dst, dst, n, loc);
    Muls(p, s, 0.053443748819f, n, loc);
    const float pc[] = {0.75517016694e1f, 0.10162808918e3f, 0.13938061484e4f, 0.50637915060e4f, 0.29639384698e5f};
    for (int k = 0; k < 5; ++k) {
        Adds(q, p, pc[k], n, loc);
        Mul(p, k < 4 ? s : dst, q, n, loc);  // the last factor is x, not x^2
    }
    const float qc[] = {0.31212858877e2f, 0.39856963806e3f, 0.30231248150e4f, 0.13243365831e5f, 0.26267224157e5f};
    Adds(q, s, qc[0], n, loc);
    for (int k = 1; k < 5; ++k) {
        Mul(q, s, q, n, loc);
        Adds(q, q, qc[k], n, loc);
    }
    Div(dst, p, q, n, loc);
}
template <typename T>
TUNER_SIM_UNCHARGED inline void erf(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                    const LocalTensor<uint8_t>& tmp, uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Erf, T);
    tuner_sim::api_site("Erf", loc);
    require_count("Erf", dst, src, count);
    constexpr bool isHalf = sizeof(T) == 2;
    require_tmp("Erf", tmp, kRepeatBytes * (isHalf ? 8 : 3), own);
    const uint32_t split = plane_elems<T>(tmp, isHalf ? 8 : 3);
    const LocalTensor<float> planes = tmp.ReinterpretCast<float>();
    for (uint32_t i = 0; i < count; i += split) {
        const uint32_t n = std::min(split, count - i);
        if constexpr (isHalf) {
            const LocalTensor<float> x = planes[3 * split];
            widen(x, src[i], n, loc);
            erf_f32(x, x, planes, split, n, loc);
            narrow(dst[i], x, n, loc);
        } else {
            erf_f32(dst[i], src[i], planes, split, n, loc);
        }
    }
}

// ---- Log, Log2, Log10 (数学计算/Log接口/Log-79.md): Ln, then a Muls by 1/ln 2 or 1/ln 10 ------------------
// Log and Log10 take no temporary space; Log2 of half widens into one float plane (min 256 bytes,
// GetLogMaxMinTmpSize's Log2 form), Log2 of float needs none.
template <typename T>
TUNER_SIM_UNCHARGED inline void logx(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                     uint32_t count, float scale, Loc loc) {
    tuner_sim::api_site(api, loc);
    require_count(api, dst, src, count);
    Ln(dst, src, count, loc);
    if (scale != 1.0f) Muls(dst, dst, T(scale), count, loc);
}
constexpr float kInvLn2 = 1.4426950408889634f;
constexpr float kInvLn10 = 0.43429448190325176f;
template <typename T>
TUNER_SIM_UNCHARGED inline void log2(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                     const LocalTensor<uint8_t>& tmp, uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Log2, T);
    if constexpr (sizeof(T) == 4) {
        logx("Log2", dst, src, count, kInvLn2, loc);
    } else {
        tuner_sim::api_site("Log2", loc);
        require_count("Log2", dst, src, count);
        require_tmp("Log2", tmp, kRepeatBytes, own);
        const uint32_t split = plane_elems<float>(tmp, 1);
        const LocalTensor<float> x = tmp.ReinterpretCast<float>();
        for (uint32_t i = 0; i < count; i += split) {
            const uint32_t n = std::min(split, count - i);
            widen(x, src[i], n, loc);
            Ln(x, x, n, loc);
            Muls(x, x, kInvLn2, n, loc);
            narrow(dst[i], x, n, loc);
        }
    }
}

// ---- Exp with Taylor expansion (数学计算/Exp接口/Exp-81.md) ----------------------------------------------
// e^x = e^floor(x) * (1 + f + f^2/2! + ... + f^L/L!), f = x - floor(x), L = taylorExpandLevel (0: the basic
// Exp). In float planes: floor(x) (or src itself for float with isReuseSource), the power term, the sum
// (dst itself for float) and e^floor(x); the minimum is GetExpMaxMinTmpSize's planes x 256 bytes. floor is
// Cast to int32_t with CAST_FLOOR and back (asc-devkit also issues a float-to-float CAST_FLOOR whose result
// that overwrites; it is left out, as no float<-float Cast is in the A2 cast table).
template <typename T, bool reuse>
TUNER_SIM_UNCHARGED constexpr uint32_t exp_planes() {
    return sizeof(T) == 2 ? 4 : (reuse ? 2 : 3);
}
template <typename T, uint8_t level, bool reuse>
TUNER_SIM_UNCHARGED inline void exp_taylor(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                           const LocalTensor<uint8_t>& tmp, uint32_t count, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(ExpTaylor, T);
    tuner_sim::api_site("Exp", loc);
    require_count("Exp", dst, src, count);
    if constexpr (level == 0) {
        Exp(dst, src, int32_t(count), loc);
    } else {
        constexpr uint32_t planes = exp_planes<T, reuse>();
        constexpr bool isHalf = sizeof(T) == 2, inSrc = !isHalf && reuse;
        require_tmp("Exp", tmp, planes * kRepeatBytes, own);
        const uint32_t split = tmp.GetSize() / sizeof(float) / planes / (32 / sizeof(T)) * (32 / sizeof(T));
        const LocalTensor<float> f = tmp.ReinterpretCast<float>();
        const uint32_t powAt = inSrc ? 0 : split;
        const LocalTensor<float> pow = f[powAt], sum = f[powAt + split], ipart = f[powAt + (isHalf ? 2 : 1) * split];
        for (uint32_t i = 0; i < count; i += split) {
            const uint32_t n = std::min(split, count - i);
            LocalTensor<float> x = f;
            if constexpr (isHalf) {
                widen(x, src[i], n, loc);
            } else if constexpr (inSrc) {
                x = src[i];
            } else {
                Adds(x, src[i], 0.0f, int32_t(n), loc);
            }
            const LocalTensor<float> res = isHalf ? sum : dst[i].template ReinterpretCast<float>();
            Cast(ipart.ReinterpretCast<int32_t>(), x, RoundMode::CAST_FLOOR, n, loc);
            Cast(ipart, ipart.ReinterpretCast<int32_t>(), RoundMode::CAST_NONE, n, loc);
            Sub(x, x, ipart, int32_t(n), loc);
            Exp(ipart, ipart, int32_t(n), loc);
            Adds(pow, x, 0.0f, int32_t(n), loc);
            Adds(res, x, 0.0f, int32_t(n), loc);
            Adds(res, res, 1.0f, int32_t(n), loc);
            for (uint32_t k = 2; k <= level; ++k) {
                Mul(pow, x, pow, int32_t(n), loc);
                Muls(pow, pow, 1.0f / float(k), int32_t(n), loc);
                Add(res, res, pow, int32_t(n), loc);
            }
            Mul(res, res, ipart, int32_t(n), loc);
            if constexpr (isHalf) narrow(dst[i], res, n, loc);
        }
    }
}

// ---- GLU variants (激活函数/SwiGLU接口/SwiGLU.md, GeGLU接口/GeGLU.md): dst = src0 * act(src1) ------------------
// SwiGLU: act = Swish with beta, x / (1 + e^(-beta x)); GeGLU: act = Gelu in asc-devkit's form
// x / (1 + e^(-0.0713548162726 x (x^2 + 22.363860002236))) (the tanh approximation, written out). float runs
// in dst and needs no temporary space; half is widened into float planes: three for SwiGLU (min 6 x 256
// bytes), two for GeGLU (min 4 x 256 bytes), per GetSwiGLUMaxMinTmpSize / GetGeGLUMaxMinTmpSize.
enum class GluKind { Swi, Ge };
// d = act(b)
template <GluKind K>
TUNER_SIM_UNCHARGED inline void glu_act(const LocalTensor<float>& d, const LocalTensor<float>& b, float beta,
                                        int32_t n, Loc loc) {
    if constexpr (K == GluKind::Swi) {
        Muls(d, b, -beta, n, loc);
    } else {
        Mul(d, b, b, n, loc);
        Adds(d, d, 22.363860002236f, n, loc);
        Mul(d, d, b, n, loc);
        Muls(d, d, -0.0713548162726f, n, loc);
    }
    Exp(d, d, n, loc);
    Adds(d, d, 1.0f, n, loc);
    Div(d, b, d, n, loc);
}
template <GluKind K, typename T>
TUNER_SIM_UNCHARGED inline void glu(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                                    const LocalTensor<T>& src1, float beta, const LocalTensor<uint8_t>& tmp,
                                    uint32_t count, bool own, Loc loc) {
    if constexpr (K == GluKind::Swi) {
        TUNER_SIM_ADV_REQUIRE(SwiGLU, T);
    } else {
        TUNER_SIM_ADV_REQUIRE(GeGLU, T);
    }
    tuner_sim::api_site(api, loc);
    require_count(api, dst, src0, count);
    require_count(api, dst, src1, count);
    if constexpr (sizeof(T) == 4) {
        glu_act<K>(dst, src1, beta, int32_t(count), loc);
        Mul(dst, src0, dst, int32_t(count), loc);
    } else {
        constexpr uint32_t planes = K == GluKind::Swi ? 3 : 2;
        require_tmp(api, tmp, planes * 2 * kRepeatBytes, own);
        const uint32_t split = tmp.GetSize() / sizeof(float) / planes / 16 * 16;
        const LocalTensor<float> f = tmp.ReinterpretCast<float>();
        // src1 widened, the activation, src0 widened (over src1's plane when there are two)
        const LocalTensor<float> b = f, d = f[split], a = planes == 3 ? f[2 * split] : f;
        for (uint32_t i = 0; i < count; i += split) {
            const uint32_t n = std::min(split, count - i);
            widen(b, src1[i], n, loc);
            glu_act<K>(d, b, beta, int32_t(n), loc);
            widen(a, src0[i], n, loc);
            Mul(d, a, d, int32_t(n), loc);
            narrow(dst[i], d, n, loc);
        }
    }
}
}  // namespace adv

// ---- the public forms --------------------------------------------------------------------------------
// The four forms of a unary advanced API with temporary space: (dst, src, sharedTmpBuffer, calCount),
// (dst, src, sharedTmpBuffer) over the whole source, and the same two with the API's own space.
#define TUNER_SIM_ADV_UNARY(NAME, CALL, ...)                                                                   \
    __VA_ARGS__ TUNER_SIM_UNCHARGED __aicore__ inline void NAME(                                              \
        const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                     \
        const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,                                 \
        tuner_sim::Loc loc = tuner_sim::Loc::here()) {                                                        \
        CALL(dstTensor, srcTensor, sharedTmpBuffer, calCount, false, loc);                                    \
    }                                                                                                         \
    __VA_ARGS__ TUNER_SIM_UNCHARGED __aicore__ inline void NAME(                                              \
        const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                     \
        const LocalTensor<uint8_t>& sharedTmpBuffer, tuner_sim::Loc loc = tuner_sim::Loc::here()) {          \
        CALL(dstTensor, srcTensor, sharedTmpBuffer, srcTensor.GetSize(), false, loc);                         \
    }                                                                                                         \
    __VA_ARGS__ TUNER_SIM_UNCHARGED __aicore__ inline void NAME(                                              \
        const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t calCount,           \
        tuner_sim::Loc loc = tuner_sim::Loc::here()) {                                                        \
        CALL(dstTensor, srcTensor, adv::own_tmp(#NAME), calCount, true, loc);                                 \
    }                                                                                                         \
    __VA_ARGS__ TUNER_SIM_UNCHARGED __aicore__ inline void NAME(                                              \
        const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                     \
        tuner_sim::Loc loc = tuner_sim::Loc::here()) {                                                        \
        CALL(dstTensor, srcTensor, adv::own_tmp(#NAME), srcTensor.GetSize(), true, loc);                     \
    }

// Sigmoid: 激活函数/Sigmoid接口/Sigmoid.md
TUNER_SIM_ADV_UNARY(Sigmoid, adv::sigmoid<T>, template <typename T, bool isReuseSource = false>)
// Tanh: 数学计算/Tanh接口/Tanh.md (config.algo is a 950 option; the A2 INTRINSIC formula is used)
TUNER_SIM_ADV_UNARY(Tanh, adv::tanh<T>,
                    template <typename T, bool isReuseSource = false, const TanhConfig& config = DEFAULT_TANH_CONFIG>)
// Erf: 数学计算/Erf接口/Erf.md (config.algo is a 950 option; the Padé approximation is used)
TUNER_SIM_ADV_UNARY(Erf, adv::erf<T>,
                    template <typename T, bool isReuseSource = false, const ErfConfig& config = defaultErfConfig>)
// Log2: 数学计算/Log接口/Log-79.md
TUNER_SIM_ADV_UNARY(Log2, adv::log2<T>, template <typename T, bool isReuseSource = false>)
#undef TUNER_SIM_ADV_UNARY

// Exp with taylorExpandLevel (数学计算/Exp接口/Exp-81.md): the explicit level keeps it apart from basic Exp.
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void Exp(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                                               const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,
                                               tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::exp_taylor<T, taylorExpandLevel, isReuseSource>(dstLocal, srcLocal, sharedTmpBuffer, calCount, false, loc);
}
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void Exp(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                                               const uint32_t calCount, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::exp_taylor<T, taylorExpandLevel, isReuseSource>(dstLocal, srcLocal, adv::own_tmp("Exp"), calCount, true, loc);
}

// SwiGLU (激活函数/SwiGLU接口/SwiGLU.md): dst = src0 * Swish(src1, beta).
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void SwiGLU(LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                                                  const LocalTensor<T>& srcTensor1, const float& scalarValue,
                                                  const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,
                                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::glu<adv::GluKind::Swi>("SwiGLU", dstTensor, srcTensor0, srcTensor1, scalarValue, sharedTmpBuffer, calCount,
                                false, loc);
}
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void SwiGLU(LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                                                  const LocalTensor<T>& srcTensor1, const float& scalarValue,
                                                  const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::glu<adv::GluKind::Swi>("SwiGLU", dstTensor, srcTensor0, srcTensor1, scalarValue, sharedTmpBuffer,
                                srcTensor0.GetSize(), false, loc);
}
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void SwiGLU(LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                                                  const LocalTensor<T>& srcTensor1, const float& scalarValue,
                                                  const uint32_t calCount,
                                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::glu<adv::GluKind::Swi>("SwiGLU", dstTensor, srcTensor0, srcTensor1, scalarValue, adv::own_tmp("SwiGLU"),
                                calCount, true, loc);
}
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void SwiGLU(LocalTensor<T>& dstTensor, LocalTensor<T>& srcTensor0,
                                                  LocalTensor<T>& srcTensor1, const float& scalarValue,
                                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::glu<adv::GluKind::Swi>("SwiGLU", dstTensor, srcTensor0, srcTensor1, scalarValue, adv::own_tmp("SwiGLU"),
                                srcTensor0.GetSize(), true, loc);
}
// GeGLU (激活函数/GeGLU接口/GeGLU.md): dst = src0 * Gelu(src1).
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                                                 const LocalTensor<T>& srcTensor1,
                                                 const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount,
                                                 tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::glu<adv::GluKind::Ge>("GeGLU", dstTensor, srcTensor0, srcTensor1, 0.0f, sharedTmpBuffer, calCount, false,
                               loc);
}
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                                                 const LocalTensor<T>& srcTensor1,
                                                 const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                 tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::glu<adv::GluKind::Ge>("GeGLU", dstTensor, srcTensor0, srcTensor1, 0.0f, sharedTmpBuffer,
                               srcTensor0.GetSize(), false, loc);
}
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                                                 const LocalTensor<T>& srcTensor1, uint32_t calCount,
                                                 tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::glu<adv::GluKind::Ge>("GeGLU", dstTensor, srcTensor0, srcTensor1, 0.0f, adv::own_tmp("GeGLU"), calCount,
                               true, loc);
}
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0,
                                                 const LocalTensor<T>& srcTensor1,
                                                 tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::glu<adv::GluKind::Ge>("GeGLU", dstTensor, srcTensor0, srcTensor1, 0.0f, adv::own_tmp("GeGLU"),
                               srcTensor0.GetSize(), true, loc);
}

// Log and Log10 (数学计算/Log接口/Log-79.md): no temporary space.
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void Log(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                               uint32_t calCount, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_ADV_REQUIRE(Log, T);
    adv::logx("Log", dstTensor, srcTensor, calCount, 1.0f, loc);
}
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void Log(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                               tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_ADV_REQUIRE(Log, T);
    adv::logx("Log", dstTensor, srcTensor, srcTensor.GetSize(), 1.0f, loc);
}
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void Log10(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                                 uint32_t calCount, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_ADV_REQUIRE(Log10, T);
    adv::logx("Log10", dstTensor, srcTensor, calCount, adv::kInvLn10, loc);
}
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void Log10(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                                 tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_ADV_REQUIRE(Log10, T);
    adv::logx("Log10", dstTensor, srcTensor, srcTensor.GetSize(), adv::kInvLn10, loc);
}

// Silu (激活函数/Silu接口/Silu.md) and Swish (激活函数/Swish接口/Swish.md): no temporary space.
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void Silu(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                                                uint32_t dataSize, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_ADV_REQUIRE(Silu, T);
    adv::swish("Silu", dstLocal, srcLocal, dataSize, T(-1.0f), loc);
}
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void Swish(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                                                 uint32_t dataSize, const T scalarValue,
                                                 tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    // -beta is formed in float and rounded to T once, as asc-devkit's SwishCompute does.
    TUNER_SIM_ADV_REQUIRE(Swish, T);
    adv::swish("Swish", dstLocal, srcLocal, dataSize, T(-1.0f * float(scalarValue)), loc);
}

// Gelu, FasterGelu, FasterGeluV2 (激活函数/Gelu接口/Gelu.md, FasterGelu.md, FasterGeluV2.md): two forms each.
#define TUNER_SIM_ADV_GELU(NAME, KIND)                                                                        \
    template <typename T, bool highPrecision = false, bool highPerformance = false>                          \
    TUNER_SIM_UNCHARGED __aicore__ inline void NAME(                                                          \
        const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,                                       \
        const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t dataSize,                                 \
        tuner_sim::Loc loc = tuner_sim::Loc::here()) {                                                        \
        adv::gelu<adv::GeluKind::KIND, T, highPrecision, highPerformance>(#NAME, dstLocal, srcLocal,          \
                                                                          sharedTmpBuffer, dataSize, false, loc); \
    }                                                                                                         \
    template <typename T, bool highPrecision = false, bool highPerformance = false>                          \
    TUNER_SIM_UNCHARGED __aicore__ inline void NAME(const LocalTensor<T>& dstLocal,                           \
                                                    const LocalTensor<T>& srcLocal, const uint32_t dataSize,  \
                                                    tuner_sim::Loc loc = tuner_sim::Loc::here()) {            \
        adv::gelu<adv::GeluKind::KIND, T, highPrecision, highPerformance>(#NAME, dstLocal, srcLocal,          \
                                                                          adv::own_tmp(#NAME), dataSize, true, loc); \
    }
TUNER_SIM_ADV_GELU(Gelu, Gelu)
TUNER_SIM_ADV_GELU(FasterGelu, Faster)
TUNER_SIM_ADV_GELU(FasterGeluV2, FasterV2)
#undef TUNER_SIM_ADV_GELU

}  // namespace AscendC

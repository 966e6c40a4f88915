// Element arithmetic of the simulated Ascend vector unit. The contract is numerics.h; this file adds the
// semantics that the header leaves open (all of them deliberate, and covered by tests/sim/test_numerics.py):
//
//  * Rounding to half / bfloat16_t / float is done bit-exactly from the source value in one step (no
//    double rounding through an intermediate format) for every Round mode. NONE behaves as RINT.
//    Overflow follows IEEE: RINT/NONE/ROUND give inf; TRUNC and ODD give the largest finite value; FLOOR
//    gives +max / -inf, CEIL gives +inf / -max. NaN stays NaN: sign and top payload bits are kept and the
//    quiet bit is set.
//  * Floating -> integer (store_element, cast): rounded with the mode (ODD picks the odd neighbour when
//    inexact), then SATURATED to the destination range; NaN converts to 0.
//  * Integer -> integer casts saturate too (mode ignored). Integer -> floating casts round with the mode,
//    exactly even for 64-bit sources.
//  * Integer arithmetic wraps (two's complement). Integer Div truncates; x / 0 gives all ones (-1 signed,
//    max unsigned); MIN / -1 gives MIN.
//  * Floating Max/Min (also Maxs/Mins, AddRelu/SubRelu) follow numpy.maximum/minimum: NaN propagates,
//    Max(a, b) = (a >= b || isnan(a)) ? a : b, Min(a, b) = (a <= b || isnan(a)) ? a : b.
//  * Relu(x) = x < 0 ? 0 : x (keeps -0 and NaN); AddRelu = Relu(a + b) computed before rounding to the type.
//  * Exp/Ln/Sqrt/Rsqrt/Reciprocal on integer types are computed in double and stored with TRUNC
//    (saturating, NaN -> 0).
//  * reduce_max/reduce_min ignore NaN elements; when no element is a number (or n == 0) they return NaN
//    with index 0. Ties return the first index; -0 and +0 compare equal.
//  * cast: dst must not overlap src unless both have the same element size.
#include "numerics.h"

#include "../include/tuner_sim/fp16.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace tuner_sim {
namespace {

// ------------------------------------------------------------------------------------------------
// Raw access (memcpy keeps this free of alignment and aliasing assumptions; it compiles to plain moves).

template <class T>
inline T ld(const void* p, std::size_t i) {
    T v;
    std::memcpy(&v, static_cast<const unsigned char*>(p) + i * sizeof(T), sizeof(T));
    return v;
}

template <class T>
inline void st(void* p, std::size_t i, T v) {
    std::memcpy(static_cast<unsigned char*>(p) + i * sizeof(T), &v, sizeof(T));
}

inline uint32_t f2u(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline float u2f(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline uint64_t d2u(double d) {
    uint64_t u;
    std::memcpy(&u, &d, 8);
    return u;
}

// ------------------------------------------------------------------------------------------------
// Rounding core.

// Whether to add one unit in the last place to the truncated magnitude. `rem` is the discarded part and
// `half` the value of half a unit, both in the same (integer) scale; `odd` is the parity of the truncated
// magnitude; `neg` the sign of the value.
inline bool round_up(Round mode, bool neg, bool odd, uint64_t rem, uint64_t half) {
    switch (mode) {
        case Round::TRUNC:
            return false;
        case Round::FLOOR:
            return neg && rem != 0;
        case Round::CEIL:
            return !neg && rem != 0;
        case Round::ROUND:
            return rem >= half;
        case Round::ODD:
            return rem != 0 && !odd;
        case Round::NONE:
        case Round::RINT:
        default:
            return rem > half || (rem == half && odd);
    }
}

// Result of a magnitude beyond the largest binade: infinity (true) or the largest finite value (false).
inline bool overflow_to_inf(Round mode, bool neg) {
    switch (mode) {
        case Round::TRUNC:
        case Round::ODD:
            return false;
        case Round::FLOOR:
            return neg;
        case Round::CEIL:
            return !neg;
        default:
            return true;
    }
}

// A binary floating format: `frac` stored fraction bits, normal exponents emin..emax (bias = emax),
// sign at bit `sign_shift`.
struct Fmt {
    int frac;
    int emin;
    int emax;
    int sign_shift;
};
constexpr Fmt kF16{10, -14, 15, 15};
constexpr Fmt kBF16{7, -126, 127, 15};
constexpr Fmt kF32{23, -126, 127, 31};

// Rounds a double to format `f` under `mode`, in one step, and returns the encoding.
uint32_t round_double_bits(double v, const Fmt& f, Round mode) {
    const uint64_t u = d2u(v);
    const bool neg = (u >> 63) != 0;
    const uint32_t sign = uint32_t(neg) << f.sign_shift;
    const uint64_t au = u & 0x7fffffffffffffffULL;
    const uint32_t inf_enc = uint32_t(2 * f.emax + 1) << f.frac;
    if (au >= 0x7ff0000000000000ULL) {
        if (au == 0x7ff0000000000000ULL) return sign | inf_enc;
        const uint32_t payload = uint32_t((au & 0x000fffffffffffffULL) >> (52 - f.frac));
        return sign | inf_enc | (1u << (f.frac - 1)) | payload;
    }
    if (au == 0) return sign;
    const int be = int(au >> 52);
    uint64_t m = au & 0x000fffffffffffffULL;
    int e;  // value = m * 2^(e - 52)
    if (be != 0) {
        m |= 1ULL << 52;
        e = be - 1023;
    } else {
        e = -1022;
    }
    if (e > f.emax) return sign | (overflow_to_inf(mode, neg) ? inf_enc : inf_enc - 1);
    int shift;
    uint32_t base;
    if (e >= f.emin) {
        shift = 52 - f.frac;
        base = uint32_t(e + f.emax - 1) << f.frac;  // plus the implicit bit carried by m >> shift
    } else {
        shift = 52 - f.frac + (f.emin - e);
        base = 0;
    }
    uint64_t q, rem, half;
    if (shift > 60) {  // far below half the smallest subnormal: only "inexact, below half" matters
        q = 0;
        rem = 1;
        half = 2;
    } else {
        q = m >> shift;
        rem = m & ((1ULL << shift) - 1);
        half = 1ULL << (shift - 1);
    }
    uint32_t enc = base + uint32_t(q);
    if (round_up(mode, neg, (enc & 1) != 0, rem, half)) ++enc;  // a carry walks into the exponent / inf
    return sign | enc;
}

// Round-to-nearest-even float -> half without touching the FPU (immune to FTZ/DAZ settings).
inline uint16_t f2h_rne(float v) {
    const uint32_t u = f2u(v);
    const uint16_t sign = uint16_t((u >> 16) & 0x8000u);
    const uint32_t a = u & 0x7fffffffu;
    if (a >= 0x47800000u) {  // >= 65536, inf or NaN
        if (a > 0x7f800000u) return uint16_t(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
        return uint16_t(sign | 0x7c00u);
    }
    if (a >= 0x38800000u) {  // normal half range (>= 2^-14); a carry may produce inf
        const uint32_t r = a - 0x38000000u + 0xfffu + ((a >> 13) & 1u);
        return uint16_t(sign | (r >> 13));
    }
    const uint32_t e = a >> 23;
    if (e < 102) return sign;  // below 2^-25: rounds to zero
    const uint32_t m = (a & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;  // 14..24
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;
    return uint16_t(sign | q);
}

inline float h2f(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu;
    const uint32_t m = h & 0x3ffu;
    if (e == 0x1f) return u2f(sign | 0x7f800000u | (m << 13));
    if (e != 0) return u2f(sign | ((e + 112) << 23) | (m << 13));
    // zero or subnormal: m * 2^-24 is exact and a normal float
    return u2f(sign | f2u(float(m) * 5.9604644775390625e-8f));
}

inline uint16_t f2bf_rne(float v) {
    uint32_t u = f2u(v);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
}

inline float bf2f(uint16_t b) { return u2f(uint32_t(b) << 16); }

// Rounds an integer magnitude to `bits` significant bits under `mode`; the result is exact in double.
double round_int_to_precision(bool neg, uint64_t mag, int bits, Round mode) {
    if (mag == 0) return 0.0;
    const int len = 64 - __builtin_clzll(mag);
    double r;
    if (len <= bits) {
        r = double(mag);
    } else {
        const int shift = len - bits;
        uint64_t q = mag >> shift;
        const uint64_t rem = mag & ((1ULL << shift) - 1);
        const uint64_t half = 1ULL << (shift - 1);
        if (round_up(mode, neg, (q & 1) != 0, rem, half)) ++q;
        r = std::ldexp(double(q), shift);
    }
    return neg ? -r : r;
}

inline bool odd_integral(double f) {
    return std::fabs(f) < 9007199254740992.0 && (static_cast<int64_t>(f) & 1) != 0;
}

// Rounds a double to an integral double under `mode`.
inline double round_integral(double v, Round mode) {
    switch (mode) {
        case Round::FLOOR:
            return std::floor(v);
        case Round::CEIL:
            return std::ceil(v);
        case Round::TRUNC:
            return std::trunc(v);
        case Round::ROUND:
            return std::round(v);
        case Round::ODD: {
            double t = std::trunc(v);
            if (t != v && !odd_integral(t)) t += v > 0 ? 1.0 : -1.0;
            return t;
        }
        case Round::NONE:
        case Round::RINT:
        default: {
            double f = std::floor(v);
            const double d = v - f;  // exact; NaN for infinities (then f stays infinite)
            if (d > 0.5 || (d == 0.5 && odd_integral(f))) f += 1.0;
            return f;
        }
    }
}

// double -> integer type T: round with the mode, saturate, NaN -> 0.
template <class T>
inline T double_to_int(double v, Round mode) {
    if (v != v) return T(0);
    const double r = round_integral(v, mode);
    constexpr double lo = double(std::numeric_limits<T>::min());
    constexpr double hi_excl = 2.0 * double(T(1) << (std::numeric_limits<T>::digits - 1));
    if (r <= lo) return std::numeric_limits<T>::min();
    if (r >= hi_excl) return std::numeric_limits<T>::max();
    return static_cast<T>(r);
}

// Integer -> integer with saturation.
template <class D, class S>
inline D sat_int(S x) {
    if constexpr (std::is_signed_v<S>) {
        if (x < 0) {
            if constexpr (!std::is_signed_v<D>) {
                return D(0);
            } else {
                if (int64_t(x) < int64_t(std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
                return D(x);
            }
        }
    }
    if (uint64_t(x) > uint64_t(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    return D(x);
}

// ------------------------------------------------------------------------------------------------
// Type traits: storage type S, compute type C, load/store between them (round-to-nearest-even).

template <class T, DType D>
struct Native {
    using S = T;
    using C = T;
    static constexpr DType dt = D;
    static constexpr bool is_float = std::is_floating_point_v<T>;
    static C load(S v) { return v; }
    static S store(C v) { return v; }
};

struct HalfTr {
    using S = uint16_t;
    using C = float;
    static constexpr DType dt = DType::F16;
    static constexpr bool is_float = true;
    static float load(uint16_t b) { return h2f(b); }
    static uint16_t store(float v) { return f2h_rne(v); }
};

struct Bf16Tr {
    using S = uint16_t;
    using C = float;
    static constexpr DType dt = DType::BF16;
    static constexpr bool is_float = true;
    static float load(uint16_t b) { return bf2f(b); }
    static uint16_t store(float v) { return f2bf_rne(v); }
};

using U8Tr = Native<uint8_t, DType::U8>;
using I8Tr = Native<int8_t, DType::I8>;
using U16Tr = Native<uint16_t, DType::U16>;
using I16Tr = Native<int16_t, DType::I16>;
using U32Tr = Native<uint32_t, DType::U32>;
using I32Tr = Native<int32_t, DType::I32>;
using F32Tr = Native<float, DType::F32>;
using U64Tr = Native<uint64_t, DType::U64>;
using I64Tr = Native<int64_t, DType::I64>;
using F64Tr = Native<double, DType::F64>;

template <class Fn>
bool with_type(DType t, Fn&& fn) {
    switch (t) {
        case DType::U8: fn(U8Tr{}); return true;
        case DType::I8: fn(I8Tr{}); return true;
        case DType::U16: fn(U16Tr{}); return true;
        case DType::I16: fn(I16Tr{}); return true;
        case DType::F16: fn(HalfTr{}); return true;
        case DType::BF16: fn(Bf16Tr{}); return true;
        case DType::U32: fn(U32Tr{}); return true;
        case DType::I32: fn(I32Tr{}); return true;
        case DType::F32: fn(F32Tr{}); return true;
        case DType::U64: fn(U64Tr{}); return true;
        case DType::I64: fn(I64Tr{}); return true;
        case DType::F64: fn(F64Tr{}); return true;
    }
    return false;
}

// Raw-bits view: the unsigned integer type of the element's size.
template <class Fn>
bool with_bits(DType t, Fn&& fn) {
    switch (dtype_size(t)) {
        case 1: fn(uint8_t{}); return true;
        case 2: fn(uint16_t{}); return true;
        case 4: fn(uint32_t{}); return true;
        case 8: fn(uint64_t{}); return true;
        default: return false;
    }
}

// double -> storage of Tr, rounding with `mode`, exact in one step.
template <class Tr>
inline typename Tr::S from_double(double v, Round mode) {
    if constexpr (Tr::dt == DType::F16) {
        return uint16_t(round_double_bits(v, kF16, mode));
    } else if constexpr (Tr::dt == DType::BF16) {
        return uint16_t(round_double_bits(v, kBF16, mode));
    } else if constexpr (Tr::dt == DType::F32) {
        if (mode == Round::RINT || mode == Round::NONE) return float(v);
        return u2f(round_double_bits(v, kF32, mode));
    } else if constexpr (Tr::dt == DType::F64) {
        (void)mode;
        return v;
    } else {
        return double_to_int<typename Tr::S>(v, mode);
    }
}

template <class Tr>
constexpr int precision_bits() {
    if constexpr (Tr::dt == DType::F16) return 11;
    else if constexpr (Tr::dt == DType::BF16) return 8;
    else if constexpr (Tr::dt == DType::F32) return 24;
    else return 53;
}

// ------------------------------------------------------------------------------------------------
// Element operations on the compute type C.

template <class C>
using Wide = std::conditional_t<(sizeof(C) <= 4), uint32_t, uint64_t>;

template <class C>
inline C add_(C a, C b) {
    if constexpr (std::is_integral_v<C>) return C(Wide<C>(a) + Wide<C>(b));
    else return a + b;
}
template <class C>
inline C sub_(C a, C b) {
    if constexpr (std::is_integral_v<C>) return C(Wide<C>(a) - Wide<C>(b));
    else return a - b;
}
template <class C>
inline C mul_(C a, C b) {
    if constexpr (std::is_integral_v<C>) return C(Wide<C>(a) * Wide<C>(b));
    else return a * b;
}
template <class C>
inline C div_(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
        if (b == 0) return static_cast<C>(-1);
        if constexpr (std::is_signed_v<C>) {
            if (b == C(-1)) return C(Wide<C>(0) - Wide<C>(a));
        }
        return C(a / b);
    } else {
        return a / b;
    }
}
template <class C>
inline C max_(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
        return a > b ? a : b;
    } else {
        // == (a >= b || isnan(a)) ? a : b, written so that it compiles to maxss + a blend (no branches)
        const C r = b > a ? b : a;
        return ((b != b) & (a == a)) ? b : r;
    }
}
template <class C>
inline C min_(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
        return a < b ? a : b;
    } else {
        const C r = b < a ? b : a;
        return ((b != b) & (a == a)) ? b : r;
    }
}
template <class C>
inline C relu_(C x) {
    if constexpr (std::is_unsigned_v<C>) return x;
    else return x < C(0) ? C(0) : x;
}

struct OpAdd { template <class C> static C f(C a, C b) { return add_(a, b); } };
struct OpSub { template <class C> static C f(C a, C b) { return sub_(a, b); } };
struct OpMul { template <class C> static C f(C a, C b) { return mul_(a, b); } };
struct OpDiv { template <class C> static C f(C a, C b) { return div_(a, b); } };
struct OpMax { template <class C> static C f(C a, C b) { return max_(a, b); } };
struct OpMin { template <class C> static C f(C a, C b) { return min_(a, b); } };
struct OpAnd { template <class C> static C f(C a, C b) { return C(a & b); } };
struct OpOr { template <class C> static C f(C a, C b) { return C(a | b); } };
struct OpAddRelu { template <class C> static C f(C a, C b) { return relu_(add_(a, b)); } };
struct OpSubRelu { template <class C> static C f(C a, C b) { return relu_(sub_(a, b)); } };
struct OpLeakyRelu {
    template <class C>
    static C f(C x, C alpha) {
        if constexpr (std::is_unsigned_v<C>) {
            (void)alpha;
            return x;
        } else {
            return x >= C(0) ? x : mul_(x, alpha);
        }
    }
};

template <class Tr, class Op>
void bin_loop(void* dst, const void* a, const void* b, std::size_t n) {
    using S = typename Tr::S;
    for (std::size_t i = 0; i < n; ++i) {
        st<S>(dst, i, Tr::store(Op::f(Tr::load(ld<S>(a, i)), Tr::load(ld<S>(b, i)))));
    }
}

template <class Tr, class Op>
void scalar_loop(void* dst, const void* a, typename Tr::C s, std::size_t n) {
    using S = typename Tr::S;
    for (std::size_t i = 0; i < n; ++i) st<S>(dst, i, Tr::store(Op::f(Tr::load(ld<S>(a, i)), s)));
}

template <class Tr, class Fn>
void un_loop(void* dst, const void* src, std::size_t n, Fn fn) {
    using S = typename Tr::S;
    for (std::size_t i = 0; i < n; ++i) st<S>(dst, i, Tr::store(fn(Tr::load(ld<S>(src, i)))));
}

// Transcendental functions on integer types: in double, stored truncated and saturated.
template <class Tr, class Fn>
void un_int_math(void* dst, const void* src, std::size_t n, Fn fn) {
    using S = typename Tr::S;
    for (std::size_t i = 0; i < n; ++i) {
        st<S>(dst, i, double_to_int<S>(fn(double(ld<S>(src, i))), Round::TRUNC));
    }
}

template <class Tr>
void unary_typed(UnaryOp op, void* dst, const void* src, std::size_t n) {
    using C = typename Tr::C;
    switch (op) {
        case UnaryOp::Exp:
            if constexpr (Tr::is_float) un_loop<Tr>(dst, src, n, [](C x) { return C(std::exp(x)); });
            else un_int_math<Tr>(dst, src, n, [](double x) { return std::exp(x); });
            break;
        case UnaryOp::Ln:
            if constexpr (Tr::is_float) un_loop<Tr>(dst, src, n, [](C x) { return C(std::log(x)); });
            else un_int_math<Tr>(dst, src, n, [](double x) { return std::log(x); });
            break;
        case UnaryOp::Sqrt:
            if constexpr (Tr::is_float) un_loop<Tr>(dst, src, n, [](C x) { return C(std::sqrt(x)); });
            else un_int_math<Tr>(dst, src, n, [](double x) { return std::sqrt(x); });
            break;
        case UnaryOp::Rsqrt:
            if constexpr (Tr::is_float) un_loop<Tr>(dst, src, n, [](C x) { return C(C(1) / std::sqrt(x)); });
            else un_int_math<Tr>(dst, src, n, [](double x) { return 1.0 / std::sqrt(x); });
            break;
        case UnaryOp::Reciprocal:
            if constexpr (Tr::is_float) un_loop<Tr>(dst, src, n, [](C x) { return C(C(1) / x); });
            else un_int_math<Tr>(dst, src, n, [](double x) { return 1.0 / x; });
            break;
        case UnaryOp::Abs:
            if constexpr (Tr::is_float) {
                un_loop<Tr>(dst, src, n, [](C x) { return C(std::fabs(x)); });
            } else if constexpr (std::is_signed_v<C>) {
                un_loop<Tr>(dst, src, n, [](C x) { return x < 0 ? C(Wide<C>(0) - Wide<C>(x)) : x; });
            } else {
                un_loop<Tr>(dst, src, n, [](C x) { return x; });
            }
            break;
        case UnaryOp::Relu:
            un_loop<Tr>(dst, src, n, [](C x) { return relu_(x); });
            break;
        case UnaryOp::Not:
            break;  // handled on raw bits by the caller
    }
}

// ------------------------------------------------------------------------------------------------
// Compare / select helpers.

struct CmpLT { template <class C> static bool f(C a, C b) { return a < b; } };
struct CmpGT { template <class C> static bool f(C a, C b) { return a > b; } };
struct CmpEQ { template <class C> static bool f(C a, C b) { return a == b; } };
struct CmpLE { template <class C> static bool f(C a, C b) { return a <= b; } };
struct CmpGE { template <class C> static bool f(C a, C b) { return a >= b; } };
struct CmpNE { template <class C> static bool f(C a, C b) { return a != b; } };

template <class Tr, class Cmp, class GetB>
void cmp_loop(uint8_t* out, const void* a, GetB getb, std::size_t n) {
    using S = typename Tr::S;
    const std::size_t full = n / 8;
    for (std::size_t byte = 0; byte < full; ++byte) {
        unsigned v = 0;
        for (unsigned k = 0; k < 8; ++k) {
            const std::size_t i = byte * 8 + k;
            v |= unsigned(Cmp::f(Tr::load(ld<S>(a, i)), getb(i))) << k;
        }
        out[byte] = uint8_t(v);
    }
    const unsigned rest = unsigned(n % 8);
    if (rest != 0) {
        unsigned v = out[full] & ~((1u << rest) - 1u);
        for (unsigned k = 0; k < rest; ++k) {
            const std::size_t i = full * 8 + k;
            v |= unsigned(Cmp::f(Tr::load(ld<S>(a, i)), getb(i))) << k;
        }
        out[full] = uint8_t(v);
    }
}

template <class Tr, class GetB>
void cmp_dispatch(CmpMode mode, uint8_t* out, const void* a, GetB getb, std::size_t n) {
    switch (mode) {
        case CmpMode::LT: cmp_loop<Tr, CmpLT>(out, a, getb, n); break;
        case CmpMode::GT: cmp_loop<Tr, CmpGT>(out, a, getb, n); break;
        case CmpMode::EQ: cmp_loop<Tr, CmpEQ>(out, a, getb, n); break;
        case CmpMode::LE: cmp_loop<Tr, CmpLE>(out, a, getb, n); break;
        case CmpMode::GE: cmp_loop<Tr, CmpGE>(out, a, getb, n); break;
        case CmpMode::NE: cmp_loop<Tr, CmpNE>(out, a, getb, n); break;
    }
}

// A scalar operand (the element's value, held in a double) in the compute type.
template <class Tr>
inline typename Tr::C scalar_to_compute(double v) {
    if constexpr (Tr::is_float) return static_cast<typename Tr::C>(v);
    else return double_to_int<typename Tr::C>(v, Round::RINT);
}

// ------------------------------------------------------------------------------------------------
// Reductions.

template <class Tr>
double reduce_sum_t(const void* src, std::size_t n) {
    using S = typename Tr::S;
    using C = typename Tr::C;
    constexpr std::size_t per = 256 / sizeof(S);
    // One addition in the type's precision (half/bf16: in float, rounded back each step).
    auto add = [](C a, C b) { return Tr::load(Tr::store(add_(a, b))); };
    C buf[per];
    C acc{};
    for (std::size_t base = 0; base < n; base += per) {
        std::size_t m = std::min(per, n - base);
        for (std::size_t j = 0; j < m; ++j) buf[j] = Tr::load(ld<S>(src, base + j));
        while (m > 1) {  // adjacent pairs, then pairs of pairs; an odd last lane passes through
            const std::size_t h = m / 2;
            for (std::size_t k = 0; k < h; ++k) buf[k] = add(buf[2 * k], buf[2 * k + 1]);
            if (m & 1) {
                buf[h] = buf[m - 1];
                m = h + 1;
            } else {
                m = h;
            }
        }
        acc = base == 0 ? buf[0] : add(acc, buf[0]);
    }
    return n == 0 ? 0.0 : double(acc);
}

template <class Tr, bool IsMax>
double reduce_ext_t(const void* src, std::size_t n, std::size_t* index) {
    using S = typename Tr::S;
    using C = typename Tr::C;
    std::size_t best_i = 0;
    bool found = false;
    C best{};
    for (std::size_t i = 0; i < n; ++i) {
        const C v = Tr::load(ld<S>(src, i));
        if constexpr (Tr::is_float) {
            if (v != v) continue;
        }
        if (!found || (IsMax ? v > best : v < best)) {
            best = v;
            best_i = i;
            found = true;
        }
    }
    if (index) *index = best_i;
    if (!found) return std::numeric_limits<double>::quiet_NaN();
    return double(best);
}

// ------------------------------------------------------------------------------------------------
// Cast.

template <class Src, class Dst>
void cast_loop(Round mode, void* dst, const void* src, std::size_t n) {
    using SS = typename Src::S;
    using DS = typename Dst::S;
    if constexpr (std::is_same_v<Src, Dst>) {
        (void)mode;
        if (dst != src) std::memmove(dst, src, n * sizeof(SS));
    } else if constexpr (Src::is_float && Dst::is_float) {
        constexpr bool narrow_src = Src::dt == DType::F16 || Src::dt == DType::BF16;
        if constexpr (narrow_src && Dst::dt == DType::F32) {  // exact
            for (std::size_t i = 0; i < n; ++i) st<float>(dst, i, Src::load(ld<SS>(src, i)));
        } else if constexpr (Dst::dt == DType::F64) {  // exact
            for (std::size_t i = 0; i < n; ++i) st<double>(dst, i, double(Src::load(ld<SS>(src, i))));
        } else if constexpr (Src::dt == DType::F32 && (Dst::dt == DType::F16 || Dst::dt == DType::BF16)) {
            if (mode == Round::RINT || mode == Round::NONE) {
                for (std::size_t i = 0; i < n; ++i) st<uint16_t>(dst, i, Dst::store(ld<float>(src, i)));
            } else {
                for (std::size_t i = 0; i < n; ++i) st<DS>(dst, i, from_double<Dst>(ld<float>(src, i), mode));
            }
        } else {
            for (std::size_t i = 0; i < n; ++i)
                st<DS>(dst, i, from_double<Dst>(double(Src::load(ld<SS>(src, i))), mode));
        }
    } else if constexpr (Src::is_float) {  // -> integer
        for (std::size_t i = 0; i < n; ++i)
            st<DS>(dst, i, double_to_int<DS>(double(Src::load(ld<SS>(src, i))), mode));
    } else if constexpr (Dst::is_float) {  // integer ->
        if constexpr (sizeof(SS) == 8) {
            for (std::size_t i = 0; i < n; ++i) {
                const SS x = ld<SS>(src, i);
                bool neg = false;
                uint64_t mag = uint64_t(x);
                if constexpr (std::is_signed_v<SS>) {
                    neg = x < 0;
                    if (neg) mag = 0 - mag;
                }
                const double r = round_int_to_precision(neg, mag, precision_bits<Dst>(), mode);
                st<DS>(dst, i, from_double<Dst>(r, mode));
            }
        } else if constexpr (Dst::dt == DType::F32) {
            if (mode == Round::RINT || mode == Round::NONE) {
                for (std::size_t i = 0; i < n; ++i) st<float>(dst, i, float(ld<SS>(src, i)));
            } else {
                for (std::size_t i = 0; i < n; ++i) {
                    st<DS>(dst, i, from_double<Dst>(double(ld<SS>(src, i)), mode));
                }
            }
        } else {
            for (std::size_t i = 0; i < n; ++i) {
                st<DS>(dst, i, from_double<Dst>(double(ld<SS>(src, i)), mode));
            }
        }
    } else {  // integer -> integer
        (void)mode;
        for (std::size_t i = 0; i < n; ++i) st<DS>(dst, i, sat_int<DS>(ld<SS>(src, i)));
    }
}

}  // namespace

// ================================================================================================
// Public API.

std::size_t dtype_size(DType t) {
    switch (t) {
        case DType::U8:
        case DType::I8:
            return 1;
        case DType::U16:
        case DType::I16:
        case DType::F16:
        case DType::BF16:
            return 2;
        case DType::U32:
        case DType::I32:
        case DType::F32:
            return 4;
        case DType::U64:
        case DType::I64:
        case DType::F64:
            return 8;
    }
    return 0;
}

const char* dtype_name(DType t) {
    switch (t) {
        case DType::U8: return "uint8_t";
        case DType::I8: return "int8_t";
        case DType::U16: return "uint16_t";
        case DType::I16: return "int16_t";
        case DType::F16: return "half";
        case DType::BF16: return "bfloat16_t";
        case DType::U32: return "uint32_t";
        case DType::I32: return "int32_t";
        case DType::F32: return "float";
        case DType::U64: return "uint64_t";
        case DType::I64: return "int64_t";
        case DType::F64: return "double";
    }
    return "unknown";
}

uint16_t float_to_half_bits(float v, Round mode) {
    if (mode == Round::RINT || mode == Round::NONE) return f2h_rne(v);
    return uint16_t(round_double_bits(double(v), kF16, mode));
}

float half_bits_to_float(uint16_t bits) { return h2f(bits); }

uint16_t float_to_bf16_bits(float v, Round mode) {
    if (mode == Round::RINT || mode == Round::NONE) return f2bf_rne(v);
    return uint16_t(round_double_bits(double(v), kBF16, mode));
}

float bf16_bits_to_float(uint16_t bits) { return bf2f(bits); }

uint16_t float_to_half_bits_rne(float v) { return f2h_rne(v); }
uint16_t float_to_bf16_bits_rne(float v) { return f2bf_rne(v); }

double load_element(DType t, const void* p) {
    double r = 0.0;
    with_type(t, [&](auto tr) {
        using Tr = decltype(tr);
        r = double(Tr::load(ld<typename Tr::S>(p, 0)));
    });
    return r;
}

void store_element(DType t, void* p, double v, Round mode) {
    with_type(t, [&](auto tr) {
        using Tr = decltype(tr);
        st<typename Tr::S>(p, 0, from_double<Tr>(v, mode));
    });
}

void binary(BinaryOp op, DType t, void* dst, const void* a, const void* b, std::size_t n) {
    if (op == BinaryOp::And || op == BinaryOp::Or) {
        with_bits(t, [&](auto u) {
            using Tr = Native<decltype(u), DType::U8>;  // raw bits; the dt tag is unused here
            if (op == BinaryOp::And) bin_loop<Tr, OpAnd>(dst, a, b, n);
            else bin_loop<Tr, OpOr>(dst, a, b, n);
        });
        return;
    }
    with_type(t, [&](auto tr) {
        using Tr = decltype(tr);
        switch (op) {
            case BinaryOp::Add: bin_loop<Tr, OpAdd>(dst, a, b, n); break;
            case BinaryOp::Sub: bin_loop<Tr, OpSub>(dst, a, b, n); break;
            case BinaryOp::Mul: bin_loop<Tr, OpMul>(dst, a, b, n); break;
            case BinaryOp::Div: bin_loop<Tr, OpDiv>(dst, a, b, n); break;
            case BinaryOp::Max: bin_loop<Tr, OpMax>(dst, a, b, n); break;
            case BinaryOp::Min: bin_loop<Tr, OpMin>(dst, a, b, n); break;
            case BinaryOp::AddRelu: bin_loop<Tr, OpAddRelu>(dst, a, b, n); break;
            case BinaryOp::SubRelu: bin_loop<Tr, OpSubRelu>(dst, a, b, n); break;
            case BinaryOp::And:
            case BinaryOp::Or:
                break;
        }
    });
}

void unary(UnaryOp op, DType t, void* dst, const void* src, std::size_t n) {
    if (op == UnaryOp::Not) {
        with_bits(t, [&](auto u) {
            using U = decltype(u);
            for (std::size_t i = 0; i < n; ++i) st<U>(dst, i, U(~ld<U>(src, i)));
        });
        return;
    }
    with_type(t, [&](auto tr) { unary_typed<decltype(tr)>(op, dst, src, n); });
}

void binary_scalar(ScalarOp op, DType t, void* dst, const void* src, double scalar, std::size_t n) {
    with_type(t, [&](auto tr) {
        using Tr = decltype(tr);
        const auto s = scalar_to_compute<Tr>(scalar);
        switch (op) {
            case ScalarOp::Adds: scalar_loop<Tr, OpAdd>(dst, src, s, n); break;
            case ScalarOp::Muls: scalar_loop<Tr, OpMul>(dst, src, s, n); break;
            case ScalarOp::Maxs: scalar_loop<Tr, OpMax>(dst, src, s, n); break;
            case ScalarOp::Mins: scalar_loop<Tr, OpMin>(dst, src, s, n); break;
            case ScalarOp::LeakyRelu: scalar_loop<Tr, OpLeakyRelu>(dst, src, s, n); break;
        }
    });
}

void fill(DType t, void* dst, double value, std::size_t n) {
    unsigned char tmp[8] = {};
    store_element(t, tmp, value, Round::RINT);
    with_bits(t, [&](auto u) {
        using U = decltype(u);
        const U v = ld<U>(tmp, 0);
        for (std::size_t i = 0; i < n; ++i) st<U>(dst, i, v);
    });
}

bool cast(DType dst_t, DType src_t, Round mode, void* dst, const void* src, std::size_t n) {
    if (unsigned(mode) > unsigned(Round::ODD)) return false;
    bool ok = false;
    with_type(src_t, [&](auto s) {
        ok = with_type(dst_t, [&](auto d) { cast_loop<decltype(s), decltype(d)>(mode, dst, src, n); });
    });
    return ok;
}

namespace {
template <class U>
U shift_bits(U x, int64_t bits, bool left, bool is_signed, bool round) {
    constexpr int W = int(sizeof(U) * 8);
    const U sign = U(U(1) << (W - 1));
    if (bits < 0) bits = 0;
    if (left) {
        if (!is_signed) return bits >= W ? U(0) : U(x << bits);
        const U body = bits >= W ? U(0) : U(U(x << bits) & U(~sign));
        return U((x & sign) | body);
    }
    if (!is_signed) return bits >= W ? U(0) : U(x >> bits);
    const bool neg = (x & sign) != 0;
    U out;
    if (bits >= W) {
        out = neg ? U(~U(0)) : U(0);
    } else {
        out = U(x >> bits);
        if (neg && bits > 0) out = U(out | U(~uint64_t(0) << (W - bits)));
    }
    if (round && bits > 0 && bits <= W && ((x >> (bits - 1)) & 1)) out = U(out + 1);
    return out;
}
template <class U>
void shift_loop(void* dst, const void* src, int64_t bits, bool left, bool is_signed, bool round, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        U x;
        std::memcpy(&x, static_cast<const uint8_t*>(src) + i * sizeof(U), sizeof(U));
        const U y = shift_bits<U>(x, bits, left, is_signed, round);
        std::memcpy(static_cast<uint8_t*>(dst) + i * sizeof(U), &y, sizeof(U));
    }
}
}  // namespace

void shift(DType t, void* dst, const void* src, int64_t bits, bool left, bool round, std::size_t n) {
    const bool is_signed = t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64;
    switch (dtype_size(t)) {
        case 1: shift_loop<uint8_t>(dst, src, bits, left, is_signed, round && is_signed, n); break;
        case 2: shift_loop<uint16_t>(dst, src, bits, left, is_signed, round && is_signed, n); break;
        case 4: shift_loop<uint32_t>(dst, src, bits, left, is_signed, round && is_signed, n); break;
        default: shift_loop<uint64_t>(dst, src, bits, left, is_signed, round && is_signed, n); break;
    }
}

void axpy(DType dst_t, DType src_t, void* dst, const void* src, double scalar, std::size_t n) {
    const std::size_t ed = dtype_size(dst_t), es = dtype_size(src_t);
    const float s = float(scalar);
    for (std::size_t i = 0; i < n; ++i) {
        uint8_t* d = static_cast<uint8_t*>(dst) + i * ed;
        const float x = float(load_element(src_t, static_cast<const uint8_t*>(src) + i * es));
        const float acc = float(load_element(dst_t, d));
        store_element(dst_t, d, double(std::fma(s, x, acc)));
    }
}

double reduce_sum(DType t, const void* src, std::size_t n) {
    double r = 0.0;
    with_type(t, [&](auto tr) { r = reduce_sum_t<decltype(tr)>(src, n); });
    return r;
}

double reduce_max(DType t, const void* src, std::size_t n, std::size_t* index) {
    double r = 0.0;
    with_type(t, [&](auto tr) { r = reduce_ext_t<decltype(tr), true>(src, n, index); });
    return r;
}

double reduce_min(DType t, const void* src, std::size_t n, std::size_t* index) {
    double r = 0.0;
    with_type(t, [&](auto tr) { r = reduce_ext_t<decltype(tr), false>(src, n, index); });
    return r;
}

void compare(CmpMode mode, DType t, uint8_t* dst_bits, const void* a, const void* b, std::size_t n) {
    with_type(t, [&](auto tr) {
        using Tr = decltype(tr);
        using S = typename Tr::S;
        cmp_dispatch<Tr>(mode, dst_bits, a, [b](std::size_t i) { return Tr::load(ld<S>(b, i)); }, n);
    });
}

void compare_scalar(CmpMode mode, DType t, uint8_t* dst_bits, const void* a, double b, std::size_t n) {
    with_type(t, [&](auto tr) {
        using Tr = decltype(tr);
        const auto s = scalar_to_compute<Tr>(b);
        cmp_dispatch<Tr>(mode, dst_bits, a, [s](std::size_t) { return s; }, n);
    });
}

void select(DType t, void* dst, const uint8_t* mask_bits, const void* a, const void* b, double b_value,
            std::size_t n) {
    unsigned char tmp[8] = {};
    if (b == nullptr) store_element(t, tmp, b_value, Round::RINT);
    with_bits(t, [&](auto u) {
        using U = decltype(u);
        if (b != nullptr) {
            for (std::size_t i = 0; i < n; ++i) {
                const bool bit = ((mask_bits[i >> 3] >> (i & 7)) & 1) != 0;
                st<U>(dst, i, bit ? ld<U>(a, i) : ld<U>(b, i));
            }
        } else {
            const U bv = ld<U>(tmp, 0);
            for (std::size_t i = 0; i < n; ++i) {
                const bool bit = ((mask_bits[i >> 3] >> (i & 7)) & 1) != 0;
                st<U>(dst, i, bit ? ld<U>(a, i) : bv);
            }
        }
    });
}

}  // namespace tuner_sim

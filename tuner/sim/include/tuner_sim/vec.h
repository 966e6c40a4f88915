// Vector APIs on the V pipe: binary, scalar, unary, fill, cast, compare/select, reductions, mask control.
// Each entry checks the element type against the SoC's support table at compile time, then hands one
// descriptor to the runtime, which resolves masks/repeats/strides, checks, models and computes.
#pragma once
#include "int4.h"
#include "tensor.h"

namespace AscendC {
namespace detail {

template <typename T>
TUNER_SIM_UNCHARGED inline tuner_sim::VecOperand operand(const LocalTensor<T>& t, uint32_t blk = 1, uint32_t rep = 8) {
    return {t.tuner_off(), t.tuner_buf_end(), blk, rep, tuner_sim::elem_v<T>};
}
// What the APIs leave in the mask register, as the asc-devkit implementations do: a count-form API
// runs SetMaskCount / SetVectorMask(0, count) / op / SetMaskNorm / ResetMask, so afterwards the register is
// in normal mode with every lane set; a mask-form API with isSetMask = true writes its mask into the
// register (AscendCUtils::SetMask) and leaves it there for later isSetMask = false calls.
TUNER_SIM_UNCHARGED inline void mask_register_after_count_form() {
    tuner_sim::MaskState& m = tuner_sim::mask_state();
    m.counter = false;
    m.hi = m.lo = ~0ull;
}
TUNER_SIM_UNCHARGED inline void mask_register_set_lanes(uint64_t lanes) {
    tuner_sim::MaskState& m = tuner_sim::mask_state();
    const uint64_t n = lanes > 128 ? 128 : lanes;
    m.lo = n >= 64 ? ~0ull : ((1ull << n) - 1);
    m.hi = n > 64 ? (n >= 128 ? ~0ull : ((1ull << (n - 64)) - 1)) : 0;
}
TUNER_SIM_UNCHARGED inline void set_count(tuner_sim::VecDesc& d, int64_t count) {
    d.count_form = true;
    d.count = count < 0 ? 0 : uint64_t(count);
    mask_register_after_count_form();
}
// The lanes of a mask-form call: a bit mask (mask[0] low lanes, mask[1] high lanes of 16-bit types) or
// the first `lo` lanes.
struct Lanes {
    bool bits;
    uint64_t lo, hi;
};
template <typename T>
TUNER_SIM_UNCHARGED inline Lanes lanes(const uint64_t mask[]) {
    return {true, mask[0], sizeof(T) == 2 ? mask[1] : 0};
}
TUNER_SIM_UNCHARGED inline Lanes lanes(uint64_t mask) { return {false, mask, 0}; }
TUNER_SIM_UNCHARGED inline void set_mask(tuner_sim::VecDesc& d, Lanes m, uint32_t repeat, bool isSetMask) {
    d.mask_bits = m.bits;
    d.mask_lo = m.lo;
    d.mask_hi = m.hi;
    d.repeat = repeat;
    d.use_mask_register = !isSetMask;
    if (!isSetMask) return;
    if (m.bits) {
        tuner_sim::mask_state().lo = m.lo;
        tuner_sim::mask_state().hi = m.hi;
    } else {
        mask_register_set_lanes(m.lo);
    }
}
TUNER_SIM_UNCHARGED
inline tuner_sim::VecDesc desc(const char* api, tuner_sim::VecKind kind, uint8_t op, tuner_sim::InstrClass cls) {
    tuner_sim::VecDesc d{};
    d.api = api;
    d.kind = kind;
    d.op = op;
    d.cls = cls;
    return d;
}

}  // namespace detail

#define TUNER_SIM_REQUIRE(API, T) \
    static_assert(tuner_sim::support::API<T>, #API ": this element type is not supported on " TUNER_SIM_SOC_NAME)

namespace detail {
template <typename T>
struct identity {
    using type = T;
};
// A source operand that may be absent (nullptr); not used to deduce T.
template <typename T>
using Source = const typename identity<LocalTensor<T>>::type*;

// One mask/repeat-form instruction with a destination and up to two sources (Binary, Scalar, Unary).
template <typename T, typename P>
TUNER_SIM_UNCHARGED
inline void repeat_form(const char* api, tuner_sim::VecKind kind, uint8_t op, tuner_sim::InstrClass cls,
                        const LocalTensor<T>& dst, Source<T> src0, Source<T> src1, double scalar, Lanes m,
                        uint8_t repeat, const P& p, bool isSetMask) {
    auto d = desc(api, kind, op, cls);
    d.dst = operand(dst, p.dstBlkStride, p.dstRepStride);
    if constexpr (std::is_same_v<P, BinaryRepeatParams>) {
        d.src0 = operand(*src0, p.src0BlkStride, p.src0RepStride);
        d.src1 = operand(*src1, p.src1BlkStride, p.src1RepStride);
    } else {
        d.src0 = operand(*src0, p.srcBlkStride, p.srcRepStride);
    }
    d.scalar = scalar;
    set_mask(d, m, repeat, isSetMask);
    tuner_sim::vec_exec(d);
}
// The count form: the first `count` elements, contiguous.
template <typename T>
TUNER_SIM_UNCHARGED
inline void count_form(const char* api, tuner_sim::VecKind kind, uint8_t op, tuner_sim::InstrClass cls,
                       const LocalTensor<T>& dst, Source<T> src0, Source<T> src1, double scalar, int64_t count) {
    auto d = desc(api, kind, op, cls);
    d.dst = operand(dst);
    if (src0) d.src0 = operand(*src0);
    if (src1) d.src1 = operand(*src1);
    d.scalar = scalar;
    set_count(d, count);
    tuner_sim::vec_exec(d);
}
}  // namespace detail

// ---- binary: dst = src0 op src1 -------------------------------------------------------------------
#define TUNER_SIM_BINARY(NAME, OP, CLS)                                                                      \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                      \
                                const LocalTensor<T>& src1, uint64_t mask[], const uint8_t repeatTime,      \
                                const BinaryRepeatParams& p, tuner_sim::Loc loc = tuner_sim::Loc::here()) { \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::repeat_form(#NAME, tuner_sim::VecKind::Binary, OP, tuner_sim::InstrClass::CLS, dst, &src0,  \
                            &src1, 0.0, detail::lanes<T>(mask), repeatTime, p, isSetMask);                  \
    }                                                                                                       \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                      \
                                const LocalTensor<T>& src1, uint64_t mask, const uint8_t repeatTime,        \
                                const BinaryRepeatParams& p, tuner_sim::Loc loc = tuner_sim::Loc::here()) { \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::repeat_form(#NAME, tuner_sim::VecKind::Binary, OP, tuner_sim::InstrClass::CLS, dst, &src0,  \
                            &src1, 0.0, detail::lanes(mask), repeatTime, p, isSetMask);                     \
    }                                                                                                       \
    template <typename T>                                                                                   \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                      \
                                const LocalTensor<T>& src1, const int32_t& count,                           \
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {                              \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::count_form(#NAME, tuner_sim::VecKind::Binary, OP, tuner_sim::InstrClass::CLS, dst, &src0,   \
                           &src1, 0.0, count);                                                              \
    }

TUNER_SIM_BINARY(Add, 0, Binary)
TUNER_SIM_BINARY(Sub, 1, Binary)
TUNER_SIM_BINARY(Mul, 2, Binary)
TUNER_SIM_BINARY(Div, 3, Div)
TUNER_SIM_BINARY(Max, 4, Binary)
TUNER_SIM_BINARY(Min, 5, Binary)
TUNER_SIM_BINARY(And, 6, Binary)
TUNER_SIM_BINARY(Or, 7, Binary)
TUNER_SIM_BINARY(AddRelu, 8, Binary)
TUNER_SIM_BINARY(SubRelu, 9, Binary)
#undef TUNER_SIM_BINARY

// ---- tensor-scalar: dst = src op scalar ------------------------------------------------------------
#define TUNER_SIM_SCALAR(NAME, OP)                                                                            \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, \
                                uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& p,     \
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {                              \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::repeat_form(#NAME, tuner_sim::VecKind::Scalar, OP, tuner_sim::InstrClass::UnarySimple, dst, \
                            &src, nullptr, tuner_sim::scalar_as_double(scalarValue), detail::lanes<T>(mask), \
                            repeatTime, p, isSetMask);                                                      \
    }                                                                                                       \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, \
                                uint64_t mask, const uint8_t repeatTime, const UnaryRepeatParams& p,       \
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {                              \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::repeat_form(#NAME, tuner_sim::VecKind::Scalar, OP, tuner_sim::InstrClass::UnarySimple, dst, \
                            &src, nullptr, tuner_sim::scalar_as_double(scalarValue), detail::lanes(mask),   \
                            repeatTime, p, isSetMask);                                                      \
    }                                                                                                       \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, \
                                const int32_t& count, tuner_sim::Loc loc = tuner_sim::Loc::here()) {        \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::count_form(#NAME, tuner_sim::VecKind::Scalar, OP, tuner_sim::InstrClass::UnarySimple, dst,  \
                           &src, nullptr, tuner_sim::scalar_as_double(scalarValue), count);                 \
    }

TUNER_SIM_SCALAR(Adds, 0)
TUNER_SIM_SCALAR(Muls, 1)
TUNER_SIM_SCALAR(Maxs, 2)
TUNER_SIM_SCALAR(Mins, 3)
TUNER_SIM_SCALAR(LeakyRelu, 4)
#undef TUNER_SIM_SCALAR

// ---- unary: dst = f(src) --------------------------------------------------------------------------
#define TUNER_SIM_UNARY(NAME, OP, CLS)                                                                       \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask[],      \
                                const uint8_t repeatTime, const UnaryRepeatParams& p,                      \
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {                              \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::repeat_form(#NAME, tuner_sim::VecKind::Unary, OP, tuner_sim::InstrClass::CLS, dst, &src,    \
                            nullptr, 0.0, detail::lanes<T>(mask), repeatTime, p, isSetMask);               \
    }                                                                                                       \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,        \
                                const uint8_t repeatTime, const UnaryRepeatParams& p,                      \
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {                              \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::repeat_form(#NAME, tuner_sim::VecKind::Unary, OP, tuner_sim::InstrClass::CLS, dst, &src,    \
                            nullptr, 0.0, detail::lanes(mask), repeatTime, p, isSetMask);                  \
    }                                                                                                       \
    template <typename T>                                                                                   \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count, \
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {                              \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::count_form(#NAME, tuner_sim::VecKind::Unary, OP, tuner_sim::InstrClass::CLS, dst, &src,     \
                           nullptr, 0.0, count);                                                            \
    }

TUNER_SIM_UNARY(Exp, 0, ExpLnSqrt)
TUNER_SIM_UNARY(Ln, 1, ExpLnSqrt)
TUNER_SIM_UNARY(Abs, 2, UnarySimple)
TUNER_SIM_UNARY(Sqrt, 3, ExpLnSqrt)
TUNER_SIM_UNARY(Rsqrt, 4, UnarySimple)
TUNER_SIM_UNARY(Reciprocal, 5, UnarySimple)
TUNER_SIM_UNARY(Relu, 6, UnarySimple)
TUNER_SIM_UNARY(Not, 7, UnarySimple)
#undef TUNER_SIM_UNARY

// ---- Duplicate ------------------------------------------------------------------------------------
namespace detail {
template <typename T>
TUNER_SIM_UNCHARGED
inline void duplicate(const LocalTensor<T>& dst, const T& value, Lanes m, uint8_t repeat, uint16_t blk, uint8_t rep,
                      bool isSetMask) {
    auto d = desc("Duplicate", tuner_sim::VecKind::Fill, 0, tuner_sim::InstrClass::UnarySimple);
    d.dst = operand(dst, blk, rep);
    d.scalar = tuner_sim::scalar_as_double(value);
    set_mask(d, m, repeat, isSetMask);
    tuner_sim::vec_exec(d);
}
}  // namespace detail
template <typename T, bool isSetMask = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask,
                                 const uint8_t repeatTime, const uint16_t dstBlockStride,
                                 const uint8_t dstRepeatStride, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Duplicate, T);
    tuner_sim::api_begin("Duplicate", loc);
    detail::duplicate(dst, scalarValue, detail::lanes(mask), repeatTime, dstBlockStride, dstRepeatStride, isSetMask);
}
template <typename T, bool isSetMask = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask[],
                                 const uint8_t repeatTime, const uint16_t dstBlockStride,
                                 const uint8_t dstRepeatStride, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Duplicate, T);
    tuner_sim::api_begin("Duplicate", loc);
    detail::duplicate(dst, scalarValue, detail::lanes<T>(mask), repeatTime, dstBlockStride, dstRepeatStride,
                      isSetMask);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count,
                                 tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Duplicate, T);
    tuner_sim::api_begin("Duplicate", loc);
    detail::count_form("Duplicate", tuner_sim::VecKind::Fill, 0, tuner_sim::InstrClass::UnarySimple, dst, nullptr,
                       nullptr, tuner_sim::scalar_as_double(scalarValue), count);
}

// ---- Brcb: 8 source elements per repeat, each broadcast to one 32-byte block -----------------------
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime,
                            const BrcbRepeatParams& p, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Brcb, T);
    tuner_sim::api_begin("Brcb", loc);
    tuner_sim::brcb_exec(detail::operand(dst, p.dstBlkStride, p.dstRepStride), detail::operand(src), repeatTime);
}

// ---- Cast -----------------------------------------------------------------------------------------
namespace detail {
// int4b_t <-> half (int4.h): only these pairs, as the support table's CastToInt4 / CastFromInt4 allow on the SoC.
template <typename T, typename U>
constexpr bool int4_cast = std::is_same_v<T, int4b_t> || std::is_same_v<U, int4b_t>;
template <typename T, typename U>
TUNER_SIM_UNCHARGED inline void check_int4_pair() {
    static_assert((std::is_same_v<T, int4b_t> && std::is_same_v<U, half>) ||
                      (std::is_same_v<T, half> && std::is_same_v<U, int4b_t>),
                  "Cast: int4b_t converts to and from half only on this SoC family");
    if constexpr (std::is_same_v<T, int4b_t>) {
        static_assert(tuner_sim::support::CastToInt4<U>, "Cast: half -> int4b_t is not supported on " TUNER_SIM_SOC_NAME);
    } else {
        static_assert(tuner_sim::support::CastFromInt4<T>,
                      "Cast: int4b_t -> half is not supported on " TUNER_SIM_SOC_NAME);
    }
}
}  // namespace detail

#define TUNER_SIM_CAST_PREAMBLE()                                                                            \
    static_assert(detail::int4_cast<T, U> || tuner_sim::support::Cast<T, U>,                                 \
                  "Cast: this (dst, src) element type pair is not supported on " TUNER_SIM_SOC_NAME);        \
    if constexpr (detail::int4_cast<T, U>) detail::check_int4_pair<T, U>();                                  \
    tuner_sim::api_begin("Cast", loc);                                                                       \
    auto d = detail::desc("Cast", tuner_sim::VecKind::Cast, 0, tuner_sim::InstrClass::UnarySimple);         \
    d.round = uint8_t(roundMode)
#define TUNER_SIM_CAST_EXEC()                                                                                \
    if constexpr (detail::int4_cast<T, U>) tuner_sim::cast_int4_exec(d, std::is_same_v<T, int4b_t>);        \
    else tuner_sim::vec_exec(d)

template <typename T, typename U, bool isSetMask = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                            const uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& p,
                            tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_CAST_PREAMBLE();
    d.dst = detail::operand(dst, p.dstBlkStride, p.dstRepStride);
    d.src0 = detail::operand(src, p.srcBlkStride, p.srcRepStride);
    using Wide = std::conditional_t<detail::int4_cast<T, U>, half, std::conditional_t<(sizeof(T) > sizeof(U)), T, U>>;
    detail::set_mask(d, detail::lanes<Wide>(mask), repeatTime, isSetMask);
    TUNER_SIM_CAST_EXEC();
}
template <typename T, typename U, bool isSetMask = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                            const uint64_t mask, const uint8_t repeatTime, const UnaryRepeatParams& p,
                            tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_CAST_PREAMBLE();
    d.dst = detail::operand(dst, p.dstBlkStride, p.dstRepStride);
    d.src0 = detail::operand(src, p.srcBlkStride, p.srcRepStride);
    detail::set_mask(d, detail::lanes(mask), repeatTime, isSetMask);
    TUNER_SIM_CAST_EXEC();
}
template <typename T, typename U>
TUNER_SIM_UNCHARGED
__aicore__ inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                            const uint32_t count, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_CAST_PREAMBLE();
    d.dst = detail::operand(dst);
    d.src0 = detail::operand(src);
    detail::set_count(d, count);
    TUNER_SIM_CAST_EXEC();
}
#undef TUNER_SIM_CAST_PREAMBLE
#undef TUNER_SIM_CAST_EXEC

// ---- Compare / Select -----------------------------------------------------------------------------
namespace detail {
// int32_t operands are compared for equality only (asc-devkit Compare.md: int32_t supports EQ).
template <typename T>
TUNER_SIM_UNCHARGED inline void check_cmp_mode(const char* api, CMPMODE mode) {
    if constexpr (std::is_same_v<T, int32_t>) {
        if (mode != CMPMODE::EQ) {
            tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                             "%s on int32_t supports CMPMODE::EQ only, got mode %d, on %s", api, int(mode),
                             TUNER_SIM_SOC_NAME);
        }
    }
}
}  // namespace detail
template <typename T, typename U>
TUNER_SIM_UNCHARGED
__aicore__ inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                               CMPMODE cmpMode, uint32_t count, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Compare, T);
    tuner_sim::api_begin("Compare", loc);
    detail::check_cmp_mode<T>("Compare", cmpMode);
    auto d = detail::desc("Compare", tuner_sim::VecKind::Compare, uint8_t(cmpMode), tuner_sim::InstrClass::Binary);
    d.dst = detail::operand(dst);
    d.src0 = detail::operand(src0);
    d.src1 = detail::operand(src1);
    detail::set_count(d, count);
    tuner_sim::vec_exec(d);
}
namespace detail {
template <typename T, typename U>
TUNER_SIM_UNCHARGED
inline void compare_repeat(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                           CMPMODE cmpMode, Lanes m, uint8_t repeat, const BinaryRepeatParams& p, bool isSetMask) {
    check_cmp_mode<T>("Compare", cmpMode);
    auto d = desc("Compare", tuner_sim::VecKind::Compare, uint8_t(cmpMode), tuner_sim::InstrClass::Binary);
    d.dst = operand(dst);
    d.src0 = operand(src0, p.src0BlkStride, p.src0RepStride);
    d.src1 = operand(src1, p.src1BlkStride, p.src1RepStride);
    set_mask(d, m, repeat, isSetMask);
    tuner_sim::vec_exec(d);
}
}  // namespace detail
template <typename T, typename U, bool isSetMask = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                               CMPMODE cmpMode, const uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams& p,
                               tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Compare, T);
    tuner_sim::api_begin("Compare", loc);
    detail::compare_repeat(dst, src0, src1, cmpMode, detail::lanes(mask), repeatTime, p, isSetMask);
}
template <typename T, typename U, bool isSetMask = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                               CMPMODE cmpMode, const uint64_t mask[], uint8_t repeatTime,
                               const BinaryRepeatParams& p, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Compare, T);
    tuner_sim::api_begin("Compare", loc);
    detail::compare_repeat(dst, src0, src1, cmpMode, detail::lanes<T>(mask), repeatTime, p, isSetMask);
}
// The register form (比较与选择/Compare（结果存入寄存器）.md): one 256-byte repeat of half or float into the 128-bit
// CmpMask register, read back with GetCmpMask or set with SetCmpMask (GetCmpMask(ISASI).md, SetCmpMask(ISASI).md).
namespace detail {
template <typename T>
TUNER_SIM_UNCHARGED
inline void compare_register(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, Lanes m,
                             const BinaryRepeatParams& p, bool isSetMask) {
    auto d = desc("Compare", tuner_sim::VecKind::Compare, uint8_t(cmpMode), tuner_sim::InstrClass::Binary);
    d.src0 = operand(src0, p.src0BlkStride, p.src0RepStride);
    d.src1 = operand(src1, p.src1BlkStride, p.src1RepStride);
    d.dst = d.src0;
    set_mask(d, m, 1, isSetMask);
    tuner_sim::cmp_mask_compare(d);
}
}  // namespace detail
template <typename T, bool isSetMask = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                               const uint64_t mask[], const BinaryRepeatParams& repeatParams,
                               tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Compare, T);
    static_assert(tuner_sim::is_one_of<T, half, float>, "Compare (result in CmpMask): takes half or float");
    tuner_sim::api_begin("Compare", loc);
    detail::compare_register(src0, src1, cmpMode, detail::lanes<T>(mask), repeatParams, isSetMask);
}
template <typename T, bool isSetMask = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                               const uint64_t mask, const BinaryRepeatParams& repeatParams,
                               tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Compare, T);
    static_assert(tuner_sim::is_one_of<T, half, float>, "Compare (result in CmpMask): takes half or float");
    tuner_sim::api_begin("Compare", loc);
    detail::compare_register(src0, src1, cmpMode, detail::lanes(mask), repeatParams, isSetMask);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void GetCmpMask(const LocalTensor<T>& dst, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(GetCmpMask, T);
    tuner_sim::api_begin("GetCmpMask", loc);
    tuner_sim::cmp_mask_get("GetCmpMask", detail::operand(dst));
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void SetCmpMask(const LocalTensor<T>& src, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(SetCmpMask, T);
    tuner_sim::api_begin("SetCmpMask", loc);
    tuner_sim::cmp_mask_set("SetCmpMask", detail::operand(src));
}
template <typename T, typename U>
TUNER_SIM_UNCHARGED
__aicore__ inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar,
                                CMPMODE cmpMode, uint32_t count, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Compare, T);
    tuner_sim::api_begin("Compares", loc);
    detail::check_cmp_mode<T>("Compares", cmpMode);
    auto d = detail::desc("Compares", tuner_sim::VecKind::CompareScalar, uint8_t(cmpMode),
                          tuner_sim::InstrClass::UnarySimple);
    d.dst = detail::operand(dst);
    d.src0 = detail::operand(src0);
    d.scalar = tuner_sim::scalar_as_double(src1Scalar);
    detail::set_count(d, count);
    tuner_sim::vec_exec(d);
}
template <typename T, typename U>
TUNER_SIM_UNCHARGED
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                              const LocalTensor<T>& src1, SELMODE selMode, uint32_t count,
                              tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Select, T);
    tuner_sim::api_begin("Select", loc);
    auto d = detail::desc("Select", tuner_sim::VecKind::Select, uint8_t(selMode), tuner_sim::InstrClass::Binary);
    d.dst = detail::operand(dst);
    d.src0 = detail::operand(src0);
    d.src1 = detail::operand(src1);
    d.sel = detail::operand(selMask);
    detail::set_count(d, count);
    tuner_sim::vec_exec(d);
}
template <typename T, typename U>
TUNER_SIM_UNCHARGED
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                              T src1, SELMODE selMode, uint32_t count, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Select, T);
    tuner_sim::api_begin("Select", loc);
    auto d = detail::desc("Select", tuner_sim::VecKind::SelectScalar, uint8_t(selMode),
                          tuner_sim::InstrClass::Binary);
    d.dst = detail::operand(dst);
    d.src0 = detail::operand(src0);
    d.scalar = tuner_sim::scalar_as_double(src1);
    d.sel = detail::operand(selMask);
    detail::set_count(d, count);
    tuner_sim::vec_exec(d);
}

// ---- reductions -----------------------------------------------------------------------------------
namespace detail {
template <typename T>
TUNER_SIM_UNCHARGED
inline tuner_sim::ReduceDesc reduce_desc(const char* api, tuner_sim::ReduceKind kind, tuner_sim::ReduceForm form,
                                         const LocalTensor<T>& dst, const LocalTensor<T>& src) {
    tuner_sim::ReduceDesc d{};
    d.api = api;
    d.kind = kind;
    d.form = form;
    d.type = tuner_sim::elem_v<T>;
    d.dst = operand(dst);
    d.src = operand(src);
    return d;
}
// ReduceSum/Max/Min mask forms: the masked lanes of every repeat reduce to dst[0] (and the index).
template <typename T>
TUNER_SIM_UNCHARGED
inline void reduce_repeats(const char* api, tuner_sim::ReduceKind kind, const LocalTensor<T>& dst,
                           const LocalTensor<T>& src, const LocalTensor<T>& tmp, Lanes m, int32_t repeat,
                           int32_t srcRepStride, bool calIndex) {
    auto d = reduce_desc(api, kind, tuner_sim::ReduceForm::Repeats, dst, src);
    d.src.rep_stride = uint32_t(srcRepStride);
    d.tmp = operand(tmp);
    d.has_tmp = true;
    d.mask_bits = m.bits;
    d.mask_lo = m.lo;
    d.mask_hi = m.hi;
    d.repeat = uint32_t(repeat);
    d.cal_index = calIndex;
    tuner_sim::reduce_exec(d);
}
// WholeReduce* (one result per repeat) and BlockReduce* (one per 32-byte block). With isSetMask == false
// they take their lanes from the mask register (SetVectorMask / SetMaskCount); with isSetMask == true they
// leave their own mask there.
template <typename T>
TUNER_SIM_UNCHARGED
inline void reduce_strided(const char* api, tuner_sim::ReduceKind kind, tuner_sim::ReduceForm form,
                           const LocalTensor<T>& dst, const LocalTensor<T>& src, Lanes m, int32_t repeat,
                           int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, uint8_t order,
                           bool isSetMask) {
    auto d = reduce_desc(api, kind, form, dst, src);
    d.src.blk_stride = uint32_t(srcBlkStride);
    d.src.rep_stride = uint32_t(srcRepStride);
    d.mask_bits = m.bits;
    d.mask_lo = m.lo;
    d.mask_hi = m.hi;
    d.repeat = uint32_t(repeat);
    d.dst_rep_stride = uint32_t(dstRepStride);
    d.order = order;
    if (!isSetMask) {
        d.use_mask_register = true;
    } else if (m.bits) {
        tuner_sim::mask_state().lo = m.lo;
        tuner_sim::mask_state().hi = m.hi;
    } else {
        mask_register_set_lanes(m.lo);
    }
    tuner_sim::reduce_exec(d);
}
}  // namespace detail

#define TUNER_SIM_REDUCE_ALL(NAME, KIND, INDEX_PARAM, INDEX_ARG)                                            \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                       \
                                const LocalTensor<T>& sharedTmpBuffer, const int32_t count INDEX_PARAM,     \
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {                              \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        auto d = detail::reduce_desc(#NAME, tuner_sim::ReduceKind::KIND, tuner_sim::ReduceForm::Count, dst, \
                                     src);                                                                  \
        d.tmp = detail::operand(sharedTmpBuffer);                                                           \
        d.has_tmp = true;                                                                                   \
        d.count = count < 0 ? 0 : uint64_t(count);                                                          \
        d.cal_index = INDEX_ARG;                                                                            \
        tuner_sim::reduce_exec(d);                                                                          \
    }                                                                                                       \
    template <typename T>                                                                                   \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                       \
                                const LocalTensor<T>& sharedTmpBuffer, const int32_t mask,                  \
                                const int32_t repeatTime, const int32_t srcRepStride INDEX_PARAM,           \
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {                              \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::reduce_repeats(#NAME, tuner_sim::ReduceKind::KIND, dst, src, sharedTmpBuffer,               \
                               detail::lanes(uint64_t(mask)), repeatTime, srcRepStride, INDEX_ARG);         \
    }                                                                                                       \
    template <typename T>                                                                                   \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                       \
                                const LocalTensor<T>& sharedTmpBuffer, const uint64_t mask[],               \
                                const int32_t repeatTime, const int32_t srcRepStride INDEX_PARAM,           \
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {                              \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::reduce_repeats(#NAME, tuner_sim::ReduceKind::KIND, dst, src, sharedTmpBuffer,               \
                               detail::lanes<T>(mask), repeatTime, srcRepStride, INDEX_ARG);                \
    }

#define TUNER_SIM_COMMA ,
TUNER_SIM_REDUCE_ALL(ReduceSum, Sum, , false)
TUNER_SIM_REDUCE_ALL(ReduceMax, Max, TUNER_SIM_COMMA bool calIndex = 0, calIndex)
TUNER_SIM_REDUCE_ALL(ReduceMin, Min, TUNER_SIM_COMMA bool calIndex = 0, calIndex)
#undef TUNER_SIM_REDUCE_ALL

#define TUNER_SIM_WHOLE_REDUCE(NAME, KIND, ORDER_PARAM, ORDER_ARG)                                          \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,   \
                                const int32_t repeatTime, const int32_t dstRepStride,                       \
                                const int32_t srcBlkStride, const int32_t srcRepStride ORDER_PARAM,         \
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {                              \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::reduce_strided(#NAME, tuner_sim::ReduceKind::KIND, tuner_sim::ReduceForm::PerRepeat, dst,   \
                               src, detail::lanes(uint64_t(mask)), repeatTime, dstRepStride, srcBlkStride,  \
                               srcRepStride, ORDER_ARG, isSetMask);                                         \
    }                                                                                                       \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],\
                                const int32_t repeatTime, const int32_t dstRepStride,                       \
                                const int32_t srcBlkStride, const int32_t srcRepStride ORDER_PARAM,         \
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {                              \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::reduce_strided(#NAME, tuner_sim::ReduceKind::KIND, tuner_sim::ReduceForm::PerRepeat, dst,   \
                               src, detail::lanes<T>(mask), repeatTime, dstRepStride, srcBlkStride,         \
                               srcRepStride, ORDER_ARG, isSetMask);                                         \
    }

TUNER_SIM_WHOLE_REDUCE(WholeReduceSum, Sum, , uint8_t(ReduceOrder::ORDER_ONLY_VALUE))
TUNER_SIM_WHOLE_REDUCE(WholeReduceMax, Max, TUNER_SIM_COMMA ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                       uint8_t(order))
TUNER_SIM_WHOLE_REDUCE(WholeReduceMin, Min, TUNER_SIM_COMMA ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                       uint8_t(order))
#undef TUNER_SIM_WHOLE_REDUCE

#define TUNER_SIM_BLOCK_REDUCE(NAME, KIND)                                                                   \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                       \
                                const int32_t repeatTime, const int32_t mask, const int32_t dstRepStride,   \
                                const int32_t srcBlkStride, const int32_t srcRepStride,                     \
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {                              \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::reduce_strided(#NAME, tuner_sim::ReduceKind::KIND, tuner_sim::ReduceForm::PerBlock, dst,    \
                               src, detail::lanes(uint64_t(mask)), repeatTime, dstRepStride, srcBlkStride,  \
                               srcRepStride, 0, isSetMask);                                                 \
    }                                                                                                       \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                       \
                                const int32_t repeatTime, const uint64_t mask[], const int32_t dstRepStride,\
                                const int32_t srcBlkStride, const int32_t srcRepStride,                     \
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {                              \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::reduce_strided(#NAME, tuner_sim::ReduceKind::KIND, tuner_sim::ReduceForm::PerBlock, dst,    \
                               src, detail::lanes<T>(mask), repeatTime, dstRepStride, srcBlkStride,         \
                               srcRepStride, 0, isSetMask);                                                 \
    }

TUNER_SIM_BLOCK_REDUCE(BlockReduceSum, Sum)
TUNER_SIM_BLOCK_REDUCE(BlockReduceMax, Max)
TUNER_SIM_BLOCK_REDUCE(BlockReduceMin, Min)
#undef TUNER_SIM_BLOCK_REDUCE

// ---- the templated reduce family (asc-devkit 归约计算/ReduceRepeat.md, ReduceDataBlock.md, ReducePairElem.md) and
// the older names PairReduceSum / RepeatReduceSum (CANN 8 API pages). On A2/A3 dst and src share one type.
enum class ReduceType { NONE = -1, SUM = 0, MAX, MIN };
namespace detail {
template <ReduceType R>
constexpr tuner_sim::ReduceKind reduce_kind() {
    static_assert(R != ReduceType::NONE, "ReduceType::NONE is not a reduction");
    return R == ReduceType::SUM ? tuner_sim::ReduceKind::Sum
                                : (R == ReduceType::MAX ? tuner_sim::ReduceKind::Max : tuner_sim::ReduceKind::Min);
}
// PairReduceSum / ReducePairElem: the mask handling of reduce_strided, then the pair reduction.
template <typename T>
TUNER_SIM_UNCHARGED
inline void pair_reduce(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, Lanes m,
                        int32_t repeat, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride,
                        bool isSetMask) {
    auto d = reduce_desc(api, tuner_sim::ReduceKind::Sum, tuner_sim::ReduceForm::PerRepeat, dst, src);
    d.src.blk_stride = uint32_t(srcBlkStride);
    d.src.rep_stride = uint32_t(srcRepStride);
    d.mask_bits = m.bits;
    d.mask_lo = m.lo;
    d.mask_hi = m.hi;
    d.repeat = uint32_t(repeat < 0 ? 0 : repeat);
    d.dst_rep_stride = uint32_t(dstRepStride);
    if (!isSetMask) {
        d.use_mask_register = true;
    } else if (m.bits) {
        tuner_sim::mask_state().lo = m.lo;
        tuner_sim::mask_state().hi = m.hi;
    } else {
        mask_register_set_lanes(m.lo);
    }
    tuner_sim::pair_reduce_exec(d);
}
}  // namespace detail

#define TUNER_SIM_TEMPLATED_REDUCE(MASK_T, LANES)                                                           \
    template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>                         \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, MASK_T mask,  \
                                        const int32_t repeatTime, const int32_t dstRepStride,               \
                                        const int32_t srcBlkStride, const int32_t srcRepStride,             \
                                        ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,                 \
                                        tuner_sim::Loc loc = tuner_sim::Loc::here()) {                      \
        static_assert(std::is_same_v<T, U>, "ReduceRepeat: dst and src must have one element type on "      \
                                            TUNER_SIM_SOC_NAME);                                            \
        TUNER_SIM_REQUIRE(ReduceRepeat, T);                                                                 \
        tuner_sim::api_begin("ReduceRepeat", loc);                                                          \
        detail::reduce_strided("ReduceRepeat", detail::reduce_kind<reduceType>(),                           \
                               tuner_sim::ReduceForm::PerRepeat, dst, src, LANES, repeatTime, dstRepStride, \
                               srcBlkStride, srcRepStride,                                                  \
                               reduceType == ReduceType::SUM ? uint8_t(ReduceOrder::ORDER_ONLY_VALUE)       \
                                                             : uint8_t(order),                              \
                               isSetMask);                                                                  \
    }                                                                                                       \
    template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>                         \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<U>& src, MASK_T mask, \
                                           const int32_t repeatTime, const int32_t dstRepStride,            \
                                           const int32_t srcBlkStride, const int32_t srcRepStride,          \
                                           tuner_sim::Loc loc = tuner_sim::Loc::here()) {                   \
        static_assert(std::is_same_v<T, U>, "ReduceDataBlock: dst and src must have one element type on "   \
                                            TUNER_SIM_SOC_NAME);                                            \
        TUNER_SIM_REQUIRE(ReduceDataBlock, T);                                                              \
        tuner_sim::api_begin("ReduceDataBlock", loc);                                                       \
        detail::reduce_strided("ReduceDataBlock", detail::reduce_kind<reduceType>(),                        \
                               tuner_sim::ReduceForm::PerBlock, dst, src, LANES, repeatTime, dstRepStride,  \
                               srcBlkStride, srcRepStride, 0, isSetMask);                                   \
    }                                                                                                       \
    template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>                         \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void ReducePairElem(const LocalTensor<T>& dst, const LocalTensor<U>& src, MASK_T mask, \
                                          const int32_t repeatTime, const int32_t dstRepStride,             \
                                          const int32_t srcBlkStride, const int32_t srcRepStride,           \
                                          tuner_sim::Loc loc = tuner_sim::Loc::here()) {                    \
        static_assert(reduceType == ReduceType::SUM, "ReducePairElem supports ReduceType::SUM only");       \
        static_assert(std::is_same_v<T, U>, "ReducePairElem: dst and src must have one element type");     \
        TUNER_SIM_REQUIRE(ReducePairElem, T);                                                               \
        tuner_sim::api_begin("ReducePairElem", loc);                                                        \
        detail::pair_reduce("ReducePairElem", dst, src, LANES, repeatTime, dstRepStride, srcBlkStride,      \
                            srcRepStride, isSetMask);                                                       \
    }
TUNER_SIM_TEMPLATED_REDUCE(const int32_t, detail::lanes(uint64_t(mask)))
TUNER_SIM_TEMPLATED_REDUCE(const uint64_t*, detail::lanes<T>(mask))
#undef TUNER_SIM_TEMPLATED_REDUCE

#define TUNER_SIM_PAIR_REDUCE(MASK_T, LANES)                                                                 \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,              \
                                         const int32_t repeatTime, MASK_T mask, const int32_t dstRepStride, \
                                         const int32_t srcBlkStride, const int32_t srcRepStride,            \
                                         tuner_sim::Loc loc = tuner_sim::Loc::here()) {                     \
        TUNER_SIM_REQUIRE(PairReduceSum, T);                                                                \
        tuner_sim::api_begin("PairReduceSum", loc);                                                         \
        detail::pair_reduce("PairReduceSum", dst, src, LANES, repeatTime, dstRepStride, srcBlkStride,       \
                            srcRepStride, isSetMask);                                                       \
    }
TUNER_SIM_PAIR_REDUCE(const int32_t, detail::lanes(uint64_t(mask)))
TUNER_SIM_PAIR_REDUCE(const uint64_t*, detail::lanes<T>(mask))
#undef TUNER_SIM_PAIR_REDUCE

// RepeatReduceSum: one sum per repeat, continuous mask only; dstBlkStride has no effect; dstRepStride counts
// dst elements.
template <typename T, bool isSetMask = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                                       const int32_t mask, const int32_t dstBlkStride, const int32_t srcBlkStride,
                                       const int32_t dstRepStride, const int32_t srcRepStride,
                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(RepeatReduceSum, T);
    tuner_sim::api_begin("RepeatReduceSum", loc);
    detail::reduce_strided("RepeatReduceSum", tuner_sim::ReduceKind::Sum, tuner_sim::ReduceForm::PerRepeat, dst, src,
                           detail::lanes(uint64_t(mask)), repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                           uint8_t(ReduceOrder::ORDER_ONLY_VALUE), isSetMask);
}

// The reduce special registers (asc-devkit 归约计算辅助配置接口): the sum left by ReduceSum's count form, and the
// extreme (and its index, as the element type's bits) left by ReduceRepeat<MAX|MIN> / ReduceMax / ReduceMin.
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline T GetReduceRepeatSumSpr(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(GetReduceRepeatSumSpr, T);
    tuner_sim::api_begin("GetReduceRepeatSumSpr", loc);
    return static_cast<T>(static_cast<float>(tuner_sim::reduce_sum_spr()));
}
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline T GetAccVal(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    return GetReduceRepeatSumSpr<T>(loc);
}
namespace detail {
template <typename T>
TUNER_SIM_UNCHARGED inline void index_bits_as(T& out, uint64_t index) {
    if constexpr (sizeof(T) == 2) {
        const uint16_t v = uint16_t(index);
        std::memcpy(&out, &v, 2);
    } else {
        const uint32_t v = uint32_t(index);
        std::memcpy(&out, &v, 4);
    }
}
}  // namespace detail
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void GetReduceRepeatMaxMinSpr(T& maxMinValue, T& maxMinIndex,
                                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(GetReduceRepeatMaxMinSpr, T);
    tuner_sim::api_begin("GetReduceRepeatMaxMinSpr", loc);
    uint64_t index = 0;
    maxMinValue = static_cast<T>(static_cast<float>(tuner_sim::reduce_maxmin_spr(&index)));
    detail::index_bits_as(maxMinIndex, index);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void GetReduceMaxMinCount(T& maxMinValue, T& maxMinIndex,
                                            tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    GetReduceRepeatMaxMinSpr<T>(maxMinValue, maxMinIndex, loc);
}

// ---- ShiftLeft / ShiftRight (asc-devkit 逻辑计算/ShiftLeft.md, ShiftRight.md) and Axpy (复合计算/Axpy.md) ---------
namespace detail {
// Costs: ShiftLeft/ShiftRight run at the simple-op rate (msKPP Shl/Shr ~255 B/cycle, research/ascend_hw.md §2.3):
// UnarySimple; Axpy reads two UB operands (src and dst) like a binary op: the Binary class.
inline tuner_sim::InstrClass ext_class(tuner_sim::VecExtOp op) {
    return op == tuner_sim::VecExtOp::Axpy ? tuner_sim::InstrClass::Binary : tuner_sim::InstrClass::UnarySimple;
}
template <typename T, typename U>
TUNER_SIM_UNCHARGED
inline void ext_repeat(const char* api, tuner_sim::VecExtOp op, const LocalTensor<T>& dst, const LocalTensor<U>& src,
                       double scalar, Lanes m, uint8_t repeat, const UnaryRepeatParams& p, bool isSetMask) {
    auto d = desc(api, tuner_sim::VecKind::Scalar, 0, ext_class(op));
    d.dst = operand(dst, p.dstBlkStride, p.dstRepStride);
    d.src0 = operand(src, p.srcBlkStride, p.srcRepStride);
    d.scalar = scalar;
    set_mask(d, m, repeat, isSetMask);
    tuner_sim::vec_ext_exec(d, op);
}
template <typename T, typename U>
TUNER_SIM_UNCHARGED
inline void ext_count(const char* api, tuner_sim::VecExtOp op, const LocalTensor<T>& dst, const LocalTensor<U>& src,
                      double scalar, int64_t count) {
    auto d = desc(api, tuner_sim::VecKind::Scalar, 0, ext_class(op));
    d.dst = operand(dst);
    d.src0 = operand(src);
    d.scalar = scalar;
    set_count(d, count);
    tuner_sim::vec_ext_exec(d, op);
}
// The shift count, checked against the A2/A3 range [0, bit width] (ShiftLeft.md "scalarValue取值说明").
template <typename T>
TUNER_SIM_UNCHARGED inline double shift_bits(const char* api, const T& v) {
    const int64_t bits = int64_t(v);
    if (bits < 0 || bits > int64_t(sizeof(T) * 8)) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported, "%s: shift count %lld is outside [0, %d] on %s", api,
                         (long long)bits, int(sizeof(T) * 8), TUNER_SIM_SOC_NAME);
    }
    return double(bits);
}
}  // namespace detail

#define TUNER_SIM_SHIFT(NAME, OP, ROUND_PARAM, ROUND_OP)                                                      \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, \
                                uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& p       \
                                ROUND_PARAM, tuner_sim::Loc loc = tuner_sim::Loc::here()) {                 \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::ext_repeat(#NAME, ROUND_OP, dst, src, detail::shift_bits(#NAME, scalarValue),               \
                           detail::lanes<T>(mask), repeatTime, p, isSetMask);                               \
    }                                                                                                       \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, \
                                uint64_t mask, const uint8_t repeatTime, const UnaryRepeatParams& p         \
                                ROUND_PARAM, tuner_sim::Loc loc = tuner_sim::Loc::here()) {                 \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::ext_repeat(#NAME, ROUND_OP, dst, src, detail::shift_bits(#NAME, scalarValue),               \
                           detail::lanes(mask), repeatTime, p, isSetMask);                                  \
    }                                                                                                       \
    template <typename T, bool isSetMask = true>                                                            \
    TUNER_SIM_UNCHARGED                                                                                     \
    __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, \
                                const int32_t& count, tuner_sim::Loc loc = tuner_sim::Loc::here()) {        \
        TUNER_SIM_REQUIRE(NAME, T);                                                                         \
        tuner_sim::api_begin(#NAME, loc);                                                                   \
        detail::ext_count(#NAME, OP, dst, src, detail::shift_bits(#NAME, scalarValue), count);              \
    }
#define TUNER_SIM_COMMA2 ,
TUNER_SIM_SHIFT(ShiftLeft, tuner_sim::VecExtOp::ShiftLeft, , tuner_sim::VecExtOp::ShiftLeft)
TUNER_SIM_SHIFT(ShiftRight, tuner_sim::VecExtOp::ShiftRight, TUNER_SIM_COMMA2 bool roundEn = false,
                roundEn ? tuner_sim::VecExtOp::ShiftRightRound : tuner_sim::VecExtOp::ShiftRight)
#undef TUNER_SIM_COMMA2
#undef TUNER_SIM_SHIFT

// Axpy: dst = scalarValue * src + dst; (dst, src) is (half, half), (float, float) or (float, half), the last at
// 64 elements a repeat.
#define TUNER_SIM_AXPY_CHECK()                                                                              \
    TUNER_SIM_REQUIRE(Axpy, U);                                                                             \
    static_assert(std::is_same_v<T, U> || (std::is_same_v<T, float> && std::is_same_v<U, half>),          \
                  "Axpy: (dst, src) must be (half, half), (float, float) or (float, half)")
template <typename T, typename U>
TUNER_SIM_UNCHARGED
__aicore__ inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue,
                            const int32_t& count, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_AXPY_CHECK();
    tuner_sim::api_begin("Axpy", loc);
    detail::ext_count("Axpy", tuner_sim::VecExtOp::Axpy, dst, src, tuner_sim::scalar_as_double(scalarValue), count);
}
template <typename T, typename U, bool isSetMask = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue,
                            uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& p,
                            tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_AXPY_CHECK();
    tuner_sim::api_begin("Axpy", loc);
    detail::ext_repeat("Axpy", tuner_sim::VecExtOp::Axpy, dst, src, tuner_sim::scalar_as_double(scalarValue),
                       detail::lanes<std::conditional_t<(sizeof(T) > sizeof(U)), T, U>>(mask), repeatTime, p,
                       isSetMask);
}
template <typename T, typename U, bool isSetMask = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, uint64_t mask,
                            const uint8_t repeatTime, const UnaryRepeatParams& p,
                            tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_AXPY_CHECK();
    tuner_sim::api_begin("Axpy", loc);
    detail::ext_repeat("Axpy", tuner_sim::VecExtOp::Axpy, dst, src, tuner_sim::scalar_as_double(scalarValue),
                       detail::lanes(mask), repeatTime, p, isSetMask);
}
#undef TUNER_SIM_AXPY_CHECK

// ---- CreateVecIndex (asc-devkit 数据填充/CreateVecIndex.md): dst[i] = firstValue + i. In the mask form, lane i of
// repeat r holds firstValue + r * lanes + i (the page's examples use one repeat; the continuation is our choice).
namespace detail {
template <typename T>
TUNER_SIM_UNCHARGED inline void vec_index_repeat(LocalTensor<T>& dst, const T& first, Lanes m, uint8_t repeat,
                                                 uint16_t blk, uint8_t rep) {
    auto d = desc("CreateVecIndex", tuner_sim::VecKind::Fill, 0, tuner_sim::InstrClass::UnarySimple);
    d.dst = operand(dst, blk, rep);
    d.scalar = tuner_sim::scalar_as_double(first);
    set_mask(d, m, repeat, true);
    tuner_sim::vec_ext_exec(d, tuner_sim::VecExtOp::VecIndex);
}
}  // namespace detail
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void CreateVecIndex(LocalTensor<T> dst, const T& firstValue, uint32_t count,
                                      tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(CreateVecIndex, T);
    tuner_sim::api_begin("CreateVecIndex", loc);
    auto d = detail::desc("CreateVecIndex", tuner_sim::VecKind::Fill, 0, tuner_sim::InstrClass::UnarySimple);
    d.dst = detail::operand(dst);
    d.scalar = tuner_sim::scalar_as_double(firstValue);
    detail::set_count(d, int64_t(count));
    tuner_sim::vec_ext_exec(d, tuner_sim::VecExtOp::VecIndex);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void CreateVecIndex(LocalTensor<T>& dst, const T& firstValue, uint64_t mask[], uint8_t repeatTime,
                                      uint16_t dstBlkStride, uint8_t dstRepStride,
                                      tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(CreateVecIndex, T);
    tuner_sim::api_begin("CreateVecIndex", loc);
    detail::vec_index_repeat(dst, firstValue, detail::lanes<T>(mask), repeatTime, dstBlkStride, dstRepStride);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void CreateVecIndex(LocalTensor<T>& dst, const T& firstValue, uint64_t mask, uint8_t repeatTime,
                                      uint16_t dstBlkStride, uint8_t dstRepStride,
                                      tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(CreateVecIndex, T);
    tuner_sim::api_begin("CreateVecIndex", loc);
    detail::vec_index_repeat(dst, firstValue, detail::lanes(mask), repeatTime, dstBlkStride, dstRepStride);
}

#undef TUNER_SIM_COMMA
#undef TUNER_SIM_REQUIRE

// ---- mask control (scalar pipe; hardware orders it against V) --------------------------------------
template <typename T, MaskMode mode = MaskMode::NORMAL>
TUNER_SIM_UNCHARGED __aicore__ inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
    auto& m = tuner_sim::mask_state();
    m.hi = maskHigh;
    m.lo = maskLow;
}
template <typename T, MaskMode mode = MaskMode::NORMAL>
TUNER_SIM_UNCHARGED __aicore__ inline void SetVectorMask(int32_t len) {
    auto& m = tuner_sim::mask_state();
    if (m.counter) {
        m.hi = 0;
        m.lo = uint64_t(len);
        return;
    }
    const uint32_t lanes = 256 / sizeof(T);
    const uint32_t n = len < 0 ? 0 : (uint32_t(len) > lanes ? lanes : uint32_t(len));
    m.lo = n >= 64 ? ~0ull : ((1ull << n) - 1);
    m.hi = n > 64 ? (n >= 128 ? ~0ull : ((1ull << (n - 64)) - 1)) : 0;
}
TUNER_SIM_UNCHARGED __aicore__ inline void ResetMask() {
    auto& m = tuner_sim::mask_state();
    m.hi = m.lo = ~0ull;
}
TUNER_SIM_UNCHARGED __aicore__ inline void SetMaskCount() { tuner_sim::mask_state().counter = true; }
TUNER_SIM_UNCHARGED __aicore__ inline void SetMaskNorm() { tuner_sim::mask_state().counter = false; }

}  // namespace AscendC

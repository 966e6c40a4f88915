// Kernel-visible 16-bit floating types of the simulator: ::half (IEEE binary16) and ::bfloat16_t (the top
// 16 bits of a binary32), in the global namespace as CANN declares them.
//
// Each type holds its 16 bits only (sizeof == 2, trivially copyable, standard layout); a default-constructed
// value is +0 (so the default constructor is not trivial: memcpy into arrays is fine, while memset on a
// half* draws -Wclass-memaccess; value-initialise or std::fill instead).
// Conversions from any arithmetic type are implicit (`half h = 1.0;`, `half h = 0;`, `half(3)`) and round
// to nearest even through float (a double or a 64-bit integer is first rounded to float).
// Conversion to float is implicit and exact; conversions to other arithmetic types are explicit
// (`(int)h`, `static_cast<double>(h)`, `if (h)`).
//
// Arithmetic rules (chosen so that mixed expressions never hit an ambiguous overload):
//   * h op h (same type)        -> that type, computed in float and rounded to nearest even;
//   * h op x, x op h, x arithmetic -> the type of `float op x` (float for float/integers, double for
//     double), computed as float(h) op x, i.e. the 16-bit operand behaves as a float; assign the result to
//     a half to round it back (`half b = a * 2;`);
//   * half op bfloat16_t        -> float (both operands converted to float);
//   * comparisons compare the float values (NaN unordered, -0 == +0);
//   * compound assignment (h += x) computes in float (or double for a double x) and rounds back.
// half <-> bfloat16_t conversions are explicit: `half(b)`, `bfloat16_t(h)`.
// Unlike the other headers, nothing here is TUNER_SIM_UNCHARGED (uncharged.h): these are the kernel's own
// values, so a half read out of UB or GM by a kernel's code is that code's scalar access.
#pragma once

#include <cstdint>
#include <type_traits>

namespace tuner_sim {
// Defined in the simulator runtime (runtime/numerics.cpp).
uint16_t float_to_half_bits_rne(float v);
float half_bits_to_float(uint16_t bits);
uint16_t float_to_bf16_bits_rne(float v);
float bf16_bits_to_float(uint16_t bits);
}  // namespace tuner_sim

struct half;
struct bfloat16_t;

namespace tuner_sim {
namespace fp16_detail {
template <class T>
struct is_fp16 : std::false_type {};
template <>
struct is_fp16<::half> : std::true_type {};
template <>
struct is_fp16<::bfloat16_t> : std::true_type {};

// Result types of the operators below; only formed for (16-bit type H, arithmetic T), so that checking a
// candidate never needs overload resolution of the same operator (which would recurse).
template <class H, class T, bool = is_fp16<H>::value && std::is_arithmetic_v<T>>
struct mixed_arith {};
template <class H, class T>
struct mixed_arith<H, T, true> {
    using type = std::common_type_t<float, T>;  // the type of `float op T`
};
template <class H, class T, bool = is_fp16<H>::value && std::is_arithmetic_v<T>>
struct mixed_cmp {};
template <class H, class T>
struct mixed_cmp<H, T, true> {
    using type = bool;
};
template <class H, class R>
using same_t = std::enable_if_t<is_fp16<H>::value, R>;
}  // namespace fp16_detail
}  // namespace tuner_sim

struct half {
    constexpr half() noexcept : bits_(0) {}
    template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
    half(T v) noexcept : bits_(tuner_sim::float_to_half_bits_rne(static_cast<float>(v))) {}
    explicit half(const bfloat16_t& v) noexcept;

    operator float() const noexcept { return tuner_sim::half_bits_to_float(bits_); }
    template <class T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, float>, int> = 0>
    explicit operator T() const noexcept {
        return static_cast<T>(tuner_sim::half_bits_to_float(bits_));
    }

    static constexpr half from_bits(uint16_t b) noexcept {
        half h;
        h.bits_ = b;
        return h;
    }
    constexpr uint16_t bits() const noexcept { return bits_; }

    half& operator+=(half o) noexcept { return *this = half(float(*this) + float(o)); }
    half& operator-=(half o) noexcept { return *this = half(float(*this) - float(o)); }
    half& operator*=(half o) noexcept { return *this = half(float(*this) * float(o)); }
    half& operator/=(half o) noexcept { return *this = half(float(*this) / float(o)); }
    template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
    half& operator+=(T o) noexcept {
        using R = std::common_type_t<float, T>;
        return *this = half(static_cast<R>(float(*this)) + static_cast<R>(o));
    }
    template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
    half& operator-=(T o) noexcept {
        using R = std::common_type_t<float, T>;
        return *this = half(static_cast<R>(float(*this)) - static_cast<R>(o));
    }
    template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
    half& operator*=(T o) noexcept {
        using R = std::common_type_t<float, T>;
        return *this = half(static_cast<R>(float(*this)) * static_cast<R>(o));
    }
    template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
    half& operator/=(T o) noexcept {
        using R = std::common_type_t<float, T>;
        return *this = half(static_cast<R>(float(*this)) / static_cast<R>(o));
    }
    half& operator++() noexcept { return *this += 1.0f; }
    half& operator--() noexcept { return *this -= 1.0f; }
    half operator++(int) noexcept {
        half old = *this;
        *this += 1.0f;
        return old;
    }
    half operator--(int) noexcept {
        half old = *this;
        *this -= 1.0f;
        return old;
    }

private:
    uint16_t bits_;
};

struct bfloat16_t {
    constexpr bfloat16_t() noexcept : bits_(0) {}
    template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
    bfloat16_t(T v) noexcept : bits_(tuner_sim::float_to_bf16_bits_rne(static_cast<float>(v))) {}
    explicit bfloat16_t(const half& v) noexcept : bits_(tuner_sim::float_to_bf16_bits_rne(float(v))) {}

    operator float() const noexcept { return tuner_sim::bf16_bits_to_float(bits_); }
    template <class T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, float>, int> = 0>
    explicit operator T() const noexcept {
        return static_cast<T>(tuner_sim::bf16_bits_to_float(bits_));
    }

    static constexpr bfloat16_t from_bits(uint16_t b) noexcept {
        bfloat16_t h;
        h.bits_ = b;
        return h;
    }
    constexpr uint16_t bits() const noexcept { return bits_; }

    bfloat16_t& operator+=(bfloat16_t o) noexcept { return *this = bfloat16_t(float(*this) + float(o)); }
    bfloat16_t& operator-=(bfloat16_t o) noexcept { return *this = bfloat16_t(float(*this) - float(o)); }
    bfloat16_t& operator*=(bfloat16_t o) noexcept { return *this = bfloat16_t(float(*this) * float(o)); }
    bfloat16_t& operator/=(bfloat16_t o) noexcept { return *this = bfloat16_t(float(*this) / float(o)); }
    template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
    bfloat16_t& operator+=(T o) noexcept {
        using R = std::common_type_t<float, T>;
        return *this = bfloat16_t(static_cast<R>(float(*this)) + static_cast<R>(o));
    }
    template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
    bfloat16_t& operator-=(T o) noexcept {
        using R = std::common_type_t<float, T>;
        return *this = bfloat16_t(static_cast<R>(float(*this)) - static_cast<R>(o));
    }
    template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
    bfloat16_t& operator*=(T o) noexcept {
        using R = std::common_type_t<float, T>;
        return *this = bfloat16_t(static_cast<R>(float(*this)) * static_cast<R>(o));
    }
    template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
    bfloat16_t& operator/=(T o) noexcept {
        using R = std::common_type_t<float, T>;
        return *this = bfloat16_t(static_cast<R>(float(*this)) / static_cast<R>(o));
    }
    bfloat16_t& operator++() noexcept { return *this += 1.0f; }
    bfloat16_t& operator--() noexcept { return *this -= 1.0f; }
    bfloat16_t operator++(int) noexcept {
        bfloat16_t old = *this;
        *this += 1.0f;
        return old;
    }
    bfloat16_t operator--(int) noexcept {
        bfloat16_t old = *this;
        *this -= 1.0f;
        return old;
    }

private:
    uint16_t bits_;
};

inline half::half(const bfloat16_t& v) noexcept : bits_(tuner_sim::float_to_half_bits_rne(float(v))) {}

// ---- same-type arithmetic: computed in float, rounded to nearest even
template <class H>
inline tuner_sim::fp16_detail::same_t<H, H> operator+(H a, H b) noexcept { return H(float(a) + float(b)); }
template <class H>
inline tuner_sim::fp16_detail::same_t<H, H> operator-(H a, H b) noexcept { return H(float(a) - float(b)); }
template <class H>
inline tuner_sim::fp16_detail::same_t<H, H> operator*(H a, H b) noexcept { return H(float(a) * float(b)); }
template <class H>
inline tuner_sim::fp16_detail::same_t<H, H> operator/(H a, H b) noexcept { return H(float(a) / float(b)); }
template <class H>
inline tuner_sim::fp16_detail::same_t<H, H> operator-(H a) noexcept {
    return H::from_bits(uint16_t(a.bits() ^ 0x8000u));
}
template <class H>
inline tuner_sim::fp16_detail::same_t<H, H> operator+(H a) noexcept { return a; }

template <class H>
inline tuner_sim::fp16_detail::same_t<H, bool> operator==(H a, H b) noexcept { return float(a) == float(b); }
template <class H>
inline tuner_sim::fp16_detail::same_t<H, bool> operator!=(H a, H b) noexcept { return float(a) != float(b); }
template <class H>
inline tuner_sim::fp16_detail::same_t<H, bool> operator<(H a, H b) noexcept { return float(a) < float(b); }
template <class H>
inline tuner_sim::fp16_detail::same_t<H, bool> operator<=(H a, H b) noexcept { return float(a) <= float(b); }
template <class H>
inline tuner_sim::fp16_detail::same_t<H, bool> operator>(H a, H b) noexcept { return float(a) > float(b); }
template <class H>
inline tuner_sim::fp16_detail::same_t<H, bool> operator>=(H a, H b) noexcept { return float(a) >= float(b); }

// ---- mixed with an arithmetic type: the 16-bit operand acts as a float
#define TUNER_SIM_FP16_MIXED(OP, KIND)                                                         \
    template <class H, class T>                                                                \
    inline typename tuner_sim::fp16_detail::KIND<H, T>::type operator OP(H a, T b) noexcept { \
        using R = std::common_type_t<float, T>;                                                \
        return static_cast<R>(float(a)) OP static_cast<R>(b);                                  \
    }                                                                                          \
    template <class T, class H>                                                                \
    inline typename tuner_sim::fp16_detail::KIND<H, T>::type operator OP(T a, H b) noexcept { \
        using R = std::common_type_t<float, T>;                                                \
        return static_cast<R>(a) OP static_cast<R>(float(b));                                  \
    }
TUNER_SIM_FP16_MIXED(+, mixed_arith)
TUNER_SIM_FP16_MIXED(-, mixed_arith)
TUNER_SIM_FP16_MIXED(*, mixed_arith)
TUNER_SIM_FP16_MIXED(/, mixed_arith)
TUNER_SIM_FP16_MIXED(==, mixed_cmp)
TUNER_SIM_FP16_MIXED(!=, mixed_cmp)
TUNER_SIM_FP16_MIXED(<, mixed_cmp)
TUNER_SIM_FP16_MIXED(<=, mixed_cmp)
TUNER_SIM_FP16_MIXED(>, mixed_cmp)
TUNER_SIM_FP16_MIXED(>=, mixed_cmp)
#undef TUNER_SIM_FP16_MIXED

static_assert(sizeof(half) == 2 && sizeof(bfloat16_t) == 2, "16-bit types must hold 16 bits only");
static_assert(std::is_trivially_copyable_v<half> && std::is_trivially_copyable_v<bfloat16_t>);
static_assert(std::is_standard_layout_v<half> && std::is_standard_layout_v<bfloat16_t>);

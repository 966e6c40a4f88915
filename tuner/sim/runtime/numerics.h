// Element arithmetic of the simulated vector unit, on contiguous arrays.
// The API layer (include/) resolves masks, repeats and strides into contiguous runs and calls these;
// everything here is plain C++ compiled once into the runtime library, so kernel compiles stay light.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tuner_sim {

enum class DType : uint8_t { U8, I8, U16, I16, F16, BF16, U32, I32, F32, U64, I64, F64 };

std::size_t dtype_size(DType t);
const char* dtype_name(DType t);  // the Ascend C spelling: "half", "bfloat16_t", "float", "int32_t", ...

// Same order and values as AscendC::RoundMode.
enum class Round : uint8_t { NONE = 0, RINT, FLOOR, CEIL, ROUND, TRUNC, ODD };

// IEEE conversions used by half/bfloat16_t and by Cast: round-to-nearest-even unless a mode says otherwise.
uint16_t float_to_half_bits(float v, Round mode = Round::RINT);
float half_bits_to_float(uint16_t bits);
uint16_t float_to_bf16_bits(float v, Round mode = Round::RINT);
float bf16_bits_to_float(uint16_t bits);

// One element as double (exact for every supported type) and back, rounding as `mode` says.
double load_element(DType t, const void* p);
void store_element(DType t, void* p, double v, Round mode = Round::RINT);

enum class BinaryOp : uint8_t { Add, Sub, Mul, Div, Max, Min, And, Or, AddRelu, SubRelu };
enum class UnaryOp : uint8_t { Exp, Ln, Abs, Sqrt, Rsqrt, Reciprocal, Relu, Not };
enum class ScalarOp : uint8_t { Adds, Muls, Maxs, Mins, LeakyRelu };
enum class CmpMode : uint8_t { LT = 0, GT, EQ, LE, GE, NE };  // same order as AscendC::CMPMODE

// dst[i] = a[i] op b[i] for i < n. dst may alias a or b (in-place). Floating types compute in float
// (half/bf16 widened, result rounded to nearest even); integer types wrap as the hardware does.
void binary(BinaryOp op, DType t, void* dst, const void* a, const void* b, std::size_t n);
void unary(UnaryOp op, DType t, void* dst, const void* src, std::size_t n);
// `scalar` holds the element value exactly (a half scalar is passed as its float value).
void binary_scalar(ScalarOp op, DType t, void* dst, const void* src, double scalar, std::size_t n);
void fill(DType t, void* dst, double value, std::size_t n);

// Element-wise conversion src_t -> dst_t with the given rounding. Returns false when the pair/mode is not
// a conversion this library knows (the API layer reports that as an unsupported combination).
bool cast(DType dst_t, DType src_t, Round mode, void* dst, const void* src, std::size_t n);

// Sum / max / min of n elements, in the order the A2 vector unit uses: a pairwise tree inside each
// 256-byte repeat, repeats combined in sequence. Result is returned as double, already rounded to t.
double reduce_sum(DType t, const void* src, std::size_t n);
// Max/min value and the index of its first occurrence.
double reduce_max(DType t, const void* src, std::size_t n, std::size_t* index);
double reduce_min(DType t, const void* src, std::size_t n, std::size_t* index);

// ShiftLeft / ShiftRight by `bits` on 16/32-bit integers (asc-devkit ShiftLeft.md / ShiftRight.md): unsigned
// types shift logically; signed types shift arithmetically (left: the sign bit stays, the bits below it move;
// right: the sign bit is copied in). `round` (ShiftRight roundEn, signed types): add bit `bits - 1` of the source.
void shift(DType t, void* dst, const void* src, int64_t bits, bool left, bool round, std::size_t n);
// Axpy: dst[i] = scalar * src[i] + dst[i], in float (a half source widened) with one rounding to dst's type.
void axpy(DType dst_t, DType src_t, void* dst, const void* src, double scalar, std::size_t n);

// Bit i of dst_bits (LSB first within each byte) = a[i] cmp b[i]; bits of elements >= n are untouched.
void compare(CmpMode mode, DType t, uint8_t* dst_bits, const void* a, const void* b, std::size_t n);
void compare_scalar(CmpMode mode, DType t, uint8_t* dst_bits, const void* a, double b, std::size_t n);
// dst[i] = bit(mask_bits, i) ? a[i] : b[i]   (b_scalar form when b == nullptr: dst[i] = ... : b_value)
void select(DType t, void* dst, const uint8_t* mask_bits, const void* a, const void* b, double b_value,
            std::size_t n);

}  // namespace tuner_sim

// C entry points over tuner_sim numerics for tests/sim/test_numerics.py (loaded with ctypes).
// Enum arguments are passed as ints with the values of numerics.h.
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "numerics.h"
#include "tuner_sim/fp16.h"

using namespace tuner_sim;

extern "C" {

void shim_f2h(const float* src, uint16_t* dst, size_t n, int mode) {
    for (size_t i = 0; i < n; ++i) dst[i] = float_to_half_bits(src[i], Round(mode));
}
void shim_f2bf(const float* src, uint16_t* dst, size_t n, int mode) {
    for (size_t i = 0; i < n; ++i) dst[i] = float_to_bf16_bits(src[i], Round(mode));
}
void shim_f2h_rne(const float* src, uint16_t* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] = float_to_half_bits_rne(src[i]);
}
void shim_f2bf_rne(const float* src, uint16_t* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] = float_to_bf16_bits_rne(src[i]);
}
void shim_h2f(const uint16_t* src, float* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] = half_bits_to_float(src[i]);
}
void shim_bf2f(const uint16_t* src, float* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] = bf16_bits_to_float(src[i]);
}

void shim_store(int t, void* dst, const double* src, size_t n, int mode) {
    const size_t sz = dtype_size(DType(t));
    for (size_t i = 0; i < n; ++i) {
        store_element(DType(t), static_cast<char*>(dst) + i * sz, src[i], Round(mode));
    }
}
void shim_load(int t, const void* src, double* dst, size_t n) {
    const size_t sz = dtype_size(DType(t));
    for (size_t i = 0; i < n; ++i) dst[i] = load_element(DType(t), static_cast<const char*>(src) + i * sz);
}

void shim_binary(int op, int t, void* dst, const void* a, const void* b, size_t n) {
    binary(BinaryOp(op), DType(t), dst, a, b, n);
}
void shim_unary(int op, int t, void* dst, const void* src, size_t n) {
    unary(UnaryOp(op), DType(t), dst, src, n);
}
void shim_binary_scalar(int op, int t, void* dst, const void* src, double s, size_t n) {
    binary_scalar(ScalarOp(op), DType(t), dst, src, s, n);
}
void shim_fill(int t, void* dst, double v, size_t n) { fill(DType(t), dst, v, n); }
int shim_cast(int dst_t, int src_t, int mode, void* dst, const void* src, size_t n) {
    return cast(DType(dst_t), DType(src_t), Round(mode), dst, src, n) ? 1 : 0;
}

double shim_reduce_sum(int t, const void* src, size_t n) { return reduce_sum(DType(t), src, n); }
double shim_reduce_max(int t, const void* src, size_t n, size_t* index) {
    return reduce_max(DType(t), src, n, index);
}
double shim_reduce_min(int t, const void* src, size_t n, size_t* index) {
    return reduce_min(DType(t), src, n, index);
}

void shim_compare(int mode, int t, uint8_t* bits, const void* a, const void* b, size_t n) {
    compare(CmpMode(mode), DType(t), bits, a, b, n);
}
void shim_compare_scalar(int mode, int t, uint8_t* bits, const void* a, double b, size_t n) {
    compare_scalar(CmpMode(mode), DType(t), bits, a, b, n);
}
void shim_select(int t, void* dst, const uint8_t* mask, const void* a, const void* b, double bv, size_t n) {
    select(DType(t), dst, mask, a, b, bv, n);
}

size_t shim_dtype_size(int t) { return dtype_size(DType(t)); }
const char* shim_dtype_name(int t) { return dtype_name(DType(t)); }

// Best time in seconds of `reps` calls of binary(op, t, ...) over n elements.
double shim_time_binary(int op, int t, void* dst, const void* a, const void* b, size_t n, int reps) {
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        binary(BinaryOp(op), DType(t), dst, a, b, n);
        const auto t1 = std::chrono::steady_clock::now();
        const double s = std::chrono::duration<double>(t1 - t0).count();
        if (s < best) best = s;
    }
    return best;
}

}  // extern "C"

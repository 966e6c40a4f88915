// Softmax over the rows of a half matrix written as plain scalar loops over __gm__ pointers, calling no
// Ascend C API (tests/sim/test_scalar_cost.py): the kind of kernel whose work the model used to miss. Rows
// are dealt out to the blocks in turn; exp is a polynomial on the scalar unit.
#include "kernel_operator.h"

namespace {
// exp(x) for x <= 0: 2^k * e^r with x = k ln2 + r, e^r by its Taylor polynomial to r^6.
__aicore__ inline float ScalarExp(float x)
{
    if (x < -87.0f) {
        return 0.0f;
    }
    const int k = static_cast<int>(x * 1.44269504f - 0.5f);
    const float r = x - static_cast<float>(k) * 0.693147181f;
    const float p = 1.0f + r * (1.0f + r * (0.5f + r * (0.166666667f + r * (0.0416666667f +
                    r * (0.00833333333f + r * 0.00138888889f)))));
    const uint32_t bits = static_cast<uint32_t>(k + 127) << 23;
    float scale;
    __builtin_memcpy(&scale, &bits, sizeof(scale));
    return p * scale;
}
}  // namespace

extern "C" __global__ __aicore__ void scalar_softmax(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols)
{
    const uint32_t blocks = static_cast<uint32_t>(AscendC::GetBlockNum());
    for (uint32_t r = static_cast<uint32_t>(AscendC::GetBlockIdx()); r < rows; r += blocks) {
        const __gm__ half *in = reinterpret_cast<const __gm__ half *>(x) + static_cast<uint64_t>(r) * cols;
        __gm__ half *out = reinterpret_cast<__gm__ half *>(y) + static_cast<uint64_t>(r) * cols;
        float top = static_cast<float>(in[0]);
        for (uint32_t c = 1; c < cols; ++c) {
            const float v = static_cast<float>(in[c]);
            top = v > top ? v : top;
        }
        float total = 0.0f;
        for (uint32_t c = 0; c < cols; ++c) {
            total += ScalarExp(static_cast<float>(in[c]) - top);
        }
        const float inv = 1.0f / total;
        for (uint32_t c = 0; c < cols; ++c) {
            out[c] = static_cast<half>(ScalarExp(static_cast<float>(in[c]) - top) * inv);
        }
    }
}

// API semantics driver: unary APIs (Exp Ln Abs Sqrt Rsqrt Reciprocal Relu) in count and repeat forms.
// Element type from -DDTYPE=...; the API and form are chosen at run time from the tiling struct.
#include "harness.h"

#ifndef DTYPE
#define DTYPE float
#endif

struct UnaryTiling {
    uint64_t op;      // 0 Exp, 1 Ln, 2 Abs, 3 Sqrt, 4 Rsqrt, 5 Reciprocal, 6 Relu
    uint64_t form;    // 0 count, 1 mask count, 2 bit mask, 3 count in place
    uint64_t len;
    uint64_t count;   // count form: elements; mask-count form: lanes per repeat
    uint64_t repeat;
    uint64_t mask0, mask1;
    uint64_t dstBlk, srcBlk, dstRep, srcRep;
};

template <typename T>
class KernelUnary : public ApiHarness<KernelUnary<T>, T> {
public:
    __aicore__ inline KernelUnary() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z0, GM_ADDR z, const UnaryTiling& tiling)
    {
        t = tiling;
        this->InitHarness(x, nullptr, z0, z, t.len, t.len);
    }
    // Called by the harness; zLocal holds z0.
    __aicore__ inline void Compute(LocalTensor<T>& zLocal, LocalTensor<T>& xLocal)
    {
        UnaryRepeatParams params(uint16_t(t.dstBlk), uint16_t(t.srcBlk), uint8_t(t.dstRep), uint8_t(t.srcRep));
        uint64_t mask[2] = {t.mask0, t.mask1};
        const int32_t count = int32_t(t.count);
        const uint8_t repeat = uint8_t(t.repeat);
        switch (t.form) {
            case 0: Dispatch([&](auto op) { op(zLocal, xLocal, count); }); break;
            case 1: Dispatch([&](auto op) { op(zLocal, xLocal, t.count, repeat, params); }); break;
            case 2: Dispatch([&](auto op) { op(zLocal, xLocal, mask, repeat, params); }); break;
            case 3:
                Dispatch([&](auto op) { op(xLocal, xLocal, count); });
                DataCopy(zLocal, xLocal, t.len);
                break;
            default: break;
        }
    }

private:
    template <typename F>
    __aicore__ inline void Dispatch(F&& call)
    {
        constexpr bool isFloat = std::is_same_v<T, half> || std::is_same_v<T, float>;
        switch (t.op) {
            case 0: if constexpr (isFloat) { call([](auto&&... a) { Exp(a...); }); } break;
            case 1: if constexpr (isFloat) { call([](auto&&... a) { Ln(a...); }); } break;
            case 2: if constexpr (isFloat) { call([](auto&&... a) { Abs(a...); }); } break;
            case 3: if constexpr (isFloat) { call([](auto&&... a) { Sqrt(a...); }); } break;
            case 4: if constexpr (isFloat) { call([](auto&&... a) { Rsqrt(a...); }); } break;
            case 5: if constexpr (isFloat) { call([](auto&&... a) { Reciprocal(a...); }); } break;
            case 6: call([](auto&&... a) { Relu(a...); }); break;
            default: break;
        }
    }

    UnaryTiling t;
};

extern "C" __global__ __aicore__ void api_unary(GM_ADDR x, GM_ADDR z0, GM_ADDR z, UnaryTiling tiling)
{
    KernelUnary<DTYPE> op;
    op.Init(x, z0, z, tiling);
    op.Process();
}

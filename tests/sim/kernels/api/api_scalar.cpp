// API semantics driver: tensor-scalar APIs (Adds Muls Maxs Mins LeakyRelu) in every form.
// Element type from -DDTYPE=...; the API, form and scalar are chosen at run time from the tiling struct.
#include "harness.h"

#ifndef DTYPE
#define DTYPE float
#endif

struct ScalarTiling {
    uint64_t op;      // 0 Adds, 1 Muls, 2 Maxs, 3 Mins, 4 LeakyRelu
    uint64_t form;    // 0 count, 1 mask count, 2 bit mask, 3 count in place, 4 bit mask in place
    uint64_t len;     // elements of every GM array
    uint64_t count;   // count form: elements; mask-count form: lanes per repeat
    uint64_t repeat;
    uint64_t mask0, mask1;
    uint64_t dstBlk, srcBlk, dstRep, srcRep;
    double scalar;
};

template <typename T>
class KernelScalar : public ApiHarness<KernelScalar<T>, T> {
public:
    __aicore__ inline KernelScalar() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z0, GM_ADDR z, const ScalarTiling& tiling)
    {
        t = tiling;
        this->InitHarness(x, nullptr, z0, z, t.len, t.len);
    }
    // Called by the harness; zLocal holds z0.
    __aicore__ inline void Compute(LocalTensor<T>& zLocal, LocalTensor<T>& xLocal)
    {
        const T s = static_cast<T>(t.scalar);
        UnaryRepeatParams params(uint16_t(t.dstBlk), uint16_t(t.srcBlk), uint8_t(t.dstRep), uint8_t(t.srcRep));
        uint64_t mask[2] = {t.mask0, t.mask1};
        const int32_t count = int32_t(t.count);
        const uint8_t repeat = uint8_t(t.repeat);
        switch (t.form) {
            case 0: Dispatch([&](auto op) { op(zLocal, xLocal, s, count); }); break;
            case 1: Dispatch([&](auto op) { op(zLocal, xLocal, s, t.count, repeat, params); }); break;
            case 2: Dispatch([&](auto op) { op(zLocal, xLocal, s, mask, repeat, params); }); break;
            case 3:
                Dispatch([&](auto op) { op(xLocal, xLocal, s, count); });
                DataCopy(zLocal, xLocal, t.len);
                break;
            case 4:
                Dispatch([&](auto op) { op(xLocal, xLocal, s, mask, repeat, params); });
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
            case 0: call([](auto&&... a) { Adds(a...); }); break;
            case 1: call([](auto&&... a) { Muls(a...); }); break;
            case 2: call([](auto&&... a) { Maxs(a...); }); break;
            case 3: call([](auto&&... a) { Mins(a...); }); break;
            case 4: if constexpr (isFloat) { call([](auto&&... a) { LeakyRelu(a...); }); } break;
            default: break;
        }
    }

    ScalarTiling t;
};

extern "C" __global__ __aicore__ void api_scalar(GM_ADDR x, GM_ADDR z0, GM_ADDR z, ScalarTiling tiling)
{
    KernelScalar<DTYPE> op;
    op.Init(x, z0, z, tiling);
    op.Process();
}

// API semantics driver: binary tensor-tensor APIs (Add Sub Mul Div Max Min AddRelu SubRelu) in every form.
// Element type from -DDTYPE=...; the API and form are chosen at run time from the tiling struct.
#include "harness.h"

#ifndef DTYPE
#define DTYPE float
#endif

struct BinaryTiling {
    uint64_t op;      // 0 Add, 1 Sub, 2 Mul, 3 Div, 4 Max, 5 Min, 6 AddRelu, 7 SubRelu
    uint64_t form;    // 0 count, 1 mask count, 2 bit mask, 3 count dst=src0, 4 count dst=src1, 5 bit mask dst=src0
    uint64_t len;     // elements of every GM array
    uint64_t count;   // count form: elements; mask-count form: lanes per repeat
    uint64_t repeat;
    uint64_t mask0, mask1;
    uint64_t dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep;
};

template <typename T>
class KernelBinary : public ApiHarness<KernelBinary<T>, T, T, 2> {
public:
    __aicore__ inline KernelBinary() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z0, GM_ADDR z, const BinaryTiling& tiling)
    {
        t = tiling;
        this->InitHarness(x, y, z0, z, t.len, t.len);
    }
    // Called by the harness; zLocal holds z0.
    __aicore__ inline void Compute(LocalTensor<T>& zLocal, LocalTensor<T>& xLocal, LocalTensor<T>& yLocal)
    {
        BinaryRepeatParams params(uint8_t(t.dstBlk), uint8_t(t.src0Blk), uint8_t(t.src1Blk), uint8_t(t.dstRep),
                                  uint8_t(t.src0Rep), uint8_t(t.src1Rep));
        uint64_t mask[2] = {t.mask0, t.mask1};
        const int32_t count = int32_t(t.count);
        const uint8_t repeat = uint8_t(t.repeat);
        switch (t.form) {
            case 0: Dispatch([&](auto op) { op(zLocal, xLocal, yLocal, count); }); break;
            case 1: Dispatch([&](auto op) { op(zLocal, xLocal, yLocal, t.count, repeat, params); }); break;
            case 2: Dispatch([&](auto op) { op(zLocal, xLocal, yLocal, mask, repeat, params); }); break;
            case 3:
                Dispatch([&](auto op) { op(xLocal, xLocal, yLocal, count); });
                DataCopy(zLocal, xLocal, t.len);
                break;
            case 4:
                Dispatch([&](auto op) { op(yLocal, xLocal, yLocal, count); });
                DataCopy(zLocal, yLocal, t.len);
                break;
            case 5:
                Dispatch([&](auto op) { op(xLocal, xLocal, yLocal, mask, repeat, params); });
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
        constexpr bool hasRelu = !std::is_same_v<T, int16_t>;
        switch (t.op) {
            case 0: call([](auto&&... a) { Add(a...); }); break;
            case 1: call([](auto&&... a) { Sub(a...); }); break;
            case 2: call([](auto&&... a) { Mul(a...); }); break;
            case 3: if constexpr (isFloat) { call([](auto&&... a) { Div(a...); }); } break;
            case 4: call([](auto&&... a) { Max(a...); }); break;
            case 5: call([](auto&&... a) { Min(a...); }); break;
            case 6: if constexpr (hasRelu) { call([](auto&&... a) { AddRelu(a...); }); } break;
            case 7: if constexpr (hasRelu) { call([](auto&&... a) { SubRelu(a...); }); } break;
            default: break;
        }
    }

    BinaryTiling t;
};

extern "C" __global__ __aicore__ void api_binary(GM_ADDR x, GM_ADDR y, GM_ADDR z0, GM_ADDR z, BinaryTiling tiling)
{
    KernelBinary<DTYPE> op;
    op.Init(x, y, z0, z, tiling);
    op.Process();
}

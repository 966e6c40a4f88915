// API semantics driver: ReduceSum/Max/Min (count and repeat forms), WholeReduceSum/Max/Min and
// BlockReduceSum/Max/Min. Element type from -DDTYPE=...; API, form and parameters from the tiling struct.
#include "harness.h"

#ifndef DTYPE
#define DTYPE float
#endif

struct ReduceTiling {
    uint64_t op;       // 0 Sum, 1 Max, 2 Min
    uint64_t form;     // 0 Reduce* count, 1 Reduce* mask count, 2 Reduce* bit mask,
                       // 3 WholeReduce* mask count, 4 WholeReduce* bit mask, 5 BlockReduce* mask count,
                       // 6 BlockReduce* bit mask
    uint64_t len;      // elements of src
    uint64_t outLen;   // elements of dst (z0 and z)
    uint64_t count;    // count form: elements; mask-count forms: lanes per repeat
    uint64_t repeat;
    uint64_t mask0, mask1;
    uint64_t dstRep, srcBlk, srcRep;
    uint64_t index;    // Reduce*: calIndex; WholeReduceMax/Min: ReduceOrder
};

template <typename T>
class KernelReduce : public ApiHarness<KernelReduce<T>, T> {
public:
    __aicore__ inline KernelReduce() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z0, GM_ADDR z, const ReduceTiling& tiling)
    {
        t = tiling;
        this->InitHarness(x, nullptr, z0, z, t.len, t.outLen);
        this->pipe.InitBuffer(workBuf, t.len * sizeof(T));
    }
    // Called by the harness; zLocal holds z0.
    __aicore__ inline void Compute(LocalTensor<T>& zLocal, LocalTensor<T>& xLocal)
    {
        LocalTensor<T> work = workBuf.Get<T>();
        uint64_t mask[2] = {t.mask0, t.mask1};
        const int32_t count = int32_t(t.count);
        const int32_t repeat = int32_t(t.repeat);
        const bool calIndex = t.index != 0;
        const ReduceOrder order = static_cast<ReduceOrder>(t.index);
        const int32_t dstRep = int32_t(t.dstRep), srcBlk = int32_t(t.srcBlk), srcRep = int32_t(t.srcRep);
        switch (t.form * 3 + t.op) {
            case 0: ReduceSum(zLocal, xLocal, work, count); break;
            case 1: ReduceMax(zLocal, xLocal, work, count, calIndex); break;
            case 2: ReduceMin(zLocal, xLocal, work, count, calIndex); break;
            case 3: ReduceSum(zLocal, xLocal, work, count, repeat, srcRep); break;
            case 4: ReduceMax(zLocal, xLocal, work, count, repeat, srcRep, calIndex); break;
            case 5: ReduceMin(zLocal, xLocal, work, count, repeat, srcRep, calIndex); break;
            case 6: ReduceSum(zLocal, xLocal, work, mask, repeat, srcRep); break;
            case 7: ReduceMax(zLocal, xLocal, work, mask, repeat, srcRep, calIndex); break;
            case 8: ReduceMin(zLocal, xLocal, work, mask, repeat, srcRep, calIndex); break;
            case 9: WholeReduceSum(zLocal, xLocal, count, repeat, dstRep, srcBlk, srcRep); break;
            case 10: WholeReduceMax(zLocal, xLocal, count, repeat, dstRep, srcBlk, srcRep, order); break;
            case 11: WholeReduceMin(zLocal, xLocal, count, repeat, dstRep, srcBlk, srcRep, order); break;
            case 12: WholeReduceSum(zLocal, xLocal, mask, repeat, dstRep, srcBlk, srcRep); break;
            case 13: WholeReduceMax(zLocal, xLocal, mask, repeat, dstRep, srcBlk, srcRep, order); break;
            case 14: WholeReduceMin(zLocal, xLocal, mask, repeat, dstRep, srcBlk, srcRep, order); break;
            case 15: BlockReduceSum(zLocal, xLocal, repeat, count, dstRep, srcBlk, srcRep); break;
            case 16: BlockReduceMax(zLocal, xLocal, repeat, count, dstRep, srcBlk, srcRep); break;
            case 17: BlockReduceMin(zLocal, xLocal, repeat, count, dstRep, srcBlk, srcRep); break;
            case 18: BlockReduceSum(zLocal, xLocal, repeat, mask, dstRep, srcBlk, srcRep); break;
            case 19: BlockReduceMax(zLocal, xLocal, repeat, mask, dstRep, srcBlk, srcRep); break;
            case 20: BlockReduceMin(zLocal, xLocal, repeat, mask, dstRep, srcBlk, srcRep); break;
            default: break;
        }
    }

private:
    TBuf<QuePosition::VECCALC> workBuf;
    ReduceTiling t;
};

extern "C" __global__ __aicore__ void api_reduce(GM_ADDR x, GM_ADDR z0, GM_ADDR z, ReduceTiling tiling)
{
    KernelReduce<DTYPE> op;
    op.Init(x, z0, z, tiling);
    op.Process();
}

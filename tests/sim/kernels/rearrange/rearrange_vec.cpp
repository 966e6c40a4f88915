// Rearrangement semantics driver for the element-wise and reduce additions: ShiftLeft/ShiftRight, Axpy,
// CreateVecIndex, PairReduceSum / ReducePairElem, RepeatReduceSum, ReduceRepeat, ReduceDataBlock and the reduce
// special registers. x holds the source (DTYPE), z0 seeds the output (OTYPE, default DTYPE); the special
// register forms store what they read at the output's last 8 bytes (value, then index bits).
#include "../api/harness.h"

#ifndef DTYPE
#define DTYPE half
#endif
#ifndef OTYPE
#define OTYPE DTYPE
#endif

struct VecTiling {
    uint64_t form;   // see Compute
    uint64_t xLen, zLen;
    uint64_t count;  // count form: elements; mask-count forms: lanes
    uint64_t repeat;
    uint64_t mask0, mask1;
    uint64_t dstBlk, dstRep, srcBlk, srcRep;
    uint64_t order;
    uint64_t round;
    double scalar;
};

template <typename T, typename O>
class KernelVec : public ApiHarness<KernelVec<T, O>, T, O> {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z0, GM_ADDR z, const VecTiling& tiling)
    {
        t = tiling;
        this->InitHarness(x, nullptr, z0, z, t.xLen, t.zLen);
    }
    __aicore__ inline void Compute(LocalTensor<O>& z, LocalTensor<T>& x)
    {
        uint64_t mask[2] = {t.mask0, t.mask1};
        const int32_t cnt = int32_t(t.count), rep = int32_t(t.repeat);
        const int32_t dstRep = int32_t(t.dstRep), srcBlk = int32_t(t.srcBlk), srcRep = int32_t(t.srcRep);
        UnaryRepeatParams p{uint16_t(t.dstBlk), uint16_t(t.srcBlk), uint8_t(t.dstRep), uint8_t(t.srcRep)};
        const ReduceOrder order = static_cast<ReduceOrder>(t.order);
        if constexpr (std::is_integral_v<T> && std::is_same_v<T, O>) {
            const T s = T(t.scalar);
            switch (t.form) {
                case 0: ShiftLeft(z, x, s, cnt); break;
                case 1: ShiftLeft(z, x, s, t.count, uint8_t(rep), p); break;
                case 2: ShiftLeft(z, x, s, mask, uint8_t(rep), p); break;
                case 3: ShiftRight(z, x, s, cnt); break;
                case 4: ShiftRight(z, x, s, t.count, uint8_t(rep), p, t.round != 0); break;
                case 5: ShiftRight(z, x, s, mask, uint8_t(rep), p, t.round != 0); break;
                default: break;
            }
            if constexpr (tuner_sim::support::CreateVecIndex<T>) {
                if (t.form == 6) CreateVecIndex(z, s, uint32_t(cnt));
                if (t.form == 7) CreateVecIndex(z, s, t.count, uint8_t(rep), uint16_t(t.dstBlk), uint8_t(t.dstRep));
            }
        } else if constexpr (!std::is_same_v<T, O>) {
            const T s = T(float(t.scalar));
            switch (t.form) {
                case 10: Axpy(z, x, s, cnt); break;
                case 11: Axpy(z, x, s, t.count, uint8_t(rep), p); break;
                case 12: Axpy(z, x, s, mask, uint8_t(rep), p); break;
                default: break;
            }
        } else {
            const T s = T(float(t.scalar));
            LocalTensor<T> zt = z;
            switch (t.form) {
                case 6: CreateVecIndex(zt, s, uint32_t(cnt)); break;
                case 7: CreateVecIndex(zt, s, t.count, uint8_t(rep), uint16_t(t.dstBlk), uint8_t(t.dstRep)); break;
                case 10: Axpy(zt, x, s, cnt); break;
                case 11: Axpy(zt, x, s, t.count, uint8_t(rep), p); break;
                case 12: Axpy(zt, x, s, mask, uint8_t(rep), p); break;
                case 20: PairReduceSum(zt, x, rep, cnt, dstRep, srcBlk, srcRep); break;
                case 21: PairReduceSum(zt, x, rep, mask, dstRep, srcBlk, srcRep); break;
                case 22: ReducePairElem<ReduceType::SUM>(zt, x, cnt, rep, dstRep, srcBlk, srcRep); break;
                case 23: ReducePairElem<ReduceType::SUM>(zt, x, mask, rep, dstRep, srcBlk, srcRep); break;
                case 24: RepeatReduceSum(zt, x, rep, cnt, 0, srcBlk, dstRep, srcRep); break;
                case 25: ReduceRepeat<ReduceType::SUM>(zt, x, cnt, rep, dstRep, srcBlk, srcRep); break;
                case 26: ReduceRepeat<ReduceType::MAX>(zt, x, cnt, rep, dstRep, srcBlk, srcRep, order); break;
                case 27: ReduceRepeat<ReduceType::MIN>(zt, x, mask, rep, dstRep, srcBlk, srcRep, order); break;
                case 28: ReduceDataBlock<ReduceType::SUM>(zt, x, cnt, rep, dstRep, srcBlk, srcRep); break;
                case 29: ReduceDataBlock<ReduceType::MAX>(zt, x, mask, rep, dstRep, srcBlk, srcRep); break;
                case 30: {  // the sum register after ReduceSum's count form
                    LocalTensor<T> work = zt[uint32_t(t.zLen / 2)];
                    ReduceSum(zt, x, work, cnt);
                    const T v = GetReduceRepeatSumSpr<T>();
                    zt.SetValue(uint32_t(t.zLen - 8 / sizeof(T)), v);
                    break;
                }
                case 31: {  // the max/min register after ReduceRepeat<MAX>
                    ReduceRepeat<ReduceType::MAX>(zt, x, cnt, rep, dstRep, srcBlk, srcRep, order);
                    T v, idx;
                    GetReduceRepeatMaxMinSpr(v, idx);
                    zt.SetValue(uint32_t(t.zLen - 8 / sizeof(T)), v);
                    zt.SetValue(uint32_t(t.zLen - 8 / sizeof(T) + 1), idx);
                    break;
                }
                default: break;
            }
        }
    }

private:
    VecTiling t;
};

extern "C" __global__ __aicore__ void rearrange_vec(GM_ADDR x, GM_ADDR z0, GM_ADDR z, VecTiling tiling)
{
    KernelVec<DTYPE, OTYPE> op;
    op.Init(x, z0, z, tiling);
    op.Process();
}

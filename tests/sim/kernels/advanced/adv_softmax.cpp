// Advanced-API driver for tests/sim/test_adv_softmax.py: SoftMax (the temporary-space rule, the mixed
// half/float form), SoftmaxGrad, SoftmaxGradFront, SoftmaxFlashV2 and SoftmaxFlashV3 on an [m, k] block.
// Element type from -DDTYPE=...; the API and the temporary space from the tiling struct. The API's SoftMaxTiling
// is filled in the kernel with its host helper for `work` bytes of temporary space.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

struct SoftmaxCase {
    uint64_t api;       // see Compute
    uint64_t m, k;      // rows, row length (32-byte aligned)
    uint64_t tmpBytes;  // sharedTmpBuffer (0: the forms without one)
    uint64_t work;      // temporary bytes the API's tiling is computed for
    uint64_t loopCnt;   // SoftmaxFlashV3
    float alpha;        // SoftmaxFlashV3
};

template <typename T>
class KernelSoftmax {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR g, GM_ADDR in1, GM_ADDR in2, GM_ADDR in3, GM_ADDR z, GM_ADDR o1,
                                GM_ADDR o2, GM_ADDR o3, GM_ADDR o4, const SoftmaxCase& c)
    {
        t = c;
        n = uint32_t(t.m * t.k);
        blkF = uint32_t(t.m) * 8;  // [m, 32 bytes] as floats
        xGm.SetGlobalBuffer((__gm__ T*)x, n);
        gGm.SetGlobalBuffer((__gm__ T*)g, n);
        in1Gm.SetGlobalBuffer((__gm__ float*)in1, blkF);
        in2Gm.SetGlobalBuffer((__gm__ float*)in2, blkF);
        in3Gm.SetGlobalBuffer((__gm__ float*)in3, blkF);
        zGm.SetGlobalBuffer((__gm__ T*)z, n);
        o1Gm.SetGlobalBuffer((__gm__ float*)o1, blkF);
        o2Gm.SetGlobalBuffer((__gm__ float*)o2, blkF);
        o3Gm.SetGlobalBuffer((__gm__ float*)o3, blkF);
        o4Gm.SetGlobalBuffer((__gm__ float*)o4, blkF);
        pipe.InitBuffer(xBuf, n * sizeof(T));
        pipe.InitBuffer(gBuf, n * sizeof(T));
        pipe.InitBuffer(zBuf, n * sizeof(T));
        pipe.InitBuffer(blkBuf, 7 * blkF * sizeof(float));
        if (t.tmpBytes > 0) pipe.InitBuffer(tmpBuf, uint32_t(t.tmpBytes));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<T> x = xBuf.Get<T>(), g = gBuf.Get<T>(), z = zBuf.Get<T>();
        LocalTensor<float> blocks = blkBuf.Get<float>();
        LocalTensor<float> in1 = blocks, in2 = blocks[blkF], o1 = blocks[2 * blkF], o2 = blocks[3 * blkF];
        LocalTensor<float> o3 = blocks[4 * blkF], in3 = blocks[5 * blkF], o4 = blocks[6 * blkF];
        DataCopy(x, xGm, n);
        DataCopy(g, gGm, n);
        DataCopy(in1, in1Gm, blkF);
        DataCopy(in2, in2Gm, blkF);
        DataCopy(in3, in3Gm, blkF);
        PipeBarrier<PIPE_ALL>();
        Duplicate(z, T(0), int32_t(n));
        Duplicate(o1, 0.0f, int32_t(3 * blkF));
        Duplicate(o4, 0.0f, int32_t(blkF));
        Compute(z, o1, o2, o3, o4, x, g, in1, in2, in3);
        PipeBarrier<PIPE_ALL>();
        DataCopy(zGm, z, n);
        DataCopy(o1Gm, o1, blkF);
        DataCopy(o2Gm, o2, blkF);
        DataCopy(o3Gm, o3, blkF);
        DataCopy(o4Gm, o4, blkF);
    }

private:
    __aicore__ inline void Compute(LocalTensor<T>& z, LocalTensor<float>& o1, LocalTensor<float>& o2,
                                   LocalTensor<float>& o3, LocalTensor<float>& o4, LocalTensor<T>& x,
                                   LocalTensor<T>& g, LocalTensor<float>& in1, LocalTensor<float>& in2,
                                   LocalTensor<float>& in3)
    {
        LocalTensor<uint8_t> tmp;
        if (t.tmpBytes > 0) tmp = tmpBuf.Get<uint8_t>();
        const uint32_t m = uint32_t(t.m), k = uint32_t(t.k), work = uint32_t(t.work);
        const TensorShape shape(std::vector<int64_t>{int64_t(m), int64_t(k)});
        const SoftMaxShapeInfo info = {m, k, m, k};
        SoftMaxTiling tl;
        LocalTensor<T> o1T = o1.ReinterpretCast<T>(), o2T = o2.ReinterpretCast<T>();
        switch (t.api) {
            case 0:  // SoftMax with max and sum, tiling for `work` bytes
                SoftMaxTilingFunc(shape, sizeof(T), work, tl);
                SoftMax<T>(z, o2T, o1T, x, tmp, tl, info);
                break;
            case 1:  // SoftmaxGrad
                SoftMaxGradTilingFunc(shape, sizeof(T), work, tl, false);
                SoftmaxGrad<T>(z, g, x, tmp, tl, false, info);
                break;
            case 2:  // SoftmaxGrad, temporary space from the UB left
                SoftMaxGradTilingFunc(shape, sizeof(T), work, tl, false);
                SoftmaxGrad<T>(z, g, x, tl, false, info);
                break;
            case 3:  // SoftmaxGrad with isFront
                SoftMaxGradTilingFunc(shape, sizeof(T), work, tl, true);
                SoftmaxGrad<T>(o1T, g, x, tmp, tl, true, info);
                break;
            case 4:  // SoftmaxGradFront
                SoftMaxGradTilingFunc(shape, sizeof(T), work, tl, true);
                SoftmaxGradFront<T>(o1T, g, x, tmp, tl, info);
                break;
            case 5:  // SoftMax of half with float max and sum
                if constexpr (sizeof(T) == 2) {
                    SoftMaxTilingFunc(shape, sizeof(float), work, tl);
                    SoftMax<half>(z, o2, o1, x, tmp, tl, info);
                }
                break;
            case 6:  // SoftmaxFlashV2, isUpdate false
            case 7:  // SoftmaxFlashV2, isUpdate true, max and sum in place of inMax and inExpSum
                if constexpr (sizeof(T) == 4) {
                    SoftMaxFlashV2TilingFunc(shape, sizeof(T), sizeof(T), work, tl, t.api == 7);
                    if (t.api == 6) {
                        SoftmaxFlashV2<float, false>(z, o2, o1, x, o3, in2, in1, tmp, tl, info);
                    } else {
                        DataCopy(o1, in1, blkF);
                        DataCopy(o2, in2, blkF);
                        SoftmaxFlashV2<float, true>(z, o2, o1, x, o3, o2, o1, tmp, tl, info);
                    }
                }
                break;
            case 8:  // SoftmaxFlashV3, isUpdate false: mean o3, sum o2, max o1
            case 9:  // SoftmaxFlashV3, isUpdate true: expMax (half) o4; inMean in3, inExpSum in2, inMax in1
            case 10:  // SoftmaxFlashV3, isUpdate true, temporary space from the UB left
                if constexpr (sizeof(T) == 2) {
                    SoftMaxFlashV3TilingFunc(shape, sizeof(T), sizeof(float), work, tl, t.api != 8);
                    const SoftMaxParams params = {m, k, m, k, uint32_t(t.loopCnt), 8, t.alpha};
                    LocalTensor<half> expMax = o4.ReinterpretCast<half>();
                    if (t.api == 8) {
                        SoftmaxFlashV3<half, float, false>(z, o3, o2, o1, x, expMax, in3, in2, in1, tmp, tl, params);
                    } else if (t.api == 9) {
                        SoftmaxFlashV3<half, float, true>(z, o3, o2, o1, x, expMax, in3, in2, in1, tmp, tl, params);
                    } else {
                        SoftmaxFlashV3<half, float, true>(z, o3, o2, o1, x, expMax, in3, in2, in1, tl, params);
                    }
                }
                break;
            case 11:  // SoftmaxFlashV2 of half with float max (o1), sum (o2); expMax (o3, half)
            case 12:  // the same with isUpdate: inMax in1, inExpSum in2 (float)
                if constexpr (sizeof(T) == 2) {
                    SoftMaxFlashV2TilingFunc(shape, sizeof(half), sizeof(float), work, tl, t.api == 12);
                    LocalTensor<half> expMax = o3.ReinterpretCast<half>();
                    if (t.api == 11) {
                        SoftmaxFlashV2<half, false>(z, o2, o1, x, expMax, in2, in1, tmp, tl, info);
                    } else {
                        SoftmaxFlashV2<half, true>(z, o2, o1, x, expMax, in2, in1, tmp, tl, info);
                    }
                }
                break;
            case 13:  // SoftmaxFlashV2 all half: max o1, sum o2, expMax o3; inMax in1, inExpSum in2 ([m, 16] half)
            case 14:  // the same with isUpdate, max and sum in place of inMax and inExpSum
                if constexpr (sizeof(T) == 2) {
                    SoftMaxFlashV2TilingFunc(shape, sizeof(half), sizeof(half), work, tl, t.api == 14);
                    LocalTensor<half> expMax = o3.ReinterpretCast<half>();
                    LocalTensor<half> in1H = in1.ReinterpretCast<half>(), in2H = in2.ReinterpretCast<half>();
                    if (t.api == 13) {
                        SoftmaxFlashV2<half, false>(z, o2T, o1T, x, expMax, in2H, in1H, tmp, tl, info);
                    } else {
                        DataCopy(o1, in1, blkF);
                        DataCopy(o2, in2, blkF);
                        SoftmaxFlashV2<half, true>(z, o2T, o1T, x, expMax, o2T, o1T, tmp, tl, info);
                    }
                }
                break;
            case 15:  // SoftmaxFlash, all T: max o1, sum o2, expMax o3; inMax in1, inSum in2
            case 16:  // the same with isUpdate
                SoftMaxFlashTilingFunc(shape, sizeof(T), work, tl, t.api == 16);
                SoftmaxFlash<T>(z, o2T, o1T, x, o3.ReinterpretCast<T>(), in2.ReinterpretCast<T>(),
                                in1.ReinterpretCast<T>(), tmp, tl, t.api == 16, info);
                break;
            case 17:  // SoftmaxFlash of half with float max (o1), sum (o2), inMax (in1), inSum (in2)
            case 18:  // the same with isUpdate
                if constexpr (sizeof(T) == 2) {
                    SoftMaxFlashTilingFunc(shape, sizeof(float), work, tl, t.api == 18);
                    SoftmaxFlash<half>(z, o2, o1, x, o3.ReinterpretCast<half>(), in2, in1, tmp, tl, t.api == 18, info);
                }
                break;
            case 19:  // SoftMax without max and sum
                SoftMaxTilingFunc(shape, sizeof(T), work, tl);
                SoftMax<T>(z, x, tmp, tl, info);
                break;
            case 20: {  // LogSoftMax with max and sum
                LogSoftMaxTiling lt;
                LogSoftMaxTilingFunc(shape, sizeof(T), work, lt);
                LogSoftMax<T>(z, o2T, o1T, x, tmp, lt, info);
                break;
            }
            case 21:  // SimpleSoftMax, all T: inMax in1, inSum in2
                SoftMaxTilingFunc(shape, sizeof(T), work, tl);
                SimpleSoftMax<T>(z, in2.ReinterpretCast<T>(), in1.ReinterpretCast<T>(), x, tmp, tl, info);
                break;
            case 22:  // SimpleSoftMax of half with float inMax (in1) and inSum (in2)
                if constexpr (sizeof(T) == 2) {
                    SoftMaxTilingFunc(shape, sizeof(float), work, tl);
                    SimpleSoftMax<half>(z, in2, in1, x, tmp, tl, info);
                }
                break;
            default: break;
        }
    }

    SoftmaxCase t;
    uint32_t n = 0, blkF = 0;
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf, gBuf, zBuf, blkBuf, tmpBuf;
    GlobalTensor<T> xGm, gGm, zGm;
    GlobalTensor<float> in1Gm, in2Gm, in3Gm, o1Gm, o2Gm, o3Gm, o4Gm;
};

extern "C" __global__ __aicore__ void adv_softmax(GM_ADDR x, GM_ADDR g, GM_ADDR in1, GM_ADDR in2, GM_ADDR in3,
                                                   GM_ADDR z, GM_ADDR o1, GM_ADDR o2, GM_ADDR o3, GM_ADDR o4,
                                                   SoftmaxCase c)
{
    KernelSoftmax<DTYPE> op;
    op.Init(x, g, in1, in2, in3, z, o1, o2, o3, o4, c);
    op.Process();
}

// Advanced-API driver for the quantization, index, filter and sort APIs: AscendQuant, AscendDequant, Arange,
// Select (byte mask), DropOut, Concat / Sort / Extract, TopK. Element type from -DDTYPE=...; the API and its
// shape are chosen at run time from the tiling struct. GM buffers are bytes: x and y in, z and w out.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

struct QTiling {
    uint64_t api;
    uint64_t n;
    uint64_t m;
    uint64_t k;
    uint64_t p0;
    uint64_t p1;
    uint64_t xBytes;
    uint64_t yBytes;
    uint64_t zBytes;
    uint64_t wBytes;
    uint64_t tmpBytes;
    double s0;
    double s1;
};

template <typename T>
class KernelQuantSort {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w, const QTiling& tiling)
    {
        t = tiling;
        xGm.SetGlobalBuffer((__gm__ uint8_t*)x, t.xBytes);
        yGm.SetGlobalBuffer((__gm__ uint8_t*)y, t.yBytes);
        zGm.SetGlobalBuffer((__gm__ uint8_t*)z, t.zBytes);
        wGm.SetGlobalBuffer((__gm__ uint8_t*)w, t.wBytes);
        pipe.InitBuffer(xQ, 1, t.xBytes);
        pipe.InitBuffer(yQ, 1, t.yBytes);
        pipe.InitBuffer(zQ, 1, t.zBytes);
        pipe.InitBuffer(wQ, 1, t.wBytes);
        if (t.tmpBytes > 0) pipe.InitBuffer(tmpBuf, t.tmpBytes);
    }
    __aicore__ inline void Process()
    {
        LocalTensor<uint8_t> xL = xQ.AllocTensor<uint8_t>();
        LocalTensor<uint8_t> yL = yQ.AllocTensor<uint8_t>();
        DataCopy(xL, xGm, uint32_t(t.xBytes));
        DataCopy(yL, yGm, uint32_t(t.yBytes));
        xQ.EnQue(xL);
        yQ.EnQue(yL);
        xL = xQ.DeQue<uint8_t>();
        yL = yQ.DeQue<uint8_t>();
        LocalTensor<uint8_t> zL = zQ.AllocTensor<uint8_t>();
        LocalTensor<uint8_t> wL = wQ.AllocTensor<uint8_t>();
        Duplicate(zL.ReinterpretCast<int16_t>(), int16_t(0), int32_t(t.zBytes / 2));
        Duplicate(wL.ReinterpretCast<int16_t>(), int16_t(0), int32_t(t.wBytes / 2));
        LocalTensor<uint8_t> tmp;
        if (t.tmpBytes > 0) tmp = tmpBuf.Get<uint8_t>();
        Compute(zL, wL, xL, yL, tmp);
        zQ.EnQue(zL);
        wQ.EnQue(wL);
        xQ.FreeTensor(xL);
        yQ.FreeTensor(yL);
        zL = zQ.DeQue<uint8_t>();
        wL = wQ.DeQue<uint8_t>();
        DataCopy(zGm, zL, uint32_t(t.zBytes));
        DataCopy(wGm, wL, uint32_t(t.wBytes));
        zQ.FreeTensor(zL);
        wQ.FreeTensor(wL);
    }

private:
    __aicore__ inline void Compute(LocalTensor<uint8_t>& z, LocalTensor<uint8_t>& w, LocalTensor<uint8_t>& x,
                                   LocalTensor<uint8_t>& y, LocalTensor<uint8_t>& tmp)
    {
        const uint32_t n = uint32_t(t.n), m = uint32_t(t.m), k = uint32_t(t.k);
        const LocalTensor<T> xT = x.ReinterpretCast<T>();
        const LocalTensor<T> yT = y.ReinterpretCast<T>();
        const LocalTensor<T> zT = z.ReinterpretCast<T>();
        const LocalTensor<int8_t> z8 = z.ReinterpretCast<int8_t>();
        switch (t.api) {
            case 0: AscendQuant<T>(z8, xT, tmp, float(t.s0), float(t.s1), n); break;
            case 1: AscendQuant<T>(z8, xT, float(t.s0), float(t.s1), n); break;
            case 2: AscendQuant<T>(z8, xT, tmp, yT, yT[k], k, k, n); break;
            case 3: AscendQuant<T>(z8, xT, tmp, yT, T(float(t.s1)), k, n); break;
            case 4: {
                DequantParams p{m, n, k};
                AscendDequant(z.ReinterpretCast<float>(), x.ReinterpretCast<int32_t>(), y.ReinterpretCast<float>(),
                              tmp, p);
                break;
            }
            case 5: {
                DequantParams p{m, n, k};
                AscendDequant<float, float>(z.ReinterpretCast<float>(), x.ReinterpretCast<int32_t>(), float(t.s0),
                                            tmp, p);
                break;
            }
            case 6: {
                DequantParams p{m, n, k};
                AscendDequant(z.ReinterpretCast<half>(), x.ReinterpretCast<int32_t>(), y.ReinterpretCast<uint64_t>(),
                              tmp, p);
                break;
            }
            case 26: {
                // deprecated form: deqScale's size (n) is the row length, the first k elements are dequantized
                AscendDequant(z.ReinterpretCast<float>(), x.ReinterpretCast<int32_t>(), y.ReinterpretCast<float>(),
                              tmp, k);
                break;
            }
            case 7: Arange<T>(zT, T(float(t.s0)), T(float(t.s1)), int32_t(n)); break;
            case 8: Arange<int32_t>(z.ReinterpretCast<int32_t>(), int32_t(t.s0), int32_t(t.s1), int32_t(n)); break;
            case 9: Arange<int16_t>(z.ReinterpretCast<int16_t>(), int16_t(t.s0), int16_t(t.s1), int32_t(n)); break;
            case 10:
            case 11:
            case 12: {
                SelectWithBytesMaskShapeInfo info;
                info.firstAxis = m;
                info.srcLastAxis = n;
                info.maskLastAxis = k;
                if (t.api == 10) {
                    Select(zT, xT, T(float(t.s0)), y, tmp, info);
                } else if (t.api == 11) {
                    Select(zT, T(float(t.s0)), xT, y, tmp, info);
                } else {
                    Select<T, uint8_t, false>(zT, xT, T(float(t.s0)), y, tmp, info);
                }
                break;
            }
            case 13: {
                DropOutShapeInfo info;
                info.firstAxis = m;
                info.srcLastAxis = n;
                info.maskLastAxis = k;
                DropOut(zT, xT, y, tmp, float(t.s0), info);
                break;
            }
            case 14: {
                // Concat, full Sort of n scores with the indices in y, Extract: values to z, indices to w.
                const uint32_t groups = n / 32;
                LocalTensor<T> tmpT = tmp.ReinterpretCast<T>();
                LocalTensor<T> sorted = tmpT;
                LocalTensor<T> sortTmp = tmpT[GetSortLen<T>(n)];
                LocalTensor<T> concat;
                Concat(concat, xT, sortTmp, int32_t(groups));
                Sort<T, true>(sorted, concat, y.ReinterpretCast<uint32_t>(), sortTmp, int32_t(groups));
                Extract(zT, w.ReinterpretCast<uint32_t>(), sorted, int32_t(groups));
                break;
            }
            case 15:
            case 16: {
                // TopK over m rows of n (inner k-aligned to 32: p1 = inner), k = t.k, isLargest = p0, finish in y.
                TopKInfo info;
                info.outter = int32_t(m);
                info.inner = int32_t(t.p1);
                info.n = int32_t(n);
                TopkTiling tiling;
                const TopKMode mode = t.api == 15 ? TopKMode::TOPK_NORMAL : TopKMode::TOPK_NSMALL;
                adv::topk_tiling_a2(info.inner, info.outter, int32_t(k), sizeof(T), false, mode, t.p0 != 0, tiling);
                LocalTensor<int32_t> noIndex;
                if (t.api == 15) {
                    TopK<T, false, true, false, TopKMode::TOPK_NORMAL>(zT, w.ReinterpretCast<int32_t>(), xT, noIndex,
                                                                        y.ReinterpretCast<bool>(), tmp, int32_t(k),
                                                                        tiling, info, t.p0 != 0);
                } else {
                    TopK<T, false, false, false, TopKMode::TOPK_NSMALL>(zT, w.ReinterpretCast<int32_t>(), xT, noIndex,
                                                                         y.ReinterpretCast<bool>(), tmp, int32_t(k),
                                                                         tiling, info, t.p0 != 0);
                }
                break;
            }
            case 20:
            case 21:
            case 22:
            case 23: {
                // AscendAntiQuant, int8_t -> half: 20 offset + scale rows, 21 scale only, 22 transposed [m, n]
                // with p1 groups per row, 23 per tensor (offset s1, scale s0). y holds offset then scale.
                const LocalTensor<half> zH = z.ReinterpretCast<half>();
                const LocalTensor<int8_t> x8 = x.ReinterpretCast<int8_t>();
                const LocalTensor<half> yH = y.ReinterpretCast<half>();
                const uint32_t params = t.api == 22 ? m * uint32_t(t.p1) : n;
                if (t.api == 20) {
                    AscendAntiQuant<int8_t, half, false>(zH, x8, yH, yH[params], tmp, m);
                } else if (t.api == 21) {
                    AscendAntiQuant<int8_t, half, false>(zH, x8, yH[params], tmp, m);
                } else if (t.api == 22) {
                    AntiQuantShapeInfo info;
                    info.offsetHeight = info.scaleHeight = m;
                    info.offsetWidth = info.scaleWidth = uint32_t(t.p1);
                    AscendAntiQuant<int8_t, half, true>(zH, x8, yH, yH[params], tmp, n, info);
                } else {
                    AscendAntiQuant<int8_t, half, false>(zH, x8, half(float(t.s1)), half(float(t.s0)), tmp, m);
                }
                break;
            }
            case 24:
            case 25: {
                // AscendAntiQuant, int8_t -> bfloat16_t: 24 offset + scale rows, 25 per tensor.
                const LocalTensor<bfloat16_t> zB = z.ReinterpretCast<bfloat16_t>();
                const LocalTensor<int8_t> x8 = x.ReinterpretCast<int8_t>();
                const LocalTensor<bfloat16_t> yB = y.ReinterpretCast<bfloat16_t>();
                if (t.api == 24) {
                    AscendAntiQuant<int8_t, bfloat16_t, false>(zB, x8, yB, yB[n], tmp, m);
                } else {
                    AscendAntiQuant<int8_t, bfloat16_t, false>(zB, x8, bfloat16_t(float(t.s1)),
                                                               bfloat16_t(float(t.s0)), tmp, m);
                }
                break;
            }
            default: break;
        }
    }

    QTiling t;
    TPipe pipe;
    TQue<TPosition::VECIN, 1> xQ, yQ;
    TQue<TPosition::VECOUT, 1> zQ, wQ;
    TBuf<TPosition::VECCALC> tmpBuf;
    GlobalTensor<uint8_t> xGm, yGm, zGm, wGm;
};

extern "C" __global__ __aicore__ void quant_sort(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w, QTiling tiling)
{
    KernelQuantSort<DTYPE> op;
    op.Init(x, y, z, w, tiling);
    op.Process();
}

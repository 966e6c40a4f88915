// Advanced-API driver for tuner_sim/adv_norm.h: DeepNorm, LayerNormGrad, LayerNormGradBeta, the [A, R]
// LayerNorm, Normalize, WelfordUpdate and WelfordFinalize on an [m, h] block (h 32-byte aligned; oh the real row
// length). Element type from -DDTYPE=...; the API, its form and the temporary space from the tiling struct.
// Each API's own tiling struct is filled in the kernel with its host helper for `work` bytes.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

struct NormTiling {
    uint64_t api;        // see Compute
    uint64_t m, h, oh;   // rows, row length (32-byte aligned), real row length
    uint64_t tmpBytes;   // sharedTmpBuffer (0: the forms without one)
    uint64_t work;       // temporary bytes the API's tiling is computed for
    double eps, alpha;   // epsilon; DeepNorm's alpha, WelfordUpdate's nRec
    uint64_t abCompute;  // WelfordUpdate's abComputeLength
    uint64_t headCount, headCountLength, tailCount, tailCountLength, rnLength;  // WelfordFinalizePara
    double abRec, rRec;
};

constexpr WelfordUpdateConfig kInplace = {true};
constexpr LayerNormConfig kLnNoBeta = {true, false, false, true};
constexpr NormalizeConfig kNlNoGamma = {ReducePattern::AR, -1, false, true, false};
#ifdef NORM_BAD_CONFIG
constexpr LayerNormConfig lnVar = {false, false, false, false};
constexpr NormalizeConfig nlRA = {ReducePattern::RA, -1, false, false, false};
constexpr WelfordFinalizeConfig wfCorr = {true};
#endif

template <typename T>
class KernelNorm {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR gamma, GM_ADDR beta, GM_ADDR a1, GM_ADDR a2,
                                GM_ADDR fa1, GM_ADDR fa2, GM_ADDR cnt, GM_ADDR z, GM_ADDR z2, GM_ADDR t1, GM_ADDR t2,
                                GM_ADDR f1, GM_ADDR f2, GM_ADDR g1, GM_ADDR g2, const NormTiling& tiling)
    {
        t = tiling;
        m = uint32_t(t.m);
        h = uint32_t(t.h);
        n = m * h;
        len = ((m > h ? m : h) + 15) / 16 * 16;  // the [m] / [ab] vectors, 32-byte aligned for half
        xGm.SetGlobalBuffer((__gm__ T*)x, n);
        yGm.SetGlobalBuffer((__gm__ T*)y, n);
        gammaGm.SetGlobalBuffer((__gm__ T*)gamma, h);
        betaGm.SetGlobalBuffer((__gm__ T*)beta, h);
        a1Gm.SetGlobalBuffer((__gm__ T*)a1, len);
        a2Gm.SetGlobalBuffer((__gm__ T*)a2, len);
        fa1Gm.SetGlobalBuffer((__gm__ float*)fa1, len);
        fa2Gm.SetGlobalBuffer((__gm__ float*)fa2, len);
        cntGm.SetGlobalBuffer((__gm__ int32_t*)cnt, len);
        zGm.SetGlobalBuffer((__gm__ T*)z, n);
        z2Gm.SetGlobalBuffer((__gm__ T*)z2, n);
        t1Gm.SetGlobalBuffer((__gm__ T*)t1, len);
        t2Gm.SetGlobalBuffer((__gm__ T*)t2, len);
        f1Gm.SetGlobalBuffer((__gm__ float*)f1, len);
        f2Gm.SetGlobalBuffer((__gm__ float*)f2, len);
        g1Gm.SetGlobalBuffer((__gm__ T*)g1, h);
        g2Gm.SetGlobalBuffer((__gm__ T*)g2, h);
        pipe.InitBuffer(inQ, 2, n * sizeof(T));
        pipe.InitBuffer(vecQ, 1, 2 * h * sizeof(T));
        pipe.InitBuffer(rowQ, 1, 2 * len * sizeof(T));
        pipe.InitBuffer(frowQ, 2, 2 * len * sizeof(float));
        pipe.InitBuffer(outQ, 2, n * sizeof(T));
        pipe.InitBuffer(orowQ, 1, 2 * len * sizeof(T));
        pipe.InitBuffer(forowQ, 1, 2 * len * sizeof(float));
        pipe.InitBuffer(ovecQ, 1, 2 * h * sizeof(T));
        if (t.tmpBytes > 0) pipe.InitBuffer(tmpBuf, uint32_t(t.tmpBytes));
    }
    // Inputs and outputs in pairs ([gamma | beta], [a1 | a2], ...) to stay within the live tensors per position.
    __aicore__ inline void Process()
    {
        LocalTensor<T> x = inQ.AllocTensor<T>(), y = inQ.AllocTensor<T>();
        LocalTensor<T> gb = vecQ.AllocTensor<T>(), a12 = rowQ.AllocTensor<T>();
        LocalTensor<float> fa12 = frowQ.AllocTensor<float>();
        LocalTensor<int32_t> cnt = frowQ.AllocTensor<int32_t>();
        DataCopy(x, xGm, n);
        DataCopy(y, yGm, n);
        DataCopy(gb, gammaGm, h);
        DataCopy(gb[h], betaGm, h);
        DataCopy(a12, a1Gm, len);
        DataCopy(a12[len], a2Gm, len);
        DataCopy(fa12, fa1Gm, len);
        DataCopy(fa12[len], fa2Gm, len);
        DataCopy(cnt, cntGm, len);
        inQ.EnQue(x);
        inQ.EnQue(y);
        vecQ.EnQue(gb);
        rowQ.EnQue(a12);
        frowQ.EnQue(fa12);
        frowQ.EnQue(cnt);
        x = inQ.DeQue<T>();
        y = inQ.DeQue<T>();
        gb = vecQ.DeQue<T>();
        a12 = rowQ.DeQue<T>();
        fa12 = frowQ.DeQue<float>();
        cnt = frowQ.DeQue<int32_t>();
        LocalTensor<T> z = outQ.AllocTensor<T>(), z2 = outQ.AllocTensor<T>();
        LocalTensor<T> t12 = orowQ.AllocTensor<T>(), g12 = ovecQ.AllocTensor<T>();
        LocalTensor<float> f12 = forowQ.AllocTensor<float>();
        Duplicate(z, T(0), int32_t(n));
        Duplicate(z2, T(0), int32_t(n));
        Duplicate(t12, T(0), int32_t(2 * len));
        Duplicate(f12, 0.0f, int32_t(2 * len));
        Duplicate(g12, T(0), int32_t(2 * h));
        LocalTensor<T> gamma = gb, beta = gb[h], a1 = a12, a2 = a12[len], t1 = t12, t2 = t12[len], g1 = g12,
                       g2 = g12[h];
        LocalTensor<float> fa1 = fa12, fa2 = fa12[len], f1 = f12, f2 = f12[len];
        Compute(x, y, gamma, beta, a1, a2, fa1, fa2, cnt, z, z2, t1, t2, f1, f2, g1, g2);
        outQ.EnQue(z);
        outQ.EnQue(z2);
        orowQ.EnQue(t12);
        forowQ.EnQue(f12);
        ovecQ.EnQue(g12);
        inQ.FreeTensor(x);
        inQ.FreeTensor(y);
        vecQ.FreeTensor(gb);
        rowQ.FreeTensor(a12);
        frowQ.FreeTensor(fa12);
        frowQ.FreeTensor(cnt);
        z = outQ.DeQue<T>();
        z2 = outQ.DeQue<T>();
        t12 = orowQ.DeQue<T>();
        f12 = forowQ.DeQue<float>();
        g12 = ovecQ.DeQue<T>();
        DataCopy(zGm, z, n);
        DataCopy(z2Gm, z2, n);
        DataCopy(t1Gm, t12, len);
        DataCopy(t2Gm, t12[len], len);
        DataCopy(f1Gm, f12, len);
        DataCopy(f2Gm, f12[len], len);
        DataCopy(g1Gm, g12, h);
        DataCopy(g2Gm, g12[h], h);
        outQ.FreeTensor(z);
        outQ.FreeTensor(z2);
        orowQ.FreeTensor(t12);
        forowQ.FreeTensor(f12);
        ovecQ.FreeTensor(g12);
    }

private:
    __aicore__ inline void Compute(LocalTensor<T>& x, LocalTensor<T>& y, LocalTensor<T>& gamma, LocalTensor<T>& beta,
                                   LocalTensor<T>& a1, LocalTensor<T>& a2, LocalTensor<float>& fa1,
                                   LocalTensor<float>& fa2, LocalTensor<int32_t>& cnt, LocalTensor<T>& z,
                                   LocalTensor<T>& z2, LocalTensor<T>& t1, LocalTensor<T>& t2, LocalTensor<float>& f1,
                                   LocalTensor<float>& f2, LocalTensor<T>& g1, LocalTensor<T>& g2)
    {
        LocalTensor<uint8_t> tmp;
        if (t.tmpBytes > 0) tmp = tmpBuf.Get<uint8_t>();
        const uint32_t oh = uint32_t(t.oh), work = uint32_t(t.work);
        const T eps = T(float(t.eps));
        std::vector<int64_t> bsh = {1, int64_t(m), int64_t(h)}, obsh = {1, int64_t(m), int64_t(oh)};
        std::vector<int64_t> bsh4 = {1, int64_t(m), int64_t(h), int64_t(oh)}, ar = {int64_t(m), int64_t(oh)};
        DeepNormTiling dn;
        GetDeepNormTilingInfo(TensorShape(bsh), TensorShape(obsh), work, sizeof(T), false, false, dn);
        LayerNormGradTiling lg;
        GetLayerNormGradNDTilingInfo(TensorShape(bsh4), work, sizeof(T), false, lg);
        LayerNormGradBetaTiling lb;
        GetLayerNormGradBetaNDTilingInfo(TensorShape(bsh4), work, sizeof(T), false, lb);
        LayerNormSeparateTiling ls;
        GetLayerNormNDTilingInfo(TensorShape(ar), work, sizeof(T), false, true, ls);
        LayerNormPara lp = {m, oh, h};
        NormalizePara np = {m, oh, h};
        WelfordUpdateParam wu = {1, h, uint32_t(t.abCompute), float(t.alpha)};
        WelfordFinalizePara wf = {uint32_t(t.rnLength),        h,
                                  uint32_t(t.headCount),       uint32_t(t.headCountLength),
                                  uint32_t(t.tailCount),       uint32_t(t.tailCountLength),
                                  float(t.abRec),              float(t.rRec),
                                  0.0f};
        const T alpha = T(float(t.alpha));
        switch (t.api) {
            // DeepNorm(x, gx = y): out z, mean t1, variance t2
            case 0: DeepNorm<T>(z, t1, t2, x, y, beta, gamma, tmp, alpha, eps, dn); break;
            case 1: DeepNorm<T>(z, t1, t2, x, y, beta, gamma, alpha, eps, dn); break;
            // LayerNormGrad(dy = y, x, variance a2, mean a1, gamma): pd_x z, res_for_gamma z2
            case 2: LayerNormGrad<T>(z, z2, y, x, a2, a1, gamma, tmp, eps, lg); break;
            case 3: LayerNormGrad<T>(z, z2, y, x, a2, a1, gamma, eps, lg); break;
            // LayerNormGradBeta(res_for_gamma = x, dy = y): pd_gamma g1, pd_beta g2
            case 4: LayerNormGradBeta<T>(g1, g2, x, y, tmp, lb); break;
            case 5: LayerNormGradBeta<T>(g1, g2, x, y, lb); break;
            // [A, R] LayerNorm: out z, mean f1, rstd f2
            case 6: LayerNorm<T, T>(z, f1, f2, x, gamma, beta, float(t.eps), tmp, lp, ls); break;
            case 7: LayerNorm<T, T>(z, f1, f2, x, gamma, beta, float(t.eps), lp, ls); break;
            case 8: LayerNorm<T, T, false, kLnNoBeta>(z, f1, f2, x, gamma, beta, float(t.eps), tmp, lp, ls); break;
            // Normalize(mean fa1, variance fa2): out z, rstd f2
            case 9: Normalize<T, T>(z, f2, fa1, fa2, x, gamma, beta, tmp, float(t.eps), np); break;
            case 10: Normalize<T, T>(z, f2, fa1, fa2, x, gamma, beta, float(t.eps), np); break;
            case 11: Normalize<T, T, false, kNlNoGamma>(z, f2, fa1, fa2, x, gamma, beta, tmp, float(t.eps), np); break;
            // WelfordUpdate(inMean fa1, inVar fa2, x's first row): mean f1, variance f2
            case 12: WelfordUpdate<T, float, false, kInplace>(f1, f2, fa1, fa2, x, tmp, wu); break;
            case 13: WelfordUpdate<T, float>(f1, f2, fa1, fa2, x, wu); break;
            // WelfordFinalize(inMean fa1, inVar fa2[, counts]): mean f1, variance f2
            case 14: WelfordFinalize<false>(f1, f2, fa1, fa2, tmp, wf); break;
            case 15: WelfordFinalize<false>(f1, f2, fa1, fa2, cnt, tmp, wf); break;
            case 16: WelfordFinalize<false>(f1, f2, fa1, fa2, wf); break;
            case 17:  // DeepNorm with isReuseSrc (float only): x is overwritten
                if constexpr (sizeof(T) == 4) {
                    DeepNormTiling dr;
                    GetDeepNormTilingInfo(TensorShape(bsh), TensorShape(obsh), work, sizeof(T), true, false, dr);
                    DeepNorm<T, true>(z, t1, t2, x, y, beta, gamma, tmp, alpha, eps, dr);
                }
                break;
            // BatchNorm over the m rows (B = m, S*H = h; gamma and beta the first m elements): out z, mean t1,
            // variance t2
            case 18: {
                BatchNormTiling bn;
                std::vector<int64_t> bsh1 = {int64_t(m), 1, int64_t(h)};
                GetBatchNormNDTilingInfo(TensorShape(bsh1), TensorShape(bsh1), work, sizeof(T), false, bn);
                if (t.tmpBytes > 0) {
                    BatchNorm<T>(z, t1, t2, x, gamma, beta, tmp, eps, bn);
                } else {
                    BatchNorm<T>(z, t1, t2, x, gamma, beta, eps, bn);
                }
                break;
            }
#ifdef NORM_BAD_CONFIG  // options the A2 implementation does not have: each a compile error naming the API
            case 99: {
                LayerNorm<T, T, false, lnVar>(z, f1, f2, x, gamma, beta, float(t.eps), tmp, lp, ls);
                Normalize<T, T, false, nlRA>(z, f2, fa1, fa2, x, gamma, beta, tmp, float(t.eps), np);
                WelfordFinalize<false, wfCorr>(f1, f2, fa1, fa2, tmp, wf);
                break;
            }
#endif
            default: break;
        }
    }

    NormTiling t;
    uint32_t m = 0, h = 0, n = 0, len = 0;
    TPipe pipe;
    TQue<TPosition::VECIN, 2> inQ, frowQ;
    TQue<TPosition::VECIN, 1> vecQ, rowQ;
    TQue<TPosition::VECOUT, 2> outQ;
    TQue<TPosition::VECOUT, 1> orowQ, forowQ, ovecQ;
    TBuf<TPosition::VECCALC> tmpBuf;
    GlobalTensor<T> xGm, yGm, gammaGm, betaGm, a1Gm, a2Gm, zGm, z2Gm, t1Gm, t2Gm, g1Gm, g2Gm;
    GlobalTensor<float> fa1Gm, fa2Gm, f1Gm, f2Gm;
    GlobalTensor<int32_t> cntGm;
};

extern "C" __global__ __aicore__ void norm_apis(GM_ADDR x, GM_ADDR y, GM_ADDR gamma, GM_ADDR beta, GM_ADDR a1,
                                                GM_ADDR a2, GM_ADDR fa1, GM_ADDR fa2, GM_ADDR cnt, GM_ADDR z,
                                                GM_ADDR z2, GM_ADDR t1, GM_ADDR t2, GM_ADDR f1, GM_ADDR f2,
                                                GM_ADDR g1, GM_ADDR g2, NormTiling tiling)
{
    KernelNorm<DTYPE> op;
    op.Init(x, y, gamma, beta, a1, a2, fa1, fa2, cnt, z, z2, t1, t2, f1, f2, g1, g2, tiling);
    op.Process();
}

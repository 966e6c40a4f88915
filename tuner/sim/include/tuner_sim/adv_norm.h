// Ascend C's normalization APIs beyond adv_rows.h's RmsNorm and [B, S, H] LayerNorm: DeepNorm, BatchNorm,
// LayerNormGrad, LayerNormGradBeta, the [A, R] LayerNorm with rstd output (LayerNormPara / LayerNormSeparateTiling /
// LayerNormConfig), Normalize, WelfordUpdate and WelfordFinalize (docs: asc-devkit docs/zh/api/SIMD-API/
// 高阶API/归一化操作/<API>.md; tiling structs and host helpers in adv_norm_host.h). Each is expanded into basic
// vector APIs on the caller's tensors and temporary space, with adv_rows.h's row pieces (row_reduce,
// row_broadcast, row_apply, row_vec): rows reduced with folds and WholeReduceSum, per-row values broadcast to
// one 32-byte block per row (Brcb) and applied with strided binary ops. Computation is in float; half is
// widened first. A temporary space below what the tiling's rows per pass need is an out-of-bounds fault
// (sharedTmpBuffer) or ub-overflow (the forms that take the UB left after InitBuffer).
#pragma once
#include "adv_rows.h"

namespace AscendC {

// layernorm_utils.h / normalize_utils.h
struct LayerNormConfig {
    bool isNoBeta = false;
    bool isNoGamma = false;
    bool isOnlyOutput = false;
    bool isOutputRstd = true;
};
constexpr LayerNormConfig LNCFG_NORM = {false, false, false, true};
struct LayerNormPara {
    uint32_t aLength;
    uint32_t rLength;
    uint32_t rLengthWithPadding;
};
// ReducePattern: adv_reduce_host.h (from adv_host.h).
struct NormalizeConfig {
    ReducePattern reducePattern = ReducePattern::AR;
    int32_t aLength = -1;
    bool isNoBeta = false;
    bool isNoGamma = false;
    bool isOnlyOutput = false;
};
constexpr NormalizeConfig NLCFG_NORM = {ReducePattern::AR, -1, false, false, false};
constexpr NormalizeConfig NLCFG_NOBETA = {ReducePattern::AR, -1, true, false, false};
constexpr NormalizeConfig NLCFG_NOGAMMA = {ReducePattern::AR, -1, false, true, false};
constexpr NormalizeConfig NLCFG_NOOPT = {ReducePattern::AR, -1, true, true, false};
struct NormalizePara {
    uint32_t aLength;
    uint32_t rLength;
    uint32_t rLengthWithPadding;
};
struct WelfordUpdateConfig {
    __aicore__ constexpr WelfordUpdateConfig(const bool isInplaceIn) : isInplace(isInplaceIn) {}
    bool isInplace = false;
};
constexpr WelfordUpdateConfig WFUPDATE_DEFAULT_CFG = {false};
struct WelfordUpdateParam {
    uint32_t rnLength;
    uint32_t abLength;
    uint32_t abComputeLength;
    float nRec;
};
struct WelfordFinalizeConfig {
    __aicore__ constexpr WelfordFinalizeConfig(const bool isCorrectionIn) : isCorrection(isCorrectionIn) {}
    bool isCorrection = false;
};
constexpr WelfordFinalizeConfig WFFINALIZE_DEFAULT_CFG = {false};
struct WelfordFinalizePara {
    uint32_t rnLength;
    uint32_t abLength;
    uint32_t headCount;
    uint32_t headCountLength;
    uint32_t tailCount;
    uint32_t tailCountLength;
    float abRec;
    float rRec;
    float rRecWithCorrection;
};
struct LayerNormGradShapeInfo {
    DataFormat dataFormat = DataFormat::ND;
};

namespace adv {
// dst[r, :] = src[r, :] op v for the m rows of h floats (v: h floats restarting at each row), strided like
// row_vec; a count-form op per row for the rows strided repeats cannot reach.
TUNER_SIM_UNCHARGED
inline void rows_vec(VecOp op, const LocalTensor<float>& dst, const LocalTensor<float>& src,
                     const LocalTensor<float>& v, uint32_t m, uint32_t h, Loc loc) {
    const uint32_t strided = strided_ok(v, 1, h) ? std::min(strided_ok(dst, m, h), strided_ok(src, m, h)) : 0;
    const uint8_t rowBlocks = uint8_t(std::min(h / kBlkFloats, kMaxRepeat));
    const BinaryRepeatParams p(1, 1, 1, rowBlocks, rowBlocks, 0);
    for (uint32_t r0 = 0; r0 < strided; r0 += kMaxRepeat) {
        const uint8_t rows = uint8_t(std::min(kMaxRepeat, strided - r0));
        for (uint32_t c = 0; c < h; c += kLanes) {
            const uint64_t lanes = std::min(kLanes, h - c);
            if (op == VecOp::Mul) {
                Mul(dst[r0 * h + c], src[r0 * h + c], v[c], lanes, rows, p, loc);
            } else {
                Add(dst[r0 * h + c], src[r0 * h + c], v[c], lanes, rows, p, loc);
            }
        }
    }
    for (uint32_t r = strided; r < m; ++r) {
        if (op == VecOp::Mul) {
            Mul(dst[r * h], src[r * h], v, int32_t(h), loc);
        } else {
            Add(dst[r * h], src[r * h], v, int32_t(h), loc);
        }
    }
}
// out[0..m) = in[0..m) as float: one vector copy (widening Cast for half) when in starts on 32 bytes, else
// element by element on the scalar unit (a pass whose first row is not block-aligned in a [rows] input).
template <typename T>
TUNER_SIM_UNCHARGED
inline void load_rows(const LocalTensor<float>& out, const LocalTensor<T>& in, uint32_t m, Loc loc) {
    if (in.tuner_off() % 32 != 0) {
        for (uint32_t r = 0; r < m; ++r) out.SetValue(r, float(in.GetValue(r, loc)), loc);
    } else if constexpr (sizeof(T) == 2) {
        widen(out, in, m, loc);
    } else {
        Adds(out, in, 0.0f, int32_t(m), loc);
    }
}
// red[r] = the sum of the first k of the h floats of row r of x (k = h: row_reduce; k < h, the rows padded
// to 32 bytes: one count-form ReduceSum per row over the real length, as asc-devkit's reduce over
// originalHLength). x is used as the fold space.
TUNER_SIM_UNCHARGED inline void reduce_rows(const LocalTensor<float>& red, const LocalTensor<float>& x, uint32_t m,
                                            uint32_t h, uint32_t k, Loc loc) {
    if (k >= h) {
        row_reduce(RowOp::Sum, red, x, x, m, h, loc);
        return;
    }
    for (uint32_t r = 0; r < m; ++r) ReduceSum(red[r], x[r * h], x[r * h], int32_t(k), loc);
}
TUNER_SIM_UNCHARGED
inline void tmp_fault(const char* api, const LocalTensor<uint8_t>& tmp, uint32_t need, const char* what, bool own) {
    if (tmp.GetSize() >= need) return;
    tuner_sim::fault(own ? tuner_sim::FaultClass::UbOverflow : tuner_sim::FaultClass::OutOfBounds,
                     "%s: %s holds %u bytes; %s need %u", api,
                     own ? "the UB left after InitBuffer" : "sharedTmpBuffer", tmp.GetSize(), what, need);
}

// ---- DeepNorm (DeepNorm.md): LayerNorm(alpha * x + gx) over the H axis of [B, S, H], mean and variance out.
// (The doc's third output is named rstd, but its example and asc-devkit's example both give the variance.)
// Per pass of tiling.bsCurLength rows, in float: x1 = alpha * x + gx (in src itself with isReuseSrc), x1 - mean,
// the squares (also the folds and the row blocks) and the mean / rstd rows (deepnorm_floats). The mean and
// variance sums run over originalHLength elements of a row. For half, gamma and beta are widened into the
// planes free by then and applied in float, as asc-devkit's GetLayerNormOutput<half> does. Difference from
// asc-devkit's expansion, as for adv_rows.h's LayerNorm: rstd is computed on the [B*S] variances (Adds, Rsqrt).
template <typename T, bool isReuseSrc, bool isBasicBlock>
TUNER_SIM_UNCHARGED inline void deepnorm(const LocalTensor<T>& dst, const LocalTensor<T>& meanOut,
                                         const LocalTensor<T>& varOut, const LocalTensor<T>& src,
                                         const LocalTensor<T>& gx, const LocalTensor<T>& beta,
                                         const LocalTensor<T>& gamma, const LocalTensor<uint8_t>& tmp, T alpha,
                                         T epsilon, const DeepNormTiling& tiling, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(DeepNorm, T);
    static_assert(!(isReuseSrc && sizeof(T) == 2), "DeepNorm: isReuseSrc is supported for float input only");
    tuner_sim::api_site("DeepNorm", loc);
    const uint32_t h = tiling.hLength, rows = tiling.bLength * tiling.sLength, split = tiling.bsCurLength;
    const uint32_t oh = tiling.originalHLength ? tiling.originalHLength : h;
    if (split == 0 || h == 0 || oh > h) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "DeepNorm: the tiling has bsCurLength %u, hLength %u, originalHLength %u; fill it with "
                         "GetDeepNormTilingInfo",
                         split, h, oh);
    }
    if (h * sizeof(T) % 32 != 0 || h > 2040) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "DeepNorm: H = %u must be 32-byte aligned and at most 2040", h);
    }
    if (isBasicBlock && (h % 64 != 0 || oh != h || rows % 8 != 0)) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "DeepNorm: isBasicBlock needs H %% 64 == 0, originalH == H and B*S %% 8 == 0 (H %u, B*S %u)",
                         h, rows);
    }
    tmp_fault("DeepNorm", tmp, deepnorm_floats(split, h, isReuseSrc) * 4,
              "tiling.bsCurLength rows (GetDeepNormTilingInfo)", own);
    const float invH = tiling.lastDimValueBack != 0.0f ? tiling.lastDimValueBack : 1.0f / float(oh);
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    const uint32_t x1Plane = isReuseSrc ? 0 : split * h;
    const LocalTensor<float> xm = f[x1Plane], sq = xm[split * h];
    const LocalTensor<float> mean = sq[rms_sq_floats(split, h)], var = mean[align8(split)];
    for (uint32_t row0 = 0; row0 < rows; row0 += split) {
        const uint32_t m = std::min(split, rows - row0), n = m * h;
        LocalTensor<float> x1 = f;
        if constexpr (sizeof(T) == 2) {
            widen(x1, src[row0 * h], n, loc);
            widen(xm, gx[row0 * h], n, loc);
            Muls(x1, x1, float(alpha), int32_t(n), loc);
            Add(x1, xm, x1, int32_t(n), loc);
        } else if constexpr (isReuseSrc) {
            x1 = src[row0 * h];
            Muls(x1, x1, alpha, int32_t(n), loc);
            Add(x1, gx[row0 * h], x1, int32_t(n), loc);
        } else {
            Muls(xm, src[row0 * h], alpha, int32_t(n), loc);
            Add(x1, gx[row0 * h], xm, int32_t(n), loc);
        }
        Muls(sq, x1, invH, int32_t(n), loc);
        reduce_rows(mean, sq, m, h, oh, loc);
        row_broadcast(sq, mean, m, loc);
        row_apply(ApplyOp::Sub, xm, x1, sq, 1, m, h, loc);
        Mul(sq, xm, xm, int32_t(n), loc);
        Muls(sq, sq, invH, int32_t(n), loc);
        reduce_rows(var, sq, m, h, oh, loc);
        store_rows(meanOut[row0], mean, m, loc);
        store_rows(varOut[row0], var, m, loc);
        Adds(var, var, float(epsilon), int32_t(m), loc);
        Rsqrt(var, var, int32_t(m), loc);
        row_broadcast(sq, var, m, loc);
        if constexpr (sizeof(T) == 2) {
            row_apply(ApplyOp::Mul, x1, xm, sq, 1, m, h, loc);
            widen(xm, gamma, h, loc);
            widen(sq, beta, h, loc);
            rows_vec(VecOp::Mul, x1, x1, xm, m, h, loc);
            rows_vec(VecOp::Add, x1, x1, sq, m, h, loc);
            narrow(dst[row0 * h], x1, n, loc);
        } else {
            const LocalTensor<float> y = dst[row0 * h];
            row_apply(ApplyOp::Mul, y, xm, sq, 1, m, h, loc);
            row_vec(VecOp::Mul, y, gamma, m, h, loc);
            row_vec(VecOp::Add, y, beta, m, h, loc);
        }
    }
}

// ---- BatchNorm (BatchNorm.md): over the B axis of [B, S*H], mean[c] = sum_b x[b, c] / B, variance[c] =
// sum_b (x[b, c] - mean[c])^2 / B, y[b, c] = gamma[b] * (x[b, c] - mean[c]) / sqrt(variance[c] + eps) + beta[b]
// (gamma and beta of shape [B]). Per pass of tiling.shCurLength columns, in float (batchnorm_floats): x / B and
// x - mean (B rows of the pass's columns), their squares, the rstd columns (Adds, Rsqrt); for half also x
// widened and the mean / variance columns. Rows are summed with count-form Adds; gamma[b] and beta[b] are read
// on the scalar unit and applied with Muls / Adds per row.
template <typename T, bool isBasicBlock>
TUNER_SIM_UNCHARGED inline void batchnorm(const LocalTensor<T>& out, const LocalTensor<T>& meanOut,
                                          const LocalTensor<T>& varOut, const LocalTensor<T>& x,
                                          const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
                                          const LocalTensor<uint8_t>& tmp, T epsilon, const BatchNormTiling& tiling,
                                          bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(BatchNorm, T);
    tuner_sim::api_site("BatchNorm", loc);
    const uint32_t b = tiling.originalBLength, sh = tiling.meanVarSize, w = tiling.shCurLength;
    if (b == 0 || sh == 0 || w == 0 || w * sizeof(T) % 32 != 0 || sh * sizeof(T) % 32 != 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "BatchNorm: the tiling has originalBLength %u, S*H %u, shCurLength %u (32-byte aligned); "
                         "fill it with GetBatchNormNDTilingInfo",
                         b, sh, w);
    }
    if (isBasicBlock && (sh % 64 != 0 || b % 8 != 0)) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "BatchNorm: isBasicBlock needs S*H %% 64 == 0 and B %% 8 == 0 (S*H %u, B %u)", sh, b);
    }
    tmp_fault("BatchNorm", tmp, batchnorm_floats(b, w, sizeof(T)) * 4,
              "tiling.shCurLength columns (GetBatchNormNDTilingInfo)", own);
    const float invB = tiling.firstDimValueBack != 0.0f ? tiling.firstDimValueBack : 1.0f / float(b);
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    const LocalTensor<float> p = f, q = f[b * w], rstd = q[b * w], xw = rstd[w], mw = xw[b * w], vw = mw[w];
    for (uint32_t c0 = 0; c0 < sh; c0 += w) {
        const int32_t k = int32_t(std::min(w, sh - c0));
        auto row = [&](uint32_t r) -> LocalTensor<float> {  // x[r, c0 ..] as float
            if constexpr (sizeof(T) == 2) {
                return xw[r * w];
            } else {
                return x[r * sh + c0];
            }
        };
        LocalTensor<float> mean, var;
        if constexpr (sizeof(T) == 2) {
            for (uint32_t r = 0; r < b; ++r) widen(xw[r * w], x[r * sh + c0], uint32_t(k), loc);
            mean = mw;
            var = vw;
        } else {
            mean = meanOut[c0];
            var = varOut[c0];
        }
        for (uint32_t r = 0; r < b; ++r) Muls(p[r * w], row(r), invB, k, loc);
        Adds(mean, p, 0.0f, k, loc);
        for (uint32_t r = 1; r < b; ++r) Add(mean, mean, p[r * w], k, loc);
        for (uint32_t r = 0; r < b; ++r) Sub(p[r * w], row(r), mean, k, loc);
        for (uint32_t r = 0; r < b; ++r) Mul(q[r * w], p[r * w], p[r * w], k, loc);
        for (uint32_t r = 0; r < b; ++r) Muls(q[r * w], q[r * w], invB, k, loc);
        Adds(var, q, 0.0f, k, loc);
        for (uint32_t r = 1; r < b; ++r) Add(var, var, q[r * w], k, loc);
        Adds(rstd, var, float(epsilon), k, loc);
        Rsqrt(rstd, rstd, k, loc);
        for (uint32_t r = 0; r < b; ++r) {
            const float g = float(gamma.GetValue(r, loc)), be = float(beta.GetValue(r, loc));
            Mul(p[r * w], p[r * w], rstd, k, loc);
            Muls(p[r * w], p[r * w], g, k, loc);
            if constexpr (sizeof(T) == 2) {
                Adds(p[r * w], p[r * w], be, k, loc);
                narrow(out[r * sh + c0], p[r * w], uint32_t(k), loc);
            } else {
                Adds(out[r * sh + c0], p[r * w], be, k, loc);
            }
        }
        if constexpr (sizeof(T) == 2) {
            narrow(meanOut[c0], mean, uint32_t(k), loc);
            narrow(varOut[c0], var, uint32_t(k), loc);
        }
    }
}

// ---- LayerNormGrad (LayerNormGrad.md): pd_x and res_for_gamma of [B, S, H] from dy, x, variance, mean, gamma.
// Per pass of tiling.nohCalSize rows, in float (lngrad_floats): x1 = dy * gamma, x2 = x - mean, a product
// plane, the row blocks and the rows rstd = 1 / sqrt(variance + eps) (Adds, Sqrt, Div), pd_var, pd_mean and
// two sums (over originalHLength elements); for half also dy, x and gamma widened. Steps as the doc's
// ComputePdX1 .. ComputePdX.
template <typename T, bool isReuseSource>
TUNER_SIM_UNCHARGED inline void layernorm_grad(const LocalTensor<T>& pdX, const LocalTensor<T>& resForGamma,
                                               const LocalTensor<T>& dy, const LocalTensor<T>& x,
                                               const LocalTensor<T>& variance, const LocalTensor<T>& mean,
                                               const LocalTensor<T>& gamma, const LocalTensor<uint8_t>& tmp,
                                               T epsilon, const LayerNormGradTiling& tiling, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(LayerNormGrad, T);
    static_assert(!(isReuseSource && sizeof(T) == 2), "LayerNormGrad: isReuseSource is supported for float only");
    tuner_sim::api_site("LayerNormGrad", loc);
    const uint32_t h = tiling.hLength, rows = tiling.bLength * tiling.sLength, split = tiling.nohCalSize;
    const uint32_t oh = tiling.originalHLength ? std::min(tiling.originalHLength, h) : h;
    if (split == 0 || h == 0 || h * sizeof(T) % 32 != 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "LayerNormGrad: the tiling has nohCalSize %u, hLength %u (32-byte aligned); fill it with "
                         "GetLayerNormGradNDTilingInfo",
                         split, h);
    }
    tmp_fault("LayerNormGrad", tmp, lngrad_floats(split, h, sizeof(T)) * 4,
              "tiling.nohCalSize rows (GetLayerNormGradNDTilingInfo)", own);
    const float invH = 1.0f / float(oh);
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    const uint32_t sh = split * h, a8 = align8(split);
    const LocalTensor<float> x1 = f, x2 = f[sh], prod = f[2 * sh], brc = f[3 * sh];
    const LocalTensor<float> rstd = brc[a8 * kBlkFloats], pdVar = rstd[a8], pdMean = pdVar[a8], s1 = pdMean[a8],
                             s2 = s1[a8];
    const LocalTensor<float> dyW = s2[a8], xW = dyW[sh], gammaW = xW[sh];
    LocalTensor<float> g;
    if constexpr (sizeof(T) == 2) {
        widen(gammaW, gamma, h, loc);
        g = gammaW;
    } else {
        g = gamma;
    }
    for (uint32_t row0 = 0; row0 < rows; row0 += split) {
        const uint32_t m = std::min(split, rows - row0), n = m * h;
        const LocalTensor<float> dyf = rows_as_float(dy[row0 * h], dyW, n, loc);
        const LocalTensor<float> xf = rows_as_float(x[row0 * h], xW, n, loc);
        // ComputePdX1 / ComputePdX2: x1 = dy * gamma, x2 = x - mean
        rows_vec(VecOp::Mul, x1, dyf, g, m, h, loc);
        load_rows(s1, mean[row0], m, loc);
        row_broadcast(brc, s1, m, loc);
        row_apply(ApplyOp::Sub, x2, xf, brc, 1, m, h, loc);
        // rstd = (variance + eps)^-0.5
        load_rows(rstd, variance[row0], m, loc);
        Adds(rstd, rstd, float(epsilon), int32_t(m), loc);
        Sqrt(rstd, rstd, int32_t(m), loc);
        Duplicate(s2, 1.0f, int32_t(m), loc);
        Div(rstd, s2, rstd, int32_t(m), loc);
        // ComputePdVar: pd_var = sum(-0.5 * x1 * x2) * rstd^3
        Mul(prod, x1, x2, int32_t(n), loc);
        Muls(prod, prod, -0.5f, int32_t(n), loc);
        reduce_rows(s1, prod, m, h, oh, loc);
        Mul(pdVar, rstd, rstd, int32_t(m), loc);
        Mul(pdVar, pdVar, rstd, int32_t(m), loc);
        Mul(pdVar, pdVar, s1, int32_t(m), loc);
        // ComputePdMean: pd_mean = sum(-x1 * rstd) + pd_var / H * sum(-2 * x2); res_for_gamma = x2 * rstd
        row_broadcast(brc, rstd, m, loc);
        row_apply(ApplyOp::Mul, prod, x1, brc, 1, m, h, loc);
        Muls(prod, prod, -1.0f, int32_t(n), loc);
        reduce_rows(s1, prod, m, h, oh, loc);
        Muls(prod, x2, -2.0f, int32_t(n), loc);
        reduce_rows(s2, prod, m, h, oh, loc);
        Mul(pdMean, pdVar, s2, int32_t(m), loc);
        Muls(pdMean, pdMean, invH, int32_t(m), loc);
        Add(pdMean, pdMean, s1, int32_t(m), loc);
        const LocalTensor<float> res =
            sizeof(T) == 2 ? prod : resForGamma[row0 * h].template ReinterpretCast<float>();
        row_apply(ApplyOp::Mul, res, x2, brc, 1, m, h, loc);
        rows_out(resForGamma[row0 * h], res, n, loc);
        // ComputePdX: pd_x = x1 * rstd + pd_var * 2 / H * x2 + pd_mean / H
        row_apply(ApplyOp::Mul, x1, x1, brc, 1, m, h, loc);
        Muls(s1, pdVar, 2.0f * invH, int32_t(m), loc);
        row_broadcast(brc, s1, m, loc);
        row_apply(ApplyOp::Mul, x2, x2, brc, 1, m, h, loc);
        Add(x1, x1, x2, int32_t(n), loc);
        Muls(s1, pdMean, -invH, int32_t(m), loc);
        row_broadcast(brc, s1, m, loc);
        const LocalTensor<float> out = sizeof(T) == 2 ? x1 : pdX[row0 * h].template ReinterpretCast<float>();
        row_apply(ApplyOp::Sub, out, x1, brc, 1, m, h, loc);
        rows_out(pdX[row0 * h], out, n, loc);
    }
}

// ---- LayerNormGradBeta (LayerNormGradBeta.md): pd_gamma = sum over B, S of dy * res_for_gamma, pd_beta = sum of
// dy. Per pass of tiling.bsCurLength rows: the products in one float plane (float) or the widened dy and
// res_for_gamma planes and two float sums (half), each row added to the sums with a count-form Add.
template <typename T, bool isReuseSource>
TUNER_SIM_UNCHARGED inline void layernorm_grad_beta(const LocalTensor<T>& pdGamma, const LocalTensor<T>& pdBeta,
                                                    const LocalTensor<T>& resForGamma, const LocalTensor<T>& dy,
                                                    const LocalTensor<uint8_t>& tmp,
                                                    const LayerNormGradBetaTiling& tiling, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(LayerNormGradBeta, T);
    static_assert(!(isReuseSource && sizeof(T) == 2),
                  "LayerNormGradBeta: isReuseSource is supported for float only");
    tuner_sim::api_site("LayerNormGradBeta", loc);
    const uint32_t h = tiling.hLength, rows = tiling.bLength * tiling.sLength, split = tiling.bsCurLength;
    if (split == 0 || h == 0 || h * sizeof(T) % 32 != 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "LayerNormGradBeta: the tiling has bsCurLength %u, hLength %u (32-byte aligned); fill it "
                         "with GetLayerNormGradBetaNDTilingInfo",
                         split, h);
    }
    tmp_fault("LayerNormGradBeta", tmp, lngradbeta_floats(split, h, sizeof(T)) * 4,
              "tiling.bsCurLength rows (GetLayerNormGradBetaNDTilingInfo)", own);
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    LocalTensor<float> accG, accB, prod, dyW, resW;
    if constexpr (sizeof(T) == 2) {
        accG = f;
        accB = f[align8(h)];
        dyW = f[2 * align8(h)];
        resW = dyW[split * h];
        prod = resW;
    } else {
        accG = pdGamma;
        accB = pdBeta;
        prod = f;
    }
    Duplicate(accG, 0.0f, int32_t(h), loc);
    Duplicate(accB, 0.0f, int32_t(h), loc);
    for (uint32_t row0 = 0; row0 < rows; row0 += split) {
        const uint32_t m = std::min(split, rows - row0), n = m * h;
        const LocalTensor<float> dyf = rows_as_float(dy[row0 * h], dyW, n, loc);
        const LocalTensor<float> rf = rows_as_float(resForGamma[row0 * h], resW, n, loc);
        Mul(prod, dyf, rf, int32_t(n), loc);
        for (uint32_t r = 0; r < m; ++r) {
            Add(accG, accG, prod[r * h], int32_t(h), loc);
            Add(accB, accB, dyf[r * h], int32_t(h), loc);
        }
    }
    if constexpr (sizeof(T) == 2) {
        narrow(pdGamma, accG, h, loc);
        narrow(pdBeta, accB, h, loc);
    }
}

// ---- Normalize (Normalize.md): rstd = 1 / sqrt(variance + eps) (Adds, Sqrt, Div over [A]); y = (x - mean) * rstd *
// gamma + beta over [A, R] rows (rLengthWithPadding apart). Per pass the temporary space holds, in float: x
// widened (half; float rows are computed in the output) and the row blocks, after gamma and beta widened when U
// is half; as many rows per pass as it holds (a multiple of 8 when not all). When not even one row's blocks fit
// (a small R at the minimum size), or a pass does not start on a block of the [A] inputs, each row reads its
// mean and rstd on the scalar unit (Adds, Muls).
template <typename U, typename T, bool noBeta, bool noGamma>
TUNER_SIM_UNCHARGED inline void normalize(const LocalTensor<T>& out, const LocalTensor<float>& rstdOut,
                                          const LocalTensor<float>& mean, const LocalTensor<float>& variance,
                                          const LocalTensor<T>& x, const LocalTensor<U>& gamma,
                                          const LocalTensor<U>& beta, const LocalTensor<uint8_t>& tmp, float epsilon,
                                          const NormalizePara& para, const char* api, bool own, Loc loc) {
    static_assert(half_or_float<U>, "Normalize: gamma and beta are half or float");
    static_assert(sizeof(U) >= sizeof(T), "Normalize: gamma and beta (U) must be no less precise than x (T)");
    const uint32_t a = para.aLength, r = para.rLength, rp = para.rLengthWithPadding;
    if (a == 0 || r == 0 || r > rp || rp * sizeof(T) % 32 != 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "%s: aLength %u, rLength %u, rLengthWithPadding %u (32-byte aligned, >= rLength)", api, a, r,
                         rp);
    }
    // normalize_tiling_impl.cpp's minimum: max(A, 2 R) floats, 4 R when U is half.
    const uint32_t minBytes = std::max(blk_floats(a * 4), (sizeof(U) == 2 ? 4 : 2) * blk_floats(rp * 4)) * 4;
    if (tmp.GetSize() < minBytes) {
        tmp_fault(api, tmp, minBytes, "the Normalize minimum (GetNormalizeMaxMinTmpSize)", own);
    }
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    const uint32_t base = sizeof(U) == 2 ? 2 * rp : 0;
    // Rows per pass: the widened x (half) and the row blocks of the strided path; when not even one row's
    // blocks fit (a small R at the minimum size), the per-row path, which needs no blocks.
    const uint32_t floats = tmp.GetSize() / 4 - base, xPlane = sizeof(T) == 2 ? rp : 0;
    uint32_t m = rows_fitting(a, floats, [rp, xPlane](uint32_t k) { return k * xPlane + rms_sq_floats(k, rp); });
    const bool perRowOnly = m == 0;
    if (perRowOnly) m = xPlane ? rows_fitting(a, floats, [xPlane](uint32_t k) { return k * xPlane; }) : a;
    // rstd = 1 / Sqrt(variance + eps) (Adds, Sqrt, Div by a row of ones, as asc-devkit does), before gamma and
    // beta take the space.
    Adds(rstdOut, variance, epsilon, int32_t(a), loc);
    Sqrt(rstdOut, rstdOut, int32_t(a), loc);
    Duplicate(f, 1.0f, int32_t(a), loc);
    Div(rstdOut, f, rstdOut, int32_t(a), loc);
    LocalTensor<float> g, b;
    if constexpr (sizeof(U) == 2) {
        g = f;
        b = f[rp];
        if (!noGamma) widen(g, gamma, rp, loc);
        if (!noBeta) widen(b, beta, rp, loc);
    } else {
        g = gamma;
        b = beta;
    }
    const LocalTensor<float> w = f[base], brc = w[m * xPlane];
    // Brcb reads the [A] rows in blocks of 8: from a block-aligned pass start within the tensor's buffer.
    auto blocks_ok = [](const LocalTensor<float>& t, uint32_t a0, uint32_t k) {
        return a0 % kBlkFloats == 0 && t.tuner_off() + (a0 + align8(k)) * 4 <= t.tuner_buf_end();
    };
    for (uint32_t a0 = 0; a0 < a; a0 += m) {
        const uint32_t k = std::min(m, a - a0), n = k * rp;
        LocalTensor<float> xf, y;
        if constexpr (sizeof(T) == 2) {
            widen(w, x[a0 * rp], n, loc);
            xf = y = w;
        } else {
            xf = x[a0 * rp];
            y = out[a0 * rp];
        }
        if (!perRowOnly && blocks_ok(mean, a0, k) && blocks_ok(rstdOut, a0, k)) {
            row_broadcast(brc, mean[a0], k, loc);
            row_apply(ApplyOp::Sub, y, xf, brc, 1, k, rp, loc);
            row_broadcast(brc, rstdOut[a0], k, loc);
            row_apply(ApplyOp::Mul, y, y, brc, 1, k, rp, loc);
        } else {  // per row, the mean and rstd read on the scalar unit
            for (uint32_t j = 0; j < k; ++j) {
                const float mu = mean.GetValue(a0 + j, loc), rs = rstdOut.GetValue(a0 + j, loc);
                Adds(y[j * rp], xf[j * rp], -mu, int32_t(rp), loc);
                Muls(y[j * rp], y[j * rp], rs, int32_t(rp), loc);
            }
        }
        if (!noGamma) rows_vec(VecOp::Mul, y, y, g, k, rp, loc);
        if (!noBeta) rows_vec(VecOp::Add, y, y, b, k, rp, loc);
        rows_out(out[a0 * rp], y, n, loc);
    }
}

// ---- LayerNorm, the [A, R] form (LayerNorm.md, LayerNorm-Rstd): mean = sum(x / R), variance = sum((x - mean)^2
// / R) per row (over rLength; the padding of x is set to 0 first, in place, as asc-devkit does), then Normalize
// gives rstd and y. The variance lives at the start of the temporary space (A rounded up to 8 floats); each
// pass of tiling.aCurLength rows uses the scaled rows and one row array after it; Normalize the rest.
template <typename U, typename T, bool noBeta, bool noGamma>
TUNER_SIM_UNCHARGED inline void layernorm_rstd(const LocalTensor<T>& out, const LocalTensor<float>& meanOut,
                                               const LocalTensor<float>& rstdOut, const LocalTensor<T>& x,
                                               const LocalTensor<U>& gamma, const LocalTensor<U>& beta,
                                               float epsilon, const LocalTensor<uint8_t>& tmp,
                                               const LayerNormPara& para, const LayerNormSeparateTiling& tiling,
                                               bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(LayerNormRstd, T);
    tuner_sim::api_site("LayerNorm", loc);
    const uint32_t a = para.aLength, r = para.rLength, rp = para.rLengthWithPadding;
    uint32_t split = std::min(tiling.aCurLength, a);
    if (split < a && split > kBlkFloats) split = split / kBlkFloats * kBlkFloats;
    if (split == 0 || a == 0 || r == 0 || r > rp || rp * sizeof(T) % 32 != 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "LayerNorm: aLength %u, rLength %u, rLengthWithPadding %u (32-byte aligned), tiling "
                         "aCurLength %u; fill the tiling with GetLayerNormNDTilingInfo",
                         a, r, rp, tiling.aCurLength);
    }
    const uint32_t varFloats = align8(a);
    tmp_fault("LayerNorm", tmp, (varFloats + split * rp + align8(split)) * 4,
              "the variances and tiling.aCurLength rows (GetLayerNormNDTilingInfo)", own);
    const float invR = 1.0f / float(r);
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    const LocalTensor<float> var = f, work = f[varFloats], rowv = work[split * rp];
    if (r != rp) {  // LayerNormPreProc: x's padding columns set to 0 with a 1/0 row mask
        const LocalTensor<T> mask = work.template ReinterpretCast<T>();
        Duplicate(mask, T(0), int32_t(rp), loc);
        Adds(mask, mask, T(1), int32_t(r), loc);
        for (uint32_t i = 0; i < a; ++i) Mul(x[i * rp], x[i * rp], mask, int32_t(rp), loc);
    }
    for (uint32_t a0 = 0; a0 < a; a0 += split) {
        const uint32_t k = std::min(split, a - a0), n = k * rp;
        if constexpr (sizeof(T) == 2) {
            widen(work, x[a0 * rp], n, loc);
        } else {
            DataCopy(work, x[a0 * rp], n, loc);
        }
        Muls(work, work, invR, int32_t(n), loc);
        row_reduce(RowOp::Sum, rowv, work, work, k, rp, loc);
        store_rows(meanOut[a0], rowv, k, loc);
        if constexpr (sizeof(T) == 2) {
            widen(work, x[a0 * rp], n, loc);
        } else {
            DataCopy(work, x[a0 * rp], n, loc);
        }
        for (uint32_t j = 0; j < k; ++j) {
            const float mu = rowv.GetValue(j, loc);
            Adds(work[j * rp], work[j * rp], -mu, int32_t(r), loc);
        }
        Mul(work, work, work, int32_t(n), loc);
        Muls(work, work, invR, int32_t(n), loc);
        row_reduce(RowOp::Sum, rowv, work, work, k, rp, loc);
        store_rows(var[a0], rowv, k, loc);
    }
    const LocalTensor<uint8_t> rest = tmp[varFloats * 4];
    normalize<U, T, noBeta, noGamma>(out, rstdOut, meanOut, var, x, gamma, beta, rest, epsilon,
                                     NormalizePara{a, r, rp}, "LayerNorm", own, loc);
}

// ---- WelfordUpdate (WelfordUpdate.md): for the first abComputeLength elements, delta = x - inMean,
// outMean = inMean + delta * nRec, outVar = inVar + delta * (x - outMean) (rnLength 1 on A2/A3). With
// config.isInplace the rest of outMean / outVar is copied from the inputs (the 32-byte blocks holding the tail).
// Passes of 64 * n elements, n the 256-byte groups of the temporary space per buffer: 2 buffers (float), 1
// (float, isReuseSource: x is overwritten), 3 (half: x widened).
template <typename T, typename U, bool isReuseSource, bool inplace>
TUNER_SIM_UNCHARGED inline void welford_update(const LocalTensor<U>& outMean, const LocalTensor<U>& outVar,
                                               const LocalTensor<U>& inMean, const LocalTensor<U>& inVar,
                                               const LocalTensor<T>& x, const LocalTensor<uint8_t>& tmp,
                                               const WelfordUpdateParam& para, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(WelfordUpdate, T);
    static_assert(std::is_same_v<U, float>, "WelfordUpdate: mean and variance are float");
    tuner_sim::api_site("WelfordUpdate", loc);
    if (para.rnLength != 1 || para.abComputeLength == 0 || para.abComputeLength > para.abLength ||
        para.abLength * sizeof(T) % 32 != 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "WelfordUpdate: rnLength %u (must be 1), abLength %u (32-byte aligned), abComputeLength %u "
                         "(in (0, abLength])",
                         para.rnLength, para.abLength, para.abComputeLength);
    }
    constexpr uint32_t bufs = sizeof(T) == 2 ? 3 : (isReuseSource ? 1 : 2);
    require_tmp("WelfordUpdate", tmp, bufs * kRepeatBytes, own);
    const uint32_t chunk = tmp.GetSize() / (kRepeatBytes * bufs) * kLanes;
    if (inplace && para.abComputeLength < para.abLength) {
        const uint32_t len = (para.abLength - para.abComputeLength + kBlkFloats - 1) / kBlkFloats * kBlkFloats;
        const uint32_t off = para.abLength - len;
        DataCopy(outMean[off], inMean[off], len, loc);
        DataCopy(outVar[off], inVar[off], len, loc);
    }
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    for (uint32_t off = 0; off < para.abComputeLength; off += chunk) {
        const int32_t len = int32_t(std::min(chunk, para.abComputeLength - off));
        const LocalTensor<float> mIn = inMean[off], vIn = inVar[off], mOut = outMean[off], vOut = outVar[off];
        if constexpr (sizeof(T) == 2) {
            const LocalTensor<float> s = f, t = f[chunk], o = f[2 * chunk];
            widen(s, x[off], uint32_t(len), loc);
            Sub(t, s, mIn, len, loc);
            Muls(o, t, para.nRec, len, loc);
            Add(mOut, o, mIn, len, loc);
            Sub(o, s, mOut, len, loc);
            Mul(t, t, o, len, loc);
            Add(vOut, t, vIn, len, loc);
        } else if constexpr (isReuseSource) {
            const LocalTensor<float> s = x[off], t = f;
            Sub(t, s, mIn, len, loc);
            Muls(t, t, para.nRec, len, loc);
            Add(mOut, t, mIn, len, loc);
            Sub(t, s, mOut, len, loc);
            Sub(s, s, mIn, len, loc);
            Mul(t, t, s, len, loc);
            Add(vOut, t, vIn, len, loc);
        } else {
            const LocalTensor<float> s = x[off], t = f, o = f[chunk];
            Sub(t, s, mIn, len, loc);
            Muls(o, t, para.nRec, len, loc);
            Add(mOut, o, mIn, len, loc);
            Sub(o, s, mOut, len, loc);
            Mul(t, t, o, len, loc);
            Add(vOut, t, vIn, len, loc);
        }
    }
}

// ---- WelfordFinalize (WelfordFinalize.md; asc-devkit's A2 welfordfinalize_common_impl.h): from abLength
// partial means and variances, mean = sum(inMean * w) and variance = sum((inVar + c * (inMean - mean)^2) * rRec),
// with w = counts * rRec, c = counts (counts form); w = abRec, c = rnLength (no tail); w = rRec * (headCount
// for the first headCountLength, else tailCount), c likewise (tail). outputMean[0] and outputVariance[0] get
// the results, their elements 1-7 zero. The temporary space (>= 1024 bytes) holds the two 64-float partial
// sums and two working planes of 64 * n floats.
TUNER_SIM_UNCHARGED inline void welford_finalize(const LocalTensor<float>& outMean, const LocalTensor<float>& outVar,
                                                 const LocalTensor<float>& inMean, const LocalTensor<float>& inVar,
                                                 const LocalTensor<int32_t>* counts, const LocalTensor<uint8_t>& tmp,
                                                 const WelfordFinalizePara& para, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(WelfordFinalize, float);
    tuner_sim::api_site("WelfordFinalize", loc);
    if (para.abLength == 0 || para.abLength % kBlkFloats != 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "WelfordFinalize: abLength %u must be a positive multiple of 8", para.abLength);
    }
    require_tmp("WelfordFinalize", tmp, 4 * kLanes * 4, own);
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    const uint32_t cl = (tmp.GetSize() / 4 - 2 * kLanes) / (2 * kLanes) * kLanes;
    const LocalTensor<float> outM = f, outV = f[kLanes], tm = f[2 * kLanes], tv = tm[cl];
    const bool tail = !counts && para.tailCountLength != 0 && para.tailCount != 0;
    const float headScale = tail ? float(para.headCount) / float(para.tailCount) : 1.0f;
    auto headLen = [&](uint32_t off, uint32_t len) {
        const int64_t v = int64_t(para.headCountLength) - int64_t(off);
        return int32_t(std::clamp<int64_t>(v, 0, len));
    };
    // One partial sum per pass into part[j]; 64 of them fold into part[0] with a WholeReduceSum.
    auto reduce_part = [&](const LocalTensor<float>& part, uint32_t& j, const LocalTensor<float>& src, int32_t len) {
        ReduceSum(part[j], src, tv, len, loc);
        if (++j == kLanes) {
            WholeReduceSum(part, part, int32_t(kLanes), 1, 1, 1, 8, loc);
            j = 1;
        }
    };
    uint32_t j = 0;
    for (uint32_t off = 0; off < para.abLength; off += cl) {
        const int32_t len = int32_t(std::min(cl, para.abLength - off));
        if (counts) {
            Cast(tm, (*counts)[off], RoundMode::CAST_NONE, uint32_t(len), loc);
            Mul(tm, inMean[off], tm, len, loc);
            Muls(tm, tm, para.rRec, len, loc);
        } else if (!tail) {
            Muls(tm, inMean[off], para.abRec, len, loc);
        } else {
            Muls(tv, inMean[off], float(para.tailCount), len, loc);
            Muls(tm, tv, para.rRec, len, loc);
            if (const int32_t hl = headLen(off, uint32_t(len))) Muls(tm, tm, headScale, hl, loc);
        }
        reduce_part(outM, j, tm, len);
    }
    WholeReduceSum(outM, outM, int32_t(j), 1, 1, 1, 8, loc);
    const float mu = outM.GetValue(0, loc);
    j = 0;
    for (uint32_t off = 0; off < para.abLength; off += cl) {
        const int32_t len = int32_t(std::min(cl, para.abLength - off));
        Duplicate(tm, mu, len, loc);
        Sub(tv, inMean[off], tm, len, loc);
        Mul(tm, tv, tv, len, loc);
        if (counts) {
            Cast(tv, (*counts)[off], RoundMode::CAST_NONE, uint32_t(len), loc);
            Mul(tm, tm, tv, len, loc);
        } else if (!tail) {
            Muls(tm, tm, float(para.rnLength), len, loc);
        } else {
            Muls(tm, tm, float(para.tailCount), len, loc);
            if (const int32_t hl = headLen(off, uint32_t(len))) Muls(tm, tm, headScale, hl, loc);
        }
        Add(tv, tm, inVar[off], len, loc);
        Muls(tm, tv, para.rRec, len, loc);
        reduce_part(outV, j, tm, len);
    }
    WholeReduceSum(outV, outV, int32_t(j), 1, 1, 1, 8, loc);
    Adds(outMean, outM, 0.0f, 1, loc);
    Adds(outVar, outV, 0.0f, 1, loc);
    uint64_t mask[2] = {0xFEu, 0};
    Duplicate(outMean, 0.0f, mask, 1, 1, 8, loc);
    Duplicate(outVar, 0.0f, mask, 1, 1, 8, loc);
}
}  // namespace adv

// DeepNorm (归一化操作/DeepNorm.md)
template <typename T, bool isReuseSrc = false, bool isBasicBlock = false>
TUNER_SIM_UNCHARGED __aicore__ inline void DeepNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& meanLocal,
                                                    const LocalTensor<T>& rstdLocal, const LocalTensor<T>& srcLocal,
                                                    const LocalTensor<T>& gxLocal, const LocalTensor<T>& betaLocal,
                                                    const LocalTensor<T>& gammaLocal,
                                                    const LocalTensor<uint8_t>& sharedTmpBuffer, const T alpha,
                                                    const T epsilon, DeepNormTiling& tiling,
                                                    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::deepnorm<T, isReuseSrc, isBasicBlock>(dstLocal, meanLocal, rstdLocal, srcLocal, gxLocal, betaLocal,
                                               gammaLocal, sharedTmpBuffer, alpha, epsilon, tiling, false, loc);
}
template <typename T, bool isReuseSrc = false, bool isBasicBlock = false>
TUNER_SIM_UNCHARGED __aicore__ inline void DeepNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& meanLocal,
                                                    const LocalTensor<T>& rstdLocal, const LocalTensor<T>& srcLocal,
                                                    const LocalTensor<T>& gxLocal, const LocalTensor<T>& betaLocal,
                                                    const LocalTensor<T>& gammaLocal, const T alpha, const T epsilon,
                                                    DeepNormTiling& tiling,
                                                    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::deepnorm<T, isReuseSrc, isBasicBlock>(dstLocal, meanLocal, rstdLocal, srcLocal, gxLocal, betaLocal,
                                               gammaLocal, adv::own_tmp("DeepNorm"), alpha, epsilon, tiling, true,
                                               loc);
}

// BatchNorm (归一化操作/BatchNorm.md)
template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
TUNER_SIM_UNCHARGED __aicore__ inline void BatchNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
                                                     const LocalTensor<T>& outputVariance,
                                                     const LocalTensor<T>& inputX, const LocalTensor<T>& gamm,
                                                     const LocalTensor<T>& beta,
                                                     const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon,
                                                     BatchNormTiling& tiling,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::batchnorm<T, isBasicBlock>(output, outputMean, outputVariance, inputX, gamm, beta, sharedTmpBuffer, epsilon,
                                    tiling, false, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
TUNER_SIM_UNCHARGED __aicore__ inline void BatchNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
                                                     const LocalTensor<T>& outputVariance,
                                                     const LocalTensor<T>& inputX, const LocalTensor<T>& gamm,
                                                     const LocalTensor<T>& beta, const T epsilon,
                                                     BatchNormTiling& tiling,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::batchnorm<T, isBasicBlock>(output, outputMean, outputVariance, inputX, gamm, beta,
                                    adv::own_tmp("BatchNorm"), epsilon, tiling, true, loc);
}

// LayerNormGrad (归一化操作/LayerNormGrad.md); shapeInfo's format is ND (the only one documented).
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void LayerNormGrad(
    const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
    const LocalTensor<T>& inputX, const LocalTensor<T>& inputVariance, const LocalTensor<T>& inputMean,
    const LocalTensor<T>& inputGamma, LocalTensor<uint8_t>& sharedTmpBuffer, T epsilon, LayerNormGradTiling& tiling,
    const LayerNormGradShapeInfo& shapeInfo = {}, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    (void)shapeInfo;
    adv::layernorm_grad<T, isReuseSource>(outputPdX, resForGamma, inputDy, inputX, inputVariance, inputMean,
                                          inputGamma, sharedTmpBuffer, epsilon, tiling, false, loc);
}
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void LayerNormGrad(
    const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
    const LocalTensor<T>& inputX, const LocalTensor<T>& inputVariance, const LocalTensor<T>& inputMean,
    const LocalTensor<T>& inputGamma, T epsilon, LayerNormGradTiling& tiling,
    const LayerNormGradShapeInfo& shapeInfo = {}, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    (void)shapeInfo;
    adv::layernorm_grad<T, isReuseSource>(outputPdX, resForGamma, inputDy, inputX, inputVariance, inputMean,
                                          inputGamma, adv::own_tmp("LayerNormGrad"), epsilon, tiling, true, loc);
}

// LayerNormGradBeta (归一化操作/LayerNormGradBeta.md)
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void LayerNormGradBeta(
    const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta, const LocalTensor<T>& resForGamma,
    const LocalTensor<T>& inputDy, const LocalTensor<uint8_t>& sharedTmpBuffer,
    const LayerNormGradBetaTiling& tiling, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::layernorm_grad_beta<T, isReuseSource>(outputPdGamma, outputPdBeta, resForGamma, inputDy, sharedTmpBuffer,
                                               tiling, false, loc);
}
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void LayerNormGradBeta(
    const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta, const LocalTensor<T>& resForGamma,
    const LocalTensor<T>& inputDy, LayerNormGradBetaTiling& tiling, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::layernorm_grad_beta<T, isReuseSource>(outputPdGamma, outputPdBeta, resForGamma, inputDy,
                                               adv::own_tmp("LayerNormGradBeta"), tiling, true, loc);
}

// LayerNorm (归一化操作/LayerNorm.md), the [A, R] forms with rstd output. isOnlyOutput = true and the variance
// output (isOutputRstd = false) are not on A2/A3.
#define TUNER_SIM_LNRSTD_CHECK                                                                               \
    static_assert(!config.isOnlyOutput, "LayerNorm: LayerNormConfig.isOnlyOutput = true is not supported");  \
    static_assert(config.isOutputRstd,                                                                       \
                  "LayerNorm: LayerNormConfig.isOutputRstd = false (variance output) is Ascend 950 only")
template <typename U, typename T, bool isReuseSource = false, const LayerNormConfig& config = LNCFG_NORM>
TUNER_SIM_UNCHARGED __aicore__ inline void LayerNorm(const LocalTensor<T>& output,
                                                     const LocalTensor<float>& outputMean,
                                                     const LocalTensor<float>& outputRstd,
                                                     const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
                                                     const LocalTensor<U>& beta, const float epsilon,
                                                     const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                     const LayerNormPara& para, const LayerNormSeparateTiling& tiling,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_LNRSTD_CHECK;
    adv::layernorm_rstd<U, T, config.isNoBeta, config.isNoGamma>(output, outputMean, outputRstd, inputX, gamma, beta,
                                                                 epsilon, sharedTmpBuffer, para, tiling, false, loc);
}
template <typename U, typename T, bool isReuseSource = false, const LayerNormConfig& config = LNCFG_NORM>
TUNER_SIM_UNCHARGED __aicore__ inline void LayerNorm(const LocalTensor<T>& output,
                                                     const LocalTensor<float>& outputMean,
                                                     const LocalTensor<float>& outputRstd,
                                                     const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
                                                     const LocalTensor<U>& beta, const float epsilon,
                                                     const LayerNormPara& para, const LayerNormSeparateTiling& tiling,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_LNRSTD_CHECK;
    adv::layernorm_rstd<U, T, config.isNoBeta, config.isNoGamma>(output, outputMean, outputRstd, inputX, gamma, beta,
                                                                 epsilon, adv::own_tmp("LayerNorm"), para, tiling,
                                                                 true, loc);
}
#undef TUNER_SIM_LNRSTD_CHECK

// Normalize (归一化操作/Normalize.md): the AR pattern; isOnlyOutput = true is not supported.
#define TUNER_SIM_NORMALIZE_CHECK                                                                              \
    TUNER_SIM_ADV_REQUIRE(Normalize, T);                                                                       \
    static_assert(config.reducePattern == ReducePattern::AR, "Normalize: only ReducePattern::AR is supported"); \
    static_assert(!config.isOnlyOutput, "Normalize: NormalizeConfig.isOnlyOutput = true is not supported")
template <typename U, typename T, bool isReuseSource = false, const NormalizeConfig& config = NLCFG_NORM>
TUNER_SIM_UNCHARGED __aicore__ inline void Normalize(
    const LocalTensor<T>& output, const LocalTensor<float>& outputRstd, const LocalTensor<float>& inputMean,
    const LocalTensor<float>& inputVariance, const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
    const LocalTensor<U>& beta, const LocalTensor<uint8_t>& sharedTmpBuffer, const float epsilon,
    const NormalizePara& para, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_NORMALIZE_CHECK;
    tuner_sim::api_site("Normalize", loc);
    adv::normalize<U, T, config.isNoBeta, config.isNoGamma>(output, outputRstd, inputMean, inputVariance, inputX,
                                                            gamma, beta, sharedTmpBuffer, epsilon, para, "Normalize",
                                                            false, loc);
}
template <typename U, typename T, bool isReuseSource = false, const NormalizeConfig& config = NLCFG_NORM>
TUNER_SIM_UNCHARGED __aicore__ inline void Normalize(
    const LocalTensor<T>& output, const LocalTensor<float>& outputRstd, const LocalTensor<float>& inputMean,
    const LocalTensor<float>& inputVariance, const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
    const LocalTensor<U>& beta, const float epsilon, const NormalizePara& para,
    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_NORMALIZE_CHECK;
    tuner_sim::api_site("Normalize", loc);
    adv::normalize<U, T, config.isNoBeta, config.isNoGamma>(output, outputRstd, inputMean, inputVariance, inputX,
                                                            gamma, beta, adv::own_tmp("Normalize"), epsilon, para,
                                                            "Normalize", true, loc);
}
#undef TUNER_SIM_NORMALIZE_CHECK

// WelfordUpdate (归一化操作/WelfordUpdate.md)
template <typename T, typename U, bool isReuseSource = false, const WelfordUpdateConfig& config = WFUPDATE_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void WelfordUpdate(const LocalTensor<U>& outputMean,
                                                         const LocalTensor<U>& outputVariance,
                                                         const LocalTensor<U>& inputMean,
                                                         const LocalTensor<U>& inputVariance,
                                                         const LocalTensor<T>& inputX,
                                                         const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                         const WelfordUpdateParam& para,
                                                         tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::welford_update<T, U, isReuseSource, config.isInplace>(outputMean, outputVariance, inputMean, inputVariance,
                                                               inputX, sharedTmpBuffer, para, false, loc);
}
template <typename T, typename U, bool isReuseSource = false, const WelfordUpdateConfig& config = WFUPDATE_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void WelfordUpdate(const LocalTensor<U>& outputMean,
                                                         const LocalTensor<U>& outputVariance,
                                                         const LocalTensor<U>& inputMean,
                                                         const LocalTensor<U>& inputVariance,
                                                         const LocalTensor<T>& inputX, const WelfordUpdateParam& para,
                                                         tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::welford_update<T, U, isReuseSource, config.isInplace>(outputMean, outputVariance, inputMean, inputVariance,
                                                               inputX, adv::own_tmp("WelfordUpdate"), para, true, loc);
}

// WelfordFinalize (归一化操作/WelfordFinalize.md): the A2/A3 forms (config's isCorrection is an Ascend 950
// option: a config with it set is refused).
#define TUNER_SIM_WF_HEAD                                                                                      \
    template <bool isReuseSource = false, const WelfordFinalizeConfig& config = WFFINALIZE_DEFAULT_CFG>        \
    TUNER_SIM_UNCHARGED __aicore__ inline void
#define TUNER_SIM_WF_CHECK \
    static_assert(!config.isCorrection, "WelfordFinalize: isCorrection (rRecWithCorrection) is Ascend 950 only")
TUNER_SIM_WF_HEAD WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                                  const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                                  const LocalTensor<uint8_t>& sharedTmpBuffer, WelfordFinalizePara& para,
                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_WF_CHECK;
    adv::welford_finalize(outputMean, outputVariance, inputMean, inputVariance, nullptr, sharedTmpBuffer, para, false,
                          loc);
}
TUNER_SIM_WF_HEAD WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                                  const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                                  const LocalTensor<int32_t>& counts, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                  WelfordFinalizePara& para, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_WF_CHECK;
    adv::welford_finalize(outputMean, outputVariance, inputMean, inputVariance, &counts, sharedTmpBuffer, para, false,
                          loc);
}
TUNER_SIM_WF_HEAD WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                                  const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                                  WelfordFinalizePara& para, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_WF_CHECK;
    adv::welford_finalize(outputMean, outputVariance, inputMean, inputVariance, nullptr,
                          adv::own_tmp("WelfordFinalize"), para, true, loc);
}
TUNER_SIM_WF_HEAD WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                                  const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                                  const LocalTensor<int32_t>& counts, WelfordFinalizePara& para,
                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_WF_CHECK;
    adv::welford_finalize(outputMean, outputVariance, inputMean, inputVariance, &counts,
                          adv::own_tmp("WelfordFinalize"), para, true, loc);
}
#undef TUNER_SIM_WF_HEAD
#undef TUNER_SIM_WF_CHECK

}  // namespace AscendC

// Ascend C's row-wise high-level APIs: SoftMax, LogSoftMax, SimpleSoftMax, RmsNorm and LayerNorm (tiling
// structs and host helpers in adv_host.h). Each is expanded into basic vector APIs over [m, k] row blocks
// (ND format), the way asc-devkit's A2 implementation works: rows reduced with strided Max/Add folds and
// WholeReduce, the per-row result broadcast to one 32-byte block per row (Brcb), then applied to every row
// with a strided binary op whose second operand repeats that block. Computation is in float; half is
// widened first.
#pragma once
#include "adv_math.h"

namespace AscendC {

// SoftMax.md: the shape of src ([srcM, srcK], srcK 32-byte aligned) and the config template parameter.
struct SoftMaxShapeInfo {
    uint32_t srcM = 0;
    uint32_t srcK = 0;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
};
enum class SoftmaxMode { SOFTMAX_NORMAL = 0, SOFTMAX_OUTPUT_WITHOUT_BRC = 1 };
struct SoftmaxConfig {
    bool isCheckTiling = true;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
    SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};
constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};

namespace adv {

// A repeat touches all 8 blocks of its strip whatever its mask, so with rows that end in a partial 64-lane
// strip the last rows' strips may run past the tensor's buffer. strided_ok gives how many of the m rows of t
// (row length k floats) can be reached by strided repeats; the rest take the per-row path.
template <typename E>
TUNER_SIM_UNCHARGED inline uint32_t strided_ok(const LocalTensor<E>& t, uint32_t m, uint32_t k) {
    constexpr uint32_t lanes = 256 / sizeof(E);
    if (k * sizeof(E) / 32 > kMaxRepeat) return 0;
    if (k % lanes == 0) return m;
    const uint64_t last = uint64_t(t.tuner_off()) + (k - k % lanes) * sizeof(E) + 256;
    if (last > t.tuner_buf_end()) return 0;
    return uint32_t(std::min<uint64_t>(m, (t.tuner_buf_end() - last) / (k * sizeof(E)) + 1));
}

enum class RowOp { Max, Sum };
// red[r] = max or sum of row r of x ([m, k] floats, k a multiple of 8). x is kept; `fold` ([m, 64] floats)
// holds the column folds when k > 64 (it may be x itself when x may be overwritten).
TUNER_SIM_UNCHARGED
inline void row_reduce(RowOp op, const LocalTensor<float>& red, const LocalTensor<float>& x,
                       const LocalTensor<float>& fold, uint32_t m, uint32_t k, Loc loc) {
    const uint32_t strided = strided_ok(x, m, k);
    const uint8_t rowStride = uint8_t(std::min(k / kBlkFloats, kMaxRepeat));
    for (uint32_t r0 = 0; r0 < strided; r0 += kMaxRepeat) {
        const uint8_t rows = uint8_t(std::min(kMaxRepeat, strided - r0));
        LocalTensor<float> src = x[r0 * k];
        uint8_t srcStride = rowStride;
        if (k > kLanes) {  // fold the columns into the first 64 lanes of each row, of fold or (in place) of x
            const bool inPlace = fold.tuner_off() == x.tuner_off();
            const LocalTensor<float> f = inPlace ? src : fold[r0 * kLanes];
            const uint8_t foldStride = inPlace ? rowStride : 8;
            if (!inPlace) Adds(f, src, 0.0f, uint64_t(kLanes), rows, UnaryRepeatParams(1, 1, 8, rowStride), loc);
            const BinaryRepeatParams p(1, 1, 1, foldStride, rowStride, foldStride);
            for (uint32_t c = kLanes; c < k; c += kLanes) {
                const uint64_t lanes = std::min(kLanes, k - c);
                if (op == RowOp::Max) {
                    Max(f, src[c], f, lanes, rows, p, loc);
                } else {
                    Add(f, src[c], f, lanes, rows, p, loc);
                }
            }
            src = f;
            srcStride = foldStride;
        }
        const int32_t lanes = int32_t(std::min(kLanes, k));
        if (op == RowOp::Max) {
            WholeReduceMax(red[r0], src, lanes, rows, 1, 1, srcStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
        } else {
            WholeReduceSum(red[r0], src, lanes, rows, 1, 1, srcStride, loc);
        }
    }
    for (uint32_t r = strided; r < m; ++r) {  // per row: one count-form reduce each
        if (op == RowOp::Max) {
            ReduceMax(red[r], x[r * k], fold, int32_t(k), false, loc);
        } else {
            ReduceSum(red[r], x[r * k], fold, int32_t(k), loc);
        }
    }
}
// brc[r * 8 .. r * 8 + 8) = red[r]: one 32-byte block per row (brc holds align8(m) blocks, red align8(m)).
template <typename E>
TUNER_SIM_UNCHARGED
inline void row_broadcast(const LocalTensor<E>& brc, const LocalTensor<E>& red, uint32_t m, Loc loc) {
    constexpr uint32_t blk = 32 / sizeof(E);
    for (uint32_t r0 = 0; r0 < m; r0 += 8 * kMaxRepeat) {
        const uint32_t rows = std::min(8 * kMaxRepeat, m - r0);
        Brcb(brc[r0 * blk], red[r0], uint8_t((rows + 7) / 8), BrcbRepeatParams(1, 8), loc);
    }
}
enum class ApplyOp { Sub, Div, Mul };
TUNER_SIM_UNCHARGED
inline void apply_op(ApplyOp op, const LocalTensor<float>& d, const LocalTensor<float>& s, const LocalTensor<float>& b,
                     uint64_t lanes, uint8_t repeat, const BinaryRepeatParams& p, Loc loc) {
    if (op == ApplyOp::Sub) {
        Sub(d, s, b, lanes, repeat, p, loc);
    } else if (op == ApplyOp::Div) {
        Div(d, s, b, lanes, repeat, p, loc);
    } else {
        Mul(d, s, b, lanes, repeat, p, loc);
    }
}
// dst[r, :] = x[r, :] op b[r], where b[r] is the first float of the block at brc + r * brcRowBlocks blocks.
// Strided: one call per 64-column strip, repeating over rows (b's block restarts each repeat). Rows past the
// strided reach read b[r] on the scalar unit and use a count-form Adds / Muls (Div as a Muls by 1 / b[r]).
TUNER_SIM_UNCHARGED
inline void row_apply(ApplyOp op, const LocalTensor<float>& dst, const LocalTensor<float>& x,
                      const LocalTensor<float>& brc, uint32_t brcRowBlocks, uint32_t m, uint32_t k, Loc loc) {
    const uint32_t strided = std::min(strided_ok(x, m, k), strided_ok(dst, m, k));
    const uint8_t rowStride = uint8_t(std::min(k / kBlkFloats, kMaxRepeat));
    const BinaryRepeatParams p(1, 1, 0, rowStride, rowStride, uint8_t(brcRowBlocks));
    for (uint32_t r0 = 0; r0 < strided; r0 += kMaxRepeat) {
        const uint8_t rows = uint8_t(std::min(kMaxRepeat, strided - r0));
        for (uint32_t c = 0; c < k; c += kLanes) {
            apply_op(op, dst[r0 * k + c], x[r0 * k + c], brc[r0 * brcRowBlocks * kBlkFloats],
                     std::min(kLanes, k - c), rows, p, loc);
        }
    }
    for (uint32_t r = strided; r < m; ++r) {
        const float b = brc.GetValue(r * brcRowBlocks * kBlkFloats, loc);
        if (op == ApplyOp::Sub) {
            Adds(dst[r * k], x[r * k], -b, int32_t(k), loc);
        } else {
            Muls(dst[r * k], x[r * k], op == ApplyOp::Div ? 1.0f / b : b, int32_t(k), loc);
        }
    }
}

// ---- SoftMax / SimpleSoftMax (激活函数/SoftMax接口/SoftMax.md, SimpleSoftMax.md) ------------------------
// Per pass of m = tiling.splitM rows (tail tiling.tailM) the temporary space holds, in float: the widened
// rows when T is half (m * k), the column folds (m * 64), the broadcast row blocks and the row results
// (both for m rounded up to 8) — within the (32 / sizeof(max type) + k + 64) floats per row that
// SoftMaxTilingFunc budgets, but for mixed half/float with m not a multiple of 8. Max and sum are written
// as [m, 32 bytes] blocks of their type.
template <typename T>
TUNER_SIM_UNCHARGED constexpr uint32_t softmax_floats(uint32_t m, uint32_t k) {
    return (sizeof(T) == 2 ? m * k : 0) + m * kLanes + align8(m) * (kBlkFloats + 1);
}
struct SoftmaxPass {
    LocalTensor<float> work, fold, brc, red;
};
template <typename T>
TUNER_SIM_UNCHARGED inline SoftmaxPass softmax_layout(const LocalTensor<uint8_t>& tmp, uint32_t m, uint32_t k) {
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    const uint32_t work = sizeof(T) == 2 ? m * k : 0;
    return {f, f[work], f[work + m * kLanes], f[work + m * kLanes + align8(m) * kBlkFloats]};
}
struct SoftmaxShape {
    uint32_t m, k, split, tail, passes;
};
// The shape comes from softmaxShapeInfo, or the tiling when that is left empty. With isCheckTiling (the
// default; SoftMax.md's SoftmaxConfig) a tiling that does not match the shape, e.g. one left zeroed, is
// recomputed in the API: as many rows per pass as the temporary space holds (a multiple of 8 when not all).
template <typename T>
TUNER_SIM_UNCHARGED inline SoftmaxShape softmax_shape(const char* api, const SoftMaxTiling& tiling,
                                                      const SoftMaxShapeInfo& info, const LocalTensor<uint8_t>& tmp,
                                                      bool checkTiling) {
    const uint32_t m = info.srcM ? info.srcM : tiling.srcM;
    const uint32_t k = info.srcK ? info.srcK : tiling.srcK;
    uint32_t split = tiling.splitM;
    if (checkTiling && (tiling.srcM != m || tiling.srcK != k || split == 0)) {
        split = std::min(m, tmp.GetSize() / uint32_t(sizeof(float)) / std::max(1u, k));
        while (split > 0 && softmax_floats<T>(split, k) * sizeof(float) > tmp.GetSize()) --split;
        if (split < m && split > kBlkFloats) split = split / kBlkFloats * kBlkFloats;
        split = std::max(split, 1u);  // too little space: softmax_check names it
    }
    if (split == 0 || k == 0 || m == 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "%s: shape [%u, %u] with tiling.splitM %u; fill the tiling with SoftMaxTilingFunc", api, m, k,
                         split);
    }
    split = std::min(split, m);
    return {m, k, split, m % split, m / split};
}
template <typename T>
TUNER_SIM_UNCHARGED inline void softmax_check(const char* api, const LocalTensor<uint8_t>& tmp, const SoftmaxShape& s,
                                              bool own) {
    if (s.k * sizeof(T) % 32 != 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Misaligned, "%s: srcK %u elements is not 32-byte aligned", api, s.k);
    }
    const uint32_t need = softmax_floats<T>(s.split, s.k) * sizeof(float);
    if (tmp.GetSize() >= need) return;
    if (own) {
        tuner_sim::fault(tuner_sim::FaultClass::UbOverflow,
                         "%s takes its temporary space from the UB left after InitBuffer: %u bytes left, tiling.splitM "
                         "= %u rows of %u need %u (SoftMaxTilingFunc's localWorkSpaceSize)",
                         api, tmp.GetSize(), s.split, s.k, need);
    }
    tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                     "%s: sharedTmpBuffer holds %u bytes; tiling.splitM = %u rows of %u need %u (pass "
                     "SoftMaxTilingFunc a localWorkSpaceSize no larger than the buffer, at least "
                     "GetSoftMaxMinTmpSize)",
                     api, tmp.GetSize(), s.split, s.k, need);
}
// x as float rows: the widened copy for half, the source itself for float.
template <typename T>
TUNER_SIM_UNCHARGED inline LocalTensor<float> rows_as_float(const LocalTensor<T>& src, const LocalTensor<float>& work,
                                                           uint32_t n, Loc loc) {
    if constexpr (sizeof(T) == 2) {
        widen(work, src, n, loc);
        return work;
    } else {
        return src;
    }
}
// The float result rows into dst (narrowing for half; for float the rows were computed in dst already).
template <typename T>
TUNER_SIM_UNCHARGED inline void rows_out(const LocalTensor<T>& dst, const LocalTensor<float>& y, uint32_t n, Loc loc) {
    if constexpr (sizeof(T) == 2) narrow(dst, y, n, loc);
}
// Writes red[0..m) to out as [m, 32-byte] blocks of U (the max / sum outputs): broadcast into `fold` (free
// once the rows are reduced) and copied, so that no instruction writes past out's m rows; for half the
// values are narrowed through `brc` (free once applied).
template <typename U>
TUNER_SIM_UNCHARGED inline void rows_result(const LocalTensor<U>& out, const LocalTensor<float>& red,
                                            const LocalTensor<float>& brc, const LocalTensor<float>& fold, uint32_t m,
                                            Loc loc) {
    if constexpr (sizeof(U) == 4) {
        row_broadcast(fold, red, m, loc);
        DataCopy(out, fold, m * kBlkFloats, loc);
    } else {
        const LocalTensor<half> h = brc.ReinterpretCast<half>(), blocks = fold.ReinterpretCast<half>();
        narrow(h, red, m, loc);
        row_broadcast(blocks, h, m, loc);
        DataCopy(out, blocks, m * 16, loc);
    }
}
// SoftMax: max = rowmax(x), e = exp(x - max), sum = rowsum(e), dst = e / sum; max and sum written out when
// given (U: their element type).
// LogSoftMax (isLog) then takes log10 of dst, as LogSoftMax.md's reference and step 8 do.
template <typename T, typename U, bool isLog = false>
TUNER_SIM_UNCHARGED inline void softmax(const LocalTensor<T>& dst, const LocalTensor<U>* sum, const LocalTensor<U>* max,
                                        const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
                                        const SoftMaxTiling& tiling, const SoftMaxShapeInfo& info, bool checkTiling,
                                        bool own, Loc loc) {
    if constexpr (isLog) {
        TUNER_SIM_ADV_REQUIRE(LogSoftMax, T);
    } else {
        TUNER_SIM_ADV_REQUIRE(SoftMax, T);
    }
    static_assert(half_or_float<U>, "SoftMax: sum and max are half or float");
    const char* api = isLog ? "LogSoftMax" : "SoftMax";
    tuner_sim::api_site(api, loc);
    const SoftmaxShape s = softmax_shape<T>(api, tiling, info, tmp, checkTiling);
    softmax_check<T>(api, tmp, s, own);
    for (uint32_t p = 0; p <= s.passes; ++p) {
        const uint32_t m = p < s.passes ? s.split : s.tail;
        if (m == 0) continue;
        const uint32_t row0 = p * s.split, n = m * s.k;
        const SoftmaxPass t = softmax_layout<T>(tmp, m, s.k);
        const LocalTensor<float> x = rows_as_float(src[row0 * s.k], t.work, n, loc);
        const LocalTensor<float> y = sizeof(T) == 2 ? x : dst[row0 * s.k].template ReinterpretCast<float>();
        row_reduce(RowOp::Max, t.red, x, t.fold, m, s.k, loc);
        row_broadcast(t.brc, t.red, m, loc);
        row_apply(ApplyOp::Sub, y, x, t.brc, 1, m, s.k, loc);
        if (max) rows_result((*max)[row0 * (32 / sizeof(U))], t.red, t.brc, t.fold, m, loc);
        Exp(y, y, int32_t(n), loc);
        row_reduce(RowOp::Sum, t.red, y, t.fold, m, s.k, loc);
        row_broadcast(t.brc, t.red, m, loc);
        row_apply(ApplyOp::Div, y, y, t.brc, 1, m, s.k, loc);
        if (sum) rows_result((*sum)[row0 * (32 / sizeof(U))], t.red, t.brc, t.fold, m, loc);
        if constexpr (isLog) {
            Ln(y, y, int32_t(n), loc);
            Muls(y, y, kInvLn10, int32_t(n), loc);
        }
        rows_out(dst[row0 * s.k], y, n, loc);
    }
}
// SimpleSoftMax: dst = exp(x - inMax) / inSum, inMax and inSum given as [m, 32-byte] blocks of U.
template <typename T, typename U>
TUNER_SIM_UNCHARGED inline void simple_softmax(const LocalTensor<T>& dst, const LocalTensor<U>& inSum,
                                               const LocalTensor<U>& inMax, const LocalTensor<T>& src,
                                               const LocalTensor<uint8_t>& tmp, const SoftMaxTiling& tiling,
                                               const SoftMaxShapeInfo& info, bool checkTiling, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(SimpleSoftMax, T);
    static_assert(half_or_float<U>, "SimpleSoftMax: sum and max are half or float");
    tuner_sim::api_site("SimpleSoftMax", loc);
    const SoftmaxShape s = softmax_shape<T>("SimpleSoftMax", tiling, info, tmp, checkTiling);
    softmax_check<T>("SimpleSoftMax", tmp, s, own);
    for (uint32_t p = 0; p <= s.passes; ++p) {
        const uint32_t m = p < s.passes ? s.split : s.tail;
        if (m == 0) continue;
        const uint32_t row0 = p * s.split, n = m * s.k, blk = 32 / sizeof(U);
        const SoftmaxPass t = softmax_layout<T>(tmp, m, s.k);
        const LocalTensor<float> x = rows_as_float(src[row0 * s.k], t.work, n, loc);
        const LocalTensor<float> y = sizeof(T) == 2 ? x : dst[row0 * s.k].template ReinterpretCast<float>();
        // The row blocks as float: used in place for float, widened (two blocks per row) for half.
        uint32_t rowBlocks = 1;
        LocalTensor<float> maxF, sumF;
        if constexpr (sizeof(U) == 4) {
            maxF = inMax[row0 * blk];
            sumF = inSum[row0 * blk];
        } else {
            rowBlocks = 2;
            maxF = t.fold;
            sumF = t.fold[m * 16];
            widen(maxF, inMax[row0 * blk], m * 16, loc);
            widen(sumF, inSum[row0 * blk], m * 16, loc);
        }
        row_apply(ApplyOp::Sub, y, x, maxF, rowBlocks, m, s.k, loc);
        Exp(y, y, int32_t(n), loc);
        row_apply(ApplyOp::Div, y, y, sumF, rowBlocks, m, s.k, loc);
        rows_out(dst[row0 * s.k], y, n, loc);
    }
}
}  // namespace adv

// SoftMax (激活函数/SoftMax接口/SoftMax.md): ND format only (isDataFormatNZ must be false); isBasicBlock and
// config only tune the NPU's code path and change nothing here.
#define TUNER_SIM_SOFTMAX_HEAD                                                                               \
    template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false, \
              const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
#define TUNER_SIM_SOFTMAX_NO_NZ \
    static_assert(!isDataFormatNZ, "SoftMax: the NZ format is not supported by the tuner simulator")
TUNER_SIM_SOFTMAX_HEAD TUNER_SIM_UNCHARGED __aicore__ inline void SoftMax(
    const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
    const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
    const SoftMaxShapeInfo& softmaxShapeInfo = {}, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_SOFTMAX_NO_NZ;
    adv::softmax<T, T>(dstTensor, &sumTensor, &maxTensor, srcTensor, sharedTmpBuffer, tiling, softmaxShapeInfo,
                       config.isCheckTiling, false, loc);
}
TUNER_SIM_SOFTMAX_HEAD TUNER_SIM_UNCHARGED __aicore__ inline void SoftMax(
    const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor, const LocalTensor<float>& maxTensor,
    const LocalTensor<half>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
    const SoftMaxShapeInfo& softmaxShapeInfo = {}, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_SOFTMAX_NO_NZ;
    adv::softmax<half, float>(dstTensor, &sumTensor, &maxTensor, srcTensor, sharedTmpBuffer, tiling,
                              softmaxShapeInfo, config.isCheckTiling, false, loc);
}
TUNER_SIM_SOFTMAX_HEAD TUNER_SIM_UNCHARGED __aicore__ inline void SoftMax(
    const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
    const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_SOFTMAX_NO_NZ;
    adv::softmax<T, T>(dstTensor, &sumTensor, &maxTensor, srcTensor, adv::own_tmp("SoftMax"), tiling,
                       softmaxShapeInfo, config.isCheckTiling, true, loc);
}
TUNER_SIM_SOFTMAX_HEAD TUNER_SIM_UNCHARGED __aicore__ inline void SoftMax(
    const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor, const LocalTensor<float>& maxTensor,
    const LocalTensor<half>& srcTensor, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_SOFTMAX_NO_NZ;
    adv::softmax<half, float>(dstTensor, &sumTensor, &maxTensor, srcTensor, adv::own_tmp("SoftMax"), tiling,
                              softmaxShapeInfo, config.isCheckTiling, true, loc);
}
// Without sumTensor and maxTensor (no isDataFormatNZ parameter in this form).
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                                   const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                   const SoftMaxTiling& tiling,
                                                   const SoftMaxShapeInfo& softmaxShapeInfo = {},
                                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::softmax<T, T>(dstTensor, nullptr, nullptr, srcTensor, sharedTmpBuffer, tiling, softmaxShapeInfo,
                       config.isCheckTiling, false, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                                   const SoftMaxTiling& tiling,
                                                   const SoftMaxShapeInfo& softmaxShapeInfo = {},
                                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::softmax<T, T>(dstTensor, nullptr, nullptr, srcTensor, adv::own_tmp("SoftMax"), tiling, softmaxShapeInfo,
                       config.isCheckTiling, true, loc);
}

// LogSoftMax (激活函数/LogSoftMax接口/LogSoftMax.md): log10 of SoftMax, max and sum written out; ND only.
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
TUNER_SIM_UNCHARGED __aicore__ inline void LogSoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sum,
                                                      const LocalTensor<T>& max, const LocalTensor<T>& src,
                                                      const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                      const LogSoftMaxTiling& tiling,
                                                      const SoftMaxShapeInfo& softmaxShapeInfo = {},
                                                      tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(!isDataFormatNZ, "LogSoftMax: the NZ format is not supported by the tuner simulator");
    adv::softmax<T, T, true>(dst, &sum, &max, src, sharedTmpBuffer, tiling, softmaxShapeInfo, true, false, loc);
}

// AdjustSoftMaxRes (激活函数/SoftMax接口/AdjustSoftMaxRes.md): every row whose max has the bit pattern `from`
// is set to `to`; true when some row was. Written from the doc's reference: each row's max read on the scalar
// unit (the first element of its 32-byte block, or every element with stepSizeMode != 0), a matching row
// filled with Duplicate.
template <typename T1, typename T2, bool isDataFormatNZ = false, uint8_t stepSizeMode = 0>
TUNER_SIM_UNCHARGED __aicore__ inline bool AdjustSoftMaxRes(const LocalTensor<T1>& softMaxRes,
                                                            const LocalTensor<T2>& maxTensor, const uint32_t from,
                                                            const T1 to, const SoftMaxShapeInfo& softmaxShapeInfo,
                                                            tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(!isDataFormatNZ, "AdjustSoftMaxRes: the NZ format is not supported by the tuner simulator");
    static_assert(adv::half_or_float<T1> && adv::half_or_float<T2>, "AdjustSoftMaxRes supports half and float");
    tuner_sim::api_site("AdjustSoftMaxRes", loc);
    const uint32_t m = softmaxShapeInfo.srcM, k = softmaxShapeInfo.srcK;
    const uint32_t step = stepSizeMode == 0 ? 32 / sizeof(T2) : 1;
    using Bits = std::conditional_t<sizeof(T2) == 2, uint16_t, uint32_t>;
    bool found = false;
    for (uint32_t r = 0; r < m; ++r) {
        const T2 v = maxTensor.GetValue(r * step, loc);
        Bits bits;
        std::memcpy(&bits, &v, sizeof(bits));
        if (bits != Bits(from)) continue;
        found = true;
        Duplicate(softMaxRes[r * k], to, int32_t(k), loc);
    }
    return found;
}

// SimpleSoftMax (激活函数/SoftMax接口/SimpleSoftMax.md): max and sum given.
TUNER_SIM_SOFTMAX_HEAD TUNER_SIM_UNCHARGED __aicore__ inline void SimpleSoftMax(
    const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor, const LocalTensor<T>& inMaxTensor,
    const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
    const SoftMaxShapeInfo& softmaxShapeInfo = {}, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_SOFTMAX_NO_NZ;
    adv::simple_softmax<T, T>(dstTensor, inSumTensor, inMaxTensor, srcTensor, sharedTmpBuffer, tiling,
                              softmaxShapeInfo, config.isCheckTiling, false, loc);
}
TUNER_SIM_SOFTMAX_HEAD TUNER_SIM_UNCHARGED __aicore__ inline void SimpleSoftMax(
    const LocalTensor<half>& dstTensor, const LocalTensor<float>& inSumTensor, const LocalTensor<float>& inMaxTensor,
    const LocalTensor<half>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
    const SoftMaxShapeInfo& softmaxShapeInfo = {}, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_SOFTMAX_NO_NZ;
    adv::simple_softmax<half, float>(dstTensor, inSumTensor, inMaxTensor, srcTensor, sharedTmpBuffer, tiling,
                                     softmaxShapeInfo, config.isCheckTiling, false, loc);
}
TUNER_SIM_SOFTMAX_HEAD TUNER_SIM_UNCHARGED __aicore__ inline void SimpleSoftMax(
    const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor, const LocalTensor<T>& inMaxTensor,
    const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_SOFTMAX_NO_NZ;
    adv::simple_softmax<T, T>(dstTensor, inSumTensor, inMaxTensor, srcTensor, adv::own_tmp("SimpleSoftMax"), tiling,
                              softmaxShapeInfo, config.isCheckTiling, true, loc);
}
TUNER_SIM_SOFTMAX_HEAD TUNER_SIM_UNCHARGED __aicore__ inline void SimpleSoftMax(
    const LocalTensor<half>& dstTensor, const LocalTensor<float>& inSumTensor, const LocalTensor<float>& inMaxTensor,
    const LocalTensor<half>& srcTensor, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_SOFTMAX_NO_NZ;
    adv::simple_softmax<half, float>(dstTensor, inSumTensor, inMaxTensor, srcTensor, adv::own_tmp("SimpleSoftMax"),
                                     tiling, softmaxShapeInfo, config.isCheckTiling, true, loc);
}
#undef TUNER_SIM_SOFTMAX_HEAD
#undef TUNER_SIM_SOFTMAX_NO_NZ

// ---- RmsNorm (归一化操作/RmsNorm.md): y = x / sqrt(mean(x^2) + eps) * gamma over the H axis of [B, S, H] ----
// Per pass of tiling.mainBsLength rows (tail tiling.tailBsLength), in float: x^2 (rows * H, reused for the
// broadcast row blocks, so at least rows rounded up to 8 blocks), the widened x when T is half (rows * H),
// and the row results (rows, rounded up to 8): GetRmsNormMaxMinTmpSize's budget when H >= 64. For half,
// gamma is applied in half after narrowing.
namespace adv {
// out[r, :] = out[r, :] op v for every row (v: h elements, gamma or beta): a strided Mul / Add whose v operand
// restarts at each repeat (row), one call per 256-byte column strip; a count-form op per row for the rows
// strided repeats cannot reach.
enum class VecOp { Mul, Add };
template <typename T>
TUNER_SIM_UNCHARGED inline void row_vec_op(VecOp op, const LocalTensor<T>& d, const LocalTensor<T>& v, uint64_t lanes,
                                           uint8_t repeat, const BinaryRepeatParams& p, Loc loc) {
    if (op == VecOp::Mul) {
        Mul(d, d, v, lanes, repeat, p, loc);
    } else {
        Add(d, d, v, lanes, repeat, p, loc);
    }
}
template <typename T>
TUNER_SIM_UNCHARGED
inline void row_vec(VecOp op, const LocalTensor<T>& out, const LocalTensor<T>& v, uint32_t m, uint32_t h, Loc loc) {
    constexpr uint32_t lanes = 256 / sizeof(T);
    // v's strips restart every row, so its last strip must fit its buffer for any row to be strided.
    const uint32_t strided = strided_ok(v, 1, h) ? strided_ok(out, m, h) : 0;
    const uint8_t rowBlocks = uint8_t(std::min(h * uint32_t(sizeof(T)) / 32, kMaxRepeat));
    const BinaryRepeatParams p(1, 1, 1, rowBlocks, rowBlocks, 0);
    for (uint32_t r0 = 0; r0 < strided; r0 += kMaxRepeat) {
        const uint8_t rows = uint8_t(std::min(kMaxRepeat, strided - r0));
        for (uint32_t c = 0; c < h; c += lanes) {
            row_vec_op(op, out[r0 * h + c], v[c], uint64_t(std::min(lanes, h - c)), rows, p, loc);
        }
    }
    for (uint32_t r = strided; r < m; ++r) {
        if (op == VecOp::Mul) {
            Mul(out[r * h], out[r * h], v, int32_t(h), loc);
        } else {
            Add(out[r * h], out[r * h], v, int32_t(h), loc);
        }
    }
}
template <typename T>
TUNER_SIM_UNCHARGED inline void rmsnorm(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                        const LocalTensor<T>& gamma, const LocalTensor<uint8_t>& tmp, T epsilon,
                                        const RmsNormTiling& tiling, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(RmsNorm, T);
    tuner_sim::api_site("RmsNorm", loc);
    const uint32_t h = tiling.hLength, rows = tiling.bLength * tiling.sLength, split = tiling.mainBsLength;
    if (split == 0 || h == 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "RmsNorm: the tiling has mainBsLength %u, hLength %u; fill it with GetRmsNormTilingInfo",
                         split, h);
    }
    const uint32_t need = rms_floats(split, h, sizeof(T)) * sizeof(float);
    if (tmp.GetSize() < need) {
        tuner_sim::fault(own ? tuner_sim::FaultClass::UbOverflow : tuner_sim::FaultClass::OutOfBounds,
                         "RmsNorm: %s holds %u bytes; tiling.mainBsLength = %u rows of %u need %u "
                         "(GetRmsNormTilingInfo's stackBufferByteSize)",
                         own ? "the UB left after InitBuffer" : "sharedTmpBuffer", tmp.GetSize(), split, h, need);
    }
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    for (uint32_t row0 = 0; row0 < rows; row0 += split) {
        const uint32_t m = std::min(split, rows - row0), n = m * h;
        const uint32_t sqFloats = rms_sq_floats(split, h);
        const LocalTensor<float> sq = f, red = f[sqFloats + (sizeof(T) == 2 ? split * h : 0)];
        const LocalTensor<float> x = rows_as_float(src[row0 * h], f[sqFloats], n, loc);
        const LocalTensor<float> y = sizeof(T) == 2 ? x : dst[row0 * h].template ReinterpretCast<float>();
        Mul(sq, x, x, int32_t(n), loc);
        row_reduce(RowOp::Sum, red, sq, sq, m, h, loc);
        Muls(red, red, tiling.reciprocalOfHLength, int32_t(m), loc);
        Adds(red, red, float(epsilon), int32_t(m), loc);
        Rsqrt(red, red, int32_t(m), loc);
        row_broadcast(sq, red, m, loc);
        row_apply(ApplyOp::Mul, y, x, sq, 1, m, h, loc);
        rows_out(dst[row0 * h], y, n, loc);
        row_vec(VecOp::Mul, dst[row0 * h], gamma, m, h, loc);
    }
}

// ---- LayerNorm (归一化操作/LayerNorm.md, the [B, S, H] form with mean and variance outputs) ---------------
// mean = rowsum(x / H); variance = rowsum((x - mean)^2 / H) (LayerNorm.md steps 1-2: Muls by 1/H, then the
// sum); y = (x - mean) * (variance + eps)^-1/2 * gamma + beta. Differences from asc-devkit's expansion: the
// rstd is computed on the [B*S] variances (Adds, Rsqrt) and broadcast, where step 4 broadcasts the variance
// to [B, S, H] first and runs Adds, Ln, Muls, Exp on every element; for half, gamma and beta are applied in
// half after narrowing. Per pass of tiling.bsCurLength rows, in float: x - mean (rows * H), its square
// (rows * H, at least rows rounded up to 8 blocks, also the broadcast row blocks), the widened x for half
// (rows * H) and the row results (two of rows rounded up to 8).
// out[0..m) = v[0..m) as T: a vector copy (narrowing Cast for half) when out starts on 32 bytes, else element
// by element on the scalar unit (a pass whose first row is not block-aligned in the [B*S] outputs).
template <typename T>
TUNER_SIM_UNCHARGED
inline void store_rows(const LocalTensor<T>& out, const LocalTensor<float>& v, uint32_t m, Loc loc) {
    if (out.tuner_off() % 32 != 0) {
        for (uint32_t r = 0; r < m; ++r) out.SetValue(r, T(v.GetValue(r, loc)), loc);
    } else if constexpr (sizeof(T) == 2) {
        narrow(out, v, m, loc);
    } else {
        Adds(out, v, 0.0f, int32_t(m), loc);
    }
}
template <typename T>
TUNER_SIM_UNCHARGED inline void layernorm(const LocalTensor<T>& out, const LocalTensor<T>& outMean,
                                          const LocalTensor<T>& outVar, const LocalTensor<T>& src,
                                          const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
                                          const LocalTensor<uint8_t>& tmp, T epsilon, const LayerNormTiling& tiling,
                                          bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(LayerNorm, T);
    tuner_sim::api_site("LayerNorm", loc);
    const uint32_t h = tiling.hLength, rows = tiling.bLength * tiling.sLength, split = tiling.bsCurLength;
    if (split == 0 || h == 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "LayerNorm: the tiling has bsCurLength %u, hLength %u; fill it with GetLayerNormNDTilingInfo",
                         split, h);
    }
    const uint32_t need = layernorm_floats(split, h, sizeof(T)) * sizeof(float);
    if (tmp.GetSize() < need) {
        tuner_sim::fault(own ? tuner_sim::FaultClass::UbOverflow : tuner_sim::FaultClass::OutOfBounds,
                         "LayerNorm: %s holds %u bytes; tiling.bsCurLength = %u rows of %u need %u "
                         "(GetLayerNormNDTilingInfo's stackBufferSize)",
                         own ? "the UB left after InitBuffer" : "sharedTmpBuffer", tmp.GetSize(), split, h, need);
    }
    const float invH = tiling.lastDimValueBack;
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    const uint32_t sqFloats = rms_sq_floats(split, h);
    const LocalTensor<float> xm = f, sq = f[split * h], w = f[split * h + sqFloats];
    const LocalTensor<float> mean = w[sizeof(T) == 2 ? split * h : 0], var = mean[align8(split)];
    for (uint32_t row0 = 0; row0 < rows; row0 += split) {
        const uint32_t m = std::min(split, rows - row0), n = m * h;
        const LocalTensor<float> x = rows_as_float(src[row0 * h], w, n, loc);
        const LocalTensor<float> y = sizeof(T) == 2 ? x : out[row0 * h].template ReinterpretCast<float>();
        Muls(xm, x, invH, int32_t(n), loc);
        row_reduce(RowOp::Sum, mean, xm, xm, m, h, loc);
        row_broadcast(sq, mean, m, loc);
        row_apply(ApplyOp::Sub, xm, x, sq, 1, m, h, loc);
        Mul(sq, xm, xm, int32_t(n), loc);
        Muls(sq, sq, invH, int32_t(n), loc);
        row_reduce(RowOp::Sum, var, sq, sq, m, h, loc);
        store_rows(outMean[row0], mean, m, loc);
        store_rows(outVar[row0], var, m, loc);
        Adds(var, var, float(epsilon), int32_t(m), loc);
        Rsqrt(var, var, int32_t(m), loc);
        row_broadcast(sq, var, m, loc);
        row_apply(ApplyOp::Mul, y, xm, sq, 1, m, h, loc);
        rows_out(out[row0 * h], y, n, loc);
        row_vec(VecOp::Mul, out[row0 * h], gamma, m, h, loc);
        row_vec(VecOp::Add, out[row0 * h], beta, m, h, loc);
    }
}
}  // namespace adv
template <typename T, bool isBasicBlock = false>
TUNER_SIM_UNCHARGED __aicore__ inline void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                                                   const LocalTensor<T>& gammaLocal,
                                                   const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon,
                                                   const RmsNormTiling& tiling,
                                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::rmsnorm(dstLocal, srcLocal, gammaLocal, sharedTmpBuffer, epsilon, tiling, false, loc);
}
template <typename T, bool isBasicBlock = false>
TUNER_SIM_UNCHARGED __aicore__ inline void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                                                   const LocalTensor<T>& gammaLocal, const T epsilon,
                                                   const RmsNormTiling& tiling,
                                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::rmsnorm(dstLocal, srcLocal, gammaLocal, adv::own_tmp("RmsNorm"), epsilon, tiling, true, loc);
}

// LayerNorm (归一化操作/LayerNorm.md): the [B, S, H] forms with mean and variance outputs (the [A, R] forms
// with LayerNormPara / LayerNormSeparateTiling are not provided).
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
                                                     const LocalTensor<T>& outputVariance,
                                                     const LocalTensor<T>& inputX, const LocalTensor<T>& gamma,
                                                     const LocalTensor<T>& beta,
                                                     const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon,
                                                     LayerNormTiling& tiling,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::layernorm(output, outputMean, outputVariance, inputX, gamma, beta, sharedTmpBuffer, epsilon, tiling, false,
                   loc);
}
template <typename T, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
                                                     const LocalTensor<T>& outputVariance,
                                                     const LocalTensor<T>& inputX, const LocalTensor<T>& gamma,
                                                     const LocalTensor<T>& beta, const T epsilon,
                                                     LayerNormTiling& tiling,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::layernorm(output, outputMean, outputVariance, inputX, gamma, beta, adv::own_tmp("LayerNorm"), epsilon,
                   tiling, true, loc);
}

}  // namespace AscendC

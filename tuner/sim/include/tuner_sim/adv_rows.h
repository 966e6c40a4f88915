// Ascend C's row-wise high-level APIs: SoftMax, LogSoftMax, SimpleSoftMax, SoftmaxFlash, SoftmaxFlashV2,
// SoftmaxFlashV3, SoftmaxGrad, SoftmaxGradFront, RmsNorm and LayerNorm (tiling structs and host helpers in
// adv_host.h). Each is expanded into basic vector APIs over [m, k] row blocks (ND format), the way
// asc-devkit's A2 implementation works: rows reduced with strided Max/Add folds and WholeReduce, the per-row
// result broadcast to one 32-byte block per row (Brcb), then applied to every row with a strided binary op
// whose second operand repeats that block. Computation is in float; half is widened first. The temporary space
// a pass takes is what asc-devkit's layout takes (SoftmaxGrad: within its tiling budget), so a buffer one
// block short is a fault and one that Huawei's kernel fits is not.
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

// BlockReduceSum / BlockReduceMax of n 32-byte blocks of src into n floats of dst (8 blocks a repeat).
TUNER_SIM_UNCHARGED inline void block_reduce(RowOp op, const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                             uint32_t n, Loc loc) {
    for (uint32_t b = 0; b < n; b += 8 * kMaxRepeat) {
        const uint32_t blocks = std::min(8 * kMaxRepeat, n - b);
        const uint32_t full = blocks / 8, rest = blocks % 8;
        if (full) {
            if (op == RowOp::Sum) {
                BlockReduceSum(dst[b], src[b * 8], int32_t(full), int32_t(kLanes), 1, 1, 8, loc);
            } else {
                BlockReduceMax(dst[b], src[b * 8], int32_t(full), int32_t(kLanes), 1, 1, 8, loc);
            }
        }
        if (rest) {
            const uint32_t at = b + full * 8;
            if (op == RowOp::Sum) {
                BlockReduceSum(dst[at], src[at * 8], 1, int32_t(rest * 8), 1, 1, 8, loc);
            } else {
                BlockReduceMax(dst[at], src[at * 8], 1, int32_t(rest * 8), 1, 1, 8, loc);
            }
        }
    }
}
// red[0..m) broadcast to c 32-byte blocks a row of dst, writing exactly m * c blocks (dst may hold no more):
// Brcb for each whole group of 8 rows (two with doubled strides for c = 2), and for the last m % 8 rows the
// value read on the scalar unit and Duplicated.
TUNER_SIM_UNCHARGED inline void row_broadcast_blocks(const LocalTensor<float>& dst, const LocalTensor<float>& red,
                                                     uint32_t m, uint32_t c, Loc loc) {
    const uint32_t groups = m / 8, L = kBlkFloats * c;
    for (uint32_t g0 = 0; g0 < groups; g0 += kMaxRepeat) {
        const uint8_t rep = uint8_t(std::min(kMaxRepeat, groups - g0));
        if (c == 1) {
            Brcb(dst[g0 * 64], red[g0 * 8], rep, BrcbRepeatParams(1, 8), loc);
        } else {
            for (uint32_t half_ = 0; half_ < 2; ++half_) {
                Brcb(dst[g0 * 128 + half_ * kBlkFloats], red[g0 * 8], rep, BrcbRepeatParams(2, 16), loc);
            }
        }
    }
    for (uint32_t r = groups * 8; r < m; ++r) Duplicate(dst[r * L], red.GetValue(r, loc), int32_t(L), loc);
}
// [m, 8] float blocks to [m, 16] floats, each block written twice (asc-devkit's 32-byte-to-64-byte
// BroadCastLastImpl): two block-strided Copy, writing exactly m * 16 floats. A template so that it is built only
// where used (Copy does not exist on 310P).
template <typename F>
TUNER_SIM_UNCHARGED inline void blocks_doubled(const LocalTensor<F>& dst, const LocalTensor<F>& src, uint32_t m,
                                               Loc loc) {
    for (uint32_t half_ = 0; half_ < 2; ++half_) {
        for (uint32_t r0 = 0; r0 < m; r0 += 8 * kMaxRepeat) {
            const uint32_t rows = std::min(8 * kMaxRepeat, m - r0), full = rows / 8, rest = rows % 8;
            const CopyRepeatParams p(2, 1, 16, 8);
            const LocalTensor<F> d = dst[r0 * 16 + half_ * kBlkFloats], sr = src[r0 * kBlkFloats];
            if (full) Copy(d, sr, kLanes, uint8_t(full), p, loc);
            if (rest) Copy(d[full * 128], sr[full * kLanes], rest * kBlkFloats, 1, p, loc);
        }
    }
}
// ---- SoftMax / SimpleSoftMax (激活函数/SoftMax接口/SoftMax.md, SimpleSoftMax.md) ------------------------
// SoftMax and LogSoftMax lay out the temporary space of a pass as asc-devkit's A2 ND code does (offsets from
// tiling.splitM = s rows, in floats): the widened rows when T is half (s * k), then the row results when they
// do not go straight into the max / sum outputs (s * reduceK: no outputs, or half outputs), then the column
// folds (s * 64), which also hold the broadcast row blocks once a reduction is done. So a float SoftMax with
// max and sum needs s * 64 floats: the row results are reduced into maxTensor / sumTensor and broadcast there.
struct SoftmaxNeed {
    bool outs;         // max and sum written out
    uint32_t outSize;  // their element size
    uint32_t reduceK;  // floats per row of the row results (tiling.reduceK)
    uint32_t typeSize; // sizeof(T)
    TUNER_SIM_UNCHARGED uint32_t floats(uint32_t s, uint32_t k) const {
        const bool red = !outs || (typeSize == 2 && outSize == 2);
        return (typeSize == 2 ? s * k : 0) + (red ? s * reduceK : 0) + s * kLanes;
    }
};
struct SoftmaxShape {
    uint32_t m, k, split, tail, passes;
};
// The shape comes from softmaxShapeInfo, or the tiling when that is left empty. With isCheckTiling (the
// default; SoftMax.md's SoftmaxConfig) a tiling that does not match the shape, e.g. one left zeroed, is
// recomputed in the API: as many rows per pass as the temporary space holds (a multiple of 8 when not all).
// need(split, k): the floats a pass of split rows takes.
template <typename Need>
TUNER_SIM_UNCHARGED inline SoftmaxShape softmax_shape(const char* api, const SoftMaxTiling& tiling,
                                                      const SoftMaxShapeInfo& info, const LocalTensor<uint8_t>& tmp,
                                                      bool checkTiling, const Need& need) {
    const uint32_t m = info.srcM ? info.srcM : tiling.srcM;
    const uint32_t k = info.srcK ? info.srcK : tiling.srcK;
    uint32_t split = tiling.splitM;
    if (checkTiling && (tiling.srcM != m || tiling.srcK != k || split == 0)) {
        split = std::min(m, tmp.GetSize() / uint32_t(sizeof(float)) / std::max(1u, k));
        while (split > 0 && need(split, k) * sizeof(float) > tmp.GetSize()) --split;
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
template <typename T, typename Need>
TUNER_SIM_UNCHARGED inline void softmax_check(const char* api, const LocalTensor<uint8_t>& tmp, const SoftmaxShape& s,
                                              bool own, const Need& needOf) {
    if (s.k * sizeof(T) % 32 != 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Misaligned, "%s: srcK %u elements is not 32-byte aligned", api, s.k);
    }
    const uint32_t need = needOf(s.split, s.k) * sizeof(float);
    if (tmp.GetSize() >= need) return;
    if (own) {
        tuner_sim::fault(tuner_sim::FaultClass::UbOverflow,
                         "%s takes its temporary space from the UB left after InitBuffer: %u bytes left, tiling.splitM "
                         "= %u rows of %u need %u (the tiling function's localWorkSpaceSize)",
                         api, tmp.GetSize(), s.split, s.k, need);
    }
    tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                     "%s: sharedTmpBuffer holds %u bytes; tiling.splitM = %u rows of %u need %u (fill the tiling "
                     "with the API's tiling function for a localWorkSpaceSize no larger than the buffer, at least "
                     "its minimum temporary size)",
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
// Writes the row results to out as [m, 32-byte] blocks of U (the max / sum outputs), so that no instruction
// writes past out's m rows. For float, `fold` holds them broadcast already (row_broadcast) and is copied; for
// half red[0..m) is narrowed into out's first m elements, broadcast from there into `fold` and copied back.
template <typename U>
TUNER_SIM_UNCHARGED inline void rows_result(const LocalTensor<U>& out, const LocalTensor<float>& red,
                                            const LocalTensor<float>& fold, uint32_t m, Loc loc) {
    if constexpr (sizeof(U) == 4) {
        (void)red;
        DataCopy(out, fold, m * kBlkFloats, loc);
    } else {
        const LocalTensor<half> blocks = fold.ReinterpretCast<half>();
        narrow(out, red, m, loc);
        row_broadcast(blocks, out, m, loc);
        DataCopy(out, blocks, m * 16, loc);
    }
}
// SoftMax: max = rowmax(x), e = exp(x - max), sum = rowsum(e), dst = e / sum; max and sum written out when
// given (U: their element type).
// LogSoftMax (isLog) then takes log10 of dst, as LogSoftMax.md's reference and step 8 do.
// SoftmaxFlash without isUpdate (isFlash) is SoftMax under its own name.
template <typename T, typename U, bool isLog = false, bool isFlash = false>
TUNER_SIM_UNCHARGED inline void softmax(const LocalTensor<T>& dst, const LocalTensor<U>* sum, const LocalTensor<U>* max,
                                        const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
                                        const SoftMaxTiling& tiling, const SoftMaxShapeInfo& info, bool checkTiling,
                                        bool own, Loc loc) {
    if constexpr (isLog) {
        TUNER_SIM_ADV_REQUIRE(LogSoftMax, T);
    } else if constexpr (isFlash) {
        TUNER_SIM_ADV_REQUIRE(SoftmaxFlash, T);
    } else {
        TUNER_SIM_ADV_REQUIRE(SoftMax, T);
    }
    static_assert(half_or_float<U>, "SoftMax: sum and max are half or float");
    const char* api = isLog ? "LogSoftMax" : (isFlash ? "SoftmaxFlash" : "SoftMax");
    tuner_sim::api_site(api, loc);
    const bool outs = sum != nullptr;
    // Row results in the temporary space take tiling.reduceK floats a row (32 / the size SoftMaxTilingFunc
    // was given), or one 32-byte block of U when the tiling is recomputed.
    const uint32_t reduceK = tiling.reduceK == 8 || tiling.reduceK == 16 ? tiling.reduceK : uint32_t(32 / sizeof(U));
    const SoftmaxNeed need{outs, uint32_t(sizeof(U)), reduceK, uint32_t(sizeof(T))};
    auto needOf = [&](uint32_t split, uint32_t k) { return need.floats(split, k); };
    const SoftmaxShape s = softmax_shape(api, tiling, info, tmp, checkTiling, needOf);
    softmax_check<T>(api, tmp, s, own, needOf);
    const bool ownRed = !outs || (sizeof(T) == 2 && sizeof(U) == 2);
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    const uint32_t workFloats = sizeof(T) == 2 ? s.split * s.k : 0;
    const LocalTensor<float> redArea = f[workFloats];
    const LocalTensor<float> fold = f[workFloats + (ownRed ? s.split * reduceK : 0)];
    for (uint32_t p = 0; p <= s.passes; ++p) {
        const uint32_t m = p < s.passes ? s.split : s.tail;
        if (m == 0) continue;
        const uint32_t row0 = p * s.split, n = m * s.k, blk = 32 / sizeof(U);
        const LocalTensor<float> x = rows_as_float(src[row0 * s.k], f, n, loc);
        const LocalTensor<float> y = sizeof(T) == 2 ? x : dst[row0 * s.k].template ReinterpretCast<float>();
        LocalTensor<float> maxRed = redArea, sumRed = redArea;
        if constexpr (sizeof(U) == 4) {
            if (outs) {
                maxRed = (*max)[row0 * blk].template ReinterpretCast<float>();
                sumRed = (*sum)[row0 * blk].template ReinterpretCast<float>();
            }
        }
        row_reduce(RowOp::Max, maxRed, x, fold, m, s.k, loc);
        row_broadcast(fold, maxRed, m, loc);
        row_apply(ApplyOp::Sub, y, x, fold, 1, m, s.k, loc);
        if (outs) rows_result((*max)[row0 * blk], maxRed, fold, m, loc);
        Exp(y, y, int32_t(n), loc);
        row_reduce(RowOp::Sum, sumRed, y, fold, m, s.k, loc);
        row_broadcast(fold, sumRed, m, loc);
        row_apply(ApplyOp::Div, y, y, fold, 1, m, s.k, loc);
        if (outs) rows_result((*sum)[row0 * blk], sumRed, fold, m, loc);
        if constexpr (isLog) {
            Ln(y, y, int32_t(n), loc);
            Muls(y, y, kInvLn10, int32_t(n), loc);
        }
        rows_out(dst[row0 * s.k], y, n, loc);
    }
}
// SimpleSoftMax: dst = exp(x - inMax) / inSum, inMax and inSum given as [m, 32-byte] blocks of U. As
// asc-devkit's A2 ND path: float rows in one pass with no temporary space; half rows in passes of
// s = tiling.splitM, widened into s * k floats, and half inMax / inSum widened in turn into s * 16 more.
template <typename T, typename U>
TUNER_SIM_UNCHARGED inline void simple_softmax(const LocalTensor<T>& dst, const LocalTensor<U>& inSum,
                                               const LocalTensor<U>& inMax, const LocalTensor<T>& src,
                                               const LocalTensor<uint8_t>& tmp, const SoftMaxTiling& tiling,
                                               const SoftMaxShapeInfo& info, bool checkTiling, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(SimpleSoftMax, T);
    static_assert(half_or_float<U>, "SimpleSoftMax: sum and max are half or float");
    tuner_sim::api_site("SimpleSoftMax", loc);
    auto needOf = [](uint32_t split, uint32_t k) {
        return sizeof(T) == 2 ? split * k + (sizeof(U) == 2 ? split * 16 : 0) : 0u;
    };
    SoftmaxShape s = softmax_shape("SimpleSoftMax", tiling, info, tmp, checkTiling, needOf);
    if constexpr (sizeof(T) == 4) s = {s.m, s.k, s.m, 0, 1};  // all rows at once
    softmax_check<T>("SimpleSoftMax", tmp, s, own, needOf);
    const LocalTensor<float> f = tmp.ReinterpretCast<float>(), blocksF = f[sizeof(T) == 2 ? s.split * s.k : 0];
    constexpr uint32_t blk = 32 / sizeof(U), rowBlocks = sizeof(U) == 2 ? 2 : 1;
    // A row statistic as floats: the tensor itself for float, widened into blocksF for half.
    auto as_float = [&](const LocalTensor<U>& v, uint32_t m) {
        if constexpr (sizeof(U) == 4) {
            (void)m;
            return v;
        } else {
            widen(blocksF, v, m * 16, loc);
            return blocksF;
        }
    };
    for (uint32_t p = 0; p <= s.passes; ++p) {
        const uint32_t m = p < s.passes ? s.split : s.tail;
        if (m == 0) continue;
        const uint32_t row0 = p * s.split, n = m * s.k;
        const LocalTensor<float> x = rows_as_float(src[row0 * s.k], f, n, loc);
        const LocalTensor<float> y = sizeof(T) == 2 ? x : dst[row0 * s.k].template ReinterpretCast<float>();
        row_apply(ApplyOp::Sub, y, x, as_float(inMax[row0 * blk], m), rowBlocks, m, s.k, loc);
        Exp(y, y, int32_t(n), loc);
        row_apply(ApplyOp::Div, y, y, as_float(inSum[row0 * blk], m), rowBlocks, m, s.k, loc);
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

// ---- SoftmaxFlash (激活函数/SoftMax接口/SoftmaxFlash.md; deprecated for SoftmaxFlashV2) -------------------
// isUpdate false: SoftMax with max and sum. isUpdate true: max = max(rowmax(x), inMax), e = exp(x - rowmax),
// sum = exp(inMax - max) * inSum + exp(rowmax - max) * rowsum(e), expMax = exp(inMax - max) * inSum / sum, dst
// = e * exp(rowmax - max) / sum, in asc-devkit's A2 order. T float with U float, or T half with U half or float;
// statistics as [m, 8 c] floats (c = 2 for half ones). Per pass of s = tiling.splitM rows with isUpdate, in
// floats: the widened rows (s * k, for float the column folds of exp's row sums), exp's rows (s * k, also the
// column folds of the row max) and four statistics (s * 8 c each): SoftMaxFlashTilingFunc's 4 * blk + 2k a row.
namespace adv {
template <typename T, typename U>
TUNER_SIM_UNCHARGED inline void softmax_flash_update(const LocalTensor<T>& dst, const LocalTensor<U>& sumOut,
                                                     const LocalTensor<U>& maxOut, const LocalTensor<T>& src,
                                                     const LocalTensor<T>& expMax, const LocalTensor<U>& inSum,
                                                     const LocalTensor<U>& inMax, const LocalTensor<uint8_t>& tmp,
                                                     const SoftMaxTiling& tiling, const SoftMaxShapeInfo& info,
                                                     bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(SoftmaxFlash, T);
    static_assert(half_or_float<U> && (sizeof(T) == 2 || sizeof(U) == 4),
                  "SoftmaxFlash: T float with U float, or T half");
    const char* api = "SoftmaxFlash";
    tuner_sim::api_site(api, loc);
    constexpr uint32_t c = sizeof(U) == 2 ? 2 : 1, L = kBlkFloats * c, blkU = 32 / sizeof(U);
    auto needOf = [](uint32_t split, uint32_t k) { return 2 * split * k + 4 * split * L; };
    const SoftmaxShape s = softmax_shape(api, tiling, info, tmp, true, needOf);
    softmax_check<T>(api, tmp, s, own, needOf);
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    const LocalTensor<float> w = f, e = f[s.split * s.k], P = e[s.split * s.k], Q = P[s.split * L];
    const LocalTensor<float> R = Q[s.split * L], S = R[s.split * L];
    // U statistics as L-layout floats: the tensor itself for float, widened into `into` for half.
    auto stats_in = [&](const LocalTensor<U>& in, const LocalTensor<float>& into, uint32_t n) {
        if constexpr (sizeof(U) == 4) {
            (void)into;
            (void)n;
            return in;
        } else {
            widen(into, in, n, loc);
            return into;
        }
    };
    auto stats_out = [&](const LocalTensor<U>& out, const LocalTensor<float>& v, uint32_t n) {
        if constexpr (sizeof(U) == 4) {
            DataCopy(out, v, n, loc);
        } else {
            narrow(out, v, n, loc);
        }
    };
    for (uint32_t p = 0; p <= s.passes; ++p) {
        const uint32_t m = p < s.passes ? s.split : s.tail;
        if (m == 0) continue;
        const uint32_t row0 = p * s.split, n = m * s.k, bU = row0 * blkU, nL = m * L;
        const LocalTensor<float> x = rows_as_float(src[row0 * s.k], w, n, loc);
        row_reduce(RowOp::Max, P, x, e, m, s.k, loc);
        row_broadcast_blocks(Q, P, m, c, loc);  // Q: rowmax
        row_apply(ApplyOp::Sub, e, x, Q, c, m, s.k, loc);
        Exp(e, e, int32_t(n), loc);
        row_reduce(RowOp::Sum, S, e, w, m, s.k, loc);
        const LocalTensor<float> inMaxF = stats_in(inMax[bU], R, nL);
        Max(P, inMaxF, Q, int32_t(nL), loc);  // P: the new max
        stats_out(maxOut[bU], P, nL);
        Sub(Q, Q, P, int32_t(nL), loc);
        Exp(Q, Q, int32_t(nL), loc);  // Q: exp(rowmax - max)
        Sub(R, inMaxF, P, int32_t(nL), loc);
        Exp(R, R, int32_t(nL), loc);  // R: exp(inMax - max)
        row_broadcast_blocks(P, S, m, c, loc);  // P: rowsum(e)
        const LocalTensor<float> inSumF = stats_in(inSum[bU], S, nL);
        Mul(R, R, inSumF, int32_t(nL), loc);
        Mul(P, Q, P, int32_t(nL), loc);
        Add(S, R, P, int32_t(nL), loc);  // S: the new sum
        Div(R, R, S, int32_t(nL), loc);  // R: expMax
        if constexpr (sizeof(T) == 4) {
            DataCopy(expMax[row0 * kBlkFloats], R, nL, loc);
        } else if constexpr (c == 2) {
            narrow(expMax[row0 * 16], R, nL, loc);
        } else {  // [m, 8] to [m, 16], then half
            blocks_doubled(w, R, m, loc);
            narrow(expMax[row0 * 16], w, m * 16, loc);
        }
        stats_out(sumOut[bU], S, nL);
        Div(Q, Q, S, int32_t(nL), loc);
        if constexpr (sizeof(T) == 4) {
            row_apply(ApplyOp::Mul, dst[row0 * s.k], e, Q, c, m, s.k, loc);
        } else {
            row_apply(ApplyOp::Mul, e, e, Q, c, m, s.k, loc);
            narrow(dst[row0 * s.k], e, n, loc);
        }
    }
}
template <typename T, typename U>
TUNER_SIM_UNCHARGED inline void softmax_flash(const LocalTensor<T>& dst, const LocalTensor<U>& sum,
                                              const LocalTensor<U>& max, const LocalTensor<T>& src,
                                              const LocalTensor<T>& expMax, const LocalTensor<U>& inSum,
                                              const LocalTensor<U>& inMax, const LocalTensor<uint8_t>& tmp,
                                              const SoftMaxTiling& tiling, bool isUpdate,
                                              const SoftMaxShapeInfo& info, bool own, Loc loc) {
    if (isUpdate) {
        softmax_flash_update(dst, sum, max, src, expMax, inSum, inMax, tmp, tiling, info, own, loc);
    } else {
        softmax<T, U, false, true>(dst, &sum, &max, src, tmp, tiling, info, true, own, loc);
    }
}
}  // namespace adv
#define TUNER_SIM_FLASH_FORMS(T_, U_)                                                                               \
    template <typename T, bool isReuseSource = false, bool isBasicBlock = false>                                  \
    TUNER_SIM_UNCHARGED __aicore__ inline void SoftmaxFlash(                                                      \
        const LocalTensor<T_>& dstTensor, const LocalTensor<U_>& sumTensor, const LocalTensor<U_>& maxTensor,     \
        const LocalTensor<T_>& srcTensor, const LocalTensor<T_>& expMaxTensor, const LocalTensor<U_>& inSumTensor, \
        const LocalTensor<U_>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,                           \
        const SoftMaxTiling& tiling, bool isUpdate = false, const SoftMaxShapeInfo& softmaxShapeInfo = {},         \
        tuner_sim::Loc loc = tuner_sim::Loc::here()) {                                                             \
        adv::softmax_flash<T_, U_>(dstTensor, sumTensor, maxTensor, srcTensor, expMaxTensor, inSumTensor,          \
                                   inMaxTensor, sharedTmpBuffer, tiling, isUpdate, softmaxShapeInfo, false, loc);  \
    }                                                                                                               \
    template <typename T, bool isReuseSource = false, bool isBasicBlock = false>                                  \
    TUNER_SIM_UNCHARGED __aicore__ inline void SoftmaxFlash(                                                      \
        const LocalTensor<T_>& dstTensor, const LocalTensor<U_>& sumTensor, const LocalTensor<U_>& maxTensor,     \
        const LocalTensor<T_>& srcTensor, const LocalTensor<T_>& expMaxTensor, const LocalTensor<U_>& inSumTensor, \
        const LocalTensor<U_>& inMaxTensor, const SoftMaxTiling& tiling, bool isUpdate = false,                    \
        const SoftMaxShapeInfo& softmaxShapeInfo = {}, tuner_sim::Loc loc = tuner_sim::Loc::here()) {              \
        adv::softmax_flash<T_, U_>(dstTensor, sumTensor, maxTensor, srcTensor, expMaxTensor, inSumTensor,          \
                                   inMaxTensor, adv::own_tmp("SoftmaxFlash"), tiling, isUpdate, softmaxShapeInfo,  \
                                   true, loc);                                                                     \
    }
// SoftmaxFlash (deprecated by asc-devkit): all tensors of T, or half tensors with float sum and max.
TUNER_SIM_FLASH_FORMS(T, T)
TUNER_SIM_FLASH_FORMS(half, float)
#undef TUNER_SIM_FLASH_FORMS

// ---- SoftmaxFlashV2 (激活函数/SoftMax接口/SoftmaxFlashV2.md), FlashAttention-2's row update -----------------
// isUpdate false: max = rowmax(x), dst = exp(x - max), expSum = rowsum(dst). isUpdate true: max =
// max(rowmax(x), inMax), dst = exp(x - max), expMax = exp(inMax - max), expSum = expMax * inExpSum +
// rowsum(dst). max, expSum, inMax and inExpSum are [m, 32-byte] blocks of U, expMax of T. T float with U float,
// or T half with U half or float; computed in float. Per pass of s = tiling.splitM rows, in floats, as
// asc-devkit's A2 paths: for half the widened rows (s * k); the row statistics, `c` 32-byte blocks a row (c = 2
// for half statistics, kept as [s, 16] floats so they narrow straight into [s, 16] half), two of them with
// isUpdate, one for half statistics without it; the column folds (s * 64). Within SoftMaxFlashV2TilingFunc's
// budget per row ((8 + 64) for float; 2 * blk + k + 64 for half, blk = 32 / sizeof(U)).
namespace adv {
template <typename T, typename U>
TUNER_SIM_UNCHARGED constexpr uint32_t flashv2_floats(uint32_t s, uint32_t k, bool isUpdate) {
    constexpr uint32_t c = sizeof(U) == 2 ? 2 : 1;
    if constexpr (sizeof(T) == 4) return s * (kBlkFloats + kLanes);
    return s * k + s * kLanes + (isUpdate ? 2 : (c == 2 ? 1 : 0)) * s * kBlkFloats * c;
}
// The half form: x widened; statistics as [m, 8 c] floats (c blocks a row), widened from / narrowed to U.
template <typename U, bool isUpdate>
TUNER_SIM_UNCHARGED inline void softmax_flash_v2_half(const LocalTensor<half>& dst, const LocalTensor<U>& expSum,
                                                      const LocalTensor<U>& maxOut, const LocalTensor<half>& src,
                                                      const LocalTensor<half>& expMax,
                                                      const LocalTensor<U>& inExpSum, const LocalTensor<U>& inMax,
                                                      const LocalTensor<uint8_t>& tmp, const SoftmaxShape& s,
                                                      Loc loc) {
    constexpr uint32_t c = sizeof(U) == 2 ? 2 : 1, L = kBlkFloats * c, blkU = 32 / sizeof(U);
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    const LocalTensor<float> w = f, P = f[s.split * s.k];
    const LocalTensor<float> fold = P[(isUpdate || c == 2) ? s.split * L : 0], Q = fold[s.split * kLanes];
    for (uint32_t p = 0; p <= s.passes; ++p) {
        const uint32_t m = p < s.passes ? s.split : s.tail;
        if (m == 0) continue;
        const uint32_t row0 = p * s.split, n = m * s.k, bU = row0 * blkU, nL = m * L;
        widen(w, src[row0 * s.k], n, loc);
        // The row statistics written out: floats in L layout (for float U, straight into the output).
        auto stats_out = [&](const LocalTensor<U>& out, const LocalTensor<float>& v) {
            if constexpr (sizeof(U) == 4) {
                DataCopy(out[bU], v, nL, loc);
            } else {
                narrow(out[bU], v, nL, loc);
            }
        };
        if constexpr (!isUpdate) {
            LocalTensor<float> red = P;
            if constexpr (sizeof(U) == 4) red = maxOut[bU];
            row_reduce(RowOp::Max, red, w, fold, m, s.k, loc);
            row_broadcast_blocks(fold, red, m, c, loc);
            row_apply(ApplyOp::Sub, w, w, fold, c, m, s.k, loc);
            stats_out(maxOut, fold);
            Exp(w, w, int32_t(n), loc);
            narrow(dst[row0 * s.k], w, n, loc);
            if constexpr (sizeof(U) == 4) red = expSum[bU];
            row_reduce(RowOp::Sum, red, w, fold, m, s.k, loc);
            row_broadcast_blocks(fold, red, m, c, loc);
            stats_out(expSum, fold);
        } else {
            row_reduce(RowOp::Max, P, w, fold, m, s.k, loc);
            row_broadcast_blocks(fold, P, m, c, loc);
            LocalTensor<float> inMaxF = Q;
            if constexpr (sizeof(U) == 4) {
                inMaxF = inMax[bU];
            } else {
                widen(Q, inMax[bU], nL, loc);
            }
            Max(P, inMaxF, fold, int32_t(nL), loc);
            Sub(Q, inMaxF, P, int32_t(nL), loc);
            Exp(Q, Q, int32_t(nL), loc);  // expMax, as floats
            if constexpr (c == 2) {
                narrow(expMax[row0 * 16], Q, nL, loc);
            } else {  // [m, 8] to [m, 16], then half
                blocks_doubled(fold, Q, m, loc);
                narrow(expMax[row0 * 16], fold, m * 16, loc);
            }
            row_apply(ApplyOp::Sub, w, w, P, c, m, s.k, loc);
            stats_out(maxOut, P);
            Exp(w, w, int32_t(n), loc);
            narrow(dst[row0 * s.k], w, n, loc);
            row_reduce(RowOp::Sum, P, w, fold, m, s.k, loc);
            row_broadcast_blocks(fold, P, m, c, loc);
            if constexpr (sizeof(U) == 4) {
                Mul(expSum[bU], Q, inExpSum[bU], int32_t(nL), loc);
                Add(expSum[bU], expSum[bU], fold, int32_t(nL), loc);
            } else {
                widen(P, inExpSum[bU], nL, loc);
                Mul(P, P, Q, int32_t(nL), loc);
                Add(P, P, fold, int32_t(nL), loc);
                narrow(expSum[bU], P, nL, loc);
            }
        }
    }
}
// The float form: rows in place in dst, statistics as [m, 8] float blocks.
template <bool isUpdate>
TUNER_SIM_UNCHARGED inline void softmax_flash_v2_float(const LocalTensor<float>& dst, const LocalTensor<float>& expSum,
                                                       const LocalTensor<float>& maxOut,
                                                       const LocalTensor<float>& src,
                                                       const LocalTensor<float>& expMax,
                                                       const LocalTensor<float>& inExpSum,
                                                       const LocalTensor<float>& inMax,
                                                       const LocalTensor<uint8_t>& tmp, const SoftmaxShape& s,
                                                       Loc loc) {
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    const LocalTensor<float> nm = f, fold = f[s.split * kBlkFloats];
    for (uint32_t p = 0; p <= s.passes; ++p) {
        const uint32_t m = p < s.passes ? s.split : s.tail;
        if (m == 0) continue;
        const uint32_t row0 = p * s.split, n = m * s.k, b0 = row0 * kBlkFloats, nb = m * kBlkFloats;
        const LocalTensor<float> x = src[row0 * s.k], y = dst[row0 * s.k];
        if constexpr (!isUpdate) {
            row_reduce(RowOp::Max, maxOut[b0], x, fold, m, s.k, loc);
            row_broadcast(fold, maxOut[b0], m, loc);
            row_apply(ApplyOp::Sub, y, x, fold, 1, m, s.k, loc);
            DataCopy(maxOut[b0], fold, nb, loc);
            Exp(y, y, int32_t(n), loc);
            row_reduce(RowOp::Sum, expSum[b0], y, fold, m, s.k, loc);
            row_broadcast(fold, expSum[b0], m, loc);
            DataCopy(expSum[b0], fold, nb, loc);
        } else {
            row_reduce(RowOp::Max, nm, x, fold, m, s.k, loc);
            row_broadcast(fold, nm, m, loc);
            Max(nm, inMax[b0], fold, int32_t(nb), loc);
            Sub(fold, inMax[b0], nm, int32_t(nb), loc);
            Exp(expMax[b0], fold, int32_t(nb), loc);
            row_apply(ApplyOp::Sub, y, x, nm, 1, m, s.k, loc);
            Exp(y, y, int32_t(n), loc);
            DataCopy(maxOut[b0], nm, nb, loc);
            row_reduce(RowOp::Sum, nm, y, fold, m, s.k, loc);
            row_broadcast(fold, nm, m, loc);
            Mul(expSum[b0], expMax[b0], inExpSum[b0], int32_t(nb), loc);
            Add(expSum[b0], expSum[b0], fold, int32_t(nb), loc);
        }
    }
}
template <typename T, typename U, bool isUpdate>
TUNER_SIM_UNCHARGED inline void softmax_flash_v2(const LocalTensor<T>& dst, const LocalTensor<U>& expSum,
                                                 const LocalTensor<U>& maxOut, const LocalTensor<T>& src,
                                                 const LocalTensor<T>& expMax, const LocalTensor<U>& inExpSum,
                                                 const LocalTensor<U>& inMax, const LocalTensor<uint8_t>& tmp,
                                                 const SoftMaxTiling& tiling, const SoftMaxShapeInfo& info,
                                                 bool checkTiling, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(SoftmaxFlashV2, T);
    static_assert(half_or_float<U> && (sizeof(T) == 2 || sizeof(U) == 4),
                  "SoftmaxFlashV2: T float with U float, or T half");
    const char* api = "SoftmaxFlashV2";
    tuner_sim::api_site(api, loc);
    auto needOf = [](uint32_t split, uint32_t k) { return flashv2_floats<T, U>(split, k, isUpdate); };
    const SoftmaxShape s = softmax_shape(api, tiling, info, tmp, checkTiling, needOf);
    softmax_check<T>(api, tmp, s, own, needOf);
    if constexpr (sizeof(T) == 2) {
        softmax_flash_v2_half<U, isUpdate>(dst, expSum, maxOut, src, expMax, inExpSum, inMax, tmp, s, loc);
    } else {
        softmax_flash_v2_float<isUpdate>(dst, expSum, maxOut, src, expMax, inExpSum, inMax, tmp, s, loc);
    }
}
}  // namespace adv
#define TUNER_SIM_FLASHV2_HEAD                                                                     \
    template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, \
              bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
#define TUNER_SIM_FLASHV2_CHECKS                                                                                   \
    static_assert(!isDataFormatNZ, "SoftmaxFlashV2: the NZ format is not supported by the tuner simulator");       \
    static_assert(config.mode == SoftmaxMode::SOFTMAX_NORMAL,                                                      \
                  "SoftmaxFlashV2: SOFTMAX_OUTPUT_WITHOUT_BRC is not supported by the tuner simulator")
TUNER_SIM_FLASHV2_HEAD TUNER_SIM_UNCHARGED __aicore__ inline void SoftmaxFlashV2(
    const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor, const LocalTensor<T>& maxTensor,
    const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
    const LocalTensor<T>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
    const SoftMaxShapeInfo& softmaxShapeInfo = {}, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_FLASHV2_CHECKS;
    adv::softmax_flash_v2<T, T, isUpdate>(dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor,
                                          inExpSumTensor, inMaxTensor, sharedTmpBuffer, tiling, softmaxShapeInfo,
                                          config.isCheckTiling, false, loc);
}
TUNER_SIM_FLASHV2_HEAD TUNER_SIM_UNCHARGED __aicore__ inline void SoftmaxFlashV2(
    const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor, const LocalTensor<T>& maxTensor,
    const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
    const LocalTensor<T>& inMaxTensor, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_FLASHV2_CHECKS;
    adv::softmax_flash_v2<T, T, isUpdate>(dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor,
                                          inExpSumTensor, inMaxTensor, adv::own_tmp("SoftmaxFlashV2"), tiling,
                                          softmaxShapeInfo, config.isCheckTiling, true, loc);
}
// The half form with float sum and max.
TUNER_SIM_FLASHV2_HEAD TUNER_SIM_UNCHARGED __aicore__ inline void SoftmaxFlashV2(
    const LocalTensor<half>& dstTensor, const LocalTensor<float>& expSumTensor, const LocalTensor<float>& maxTensor,
    const LocalTensor<half>& srcTensor, const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inExpSumTensor,
    const LocalTensor<float>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
    const SoftMaxShapeInfo& softmaxShapeInfo = {}, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_FLASHV2_CHECKS;
    adv::softmax_flash_v2<half, float, isUpdate>(dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor,
                                                 inExpSumTensor, inMaxTensor, sharedTmpBuffer, tiling,
                                                 softmaxShapeInfo, config.isCheckTiling, false, loc);
}
TUNER_SIM_FLASHV2_HEAD TUNER_SIM_UNCHARGED __aicore__ inline void SoftmaxFlashV2(
    const LocalTensor<half>& dstTensor, const LocalTensor<float>& expSumTensor, const LocalTensor<float>& maxTensor,
    const LocalTensor<half>& srcTensor, const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inExpSumTensor,
    const LocalTensor<float>& inMaxTensor, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_FLASHV2_CHECKS;
    adv::softmax_flash_v2<half, float, isUpdate>(dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor,
                                                 inExpSumTensor, inMaxTensor, adv::own_tmp("SoftmaxFlashV2"), tiling,
                                                 softmaxShapeInfo, config.isCheckTiling, true, loc);
}
// The forms with outReduceMax (SOFTMAX_OUTPUT_WITHOUT_BRC only): not provided.
TUNER_SIM_FLASHV2_HEAD TUNER_SIM_UNCHARGED __aicore__ inline void SoftmaxFlashV2(
    const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&,
    const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&,
    const LocalTensor<uint8_t>&, const SoftMaxTiling&, const SoftMaxShapeInfo& = {},
    tuner_sim::Loc = tuner_sim::Loc::here()) {
    static_assert(tuner_sim::dependent_false<T>,
                  "SoftmaxFlashV2: the form with outReduceMax is not supported by the tuner simulator");
}
TUNER_SIM_FLASHV2_HEAD TUNER_SIM_UNCHARGED __aicore__ inline void SoftmaxFlashV2(
    const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&,
    const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&,
    const SoftMaxTiling&, const SoftMaxShapeInfo& = {}, tuner_sim::Loc = tuner_sim::Loc::here()) {
    static_assert(tuner_sim::dependent_false<T>,
                  "SoftmaxFlashV2: the form with outReduceMax is not supported by the tuner simulator");
}
#undef TUNER_SIM_FLASHV2_HEAD
#undef TUNER_SIM_FLASHV2_CHECKS

// ---- SoftmaxFlashV3 (激活函数/SoftMax接口/SoftmaxFlashV3.md), the Softmax PASA update ----------------------
// T half, U float; ND; srcK >= 512 and a multiple of 64; splitMeanCnt 8. Each row is cut into 8 parts of
// baseK = k / 8: rowMeanLocal[j] is asc-devkit's A2 block sum of the row (the first 512 columns' 64 block sums,
// the rest added 64 columns at a time, then summed 8 at a time) over baseK, rowMeanGlobal their mean; part j of
// x is shifted by (rowMeanGlobal - rowMeanLocal[j]) * alpha / (1 - alpha). Then, with scalar = alpha / (1 -
// alpha): update false: mean = rowMeanGlobal, max = rowmax(x) (+ a zero shift), dst = exp(x - rowmax), expSum =
// rowsum(dst); update true: mean = (rowMeanGlobal + inMean * (loopCnt - 1)) / loopCnt, shiftCurr =
// (rowMeanGlobal - mean) * scalar, shiftPrev = (inMean - mean) * scalar, max = max(rowmax + shiftCurr, inMax +
// shiftPrev), expMax = exp(inMax - max + shiftPrev), dst = exp(x - (max - shiftCurr)), expSum = expMax *
// inExpSum + rowsum(dst); expMax is written as [m, 16] half. The steps run in asc-devkit's order, so outputs
// that share a tensor with their inputs (as its example passes them) give what the NPU gives. Temporary space per
// pass of s = tiling.splitM rows, in floats, as asc-devkit's layout: the widened rows (s * k), the mean
// (s * 8), the column folds (s * 64), the row max, shiftCurr and (update) shiftPrev (s * 8 each), one row of part
// shifts (k).
struct SoftMaxParams {
    uint32_t srcM = 0;
    uint32_t srcK = 0;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
    uint32_t loopCnt = 1;
    uint32_t splitMeanCnt = 8;
    float alpha = 0;
};
namespace adv {
TUNER_SIM_UNCHARGED constexpr uint32_t flashv3_floats(uint32_t s, uint32_t k, bool isUpdate) {
    return s * k + s * kLanes + (isUpdate ? 4 : 3) * s * kBlkFloats + k;
}
template <typename T, typename U, bool isUpdate>
TUNER_SIM_UNCHARGED inline void softmax_flash_v3(const LocalTensor<T>& dst, const LocalTensor<U>& meanOut,
                                                 const LocalTensor<U>& expSum, const LocalTensor<U>& maxOut,
                                                 const LocalTensor<T>& src, const LocalTensor<T>& expMax,
                                                 const LocalTensor<U>& inMean, const LocalTensor<U>& inExpSum,
                                                 const LocalTensor<U>& inMax, const LocalTensor<uint8_t>& tmp,
                                                 const SoftMaxTiling& tiling, const SoftMaxParams& params, bool own,
                                                 Loc loc) {
    TUNER_SIM_ADV_REQUIRE(SoftmaxFlashV3, T);
    static_assert(std::is_same_v<T, half> && std::is_same_v<U, float>,
                  "SoftmaxFlashV3: T is half and U is float (SoftmaxFlashV3.md)");
    const char* api = "SoftmaxFlashV3";
    tuner_sim::api_site(api, loc);
    const uint32_t k = params.srcK;
    if (k < 512 || k % kLanes != 0 || params.splitMeanCnt != 8 || params.loopCnt == 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "SoftmaxFlashV3: srcK %u (at least 512, a multiple of 64 here), splitMeanCnt %u (only 8), "
                         "loopCnt %u (at least 1)",
                         k, params.splitMeanCnt, params.loopCnt);
    }
    const SoftMaxShapeInfo info{params.srcM, params.srcK, params.oriSrcM, params.oriSrcK};
    auto needOf = [](uint32_t split, uint32_t kk) { return flashv3_floats(split, kk, isUpdate); };
    const SoftmaxShape s = softmax_shape(api, tiling, info, tmp, true, needOf);
    softmax_check<T>(api, tmp, s, own, needOf);
    const float scalar = params.alpha / (1.0f - params.alpha);
    const uint32_t baseK = k / 8, rb = s.split * kBlkFloats;
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    const LocalTensor<float> w = f, meanTmp = f[s.split * k], fold = meanTmp[rb], maxTmp = fold[s.split * kLanes];
    const LocalTensor<float> shiftCurr = maxTmp[rb], shiftPrev = shiftCurr[rb];
    const LocalTensor<float> parts = isUpdate ? shiftPrev[rb] : shiftPrev;
    for (uint32_t p = 0; p <= s.passes; ++p) {
        const uint32_t m = p < s.passes ? s.split : s.tail;
        if (m == 0) continue;
        const uint32_t row0 = p * s.split, n = m * k, b0 = row0 * kBlkFloats, nb = int32_t(m * kBlkFloats);
        widen(w, src[row0 * k], n, loc);
        // rowMeanLocal (in maxTmp), rowMeanGlobal (in shiftCurr, then blocks in meanTmp)
        for (uint32_t r = 0; r < m; ++r) {
            BlockReduceSum(fold[r * kLanes], w[r * k], 8, int32_t(kLanes), 1, 1, 8, loc);
            const uint32_t remain = k / kLanes - 8;
            if (remain) {
                Add(fold[r * kLanes], w[r * k + 512], fold[r * kLanes], kLanes, uint8_t(remain),
                    BinaryRepeatParams(1, 1, 1, 0, 8, 0), loc);
            }
        }
        block_reduce(RowOp::Sum, maxTmp, fold, m * 8, loc);
        Muls(maxTmp, maxTmp, 1.0f / float(baseK), nb, loc);
        block_reduce(RowOp::Sum, shiftCurr, maxTmp, m, loc);
        row_broadcast(fold, shiftCurr, m, loc);
        DataCopy(shiftCurr, fold, nb, loc);
        Muls(meanTmp, shiftCurr, 1.0f / 8.0f, nb, loc);
        // the part shifts, subtracted from each row
        Sub(shiftCurr, meanTmp, maxTmp, nb, loc);
        Muls(shiftCurr, shiftCurr, scalar, nb, loc);
        for (uint32_t r = 0; r < m; ++r) {
            Brcb(fold, shiftCurr[r * 8], 1, BrcbRepeatParams(1, 8), loc);
            for (uint32_t j = 0; j < 8; ++j) {
                const uint32_t full = baseK / kLanes, rest = baseK % kLanes;
                const CopyRepeatParams fill(1, 0, 8, 0);  // block j of the broadcast, repeated
                if (full) Copy(parts[j * baseK], fold[j * 8], kLanes, uint8_t(full), fill, loc);
                if (rest) Copy(parts[j * baseK + full * kLanes], fold[j * 8], rest, 1, fill, loc);
            }
            Sub(w[r * k], w[r * k], parts, int32_t(k), loc);
        }
        if constexpr (isUpdate) {
            Muls(meanOut[b0], inMean[b0], float(params.loopCnt) - 1.0f, nb, loc);
            Add(meanOut[b0], meanOut[b0], meanTmp, nb, loc);
            Muls(meanOut[b0], meanOut[b0], 1.0f / float(params.loopCnt), nb, loc);
        } else {
            DataCopy(meanOut[b0], meanTmp, nb, loc);
        }
        // row max as blocks
        row_reduce(RowOp::Max, maxTmp, w, fold, m, k, loc);
        row_broadcast(fold, maxTmp, m, loc);
        DataCopy(maxTmp, fold, nb, loc);
        Sub(shiftCurr, meanTmp, meanOut[b0], nb, loc);
        Muls(shiftCurr, shiftCurr, scalar, nb, loc);
        Add(maxOut[b0], maxTmp, shiftCurr, nb, loc);
        if constexpr (isUpdate) {
            Sub(shiftPrev, inMean[b0], meanOut[b0], nb, loc);
            Muls(shiftPrev, shiftPrev, scalar, nb, loc);
            Add(maxTmp, inMax[b0], shiftPrev, nb, loc);
            Max(maxOut[b0], maxOut[b0], maxTmp, nb, loc);
            Sub(maxTmp, inMax[b0], maxOut[b0], nb, loc);
            Add(maxTmp, shiftPrev, maxTmp, nb, loc);
            Exp(maxTmp, maxTmp, nb, loc);
            Mul(expSum[b0], maxTmp, inExpSum[b0], nb, loc);
        }
        Sub(shiftCurr, maxOut[b0], shiftCurr, nb, loc);
        row_apply(ApplyOp::Sub, w, w, shiftCurr, 1, m, k, loc);
        Exp(w, w, int32_t(n), loc);
        narrow(dst[row0 * k], w, n, loc);
        if constexpr (isUpdate) {
            row_reduce(RowOp::Sum, meanTmp, w, fold, m, k, loc);
            row_broadcast(fold, meanTmp, m, loc);
            Add(expSum[b0], expSum[b0], fold, nb, loc);
            block_reduce(RowOp::Max, shiftCurr, maxTmp, m, loc);  // expMax, one value a row
            rows_result(expMax[row0 * 16], shiftCurr, fold, m, loc);
        } else {
            row_reduce(RowOp::Sum, expSum[b0], w, fold, m, k, loc);
            row_broadcast(fold, expSum[b0], m, loc);
            DataCopy(expSum[b0], fold, nb, loc);
        }
    }
}
}  // namespace adv
template <typename T, typename U, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void SoftmaxFlashV3(
    const LocalTensor<T>& dstTensor, const LocalTensor<U>& meanTensor, const LocalTensor<U>& expSumTensor,
    const LocalTensor<U>& maxTensor, const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor,
    const LocalTensor<U>& inMeanTensor, const LocalTensor<U>& inExpSumTensor, const LocalTensor<U>& inMaxTensor,
    const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling, const SoftMaxParams& params,
    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(!isDataFormatNZ, "SoftmaxFlashV3: the NZ format is not supported (SoftmaxFlashV3.md: ND only)");
    adv::softmax_flash_v3<T, U, isUpdate>(dstTensor, meanTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor,
                                          inMeanTensor, inExpSumTensor, inMaxTensor, sharedTmpBuffer, tiling, params,
                                          false, loc);
}
template <typename T, typename U, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
TUNER_SIM_UNCHARGED __aicore__ inline void SoftmaxFlashV3(
    const LocalTensor<T>& dstTensor, const LocalTensor<U>& meanTensor, const LocalTensor<U>& expSumTensor,
    const LocalTensor<U>& maxTensor, const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor,
    const LocalTensor<U>& inMeanTensor, const LocalTensor<U>& inExpSumTensor, const LocalTensor<U>& inMaxTensor,
    const SoftMaxTiling& tiling, const SoftMaxParams& params, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(!isDataFormatNZ, "SoftmaxFlashV3: the NZ format is not supported (SoftmaxFlashV3.md: ND only)");
    adv::softmax_flash_v3<T, U, isUpdate>(dstTensor, meanTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor,
                                          inMeanTensor, inExpSumTensor, inMaxTensor, adv::own_tmp("SoftmaxFlashV3"),
                                          tiling, params, true, loc);
}

// ---- SoftmaxGrad / SoftmaxGradFront (激活函数/SoftMax接口/SoftmaxGrad.md, SoftmaxGradFront.md) ----------
// d = rowsum(grad * src) ([m, 1], broadcast to 32-byte blocks); SoftmaxGrad: dst = (grad - d) * src, or with
// isFront dst = d as [m, 32-byte] blocks of T (SoftmaxGradFront always). Per pass of s = tiling.splitM rows, in
// floats, within SoftMaxGradTilingFunc's budget per row (float: 2 * 8 + k + 64, front 8 + k + 64; half:
// 2 * 16 + 3k + 64): for half the widened src and grad (2 * s * k), the product rows (s * k), the row sums
// (s * 32 / sizeof(T)) and the column folds (s * 64, later the broadcast row blocks).
namespace adv {
TUNER_SIM_UNCHARGED constexpr uint32_t grad_floats(uint32_t s, uint32_t k, uint32_t typeSize) {
    return (typeSize == 2 ? 3 * s * k : s * k) + s * (32 / typeSize) + s * kLanes;
}
template <typename T>
TUNER_SIM_UNCHARGED inline void softmax_grad(const LocalTensor<T>& dst, const LocalTensor<T>& grad,
                                             const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
                                             const SoftMaxTiling& tiling, bool isFront, const SoftMaxShapeInfo& info,
                                             bool own, const char* api, Loc loc) {
    if (isFront) {
        TUNER_SIM_ADV_REQUIRE(SoftmaxGradFront, T);
    } else {
        TUNER_SIM_ADV_REQUIRE(SoftmaxGrad, T);
    }
    tuner_sim::api_site(api, loc);
    constexpr uint32_t blk = 32 / sizeof(T);
    auto needOf = [](uint32_t split, uint32_t k) { return grad_floats(split, k, sizeof(T)); };
    const SoftmaxShape s = softmax_shape(api, tiling, info, tmp, true, needOf);
    softmax_check<T>(api, tmp, s, own, needOf);
    const LocalTensor<float> f = tmp.ReinterpretCast<float>();
    const uint32_t rowsF = s.split * s.k;
    const LocalTensor<float> srcF = f, gradF = f[rowsF];
    const LocalTensor<float> prod = sizeof(T) == 2 ? f[2 * rowsF] : f;
    const LocalTensor<float> red = prod[rowsF], fold = red[s.split * blk];
    for (uint32_t p = 0; p <= s.passes; ++p) {
        const uint32_t m = p < s.passes ? s.split : s.tail;
        if (m == 0) continue;
        const uint32_t row0 = p * s.split, n = m * s.k;
        const LocalTensor<float> x = rows_as_float(src[row0 * s.k], srcF, n, loc);
        const LocalTensor<float> g = rows_as_float(grad[row0 * s.k], gradF, n, loc);
        Mul(prod, x, g, int32_t(n), loc);
        row_reduce(RowOp::Sum, red, prod, fold, m, s.k, loc);
        if (isFront) {
            if constexpr (sizeof(T) == 4) row_broadcast(fold, red, m, loc);
            rows_result(dst[row0 * blk], red, fold, m, loc);
            continue;
        }
        row_broadcast(fold, red, m, loc);
        row_apply(ApplyOp::Sub, prod, g, fold, 1, m, s.k, loc);
        if constexpr (sizeof(T) == 2) {
            Mul(prod, prod, x, int32_t(n), loc);
            narrow(dst[row0 * s.k], prod, n, loc);
        } else {
            Mul(dst[row0 * s.k], x, prod, int32_t(n), loc);
        }
    }
}
}  // namespace adv
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
TUNER_SIM_UNCHARGED __aicore__ inline void SoftmaxGrad(const LocalTensor<T>& dstTensor,
                                                       const LocalTensor<T>& gradTensor,
                                                       const LocalTensor<T>& srcTensor,
                                                       const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                       const SoftMaxTiling& tiling, bool isFront = false,
                                                       const SoftMaxShapeInfo& softmaxShapeInfo = {},
                                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(!isDataFormatNZ, "SoftmaxGrad: the NZ format is not supported by the tuner simulator");
    adv::softmax_grad(dstTensor, gradTensor, srcTensor, sharedTmpBuffer, tiling, isFront, softmaxShapeInfo, false,
                      "SoftmaxGrad", loc);
}
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
TUNER_SIM_UNCHARGED __aicore__ inline void SoftmaxGrad(const LocalTensor<T>& dstTensor,
                                                       const LocalTensor<T>& gradTensor,
                                                       const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                                                       bool isFront = false,
                                                       const SoftMaxShapeInfo& softmaxShapeInfo = {},
                                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(!isDataFormatNZ, "SoftmaxGrad: the NZ format is not supported by the tuner simulator");
    adv::softmax_grad(dstTensor, gradTensor, srcTensor, adv::own_tmp("SoftmaxGrad"), tiling, isFront,
                      softmaxShapeInfo, true, "SoftmaxGrad", loc);
}
// SoftmaxGradFront: SoftmaxGrad's isFront result; isBasicBlock only tunes the NPU's code path.
template <typename T, bool isBasicBlock = false, bool isDataFormatNZ = false>
TUNER_SIM_UNCHARGED __aicore__ inline void SoftmaxGradFront(const LocalTensor<T>& dstTensor,
                                                            const LocalTensor<T>& gradTensor,
                                                            const LocalTensor<T>& srcTensor,
                                                            const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                            const SoftMaxTiling& tiling,
                                                            const SoftMaxShapeInfo& softmaxShapeInfo = {},
                                                            tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(!isDataFormatNZ, "SoftmaxGradFront: the NZ format is not supported by the tuner simulator");
    adv::softmax_grad(dstTensor, gradTensor, srcTensor, sharedTmpBuffer, tiling, true, softmaxShapeInfo, false,
                      "SoftmaxGradFront", loc);
}
template <typename T, bool isBasicBlock = false, bool isDataFormatNZ = false>
TUNER_SIM_UNCHARGED __aicore__ inline void SoftmaxGradFront(const LocalTensor<T>& dstTensor,
                                                            const LocalTensor<T>& gradTensor,
                                                            const LocalTensor<T>& srcTensor,
                                                            const SoftMaxTiling& tiling,
                                                            const SoftMaxShapeInfo& softmaxShapeInfo = {},
                                                            tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(!isDataFormatNZ, "SoftmaxGradFront: the NZ format is not supported by the tuner simulator");
    adv::softmax_grad(dstTensor, gradTensor, srcTensor, adv::own_tmp("SoftmaxGradFront"), tiling, true,
                      softmaxShapeInfo, true, "SoftmaxGradFront", loc);
}

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

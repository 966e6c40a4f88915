// The advanced reduce APIs over one axis of a 2-D tensor (高阶API/归约操作/ReduceMax接口/ReduceMax-91.md,
// ReduceMin接口/ReduceMin-92.md, ReduceSum接口/ReduceSum-90.md): the pattern AR (each row to one value) or RA (each
// column), half or float (ReduceSum float only), srcInnerPad true (the only A2 form). Expanded into the basic
// APIs in the order of asc-devkit's A2 implementation (impl/adv_api/detail/reduce/reduce_max/
// reduce_max_v220_impl.h, reduce_sum/reduce_sum_v220_impl.h and reduce_common_util_v220_impl.h). Max/Min AR by
// the length of a row (under a block: block reduces with lane masks; one block: one counter-mode block reduce;
// under a repeat: block-wise Max/Min into the temporary, then a block reduce; up to 255 blocks: repeat-wise, then
// WholeReduce (half) or two block reduces (float); longer: one repeat per row at a time); Sum AR as
// reduce_sum_ar says; RA by folding the upper rows onto the lower ones in powers of two. With isReuseSource the
// source is the working space (and is overwritten). Also includes the advanced Axpy.
#pragma once
#include <type_traits>

#include "adv_axpy.h"
#include "adv_math.h"

namespace AscendC {
namespace Pattern {
namespace Reduce {
// The patterns the A2 reduce APIs take (a 2-D shape: A the kept axis, R the reduced one).
struct AR {};
struct RA {};
}  // namespace Reduce
}  // namespace Pattern

namespace adv {
enum class RedOp { Max, Min, Sum };

template <RedOp op, typename T>
TUNER_SIM_UNCHARGED inline void red_binary(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                                           uint64_t mask, uint8_t repeat, const BinaryRepeatParams& p, Loc loc) {
    if constexpr (op == RedOp::Max) Max<T, false>(dst, a, b, mask, repeat, p, loc);
    else if constexpr (op == RedOp::Min) Min<T, false>(dst, a, b, mask, repeat, p, loc);
    else Add<T, false>(dst, a, b, mask, repeat, p, loc);
}
// BlockReduceCompute, normal mode: `repeat` repeats of 8 blocks under a lane mask, one result per block.
template <RedOp op, typename T>
TUNER_SIM_UNCHARGED inline void red_block(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat,
                                          const uint64_t mask[], Loc loc) {
    if constexpr (op == RedOp::Max) BlockReduceMax<T>(dst, src, repeat, mask, 1, 1, 8, loc);
    else if constexpr (op == RedOp::Min) BlockReduceMin<T>(dst, src, repeat, mask, 1, 1, 8, loc);
    else BlockReduceSum<T>(dst, src, repeat, mask, 1, 1, 8, loc);
}
// BlockReduceCompute, counter mode: the counter's lanes, one result per block.
template <RedOp op, typename T>
TUNER_SIM_UNCHARGED inline void red_block_counter(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                  int32_t blkStride, int32_t repStride, Loc loc) {
    if constexpr (op == RedOp::Max) BlockReduceMax<T, false>(dst, src, 1, int32_t(0), 1, blkStride, repStride, loc);
    else if constexpr (op == RedOp::Min) BlockReduceMin<T, false>(dst, src, 1, int32_t(0), 1, blkStride, repStride, loc);
    else BlockReduceSum<T, false>(dst, src, 1, int32_t(0), 1, blkStride, repStride, loc);
}
template <RedOp op, typename T>
TUNER_SIM_UNCHARGED inline void red_whole(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat,
                                          int32_t mask, int32_t repStride, Loc loc) {
    if constexpr (op == RedOp::Max) WholeReduceMax<T>(dst, src, mask, repeat, 1, 1, repStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
    else WholeReduceMin<T>(dst, src, mask, repeat, 1, 1, repStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
}
// ComputeMaskBit: the first `oneBlkMask` lanes of each of `blkNum` blocks of `oneBlkElems` lanes.
template <typename T>
TUNER_SIM_UNCHARGED inline void block_lanes_mask(uint32_t oneBlkMask, uint32_t oneBlkElems, uint32_t blkNum,
                                                 uint64_t mask[2]) {
    mask[0] = mask[1] = 0;
    const uint64_t lanes = (1ull << oneBlkMask) - 1ull;
    const uint32_t lowBlocks = sizeof(T) == 2 ? std::min<uint32_t>(blkNum, 4) : blkNum;
    for (uint32_t k = 0; k < lowBlocks; ++k) mask[0] += lanes << (k * oneBlkElems);
    for (uint32_t k = 0; k < blkNum - lowBlocks; ++k) mask[1] += lanes << (k * oneBlkElems);
}

struct RedShape {
    uint32_t first, last, padLast;
};
constexpr uint32_t kMaxRep = 255;
TUNER_SIM_UNCHARGED constexpr uint32_t div_ceil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// Rows shorter than a block: 8 rows per repeat, each row's lanes masked in its block.
template <RedOp op, typename T>
TUNER_SIM_UNCHARGED inline void ar_less_than_block(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                   const RedShape& s, Loc loc) {
    constexpr uint32_t perBlk = 32 / sizeof(T), perRep = 256 / sizeof(T);
    const uint32_t blkRepeats = div_ceil(s.first, 8);
    const uint32_t loops = div_ceil(blkRepeats, kMaxRep);
    const uint32_t repTail = blkRepeats % kMaxRep == 0 ? kMaxRep : blkRepeats % kMaxRep;
    uint64_t mainMask[2];
    block_lanes_mask<T>(s.last, perBlk, std::min<uint32_t>(s.first, 8), mainMask);
    const uint32_t tailBlocks = s.first % 8;
    if (tailBlocks == 0 || s.first < 8) {
        for (uint32_t i = 0; i < loops; ++i) {
            red_block<op>(dst[i * kMaxRep * 8], src[i * kMaxRep * perRep], int32_t(i == loops - 1 ? repTail : kMaxRep),
                          mainMask, loc);
            PipeBarrier<PIPE_V>(loc);
        }
        return;
    }
    uint64_t tailMask[2];
    block_lanes_mask<T>(s.last, perBlk, tailBlocks, tailMask);
    for (uint32_t i = 0; i < loops; ++i) {
        if (i == loops - 1) {
            red_block<op>(dst[i * kMaxRep * 8], src[i * kMaxRep * perRep], int32_t(repTail - 1), mainMask, loc);
            PipeBarrier<PIPE_V>(loc);
            const uint32_t r = i * kMaxRep + repTail - 1;
            red_block<op>(dst[r * 8], src[r * perRep], 1, tailMask, loc);
        } else {
            red_block<op>(dst[i * kMaxRep * 8], src[i * kMaxRep * perRep], int32_t(kMaxRep), mainMask, loc);
            PipeBarrier<PIPE_V>(loc);
        }
    }
}

// AccValOnBlk / AccValOnRep: fold the row's further blocks (repeats) onto the first, the counter over all rows
// at once; a partial last block (repeat) under a normal lane mask, 255 rows per instruction.
template <RedOp op, typename T>
TUNER_SIM_UNCHARGED inline void acc_rows(const LocalTensor<T>& src, const LocalTensor<T>& tmp,
                                         const BinaryRepeatParams& mainParams, const BinaryRepeatParams& tailParams,
                                         const RedShape& s, uint32_t unit, uint32_t tmpOffset, Loc loc) {
    const uint32_t firstRepeat = div_ceil(s.first, kMaxRep);
    const uint32_t firstTail = s.first % kMaxRep == 0 ? kMaxRep : s.first % kMaxRep;
    const uint32_t count = s.last / unit, tail = s.last % unit;
    for (uint32_t i = 1; i < count; ++i) {
        SetVectorMask<T, MaskMode::COUNTER>(0, uint64_t(s.first) * unit);
        red_binary<op>(tmp, tmp, src[i * unit], MASK_PLACEHOLDER, 1, mainParams, loc);
        PipeBarrier<PIPE_V>(loc);
    }
    if (tail != 0) {
        SetMaskNorm();
        SetVectorMask<T, MaskMode::NORMAL>(int32_t(tail));
        for (uint32_t i = 0; i < firstRepeat; ++i) {
            const uint32_t rep = i == firstRepeat - 1 ? firstTail : kMaxRep;
            red_binary<op>(tmp[i * kMaxRep * tmpOffset], tmp[i * kMaxRep * tmpOffset],
                           src[i * kMaxRep * s.padLast + count * unit], tail, uint8_t(rep), tailParams, loc);
            PipeBarrier<PIPE_V>(loc);
        }
        SetMaskCount();
    }
}

// GetReduceValOnRep: each row's repeat of partial results (tmpOffset apart) to one value.
template <RedOp op, typename T>
TUNER_SIM_UNCHARGED inline void rows_to_values(const LocalTensor<T>& dst, const LocalTensor<T>& tmp, uint32_t first,
                                               uint32_t tmpOffset, uint32_t repStride, Loc loc) {
    constexpr uint32_t perRep = 256 / sizeof(T);
    if constexpr (std::is_same_v<T, half>) {
        const uint32_t firstRepeat = div_ceil(first, kMaxRep);
        const uint32_t firstTail = first % kMaxRep == 0 ? kMaxRep : first % kMaxRep;
        SetMaskNorm();
        for (uint32_t i = 0; i < firstRepeat; ++i) {
            red_whole<op>(dst[i * kMaxRep], tmp[i * kMaxRep * tmpOffset],
                          int32_t(i == firstRepeat - 1 ? firstTail : kMaxRep), int32_t(perRep), int32_t(repStride),
                          loc);
            PipeBarrier<PIPE_V>(loc);
        }
    } else {
        SetVectorMask<T, MaskMode::COUNTER>(0, uint64_t(first) * perRep);
        red_block_counter<op>(tmp, tmp, 1, int32_t(repStride), loc);
        PipeBarrier<PIPE_V>(loc);
        SetVectorMask<T, MaskMode::COUNTER>(0, uint64_t(first) * 8);
        red_block_counter<op>(dst, tmp, 1, 8, loc);
    }
}

template <RedOp op, typename T, bool isReuseSource>
TUNER_SIM_UNCHARGED inline void reduce_ar(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                          const LocalTensor<T>& tmp, const RedShape& s, Loc loc) {
    constexpr uint32_t perBlk = 32 / sizeof(T), perRep = 256 / sizeof(T);
    const BinaryRepeatParams dflt;
    const UnaryRepeatParams dfltUnary;
    if (s.last < perBlk) {
        ar_less_than_block<op>(dst, src, s, loc);
    } else if (s.last == perBlk) {
        SetMaskCount();
        SetVectorMask<T, MaskMode::COUNTER>(0, uint64_t(s.first) * s.last);
        red_block_counter<op>(dst, src, 1, 8, loc);
    } else if (s.last < perRep) {  // DoReduceByBlk
        const uint8_t row = uint8_t(s.padLast / perBlk), rowRep = uint8_t(s.padLast / perBlk * 8);
        SetMaskCount();
        if constexpr (!isReuseSource) {
            SetVectorMask<T, MaskMode::COUNTER>(0, uint64_t(s.first) * perBlk);
            Adds<T, false>(tmp, src, T(0), MASK_PLACEHOLDER, 1, UnaryRepeatParams(1, row, 8, rowRep), loc);
            PipeBarrier<PIPE_V>(loc);
            acc_rows<op>(src, tmp, BinaryRepeatParams(1, 1, row, 8, 8, rowRep), BinaryRepeatParams(1, 1, 1, 1, 1, row),
                         s, perBlk, perBlk, loc);
            SetVectorMask<T, MaskMode::COUNTER>(0, uint64_t(s.first) * perBlk);
            red_block_counter<op>(dst, tmp, 1, 8, loc);
        } else {
            acc_rows<op>(src, src, BinaryRepeatParams(row, row, row, rowRep, rowRep, rowRep),
                         BinaryRepeatParams(1, 1, 1, row, row, row), s, perBlk, s.padLast, loc);
            SetVectorMask<T, MaskMode::COUNTER>(0, uint64_t(s.first) * perBlk);
            red_block_counter<op>(dst, src, row, rowRep, loc);
        }
    } else if (s.last <= kMaxRep * perBlk) {  // DoReduceByRep
        const uint8_t row = uint8_t(s.padLast / perBlk);
        SetMaskCount();
        if constexpr (!isReuseSource) {
            SetVectorMask<T, MaskMode::COUNTER>(0, uint64_t(s.first) * perRep);
            Adds<T, false>(tmp, src, T(0), MASK_PLACEHOLDER, 1, UnaryRepeatParams(1, 1, 8, row), loc);
            PipeBarrier<PIPE_V>(loc);
            const BinaryRepeatParams p(1, 1, 1, 8, 8, row);
            acc_rows<op>(src, tmp, p, p, s, perRep, perRep, loc);
            rows_to_values<op>(dst, tmp, s.first, perRep, 8, loc);
        } else {
            const BinaryRepeatParams p(1, 1, 1, row, row, row);
            acc_rows<op>(src, src, p, p, s, perRep, s.padLast, loc);
            rows_to_values<op>(dst, src, s.first, s.padLast, row, loc);
        }
    } else {  // DoLongLastReduce: one repeat per row per instruction
        const uint32_t repCount = div_ceil(s.last, perRep);
        const uint32_t repTail = s.last % perRep == 0 ? perRep : s.last % perRep;
        SetMaskCount();
        if constexpr (!isReuseSource) {
            SetVectorMask<T, MaskMode::COUNTER>(0, perRep);
            for (uint32_t i = 0; i < s.first; ++i) {
                Adds<T, false>(tmp[i * perRep], src[i * s.padLast], T(0), MASK_PLACEHOLDER, 1, dfltUnary, loc);
                PipeBarrier<PIPE_V>(loc);
            }
            for (uint32_t i = 1; i < repCount; ++i) {
                SetVectorMask<T, MaskMode::COUNTER>(0, i == repCount - 1 ? repTail : perRep);
                for (uint32_t j = 0; j < s.first; ++j) {
                    red_binary<op>(tmp[j * perRep], tmp[j * perRep], src[j * s.padLast + i * perRep], MASK_PLACEHOLDER,
                                   1, dflt, loc);
                    PipeBarrier<PIPE_V>(loc);
                }
            }
            rows_to_values<op>(dst, tmp, s.first, perRep, 8, loc);
        } else {
            for (uint32_t i = 0; i < s.first; ++i) {
                for (uint32_t j = 1; j < repCount; ++j) {
                    SetVectorMask<T, MaskMode::COUNTER>(0, j == repCount - 1 ? repTail : perRep);
                    red_binary<op>(src[i * perRep], j == 1 ? src[i * s.padLast] : src[i * perRep],
                                   src[i * s.padLast + j * perRep], MASK_PLACEHOLDER, 1, dflt, loc);
                    PipeBarrier<PIPE_V>(loc);
                }
            }
            rows_to_values<op>(dst, src, s.first, perRep, 8, loc);
        }
    }
}

// ReduceSum AR (reduce_sum_v220_impl.h, float). Rows of at most a block: BlkReduceForLoop, block reduces under
// lane masks (as asc-devkit, its loop over 2040-row groups does not advance the offsets). Up to a repeat: one
// WholeReduceSum per 248 rows. Longer: per 248 rows, the first perRow (the largest power of two below the row,
// at least a block; half the row when it is one) elements of each row gathered (UB->UB DataCopy, or in place
// with isReuseSource), the rest of the row added onto them (along the rows when that takes fewer instructions,
// else row by row), then PairReduceSum halves down to 64 and two block reduces.
TUNER_SIM_UNCHARGED inline void sum_rows_of_blocks(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                                   uint32_t first, uint32_t last, Loc loc) {
    uint64_t mask[2];
    block_lanes_mask<float>(std::min<uint32_t>(last, 8), 8, 8, mask);
    const uint32_t groups = first / (kMaxRep * 8), rest = first % (kMaxRep * 8);
    const uint32_t tailRepeats = rest / 8, tailBlocks = rest % 8;
    for (uint32_t k = 0; k < groups; ++k) {
        red_block<RedOp::Sum>(dst, src, int32_t(kMaxRep), mask, loc);
        PipeBarrier<PIPE_V>(loc);
    }
    if (tailRepeats > 0) {
        red_block<RedOp::Sum>(dst[groups * kMaxRep * 8], src[groups * kMaxRep * 64], int32_t(tailRepeats), mask, loc);
        PipeBarrier<PIPE_V>(loc);
    }
    if (tailBlocks > 0) {
        uint64_t tailMask[2];
        block_lanes_mask<float>(std::min<uint32_t>(last, 8), 8, tailBlocks, tailMask);
        red_block<RedOp::Sum>(dst[tailRepeats * 8 + groups * kMaxRep * 8], src[tailRepeats * 64 + groups * kMaxRep * 64],
                              1, tailMask, loc);
        PipeBarrier<PIPE_V>(loc);
    }
}

template <bool isReuseSource>
TUNER_SIM_UNCHARGED inline void sum_long_rows(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                              const LocalTensor<float>& tmp, uint32_t repeat, uint32_t perRow,
                                              const RedShape& s, uint32_t splitK, Loc loc) {
    const BinaryRepeatParams dflt;
    const DataCopyParams gather(uint16_t(repeat), uint16_t(perRow / 8), uint16_t((s.padLast - perRow) / 8), 0);
    if constexpr (!isReuseSource) {
        DataCopy(tmp, src, gather, loc);
        PipeBarrier<PIPE_V>(loc);
    }
    // ReduceSumComputeTail: the rest of each row onto its first elements
    uint32_t tailLen = s.last - splitK;
    if (tailLen == 0) tailLen = s.padLast - perRow;
    const uint32_t tailN = tailLen / 64, tailRemain = tailLen % 64;
    const bool alongRows = tailN + (tailRemain > 0) < repeat && s.last > 64 && perRow / 8 <= 255;
    if (alongRows) {  // ReduceSumComputeSliceRAxis
        SetMaskNorm();
        const uint32_t rowSize = isReuseSource ? s.padLast : perRow;
        const BinaryRepeatParams p(1, 1, 1, uint8_t(rowSize / 8), uint8_t(rowSize / 8), uint8_t(s.padLast / 8));
        SetVectorMask<float, MaskMode::NORMAL>(64);
        for (uint32_t i = 0; i < tailN; ++i) {
            red_binary<RedOp::Sum>(tmp[i * 64], tmp[i * 64], src[perRow + i * 64], MASK_PLACEHOLDER, uint8_t(repeat), p,
                                   loc);
        }
        if (tailRemain > 0) {
            SetVectorMask<float, MaskMode::NORMAL>(int32_t(tailRemain));
            red_binary<RedOp::Sum>(tmp[tailN * 64], tmp[tailN * 64], src[perRow + tailN * 64], MASK_PLACEHOLDER,
                                   uint8_t(repeat), p, loc);
        }
        PipeBarrier<PIPE_V>(loc);
        if constexpr (isReuseSource) {
            DataCopy(tmp, tmp, gather, loc);
            PipeBarrier<PIPE_V>(loc);
        }
    } else if constexpr (isReuseSource) {  // ReduceSumComputeSliceAAxis, in place
        SetVectorMask<float, MaskMode::COUNTER>(int32_t(tailLen));
        for (uint32_t i = 0; i < repeat; ++i) {
            red_binary<RedOp::Sum>(tmp[i * s.padLast], tmp[i * s.padLast], src[i * s.padLast + perRow], MASK_PLACEHOLDER,
                                   1, dflt, loc);
        }
        PipeBarrier<PIPE_V>(loc);
        DataCopy(tmp, tmp, gather, loc);
        PipeBarrier<PIPE_V>(loc);
    } else {  // ReduceSumComputeSliceAAxis
        for (uint32_t i = 0; i < repeat; ++i) {
            SetVectorMask<float, MaskMode::COUNTER>(int32_t(tailLen));
            red_binary<RedOp::Sum>(tmp[i * perRow], tmp[i * perRow], src[i * s.padLast + perRow], MASK_PLACEHOLDER, 1,
                                   dflt, loc);
        }
        PipeBarrier<PIPE_V>(loc);
    }
    ResetMask();
    SetMaskCount();
    for (uint32_t k = perRow; k > 64; k >>= 1) {
        SetVectorMask<float, MaskMode::COUNTER>(int32_t(repeat * k));
        PairReduceSum<float, false>(tmp, tmp, 1, int32_t(0), 1, 1, 8, loc);
        PipeBarrier<PIPE_V>(loc);
    }
    SetVectorMask<float, MaskMode::COUNTER>(int32_t(repeat * 64));
    red_block_counter<RedOp::Sum>(tmp, tmp, 1, 8, loc);
    PipeBarrier<PIPE_V>(loc);
    SetVectorMask<float, MaskMode::COUNTER>(int32_t(repeat * 8));
    red_block_counter<RedOp::Sum>(dst, tmp, 1, 8, loc);
}

template <bool isReuseSource>
TUNER_SIM_UNCHARGED inline void reduce_sum_ar(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                              const LocalTensor<float>& tmp, const RedShape& s, Loc loc) {
    if (s.last <= 8) {
        sum_rows_of_blocks(dst, src, s.first, s.last, loc);
        return;
    }
    uint32_t splitK = 1;
    while (splitK * 2 <= s.last) splitK *= 2;
    uint32_t perRow = std::max<uint32_t>(8, splitK);
    if (s.last == splitK) perRow >>= 1;
    constexpr uint32_t kRows = 248;
    const uint32_t groups = s.first / kRows, rest = s.first % kRows;
    const LocalTensor<float> work = isReuseSource ? src : tmp;
    if (s.last <= 64) {
        SetMaskNorm();
        SetVectorMask<float, MaskMode::NORMAL>(int32_t(s.last));
        for (uint32_t i = 0; i < groups; ++i) {
            WholeReduceSum<float, false>(dst[kRows * i], src[kRows * i * s.padLast], int32_t(0), int32_t(kRows), 1, 1,
                                         int32_t(s.padLast / 8), loc);
        }
        if (rest > 0) {
            SetVectorMask<float, MaskMode::NORMAL>(int32_t(s.last));
            WholeReduceSum<float, false>(dst[s.first - rest], src[(s.first - rest) * s.padLast], int32_t(0),
                                         int32_t(rest), 1, 1, int32_t(s.padLast / 8), loc);
        }
    } else {
        SetMaskCount();
        for (uint32_t i = 0; i < groups; ++i) {
            sum_long_rows<isReuseSource>(dst[kRows * i], src[kRows * i * s.padLast],
                                         isReuseSource ? work[kRows * i * s.padLast] : work[kRows * i * 64], kRows,
                                         perRow, s, splitK, loc);
        }
        if (rest > 0) {
            const uint32_t r0 = s.first - rest;
            sum_long_rows<isReuseSource>(dst[r0], src[r0 * s.padLast],
                                         isReuseSource ? work[r0 * s.padLast] : work[r0 * 64], rest, perRow, s, splitK,
                                         loc);
        }
        SetMaskNorm();
    }
    PipeBarrier<PIPE_V>(loc);
    ResetMask();
}

// BinaryReduceByFirstAxis: rows past the largest power of two folded onto the first ones, then halves folded
// until one row is left, which Adds copies to dst.
template <RedOp op, typename T, bool isReuseSource>
TUNER_SIM_UNCHARGED inline void reduce_ra(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                          const LocalTensor<T>& tmp, const RedShape& s, Loc loc) {
    const BinaryRepeatParams dflt;
    const UnaryRepeatParams dfltUnary;
    uint32_t splitK = 1;
    while (splitK * 2 <= s.first) splitK *= 2;
    const uint32_t remain = s.first - splitK;
    const uint32_t pad = s.padLast;
    SetMaskCount();
    if constexpr (isReuseSource) {
        if (remain != 0) {
            SetVectorMask<T, MaskMode::COUNTER>(0, uint64_t(pad) * remain);
            red_binary<op>(src, src, src[splitK * pad], MASK_PLACEHOLDER, 1, dflt, loc);
            PipeBarrier<PIPE_V>(loc);
        }
    } else {
        if (remain != 0) {
            SetVectorMask<T, MaskMode::COUNTER>(0, uint64_t(splitK) * pad);
            Adds<T, false>(tmp, src, T(0), MASK_PLACEHOLDER, 1, dfltUnary, loc);
            PipeBarrier<PIPE_V>(loc);
            SetVectorMask<T, MaskMode::COUNTER>(0, uint64_t(pad) * remain);
            red_binary<op>(tmp, tmp, src[splitK * pad], MASK_PLACEHOLDER, 1, dflt, loc);
            PipeBarrier<PIPE_V>(loc);
        } else if (splitK > 1) {
            splitK >>= 1;
            SetVectorMask<T, MaskMode::COUNTER>(0, uint64_t(pad) * splitK);
            red_binary<op>(tmp, src, src[splitK * pad], MASK_PLACEHOLDER, 1, dflt, loc);
            PipeBarrier<PIPE_V>(loc);
        } else {  // one row: copied
            SetVectorMask<T, MaskMode::COUNTER>(0, s.last);
            Adds<T, false>(dst, src, T(0), MASK_PLACEHOLDER, 1, dfltUnary, loc);
            PipeBarrier<PIPE_V>(loc);
            return;
        }
    }
    const LocalTensor<T> cur = isReuseSource ? src : tmp;
    while (splitK > 1) {
        splitK >>= 1;
        SetVectorMask<T, MaskMode::COUNTER>(0, uint64_t(pad) * splitK);
        red_binary<op>(cur, cur, cur[splitK * pad], MASK_PLACEHOLDER, 1, dflt, loc);
        PipeBarrier<PIPE_V>(loc);
    }
    SetVectorMask<T, MaskMode::COUNTER>(0, s.last);
    Adds<T, false>(dst, cur, T(0), MASK_PLACEHOLDER, 1, dfltUnary, loc);
    PipeBarrier<PIPE_V>(loc);
}

// The temporary bytes GetReduceMax/MinMaxMinTmpSize asks for (adv_reduce_host.h), the kernel's minimum.
template <RedOp op, typename T, bool isAR>
TUNER_SIM_UNCHARGED inline uint32_t reduce_tmp_bytes(const RedShape& s) {
    constexpr uint32_t perBlk = 32 / sizeof(T), perRep = 256 / sizeof(T);
    if constexpr (op == RedOp::Sum && isAR) {  // GetReduceSumMaxMinTmpSize
        uint32_t k = 1;
        while (k * 2 <= s.last) k *= 2;
        if (k == s.last && s.first > 1) k >>= 1;
        return s.last <= 64 ? 0 : s.first * k * uint32_t(sizeof(float));
    } else if constexpr (isAR) {
        return s.last <= perBlk ? 0 : s.last < perRep ? s.first * perBlk * sizeof(T) : s.first * perRep * sizeof(T);
    } else {
        uint32_t k = 1;
        while (k * 2 <= s.first) k *= 2;
        if (k == s.first && s.first > 1) k >>= 1;
        return k * s.padLast * sizeof(T);
    }
}

template <RedOp op, typename T, class pattern, bool isReuseSource>
TUNER_SIM_UNCHARGED inline void reduce_axis(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                            const LocalTensor<uint8_t>& tmp, const uint32_t srcShape[],
                                            bool srcInnerPad, bool own, Loc loc) {
    static_assert(std::is_same_v<pattern, Pattern::Reduce::AR> || std::is_same_v<pattern, Pattern::Reduce::RA>,
                  "ReduceMax/ReduceMin: the pattern must be Pattern::Reduce::AR or Pattern::Reduce::RA on A2");
    constexpr bool isAR = std::is_same_v<pattern, Pattern::Reduce::AR>;
    tuner_sim::api_site(api, loc);
    if (!srcInnerPad) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "%s: srcInnerPad false is not supported on %s (only true: the inner axis padded to 32 "
                         "bytes)", api, TUNER_SIM_SOC_NAME);
    }
    constexpr uint32_t perBlk = 32 / sizeof(T);
    const RedShape s{srcShape[0], srcShape[1], (srcShape[1] + perBlk - 1) / perBlk * perBlk};
    if (s.first == 0 || s.last == 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported, "%s: srcShape {%u, %u} has an empty axis", api, s.first,
                         s.last);
    }
    const uint32_t need = isAR ? s.first : s.last;
    if (dst.GetSize() < need) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds, "%s: dstTensor holds %u elements, the result has %u",
                         api, dst.GetSize(), need);
    }
    if (src.GetSize() < s.first * s.padLast) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                         "%s: srcTensor holds %u elements, srcShape {%u, %u} padded to %u per row needs %u", api,
                         src.GetSize(), s.first, s.last, s.padLast, s.first * s.padLast);
    }
    if constexpr (!isReuseSource) {
        const uint32_t min = reduce_tmp_bytes<op, T, isAR>(s);
        if (tmp.GetSize() < min) {
            if (own) {
                tuner_sim::fault(tuner_sim::FaultClass::UbOverflow,
                                 "%s takes its temporary space from the UB left after InitBuffer: %u bytes left, at "
                                 "least %u needed (Get%sMaxMinTmpSize)", api, tmp.GetSize(), min, api);
            }
            tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                             "%s: sharedTmpBuffer holds %u bytes, below the minimum temporary size %u bytes "
                             "(Get%sMaxMinTmpSize)", api, tmp.GetSize(), min, api);
        }
    }
    const LocalTensor<T> t = tmp.ReinterpretCast<T>();
    if constexpr (isAR && op == RedOp::Sum) reduce_sum_ar<isReuseSource>(dst, src, t, s, loc);
    else if constexpr (isAR) reduce_ar<op, T, isReuseSource>(dst, src, t, s, loc);
    else reduce_ra<op, T, isReuseSource>(dst, src, t, s, loc);
    SetMaskNorm();
    ResetMask();
}
}  // namespace adv

// ReduceMax / ReduceMin: 高阶API/归约操作/ReduceMax接口/ReduceMax-91.md, ReduceMin接口/ReduceMin-92.md
template <class T, class pattern, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void ReduceMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                                     const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                     const uint32_t srcShape[], bool srcInnerPad,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_ADV_REQUIRE(AdvReduceMax, T);
    adv::reduce_axis<adv::RedOp::Max, T, pattern, isReuseSource>("ReduceMax", dstTensor, srcTensor, sharedTmpBuffer,
                                                                 srcShape, srcInnerPad, false, loc);
}
template <class T, class pattern, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void ReduceMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                                     const uint32_t srcShape[], bool srcInnerPad,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_ADV_REQUIRE(AdvReduceMax, T);
    adv::reduce_axis<adv::RedOp::Max, T, pattern, isReuseSource>("ReduceMax", dstTensor, srcTensor,
                                                                 adv::own_tmp("ReduceMax"), srcShape, srcInnerPad,
                                                                 true, loc);
}
template <class T, class pattern, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void ReduceMin(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                                     const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                     const uint32_t srcShape[], bool srcInnerPad,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_ADV_REQUIRE(AdvReduceMin, T);
    adv::reduce_axis<adv::RedOp::Min, T, pattern, isReuseSource>("ReduceMin", dstTensor, srcTensor, sharedTmpBuffer,
                                                                 srcShape, srcInnerPad, false, loc);
}
template <class T, class pattern, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void ReduceMin(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                                     const uint32_t srcShape[], bool srcInnerPad,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_ADV_REQUIRE(AdvReduceMin, T);
    adv::reduce_axis<adv::RedOp::Min, T, pattern, isReuseSource>("ReduceMin", dstTensor, srcTensor,
                                                                 adv::own_tmp("ReduceMin"), srcShape, srcInnerPad,
                                                                 true, loc);
}
// ReduceSum: 高阶API/归约操作/ReduceSum接口/ReduceSum-90.md (float only on A2)
template <class T, class pattern, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void ReduceSum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                                     const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                     const uint32_t srcShape[], bool srcInnerPad,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_ADV_REQUIRE(AdvReduceSum, T);
    adv::reduce_axis<adv::RedOp::Sum, T, pattern, isReuseSource>("ReduceSum", dstTensor, srcTensor, sharedTmpBuffer,
                                                                 srcShape, srcInnerPad, false, loc);
}
template <class T, class pattern, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void ReduceSum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                                     const uint32_t srcShape[], bool srcInnerPad,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_ADV_REQUIRE(AdvReduceSum, T);
    adv::reduce_axis<adv::RedOp::Sum, T, pattern, isReuseSource>("ReduceSum", dstTensor, srcTensor,
                                                                 adv::own_tmp("ReduceSum"), srcShape, srcInnerPad,
                                                                 true, loc);
}
// The rest of the family with a pattern (ReduceMean, ReduceProd, ReduceAny, ReduceAll over one axis)
// is not provided: a compile error that names it, not an overload mismatch with the basic ReduceSum.
#define TUNER_SIM_REDUCE_PATTERN_UNPROVIDED(NAME)                                                                  \
    template <class T, class pattern, bool isReuseSource = false, class... Args>                                   \
    void NAME(Args&&...) {                                                                                         \
        static_assert(tuner_sim::dependent_false<T, pattern>,                                                      \
                      #NAME " over one axis (高阶API/归约操作, with a Pattern::Reduce) is not provided by the tuner "   \
                      "simulator yet; ReduceMax, ReduceMin and ReduceSum are");                                               \
    }
TUNER_SIM_REDUCE_PATTERN_UNPROVIDED(ReduceMean)
TUNER_SIM_REDUCE_PATTERN_UNPROVIDED(ReduceProd)
TUNER_SIM_REDUCE_PATTERN_UNPROVIDED(ReduceAny)
TUNER_SIM_REDUCE_PATTERN_UNPROVIDED(ReduceAll)
#undef TUNER_SIM_REDUCE_PATTERN_UNPROVIDED
}  // namespace AscendC

// Ascend C's tensor-transform (张量变换) advanced APIs: Broadcast, Pad, UnPad, Transpose (ConfusionTranspose)
// and TransData (host side in adv_transform_host.h; GetTransDataMaxMinTmpSize here, as it takes
// TransDataConfig). Each is expanded into the basic vector APIs that asc-devkit's A2 implementation issues
// (impl/adv_api/detail/pad/{broadcast,pad}/*_v220_impl.h, pad_base_impl.h, transpose/confusion_transpose/*,
// transpose/transdata/transdata_impl.h), on the caller's tensors and temporary space, so the checks, the data
// movement and the modelled time are those instructions'.
// Docs: asc-devkit docs/zh/api/SIMD-API/高阶API/张量变换/Broadcast.md, Pad.md, UnPad.md, Transpose-96.md,
// TransData.md.
//
// Differences from the NPU's instruction stream:
// - Broadcast along the last axis copies each Brcb block across a row with one Copy per 256-byte column strip
//   in normal mask mode, repeating over rows; A2 issues one counter-mode Copy whose count is a row. The data
//   moved is the same; the simulator's counter mode counts lanes across all repeats, and its Copy takes the
//   mask register for 16-bit types only. The strips are separated by PipeBarrier<PIPE_V> (their extents
//   interleave). For the same reason Broadcast without a broadcast axis is a normal-mode Copy of whole repeats
//   and a tail, not one counter-mode Copy.
// - Pad with a row that is not 32-byte aligned, and Transpose, transpose with TransDataTo5HD, which the
//   simulator provides for 2- and 4-byte types.
//   Transpose scenarios 3 and 4 (NZ2NZ/NZ2ND_012_WITH_N) are not provided yet (`unsupported`).
// - Layout / MakeShape / MakeStride / MakeLayout are a minimal form (tuples of the shape and stride only).
#pragma once
#include <algorithm>
#include <tuple>

#include "adv_math.h"

namespace AscendC {

// Pad.md / UnPad.md
struct PadParams {
    uint16_t leftPad = 0;
    uint16_t rightPad = 0;
    int32_t padValue = 0;
};
struct UnPadParams {
    uint16_t leftPad = 0;
    uint16_t rightPad = 0;
};

// TransData.md: the conversion (TransDataConfig) and the two layouts (TransDataParams). The layouts are the
// basic API's Layout (基础API/辅助数据结构/Layout): MakeShape / MakeStride / MakeLayout, of which TransData reads
// only the shape; a minimal form is provided here (the shape and stride are std::tuples).
struct TransDataConfig {
    DataFormat srcFormat;
    DataFormat dstFormat;
};
template <typename ShapeT, typename StrideT>
struct Layout {
    TUNER_SIM_UNCHARGED Layout() = default;
    TUNER_SIM_UNCHARGED Layout(const ShapeT& shape, const StrideT& stride) : shape_(shape), stride_(stride) {}
    TUNER_SIM_UNCHARGED const ShapeT& GetShape() const { return shape_; }
    TUNER_SIM_UNCHARGED const StrideT& GetStride() const { return stride_; }
    ShapeT shape_{};
    StrideT stride_{};
};
template <typename... Ts>
TUNER_SIM_UNCHARGED inline std::tuple<Ts...> MakeShape(const Ts&... ts) {
    return std::tuple<Ts...>(ts...);
}
template <typename... Ts>
TUNER_SIM_UNCHARGED inline std::tuple<Ts...> MakeStride(const Ts&... ts) {
    return std::tuple<Ts...>(ts...);
}
template <typename ShapeT, typename StrideT>
TUNER_SIM_UNCHARGED inline Layout<ShapeT, StrideT> MakeLayout(const ShapeT& shape, const StrideT& stride) {
    return Layout<ShapeT, StrideT>(shape, stride);
}
template <typename U, typename S>
struct TransDataParams {
    U srcLayout;
    S dstLayout;
};

namespace adv {

// A vector-to-scalar (or back) hand-over inside an API, as asc-devkit's FetchEventID / SetFlag / WaitFlag.
template <HardEvent E>
TUNER_SIM_UNCHARGED inline void transform_sync(Loc loc) {
    TPipe* pipe = GetTPipePtr();
    const TEventID id = pipe != nullptr ? pipe->FetchEventID(E) : TEventID(0);
    SetFlag<E>(id, loc);
    WaitFlag<E>(id, loc);
}

// ---- Broadcast (Broadcast.md): [m, 1] -> [m, k] (axis 1), [1, k] -> [m, k] (axis 0), or a copy / fill ----
// The Brcb rows of the last-axis form: one 32-byte block per row, 8 rows a repeat (254 repeats at most for
// 2-byte types, 255 for 4-byte, so that a call ends on a whole block).
template <typename T>
TUNER_SIM_UNCHARGED inline void brc_rows_to_blocks(const LocalTensor<T>& blocks, const LocalTensor<T>& src,
                                                   uint32_t rows, Loc loc) {
    constexpr uint32_t perBlk = 32 / sizeof(T);
    constexpr uint32_t maxRep = sizeof(T) == 4 ? 255 : 254;
    const uint32_t reps = (rows + 7) / 8;
    for (uint32_t r = 0; r < reps; r += maxRep) {
        const uint32_t n = std::min(maxRep, reps - r);
        Brcb(blocks[r * 8 * perBlk], src[r * 8], uint8_t(n), BrcbRepeatParams(1, 8), loc);
    }
    PipeBarrier<PIPE_V>(loc);
}
// dst row r (row stride rowBlocks blocks, k elements) = block r of `blocks`, for `rows` rows.
template <typename T>
TUNER_SIM_UNCHARGED inline void brc_blocks_to_rows(const LocalTensor<T>& dst, const LocalTensor<T>& blocks,
                                                   uint32_t rows, uint32_t k, uint32_t rowBlocks, Loc loc) {
    constexpr uint32_t lanes = 256 / sizeof(T);
    constexpr uint32_t perBlk = 32 / sizeof(T);
    for (uint32_t r = 0; r < rows; r += kMaxRepeat) {
        const uint32_t n = std::min(kMaxRepeat, rows - r);
        for (uint32_t c = 0; c < k; c += lanes) {
            // the strips interleave in dst: ordered for the sync checks, which see each Copy's whole extent
            if (c != 0) PipeBarrier<PIPE_V>(loc);
            Copy(dst[r * rowBlocks * perBlk + c], blocks[r * perBlk], uint64_t(std::min(lanes, k - c)), uint8_t(n),
                 CopyRepeatParams(1, 0, uint16_t(rowBlocks), 1), loc);
        }
    }
    PipeBarrier<PIPE_V>(loc);
}
template <typename T>
TUNER_SIM_UNCHARGED inline void brc_last_axis(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                              const LocalTensor<uint8_t>& tmpBytes, uint32_t m, uint32_t k, bool own,
                                              Loc loc) {
    constexpr uint32_t perBlk = 32 / sizeof(T);
    const LocalTensor<T> tmp = tmpBytes.ReinterpretCast<T>();
    const bool aligned = k % perBlk == 0;
    const uint32_t kAlign = (k + perBlk - 1) / perBlk * perBlk;
    const uint32_t minElems = perBlk * perBlk + (aligned ? 0 : perBlk * kAlign);
    require_tmp("Broadcast", tmpBytes, minElems * uint32_t(sizeof(T)), own);
    const uint32_t chunk = tmp.GetSize() / minElems * perBlk;  // rows per pass
    for (uint32_t r0 = 0; r0 < m; r0 += chunk) {
        const uint32_t rows = std::min(chunk, m - r0);
        brc_rows_to_blocks(tmp, src[r0], rows, loc);
        if (aligned) {
            brc_blocks_to_rows(dst[r0 * k], tmp, rows, k, k / perBlk, loc);
        } else {  // rows of kAlign in the second part of tmp, then the first k of each row gathered into dst
            const LocalTensor<T> wide = tmp[rows * perBlk];
            brc_blocks_to_rows(wide, tmp, rows, k, kAlign / perBlk, loc);
            uint64_t rsvd = 0;
            GatherMask(dst[r0 * k], wide, uint8_t(7), true, k,
                       GatherMaskParams(1, uint16_t(rows), uint16_t(kAlign / perBlk), 0), rsvd, loc);
            PipeBarrier<PIPE_V>(loc);
        }
    }
}
// [1, k] -> [m, k]: Or with a zero block, as uint16_t, 8 rows a repeat's 8 blocks (dst block stride one row),
// one repeat per block of the row; rows of 255 blocks or more: one counter-mode Or per row.
template <typename T>
TUNER_SIM_UNCHARGED inline void brc_first_axis(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                               const LocalTensor<uint8_t>& tmpBytes, uint32_t m, uint32_t k, bool own,
                                               Loc loc) {
    constexpr uint32_t perBlk = 32 / sizeof(T);
    constexpr uint32_t u16PerElem = sizeof(T) / 2;
    if (k % perBlk != 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "Broadcast: with axis 0, srcShape[1] (%u) must be 32-byte aligned (Broadcast.md 约束说明)", k);
    }
    require_tmp("Broadcast", tmpBytes, 32, own);
    const LocalTensor<uint16_t> zero = tmpBytes.ReinterpretCast<uint16_t>();
    const LocalTensor<uint16_t> d = dst.template ReinterpretCast<uint16_t>();
    const LocalTensor<uint16_t> s = src.template ReinterpretCast<uint16_t>();
    Duplicate(zero, uint16_t(0), 16, loc);
    PipeBarrier<PIPE_V>(loc);
    const uint32_t rowBlocks = k / perBlk;
    if (rowBlocks >= kMaxRepeat) {
        SetMaskCount();
        SetVectorMask<uint16_t>(0, uint64_t(k) * u16PerElem);
        for (uint32_t r = 0; r < m; ++r) {
            Or<uint16_t, false>(d[r * k * u16PerElem], s, zero, MASK_PLACEHOLDER, 1, BinaryRepeatParams(1, 1, 0, 8, 8, 0),
                                loc);
        }
        SetMaskNorm();
        ResetMask();
    } else {
        const BinaryRepeatParams p(uint8_t(rowBlocks), 0, 0, 1, 1, 0);
        for (uint32_t r = 0; r < m; r += 8) {
            const uint32_t n = std::min(8u, m - r);
            Or(d[r * k * u16PerElem], s, zero, uint64_t(n * 16), uint8_t(rowBlocks), p, loc);
        }
    }
    PipeBarrier<PIPE_V>(loc);
}
// The broadcast itself, on the bits of unsigned 2- or 4-byte elements (every step only moves data).
template <typename T, int32_t dim, int32_t axis>
TUNER_SIM_UNCHARGED inline void broadcast_bits(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                               const uint32_t* dstShape, const uint32_t* srcShape,
                                               const LocalTensor<uint8_t>& tmp, bool own, Loc loc) {
    uint32_t srcSize = 1, dstSize = 1;
    for (int32_t i = 0; i < dim; ++i) {
        if (srcShape[i] != dstShape[i] && srcShape[i] != 1) {
            tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                             "Broadcast: srcShape[%d] = %u cannot broadcast to dstShape[%d] = %u", int(i), srcShape[i],
                             int(i), dstShape[i]);
        }
        srcSize *= srcShape[i];
        dstSize *= dstShape[i];
    }
    if (srcSize == dstSize) {  // no broadcast: Copy of whole repeats, then the tail
        constexpr uint32_t lanes = 256 / sizeof(T);
        const uint32_t full = dstSize / lanes;
        for (uint32_t r = 0; r < full; r += kMaxRepeat) {
            Copy(dst[r * lanes], src[r * lanes], uint64_t(lanes), uint8_t(std::min(kMaxRepeat, full - r)),
                 CopyRepeatParams(1, 1, 8, 8), loc);
        }
        if (dstSize % lanes != 0) {
            Copy(dst[full * lanes], src[full * lanes], uint64_t(dstSize % lanes), 1, CopyRepeatParams(1, 1, 8, 8), loc);
        }
        PipeBarrier<PIPE_V>(loc);
    } else if (srcSize == 1) {  // the one value read by the scalar unit, between V_S and S_V flags, then Duplicate
        transform_sync<HardEvent::V_S>(loc);
        const T v = src.GetValue(0, loc);
        transform_sync<HardEvent::S_V>(loc);
        Duplicate(dst, v, int32_t(dstSize), loc);
        PipeBarrier<PIPE_V>(loc);
    } else if constexpr (dim == 2) {
        if constexpr (axis == 1) {
            brc_last_axis(dst, src, tmp, dstShape[0], dstShape[1], own, loc);
        } else {
            brc_first_axis(dst, src, tmp, dstShape[0], dstShape[1], own, loc);
        }
    }
}

// Broadcast.md lists int8_t, uint8_t, half and float for A2; asc-devkit's A2 implementation moves any 1-, 2-
// or 4-byte type (its add_broadcast example instantiates bfloat16_t, int16_t and int32_t), so those are taken
// too: 2- and 4-byte types as their bits (uint16_t / uint32_t), 1-byte types widened to half in the temporary
// space (Cast, CAST_NONE), broadcast there and narrowed back, as A2 does. The 1-byte form's temporary space
// adds src and dst as half, each rounded up to 16 elements (GetBroadCastMaxMinTmpSize).
template <typename T, int32_t dim, int32_t axis>
TUNER_SIM_UNCHARGED inline void broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                          const uint32_t* dstShape, const uint32_t* srcShape,
                                          const LocalTensor<uint8_t>& tmp, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Broadcast, T);
    static_assert(dim == 1 || dim == 2, "Broadcast: dim must be 1 or 2 (Broadcast.md)");
    static_assert(axis == 0 || axis == 1, "Broadcast: axis must be 0 or 1 (Broadcast.md)");
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "Broadcast: b8, b16 or b32 types only");
    tuner_sim::api_site("Broadcast", loc);
    if constexpr (sizeof(T) == 1) {
        uint32_t srcSize = 1, dstSize = 1;
        for (int32_t i = 0; i < dim; ++i) {
            srcSize *= srcShape[i];
            dstSize *= dstShape[i];
        }
        const uint32_t srcAlign = (srcSize + 15) / 16 * 16, dstAlign = (dstSize + 15) / 16 * 16;
        const uint32_t castBytes = (srcAlign + dstAlign) * 2;
        require_tmp("Broadcast", tmp, castBytes + 32, own);
        const LocalTensor<half> srcH = tmp.ReinterpretCast<half>(), dstH = srcH[srcAlign];
        Cast(srcH, src, RoundMode::CAST_NONE, srcSize, loc);
        PipeBarrier<PIPE_V>(loc);
        broadcast_bits<uint16_t, dim, axis>(dstH.template ReinterpretCast<uint16_t>(),
                                            srcH.template ReinterpretCast<uint16_t>(), dstShape, srcShape,
                                            tmp[castBytes], own, loc);
        Cast(dst, dstH, RoundMode::CAST_NONE, dstSize, loc);
        PipeBarrier<PIPE_V>(loc);
    } else {
        using C = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
        broadcast_bits<C, dim, axis>(dst.template ReinterpretCast<C>(), src.template ReinterpretCast<C>(), dstShape,
                                     srcShape, tmp, own, loc);
    }
}

// ---- Pad (Pad.md): [h, w] -> [h, w'] with the pad columns set to padValue ------------------------------------
// Rows already 32-byte aligned (w * sizeof(T) % 32 == 0): DataCopy of the whole tensor, then a masked Duplicate
// of the pad lanes of each row's last block (right pad only). Otherwise, in groups of 16 * tmpBuffer1BlockNum
// elements: each element broadcast to a block (Brcb) in tmp1, the blocks of one output group (pad blocks
// Duplicated) copied to tmp2, transposed in place with TransDataTo5HD (block 0 of every 16 then holds 16
// consecutive outputs), and those blocks copied to the row in dst.
template <typename T>
TUNER_SIM_UNCHARGED inline void pad_aligned(const LocalTensor<T>& dst, const LocalTensor<T>& src, const PadParams& p,
                                            const PadTiling& t, Loc loc) {
    constexpr uint32_t perBlk = 32 / sizeof(T);
    const uint32_t h = t.srcHeight, w = t.srcWidth;
    if (p.leftPad != 0 || uint32_t(p.rightPad) + t.srcOriWidth > w || w - t.srcOriWidth > perBlk) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "Pad: a 32-byte aligned width %u (%u valid) takes a right pad only, within the last block "
                         "(leftPad %u, rightPad %u; Pad.md 约束说明)",
                         w, t.srcOriWidth, unsigned(p.leftPad), unsigned(p.rightPad));
    }
    DataCopy(dst, src, h * w, loc);
    PipeBarrier<PIPE_V>(loc);
    uint64_t mask[2] = {((uint64_t(1) << p.rightPad) - 1) << (perBlk - (w - t.srcOriWidth)), 0};
    const T v = static_cast<T>(p.padValue);
    for (uint32_t i = 0; i < t.heightFractal; ++i) {
        Duplicate(dst[i * t.mainLoopOffset + t.widthWithoutLastBlock], v, mask, uint8_t(t.heightTiling), 1,
                  uint8_t(t.blocksPerRow), loc);
    }
    if (t.heightFractalTail != 0) {
        Duplicate(dst[t.tailBlockOffset], v, mask, uint8_t(t.heightFractalTail), 1, uint8_t(t.blocksPerRow), loc);
    }
}
template <typename T>
TUNER_SIM_UNCHARGED inline void pad_brcb(const LocalTensor<T>& tmp1, const LocalTensor<T>& src, uint32_t reps,
                                         uint32_t tailReps, uint32_t maxRep, Loc loc) {
    constexpr uint32_t perBlk = 32 / sizeof(T);
    for (uint32_t i = 0; i < reps; ++i) {
        Brcb(tmp1[i * maxRep * 8 * perBlk], src[i * maxRep * 8], uint8_t(maxRep), BrcbRepeatParams(1, 8), loc);
    }
    if (tailReps != 0) {
        Brcb(tmp1[reps * maxRep * 8 * perBlk], src[reps * maxRep * 8], uint8_t(tailReps), BrcbRepeatParams(1, 8), loc);
    }
}
template <typename T>
TUNER_SIM_UNCHARGED inline void pad_unaligned(const LocalTensor<T>& dst, const LocalTensor<T>& src, const PadParams& p,
                                              const LocalTensor<uint8_t>& tmpBytes, const PadTiling& t, bool own,
                                              Loc loc) {
    constexpr uint32_t perBlk = 32 / sizeof(T);
    require_tmp("Pad", tmpBytes, 16 * 32 * 2, own);
    const uint32_t alignedW = (t.srcWidth + perBlk - 1) / perBlk * perBlk;
    if (t.srcWidth + p.leftPad + p.rightPad != alignedW) {
        // Pad.md allows a padded width up to the aligned one; A2's expansion fills whole 32-byte rows, so any
        // other width shifts every row after the first on the NPU.
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "Pad: leftPad %u + width %u + rightPad %u must equal the width rounded up to 32 bytes (%u): "
                         "asc-devkit's A2 Pad writes whole 32-byte rows",
                         unsigned(p.leftPad), t.srcWidth, unsigned(p.rightPad), alignedW);
    }
    if (t.tmpBuffer1BlockNum == 0 || t.maxRepeatTimes == 0) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                         "Pad: the tiling holds no temporary space (tmpBuffer1BlockNum 0): call PadTilingFunc with a "
                         "stackBufferSize of at least GetPadMaxMinTmpSize's minimum");
    }
    const uint32_t h = t.srcHeight, w = t.srcWidth;
    const LocalTensor<T> tmp = tmpBytes.ReinterpretCast<T>();
    const LocalTensor<T> tmp1 = tmp, tmp2 = tmp[t.tmpBuffer2Offset];
    const uint32_t outW = w + p.leftPad + p.rightPad;
    const T v = static_cast<T>(p.padValue);
    uint32_t tmp1Full = t.tmpBuffer1RowNum, tmp1Count = t.tmpBuffer1RowNum, brcbCount = 0;
    TransDataTo5HDParams tp;
    tp.repeatTimes = uint8_t(t.tmpBuffer1BlockNum);
    if (tp.repeatTimes > 1) {
        tp.dstRepStride = 16;
        tp.srcRepStride = 16;
    }
    uint64_t list[16];
    for (uint32_t i = 0; i < 16; ++i) list[i] = uint64_t(tmp2[i * perBlk].GetPhyAddr());
    for (uint32_t j = 0; j < h; ++j) {
        for (uint32_t i = 0; i <= t.widthFractal; ++i) {
            uint32_t tmp2Count = 0, need = 0;
            if (i == 0 && p.leftPad != 0) {
                Duplicate(tmp2, v, uint64_t(perBlk), uint8_t(p.leftPad), 1, 1, loc);
                tmp2Count += p.leftPad;
            }
            if (i == t.widthFractal) {
                if (p.rightPad != 0) {
                    Duplicate(tmp2[(t.widthFractalTailAlingned - p.rightPad) * perBlk], v, uint64_t(perBlk),
                              uint8_t(p.rightPad), 1, 1, loc);
                }
                need = t.widthFractalTailAlingned - tmp2Count - p.rightPad;
            } else {
                need = t.tmpBuffer1RowNum - tmp2Count;
            }
            while (need != 0) {
                PipeBarrier<PIPE_V>(loc);
                const uint32_t remain = tmp1Full - tmp1Count;
                if (need > remain) {
                    if (remain != 0) {
                        DataCopy(tmp2[tmp2Count * perBlk], tmp1[tmp1Count * perBlk],
                                 DataCopyParams(1, uint16_t(remain), 0, 0), loc);
                        tmp1Count += remain;
                        tmp2Count += remain;
                        need -= remain;
                        PipeBarrier<PIPE_V>(loc);
                    }
                    if (brcbCount == t.brcbFractal) {
                        pad_brcb(tmp1, src[brcbCount * t.brcbTiling], t.brcbFractalTailRepeatTimes,
                                 t.brcbFractalTailRepeatTimesTail, t.maxRepeatTimes, loc);
                        tmp1Full = t.brcbFractalTail;
                    } else {
                        pad_brcb(tmp1, src[brcbCount * t.brcbTiling], t.brcbTilingRepeatTimes,
                                 t.brcbTilingRepeatTimesTail, t.maxRepeatTimes, loc);
                    }
                    ++brcbCount;
                    tmp1Count = 0;
                    if (brcbCount > t.brcbFractal + 1) {
                        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                                         "Pad: the tiling does not match the tensor (%u x %u): fill it with "
                                         "PadTilingFunc",
                                         h, w);
                    }
                } else {
                    DataCopy(tmp2[tmp2Count * perBlk], tmp1[tmp1Count * perBlk],
                             DataCopyParams(1, uint16_t(need), 0, 0), loc);
                    tmp1Count += need;
                    tmp2Count += need;
                    need = 0;
                }
            }
            PipeBarrier<PIPE_V>(loc);
            TransDataTo5HD<T>(list, list, tp, loc);
            PipeBarrier<PIPE_V>(loc);
            // block 0 of every 16 (2-byte) or blocks 0 and 1 (4-byte) hold 16 consecutive outputs
            const uint32_t groups = i == t.widthFractal ? t.widthFractalTailAlingned / 16 : t.tmpBuffer1BlockNum;
            const uint32_t at = j * outW + i * 16 * t.tmpBuffer1BlockNum;
            constexpr uint16_t blks = uint16_t(sizeof(T) / 2);
            if (groups != 0) DataCopy(dst[at], tmp2, DataCopyParams(uint16_t(groups), blks, 16 - blks, 0), loc);
            if (sizeof(T) == 4 && i == t.widthFractal && t.widthFractalTailAlingned % 16 != 0) {
                DataCopy(dst[at + groups * 16], tmp2[groups * 16 * perBlk], DataCopyParams(1, 1, 15, 0), loc);
            }
        }
    }
}
template <typename T>
TUNER_SIM_UNCHARGED inline void pad(const LocalTensor<T>& dst, const LocalTensor<T>& src, const PadParams& p,
                                    const LocalTensor<uint8_t>& tmp, const PadTiling& t, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Pad, T);
    tuner_sim::api_site("Pad", loc);
    if (t.srcHeight * t.srcWidth * sizeof(T) % 32 != 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "Pad: the source holds %u x %u elements = %u bytes, not a multiple of 32 bytes (Pad.md "
                         "约束说明: 源操作数的数据量必须32B对齐)",
                         t.srcHeight, t.srcWidth, unsigned(t.srcHeight * t.srcWidth * sizeof(T)));
    }
    if (t.srcWidth * sizeof(T) % 32 == 0) {
        pad_aligned(dst, src, p, t, loc);
    } else {
        pad_unaligned(dst, src, p, tmp, t, own, loc);
    }
}

// ---- UnPad (UnPad.md): [h, w] -> [h, w - rightPad], w 32-byte aligned: one GatherMask (pattern 7, counter
// mode, w - rightPad elements a repeat, one repeat per row). A2 needs no temporary space.
template <typename T>
TUNER_SIM_UNCHARGED inline void unpad(const LocalTensor<T>& dst, const LocalTensor<T>& src, const UnPadParams& p,
                                      const UnPadTiling& t, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(UnPad, T);
    tuner_sim::api_site("UnPad", loc);
    const uint32_t w = t.srcWidth;
    if (w * sizeof(T) % 32 != 0 || p.rightPad == 0 || p.rightPad * sizeof(T) >= 32 || p.rightPad >= w) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "UnPad: the width (%u) must be 32-byte aligned and rightPad (%u) above 0 and under 32 bytes "
                         "(UnPad.md)",
                         w, unsigned(p.rightPad));
    }
    uint64_t rsvd = 0;
    GatherMask(dst, src, uint8_t(7), true, w - p.rightPad,
               GatherMaskParams(1, uint16_t(t.srcHeight), uint16_t(w * sizeof(T) / 32), 0), rsvd, loc);
    ResetMask();
}

// ---- Transpose / ConfusionTranspose (Transpose-96.md), the A2 scenarios ----------------------------------------
// Scenarios 1 and 2 ([B, A1, A3/16, A2/16, 16, 16] NZ -> [B, A2, A1, A3] ND or NZ): per batch, A1 and 16-column
// strip, cubes of the strip transposed with TransDataTo5HD into the temporary space (newPopSize elements a
// pass), then transposed again into dst at the 0213 position. Scenario 7 ([H, W] -> [W, H], H and W multiples
// of 16): one TransDataTo5HD per 16 rows, repeating over the 16-column blocks. 2-byte types; the 4-byte forms
// and scenarios 3 and 4 are not provided yet (an `unsupported` fault each).
template <typename T>
TUNER_SIM_UNCHARGED inline void trans_lists(uint64_t (&list)[16], const LocalTensor<T>& t, uint32_t base,
                                            uint32_t step) {
    for (uint32_t n = 0; n < 16; ++n) list[n] = uint64_t(t[base + step * n].GetPhyAddr());
}
TUNER_SIM_UNCHARGED inline TransDataTo5HDParams trans_params(uint32_t repeat, uint32_t dstStride, uint32_t srcStride) {
    TransDataTo5HDParams p;
    p.repeatTimes = uint8_t(repeat);
    p.dstRepStride = uint16_t(repeat == 1 ? 0 : dstStride);
    p.srcRepStride = uint16_t(repeat == 1 ? 0 : srcStride);
    return p;
}
template <typename T>
TUNER_SIM_UNCHARGED inline void transpose_0213(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                               const LocalTensor<uint8_t>& tmpBytes, bool toNz,
                                               const ConfusionTransposeTiling& t, bool own, Loc loc) {
    // param0.. : blockSize, shapeB, shapeA1, alignA3, alignA2, widthTiling, newPopSize, newPopH, needSize,
    // mainBlocks, tailSize, alignA2MulAlignA3, batchOffset, alignA3MulA1, shapeA1BlockCube, mainOffset
    const uint32_t blockSize = t.param0, shapeB = t.param1, shapeA1 = t.param2, alignA3 = t.param3;
    const uint32_t widthTiling = t.param5, newPopSize = t.param6, newPopH = t.param7, needSize = t.param8;
    const uint32_t mainBlocks = t.param9, tailSize = t.param10, a2a3 = t.param11, batchOffset = t.param12;
    const uint32_t a3a1 = t.param13, a1Cube = t.param14, mainOffset = t.param15;
    require_tmp("Transpose", tmpBytes, 256 * uint32_t(sizeof(T)), own);
    if (blockSize != 32 / sizeof(T) || newPopSize == 0 || newPopSize % 256 != 0 || newPopSize / 256 > 255) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                         "Transpose: the tiling does not fit this type or holds no temporary space (newPopSize %u "
                         "elements): fill it with GetTransposeTilingInfo for sizeof(T) = %u and a stackBufferSize of "
                         "at least GetTransposeMaxMinTmpSize's minimum",
                         newPopSize, unsigned(sizeof(T)));
    }
    require_tmp("Transpose", tmpBytes, newPopSize * uint32_t(sizeof(T)), own);
    const LocalTensor<T> tmp = tmpBytes.ReinterpretCast<T>();
    uint64_t dl[16], sl[16];
    auto pass = [&](uint32_t srcOff, uint32_t dstOff, uint32_t size) {
        const uint32_t rep = size / 256;
        trans_lists(dl, tmp, 0, newPopH);
        trans_lists(sl, src, srcOff, 16);
        PipeBarrier<PIPE_V>(loc);
        TransDataTo5HD<T>(dl, sl, trans_params(rep, 16 / blockSize, 256 / blockSize), loc);
        trans_lists(dl, dst, dstOff, a3a1);
        trans_lists(sl, tmp, 0, newPopH);
        PipeBarrier<PIPE_V>(loc);
        TransDataTo5HD<T>(dl, sl, trans_params(rep, a3a1 * 16 / blockSize, 16 / blockSize), loc);
    };
    for (uint32_t k = 0; k < shapeB; ++k) {
        for (uint32_t i = 0; i < shapeA1; ++i) {
            for (uint32_t j = 0; j < widthTiling; ++j) {
                const uint32_t srcBase = j * needSize + i * a2a3 + k * batchOffset;
                const uint32_t dstBase = (toNz ? j * a1Cube + i * 16 : j * 16 + i * alignA3) + k * batchOffset;
                for (uint32_t m = 0; m < mainBlocks; ++m) {
                    pass(newPopSize * m + srcBase, newPopH * m * a3a1 + dstBase, newPopSize);
                }
                if (tailSize != 0) pass(newPopSize * mainBlocks + srcBase, mainOffset + dstBase, tailSize);
            }
        }
    }
}
// Scenarios 5 and 6 ([B, N, H/N/16, S/16, 16, 16] NZ -> [B, S, H] ND or [B, H/16, S/16, 16, 16] NZ): per batch
// and 16-column strip of S, each source cube transposed into tmp1 (its rows are H/N columns), rows gathered
// into tmp2 until 16 rows of H are there (across the N boundaries), then transposed into dst. The row
// bookkeeping follows asc-devkit's (ConfusionTranspose012Compute) step for step.
template <typename T>
TUNER_SIM_UNCHARGED inline void transpose_012(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                              const LocalTensor<uint8_t>& tmpBytes, bool toNz,
                                              const ConfusionTransposeTiling& t, bool own, Loc loc) {
    const uint32_t shapeB = t.param1, shapeN = t.param2, hnDiv = t.param3, shapeH = t.param4, hBlockNum = t.param5;
    const uint32_t sBlockNum = t.param6, hnDivBlockNum = t.param7, alignH = t.param8, alignsCube = t.param9;
    const uint32_t alignhBlockCube = t.param10, srcBatchOffset = t.param12, dstBatchOffset = t.param13;
    const uint32_t blockNum = t.param14;
    require_tmp("Transpose", tmpBytes, 2 * 256 * uint32_t(sizeof(T)), own);
    if (t.param0 != 32 / sizeof(T) || hnDiv == 0 || shapeH != shapeN * hnDiv || blockNum != 1) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                         "Transpose: the tiling does not fit this type or shape: fill it with GetTransposeTilingInfo "
                         "for sizeof(T) = %u",
                         unsigned(sizeof(T)));
    }
    const LocalTensor<T> tmp1 = tmpBytes.ReinterpretCast<T>(), tmp2 = tmp1[256];
    const TransDataTo5HDParams one = trans_params(1, 0, 0);
    uint64_t dl[16], sl[16];
    uint32_t tmp1Remain = 0, tmp2Need = 16, repeat = 0, tmp2Count = 0, tmp1Count = 0, dstAll = 0, dstPreHn = 0;
    auto copy_rows = [&](uint32_t tmp1Row, uint32_t rows) {
        PipeBarrier<PIPE_V>(loc);
        DataCopy(tmp2[tmp2Count * 16], tmp1[tmp1Row * 16], DataCopyParams(1, uint16_t(rows * blockNum), 0, 0), loc);
    };
    for (uint32_t k = 0; k < shapeB; ++k) {
        for (uint32_t j = 0; j < sBlockNum; ++j) {
            repeat = 0;
            auto tmp2_to_dst = [&]() {
                if (tmp2Need != 0) return;
                for (uint32_t n = 0; n < 16; ++n) {
                    const uint32_t at = toNz ? repeat * alignsCube + j * 256 + 16 * n + k * dstBatchOffset
                                             : repeat * 16 + j * alignhBlockCube + alignH * n + k * dstBatchOffset;
                    dl[n] = uint64_t(dst[at].GetPhyAddr());
                    sl[n] = uint64_t(tmp2[16 * n].GetPhyAddr());
                }
                PipeBarrier<PIPE_V>(loc);
                TransDataTo5HD<T>(dl, sl, one, loc);
                tmp2Count = 0;
                ++repeat;
                if (dstAll == shapeH) {
                    tmp1Remain = 0;
                    dstAll = 0;
                }
                tmp2Need = repeat + 1 != hBlockNum ? 16 : shapeH - repeat * 16;
            };
            for (uint32_t i = 0; i < hnDivBlockNum * shapeN; ++i) {
                tmp1Count = 0;
                if (tmp1Remain == 0) {  // the next source cube into tmp1
                    trans_lists(dl, tmp1, 0, 16);
                    trans_lists(sl, src, i * alignsCube + j * 256 + k * srcBatchOffset, 16);
                    PipeBarrier<PIPE_V>(loc);
                    TransDataTo5HD<T>(dl, sl, one, loc);
                    if (hnDiv > 16) {
                        tmp1Remain = (dstPreHn < hnDiv && dstPreHn + 16 > hnDiv) ? hnDiv - dstPreHn : 16;
                    } else {
                        tmp1Remain = hnDiv;
                    }
                }
                if (dstPreHn == hnDiv) dstPreHn = 0;
                const uint32_t rows = std::min(tmp2Need, tmp1Remain);  // tmp1 -> tmp2
                if (rows != 0) {
                    copy_rows(0, rows);
                    tmp1Count += rows;
                    dstAll += rows;
                    dstPreHn += rows;
                    tmp2Count += rows;
                    tmp1Remain -= rows;
                    tmp2Need -= rows;
                }
                tmp2_to_dst();
                while (tmp1Remain != 0) {  // rows of tmp1 left over: into the next tmp2
                    if (tmp2Need == 0) {
                        tmp2_to_dst();
                        continue;
                    }
                    const bool all = tmp1Remain >= tmp2Need;
                    const uint32_t r = all ? tmp2Need : tmp1Remain;
                    copy_rows(tmp1Count, r);
                    dstAll += r;
                    dstPreHn += r;
                    tmp2Count = all ? tmp2Count + r : r;
                    tmp1Remain -= r;
                    tmp2Need -= r;
                    tmp2_to_dst();
                }
            }
        }
    }
}
template <typename T>
TUNER_SIM_UNCHARGED inline void transpose_only(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                               const ConfusionTransposeTiling& t, Loc loc) {
    // param0.. : blockSize, height, width, highBlock, stride, repeat
    const uint32_t h = t.param1, w = t.param2, highBlock = t.param3;
    if (t.param0 != 32 / sizeof(T) || h % 16 != 0 || w % 16 != 0 || t.param5 == 0 || t.param5 > 255) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                         "Transpose: TRANSPOSE_ND2ND_ONLY takes [H, W] with H and W multiples of 16 (got [%u, %u], "
                         "tiling blockSize %u): fill the tiling with GetTransposeTilingInfo",
                         h, w, t.param0);
    }
    uint64_t dl[16], sl[16];
    const TransDataTo5HDParams p = trans_params(t.param5, t.param4, 1);
    for (uint32_t i = 0; i < highBlock; ++i) {
        trans_lists(dl, dst, i * 16, h);
        trans_lists(sl, src, i * w * 16, w);
        TransDataTo5HD<T>(dl, sl, p, loc);
    }
}
template <typename T>
TUNER_SIM_UNCHARGED inline void confusion_transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                    const LocalTensor<uint8_t>& tmp, TransposeType type,
                                                    const ConfusionTransposeTiling& t, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(ConfusionTranspose, T);
    tuner_sim::api_site("Transpose", loc);
    if constexpr (sizeof(T) != 2) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "Transpose (TransposeType %d): the %u-byte form is not provided by the tuner simulator yet "
                         "(2-byte types are provided)",
                         int(type), unsigned(sizeof(T)));
        (void)dst, (void)src, (void)tmp, (void)t, (void)own;
    } else if (type == TransposeType::TRANSPOSE_NZ2ND_0213 || type == TransposeType::TRANSPOSE_NZ2NZ_0213) {
        transpose_0213(dst, src, tmp, type == TransposeType::TRANSPOSE_NZ2NZ_0213, t, own, loc);
    } else if (type == TransposeType::TRANSPOSE_NZ2ND_012_WITHOUT_N || type == TransposeType::TRANSPOSE_NZ2NZ_012_WITHOUT_N) {
        transpose_012(dst, src, tmp, type == TransposeType::TRANSPOSE_NZ2NZ_012_WITHOUT_N, t, own, loc);
    } else if (type == TransposeType::TRANSPOSE_ND2ND_ONLY) {
        transpose_only(dst, src, t, loc);
    } else {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "Transpose: TransposeType %d is not provided by the tuner simulator (A2 scenarios 1, 2, 5, 6 "
                         "and 7 are: NZ2ND/NZ2NZ_0213, NZ2ND/NZ2NZ_012_WITHOUT_N, ND2ND_ONLY)",
                         int(type));
    }
}

// ---- TransData (TransData.md): NCDHW <-> NDC1HWC0 and NCDHW <-> FRACTAL_Z_3D, 2-byte types -------------------
// asc-devkit's A2 sequence (impl/adv_api/detail/transpose/transdata/transdata_impl.h): 16 x 16 transposes with
// TransDataTo5HD on address lists (rows past C or N read a zero block), DataCopy to merge or split axes, on the
// caller's temporary space (GetTransDataMaxMinTmpSize: min = max). H * W of an NCDHW tensor is padded to 16.
struct TransDataDims {
    int32_t n, c, d, h, w, n1, c1, padHw;
};
TUNER_SIM_UNCHARGED inline uint32_t transdata_tmp_bytes(DataFormat src, DataFormat dst, const TransDataDims& p) {
    const uint32_t n = p.n, c = p.c, d = p.d, h = p.h, w = p.w, n1 = p.n1, c1 = p.c1, hw = p.padHw;
    if (src == DataFormat::NCDHW && dst == DataFormat::NDC1HWC0) return (d * hw + d * c1 * 16 * hw) * 2;
    if (src == DataFormat::NDC1HWC0 && dst == DataFormat::NCDHW) return d * c1 * 16 * hw * 2 + 512;
    if (src == DataFormat::NCDHW && dst == DataFormat::FRACTAL_Z_3D) {
        return std::max(c * d * hw * 2, d * h * w * n1 * 16 * 2) + n1 * 16 * d * c1 * 16 * hw * 2;
    }
    const uint32_t one = n1 * 16 * c1 * 16 * d * hw * 2;
    return (n == n1 * 16u && c == c1 * 16u) ? one : 2 * one;
}
TUNER_SIM_UNCHARGED inline uint64_t ub_addr(const LocalTensor<half>& t, uint32_t elems) {
    return uint64_t(t.GetPhyAddr()) + uint64_t(elems) * 2;
}
TUNER_SIM_UNCHARGED inline TransDataTo5HDParams td_params(uint32_t repeat, uint32_t dstStride, uint32_t srcStride) {
    TransDataTo5HDParams p;
    p.repeatTimes = uint8_t(repeat);
    p.dstRepStride = uint16_t(repeat == 1 ? 0 : dstStride);
    p.srcRepStride = uint16_t(repeat == 1 ? 0 : srcStride);
    return p;
}
// NCDHW -> FRACTAL_Z_3D [D, C1, H, W, N1, N0, C0]
TUNER_SIM_UNCHARGED inline void td_ncdhw_to_fz3d(const LocalTensor<half>& dst, const LocalTensor<half>& src,
                                                 const LocalTensor<uint8_t>& tmpBytes, const TransDataDims& p,
                                                 Loc loc) {
    const int32_t n = p.n, c = p.c, d = p.d, h = p.h, w = p.w, n1 = p.n1, c1 = p.c1, hw = p.padHw;
    const LocalTensor<half> zero = tmpBytes.ReinterpretCast<half>();
    int32_t axis = c * d * hw;
    const int32_t dup = std::max(axis, d * h * w * n1 * 16);
    Duplicate(zero, half(0), dup, loc);
    PipeBarrier<PIPE_V>(loc);
    const LocalTensor<half> work = tmpBytes[uint32_t(dup) * 2].ReinterpretCast<half>();
    uint64_t dl[16], sl[16];
    // step 1: NCDHW -> CDHW, N1, N0 (rows past N read zeros)
    TransDataTo5HDParams tp = td_params(uint32_t(axis / 16), uint32_t(n1 * 16), 1);
    const bool padded = hw != h * w;
    const LocalTensor<half>& step1 = padded ? work : dst;
    for (int32_t j = 0; j < n1; ++j) {
        const int32_t remain = j == n1 - 1 ? n - j * 16 : 16;
        for (int32_t i = 0; i < 16; ++i) dl[i] = ub_addr(step1, uint32_t(j * 16 + i * n1 * 16));
        for (int32_t i = 0; i < 16; ++i) {
            sl[i] = i < remain ? ub_addr(src, uint32_t(j * axis * 16 + i * axis)) : ub_addr(zero, 0);
        }
        TransDataTo5HD<half>(dl, sl, tp, loc);
    }
    PipeBarrier<PIPE_V>(loc);
    if (padded) {  // step 1.5: drop the H * W padding
        axis = h * w * n1 * 16;
        DataCopy(dst, work, DataCopyParams(uint16_t(c * d), uint16_t(axis / 16), uint16_t((hw - h * w) * n1 * 16 / 16), 0),
                 loc);
        PipeBarrier<PIPE_V>(loc);
    }
    // step 2: CDHWN1N0 -> C1, DHWN1N0, C0 (rows past C read zeros)
    axis = d * h * w * n1 * 16;
    tp = td_params(uint32_t(axis / 16), 16, 1);
    for (int32_t j = 0; j < c1; ++j) {
        const int32_t remain = j == c1 - 1 ? c - j * 16 : 16;
        for (int32_t i = 0; i < 16; ++i) dl[i] = ub_addr(work, uint32_t(j * axis * 16 + i * 16));
        for (int32_t i = 0; i < 16; ++i) {
            sl[i] = i < remain ? ub_addr(dst, uint32_t(j * axis * 16 + i * axis)) : ub_addr(zero, 0);
        }
        TransDataTo5HD<half>(dl, sl, tp, loc);
    }
    PipeBarrier<PIPE_V>(loc);
    // step 3: C1, D, HWN1N0C0 -> D, C1, HWN1N0C0
    axis = 16 * h * w * n1 * 16;
    const DataCopyParams cp(uint16_t(d), uint16_t(axis / 16), 0, uint16_t((c1 - 1) * axis / 16));
    for (int32_t i = 0; i < c1; ++i) DataCopy(dst[uint32_t(i * axis)], work[uint32_t(i * d * axis)], cp, loc);
    PipeBarrier<PIPE_V>(loc);
}
// FRACTAL_Z_3D -> NCDHW (H * W padded to 16 in dst)
TUNER_SIM_UNCHARGED inline void td_fz3d_to_ncdhw(const LocalTensor<half>& dst, const LocalTensor<half>& src,
                                                 const LocalTensor<uint8_t>& tmpBytes, const TransDataDims& p,
                                                 Loc loc) {
    const int32_t n = p.n, c = p.c, d = p.d, h = p.h, w = p.w, n1 = p.n1, c1 = p.c1, hw = p.padHw;
    const LocalTensor<half> tmp = tmpBytes.ReinterpretCast<half>();
    const bool exact = c == c1 * 16 && n == n1 * 16;
    const LocalTensor<half> a = exact ? dst : tmp;                                          // [C1, D, HW, N1N0C0]
    const LocalTensor<half> b = exact ? tmp : tmp[uint32_t(n1 * 16 * c1 * 16 * d * hw)];  // [C1, C0, DHW N1N0]
    // D, C1, HWN1N0C0 -> C1, D, HW(padded)N1N0C0
    const int32_t n1n0c0 = n1 * 256, hwAlign = hw * n1n0c0, hwPad = (hw - h * w) * n1n0c0, last = h * w * n1n0c0;
    Duplicate(a, half(0), c1 * d * hw * n1 * 256, loc);
    PipeBarrier<PIPE_V>(loc);
    const DataCopyParams cp(uint16_t(c1), uint16_t(last / 16), 0, uint16_t(((d - 1) * hwAlign + hwPad) / 16));
    for (int32_t d0 = 0; d0 < d; ++d0) DataCopy(a[uint32_t(d0 * hwAlign)], src[uint32_t(d0 * c1 * last)], cp, loc);
    PipeBarrier<PIPE_V>(loc);
    // C1, DHWN1N0, C0 -> C1, C0, DHWN1N0
    uint64_t dl[16], sl[16];
    TransDataTo5HDParams tp = td_params(uint32_t(d * hw * n1), 1, 16);
    for (int32_t j = 0; j < c1; ++j) {
        const uint32_t out = uint32_t(j * d * hw * n1 * 256);
        for (int32_t i = 0; i < 16; ++i) {
            sl[i] = ub_addr(a, out + uint32_t(i * 16));
            dl[i] = ub_addr(b, out + uint32_t(i * d * hw * n1 * 16));
        }
        TransDataTo5HD<half>(dl, sl, tp, loc);
    }
    PipeBarrier<PIPE_V>(loc);
    // C1C0DHW, N1N0 -> N, CDHW (rows past N go to a scratch block of tmp)
    tp = td_params(uint32_t(c * d * hw / 16), 1, uint32_t(16 * n1 * 16 / 16));
    int32_t curN = n;
    for (int32_t j = 0; j < n1; ++j) {
        for (int32_t i = 0; i < 16; ++i) {
            dl[i] = (16 - curN > 0 && i >= curN) ? ub_addr(tmp, uint32_t(i * 16))
                                                 : ub_addr(dst, uint32_t(j * d * c * hw * 16 + i * c * d * hw));
            sl[i] = ub_addr(b, uint32_t(j * 16 + i * 16 * n1));
        }
        TransDataTo5HD<half>(dl, sl, tp, loc);
        curN -= 16;
    }
    PipeBarrier<PIPE_V>(loc);
}
// NCDHW -> NDC1HWC0
TUNER_SIM_UNCHARGED inline void td_ncdhw_to_6hd(const LocalTensor<half>& dst, const LocalTensor<half>& src,
                                                const LocalTensor<uint8_t>& tmpBytes, const TransDataDims& p,
                                                Loc loc) {
    const int32_t n = p.n, c = p.c, d = p.d, h = p.h, w = p.w, c1 = p.c1, hw = p.padHw;
    const int32_t hwc0 = h * w * 16, c1hwdc0 = hwc0 * c1 * d, padHwd = hw * d, padHwdc0 = hw * 16 * d;
    const LocalTensor<half> zero = tmpBytes.ReinterpretCast<half>();
    Duplicate(zero, half(0), padHwd, loc);
    PipeBarrier<PIPE_V>(loc);
    const LocalTensor<half> work = tmpBytes[uint32_t(padHwd) * 2].ReinterpretCast<half>();
    uint64_t dl[16], sl[16];
    const TransDataTo5HDParams tp = td_params(uint32_t(padHwd / 16), 16, 1);
    const DataCopyParams cp(uint16_t(d), uint16_t(hwc0 / 16), uint16_t((hw - h * w) * 16 / 16),
                            uint16_t((c1 - 1) * hwc0 / 16));
    for (int32_t k = 0; k < n; ++k) {
        const int32_t srcStart = k * padHwd * c, dstStart = k * c1hwdc0;
        for (int32_t j = 0; j < c1; ++j) {  // CDHW -> C1, DHW, C0 (rows past C read zeros)
            const int32_t remain = j == c1 - 1 ? c - j * 16 : 16;
            for (int32_t i = 0; i < 16; ++i) {
                dl[i] = ub_addr(work, uint32_t(j * padHwdc0 + i * 16));
                sl[i] = i < remain ? ub_addr(src, uint32_t(srcStart + j * padHwdc0 + i * padHwd)) : ub_addr(zero, 0);
            }
            TransDataTo5HD<half>(dl, sl, tp, loc);
        }
        PipeBarrier<PIPE_V>(loc);
        for (int32_t i = 0; i < c1; ++i) {  // C1, D, HWC0 -> D, C1, HWC0
            DataCopy(dst[uint32_t(dstStart + i * hwc0)], work[uint32_t(i * padHwdc0)], cp, loc);
        }
        PipeBarrier<PIPE_V>(loc);
    }
}
// NDC1HWC0 -> NCDHW (H * W padded to 16 in dst)
TUNER_SIM_UNCHARGED inline void td_6hd_to_ncdhw(const LocalTensor<half>& dst, const LocalTensor<half>& src,
                                                const LocalTensor<uint8_t>& tmpBytes, const TransDataDims& p,
                                                Loc loc) {
    const int32_t n = p.n, c = p.c, d = p.d, h = p.h, w = p.w, c1 = p.c1, hw = p.padHw;
    const LocalTensor<half> scratch = tmpBytes.ReinterpretCast<half>();
    const LocalTensor<half> work = tmpBytes[512].ReinterpretCast<half>();
    const int32_t hwc0 = h * w * 16, c1hwc0 = hwc0 * c1, c1hwdc0 = c1hwc0 * d, padHwd = hw * d;
    const int32_t padHwc0 = hw * 16, padHwdc0 = hw * 16 * d;
    uint64_t dl[16], sl[16];
    const TransDataTo5HDParams tp = td_params(uint32_t(hw * d / 16), 1, 16);
    const DataCopyParams cp(uint16_t(c1), uint16_t(hwc0 / 16), 0, uint16_t((d * hw - h * w) * 16 / 16));
    for (int32_t k = 0; k < n; ++k) {
        const int32_t srcStart = k * c1hwdc0, dstStart = k * padHwd * c;
        for (int32_t i = 0; i < d; ++i) {  // D, C1, HWC0 -> C1, D, HW(padded)C0
            DataCopy(work[uint32_t(i * padHwc0)], src[uint32_t(srcStart + i * c1hwc0)], cp, loc);
        }
        PipeBarrier<PIPE_V>(loc);
        for (int32_t j = 0; j < c1; ++j) {  // C1, DHW, C0 -> C1C0, DHW (rows past C go to scratch)
            const int32_t remain = j == c1 - 1 ? c - j * 16 : 16;
            for (int32_t i = 0; i < 16; ++i) {
                dl[i] = i < remain ? ub_addr(dst, uint32_t(dstStart + j * padHwdc0 + i * padHwd))
                                   : ub_addr(scratch, uint32_t(i * 16));
                sl[i] = ub_addr(work, uint32_t(j * padHwdc0 + i * 16));
            }
            TransDataTo5HD<half>(dl, sl, tp, loc);
        }
        PipeBarrier<PIPE_V>(loc);
    }
}
template <const TransDataConfig& config, typename T, typename U, typename S>
TUNER_SIM_UNCHARGED inline void transdata(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                          const LocalTensor<uint8_t>& tmp, const TransDataParams<U, S>& params,
                                          bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(TransData, T);
    constexpr DataFormat sf = config.srcFormat, df = config.dstFormat;
    constexpr bool toFz = sf == DataFormat::NCDHW && df == DataFormat::FRACTAL_Z_3D;
    constexpr bool fromFz = sf == DataFormat::FRACTAL_Z_3D && df == DataFormat::NCDHW;
    constexpr bool to6hd = sf == DataFormat::NCDHW && df == DataFormat::NDC1HWC0;
    constexpr bool from6hd = sf == DataFormat::NDC1HWC0 && df == DataFormat::NCDHW;
    static_assert(toFz || fromFz || to6hd || from6hd,
                  "TransData: config must be NCDHW <-> NDC1HWC0 or NCDHW <-> FRACTAL_Z_3D (TransData.md)");
    using SrcShape = std::decay_t<decltype(params.srcLayout.GetShape())>;
    using DstShape = std::decay_t<decltype(params.dstLayout.GetShape())>;
    constexpr size_t srcDims = std::tuple_size_v<SrcShape>, dstDims = std::tuple_size_v<DstShape>;
    constexpr size_t other = toFz || fromFz ? 7 : 6;
    static_assert(srcDims == (sf == DataFormat::NCDHW ? 5 : other) && dstDims == (df == DataFormat::NCDHW ? 5 : other),
                  "TransData: the layouts' shapes must have the dimensions of config's formats (NCDHW 5, "
                  "NDC1HWC0 6, FRACTAL_Z_3D 7)");
    tuner_sim::api_site("TransData", loc);
    const auto& nc = [&]() -> const auto& {
        if constexpr (sf == DataFormat::NCDHW) {
            return params.srcLayout.GetShape();
        } else {
            return params.dstLayout.GetShape();
        }
    }();
    TransDataDims p{};
    p.n = int32_t(std::get<0>(nc));
    p.c = int32_t(std::get<1>(nc));
    p.d = int32_t(std::get<2>(nc));
    p.h = int32_t(std::get<3>(nc));
    p.w = int32_t(std::get<4>(nc));
    p.n1 = (p.n + 15) / 16;
    p.c1 = (p.c + 15) / 16;
    p.padHw = (p.h * p.w + 15) / 16 * 16;
    require_tmp("TransData", tmp, transdata_tmp_bytes(sf, df, p), own);
    const LocalTensor<half> d = dst.template ReinterpretCast<half>(), s = src.template ReinterpretCast<half>();
    if constexpr (toFz) {
        td_ncdhw_to_fz3d(d, s, tmp, p, loc);
    } else if constexpr (fromFz) {
        td_fz3d_to_ncdhw(d, s, tmp, p, loc);
    } else if constexpr (to6hd) {
        td_ncdhw_to_6hd(d, s, tmp, p, loc);
    } else {
        td_6hd_to_ncdhw(d, s, tmp, p, loc);
    }
}

}  // namespace adv

template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                                                     const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                                                     LocalTensor<uint8_t>& sharedTmpBuffer, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::broadcast<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, sharedTmpBuffer, false, loc);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                                                     const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::broadcast<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, adv::own_tmp("Broadcast"), true, loc);
}
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                               PadParams& padParams, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                               PadTiling& tiling, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::pad(dstTensor, srcTensor, padParams, sharedTmpBuffer, tiling, false, loc);
}
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                               PadParams& padParams, PadTiling& tiling, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::pad(dstTensor, srcTensor, padParams, adv::own_tmp("Pad"), tiling, true, loc);
}
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                                 UnPadParams& unPadParams, LocalTensor<uint8_t>& sharedTmpBuffer,
                                                 UnPadTiling& tiling, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    (void)sharedTmpBuffer;
    adv::unpad(dstTensor, srcTensor, unPadParams, tiling, loc);
}
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                                 UnPadParams& unPadParams, UnPadTiling& tiling, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::unpad(dstTensor, srcTensor, unPadParams, tiling, loc);
}

template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                     const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                     TransposeType transposeType, ConfusionTransposeTiling& tiling,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::confusion_transpose(dst, src, sharedTmpBuffer, transposeType, tiling, false, loc);
}
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                     TransposeType transposeType, ConfusionTransposeTiling& tiling,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::confusion_transpose(dst, src, adv::own_tmp("Transpose"), transposeType, tiling, true, loc);
}
// ConfusionTranspose: the former name of the same API.
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void ConfusionTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                              const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                              TransposeType transposeType,
                                                              ConfusionTransposeTiling& tiling,
                                                              tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::confusion_transpose(dst, src, sharedTmpBuffer, transposeType, tiling, false, loc);
}
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void ConfusionTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                              TransposeType transposeType,
                                                              ConfusionTransposeTiling& tiling,
                                                              tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::confusion_transpose(dst, src, adv::own_tmp("Transpose"), transposeType, tiling, true, loc);
}

template <const TransDataConfig& config, typename T, typename U, typename S>
TUNER_SIM_UNCHARGED __aicore__ inline void TransData(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                                     const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                     const TransDataParams<U, S>& params,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::transdata<config>(dstTensor, srcTensor, sharedTmpBuffer, params, false, loc);
}
template <const TransDataConfig& config, typename T, typename U, typename S>
TUNER_SIM_UNCHARGED __aicore__ inline void TransData(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                                                     const TransDataParams<U, S>& params,
                                                     tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::transdata<config>(dstTensor, srcTensor, adv::own_tmp("TransData"), params, true, loc);
}
// GetTransDataMaxMinTmpSize.md (host): min = max = the temporary space of the conversion; false for an
// unsupported type, config or shape pair. DataType is AscendC::TensorDataType (ge::DataType).
template <typename Platform, typename DataType>
inline bool GetTransDataMaxMinTmpSize(const Platform& /*platform*/, const TensorShape& srcShape,
                                      const TensorShape& dstShape, const DataType dataType,
                                      const TransDataConfig& config, uint32_t& maxValue, uint32_t& minValue) {
    maxValue = minValue = 0;
    const int dt = int(dataType);  // DT_FLOAT16 1, DT_INT16 6, DT_UINT16 7, DT_BF16 27
    if (dt != 1 && dt != 6 && dt != 7 && dt != 27) return false;
    const DataFormat sf = config.srcFormat, df = config.dstFormat;
    const bool srcNc = sf == DataFormat::NCDHW;
    const TensorShape& nc = srcNc ? srcShape : dstShape;
    const TensorShape& other = srcNc ? dstShape : srcShape;
    const DataFormat of = srcNc ? df : sf;
    if ((sf != DataFormat::NCDHW && df != DataFormat::NCDHW) || nc.GetDimNum() != 5) return false;
    if (!((of == DataFormat::NDC1HWC0 && other.GetDimNum() == 6) || (of == DataFormat::FRACTAL_Z_3D && other.GetDimNum() == 7))) {
        return false;
    }
    adv::TransDataDims p{};
    p.n = int32_t(nc.GetDim(0));
    p.c = int32_t(nc.GetDim(1));
    p.d = int32_t(nc.GetDim(2));
    p.h = int32_t(nc.GetDim(3));
    p.w = int32_t(nc.GetDim(4));
    p.n1 = (p.n + 15) / 16;
    p.c1 = (p.c + 15) / 16;
    p.padHw = (p.h * p.w + 15) / 16 * 16;
    maxValue = minValue = adv::transdata_tmp_bytes(sf, df, p);
    return true;
}

}  // namespace AscendC

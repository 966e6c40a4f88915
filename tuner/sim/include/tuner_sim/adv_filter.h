// Ascend C's Arange (高阶API/索引计算), DropOut and Select (高阶API/数据过滤), each expanded into the basic APIs
// in the order asc-devkit's A2 implementation issues them (impl/adv_api/detail/index/arithprogression,
// filter/dropout, select/selectwithbytesmask).
#pragma once
#include <algorithm>
#include <type_traits>

#include "adv_filter_host.h"
#include "adv_math.h"
#include "rearrange.h"
#include "sync.h"
#include "tpipe.h"
#include "vec.h"

namespace AscendC {

// Select-95.md, DropOut.md
struct SelectWithBytesMaskShapeInfo {
    __aicore__ SelectWithBytesMaskShapeInfo() {}
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};
struct DropOutShapeInfo {
    __aicore__ DropOutShapeInfo() {}
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};

namespace adv {

// A scalar-to-vector (or back) hand-over inside an API, as asc-devkit's FetchEventID / SetFlag / WaitFlag.
template <HardEvent E>
TUNER_SIM_UNCHARGED inline void adv_sync(Loc loc) {
    TPipe* pipe = GetTPipePtr();
    const TEventID id = pipe != nullptr ? pipe->FetchEventID(E) : TEventID(0);
    SetFlag<E>(id, loc);
    WaitFlag<E>(id, loc);
}

// ---- Arange (索引计算/Arange-94.md): dst[i] = firstValue + i * diffValue ---------------------------------
// The first 32 bytes are written by the scalar unit (half computed in float), then extended by Adds: block
// by block up to one repeat, then repeat by repeat (the last one rounded up to whole blocks).
template <typename T>
TUNER_SIM_UNCHARGED inline T arange_step(T diff, int32_t n) {
    if constexpr (std::is_integral_v<T>) {
        return T(int64_t(diff) * int64_t(n));
    } else {
        return T(float(diff) * float(n));
    }
}
template <typename T>
TUNER_SIM_UNCHARGED inline void arange_base(const LocalTensor<T>& dst, T first, T diff, int32_t n, Loc loc) {
    for (int32_t i = 0; i < n; ++i) {
        if constexpr (std::is_same_v<T, half>) {
            dst.SetValue(uint32_t(i), T(float(first) + float(diff) * float(i)), loc);
        } else {
            dst.SetValue(uint32_t(i), T(first + diff * T(i)), loc);
        }
    }
}
template <typename T>
TUNER_SIM_UNCHARGED inline void arange(const LocalTensor<T>& dst, T first, T diff, int32_t count, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(Arange, T);
    tuner_sim::api_site("Arange", loc);
    constexpr int32_t blk = int32_t(32 / sizeof(T));
    constexpr int32_t rep = int32_t(256 / sizeof(T));
    if (count <= 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported, "Arange: count %d must be greater than 0", count);
    }
    const int32_t written = count > blk ? (count + blk - 1) / blk * blk : count;  // whole blocks past the first
    if (uint32_t(written) > dst.GetSize()) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                         "Arange: count %d (written as %d elements) is larger than dst (%u elements)", count, written,
                         dst.GetSize());
    }
    if (count <= blk) {
        adv_sync<HardEvent::V_S>(loc);
        arange_base(dst, first, diff, count, loc);
        adv_sync<HardEvent::S_V>(loc);
        return;
    }
    arange_base(dst, first, diff, blk, loc);
    adv_sync<HardEvent::S_V>(loc);
    const UnaryRepeatParams byBlock(1, 1, 1, 1);
    if (count > rep) {
        for (int32_t i = 0; i < 7; ++i) {
            Adds(dst[uint32_t((i + 1) * blk)], dst[uint32_t(i * blk)], arange_step(diff, blk), uint64_t(blk), 1,
                 byBlock, loc);
        }
        const UnaryRepeatParams byRepeat(1, 1, 8, 8);
        const int32_t repeat = count / rep, tail = count % rep;
        for (int32_t i = 0; i < repeat - 1; ++i) {
            Adds(dst[uint32_t((i + 1) * rep)], dst[uint32_t(i * rep)], arange_step(diff, rep), uint64_t(rep), 1,
                 byRepeat, loc);
        }
        if (tail > 0) {
            const int32_t tailAligned = (tail + blk - 1) / blk * blk;
            Adds(dst[uint32_t(repeat * rep)], dst[uint32_t((repeat - 1) * rep)], arange_step(diff, rep),
                 uint64_t(tailAligned), 1, byRepeat, loc);
        }
    } else {
        const int32_t blocks = (count + blk - 1) / blk;
        for (int32_t i = 0; i < blocks - 1; ++i) {
            Adds(dst[uint32_t((i + 1) * blk)], dst[uint32_t(i * blk)], arange_step(diff, blk), uint64_t(blk), 1,
                 byBlock, loc);
        }
    }
}

// ---- Select (数据过滤/Select-95.md): dst = mask == 0 ? tensor : scalar (reverse: mask != 0) ----------------
// The byte mask is compacted to the source rows by GatherMask when its rows are longer (into the temporary
// space unless isReuseMask), then per pass widened to half, compared with 0 into a bit mask, and selected.
template <typename U>
constexpr bool select_mask_type =
    tuner_sim::is_one_of<U, bool, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t>;
template <typename U>
TUNER_SIM_UNCHARGED inline void select_mask_to_half(const LocalTensor<half>& dst, const LocalTensor<U>& mask,
                                                    uint32_t n, Loc loc) {
    if constexpr (sizeof(U) == 4) {
        Cast(dst, mask.template ReinterpretCast<float>(), RoundMode::CAST_ODD, n, loc);
    } else if constexpr (sizeof(U) == 2) {
        Cast(dst, mask.template ReinterpretCast<int16_t>(), RoundMode::CAST_NONE, n, loc);
    } else {
        Cast(dst, mask.template ReinterpretCast<uint8_t>(), RoundMode::CAST_NONE, n, loc);
    }
}
template <typename U>
TUNER_SIM_UNCHARGED inline void compact_rows(const LocalTensor<U>& dst, const LocalTensor<U>& mask,
                                             uint32_t rows, uint32_t keepBytes, uint32_t rowBytes, Loc loc) {
    GatherMaskParams p;
    p.src0BlockStride = 1;
    p.repeatTimes = uint16_t(rows);
    p.src0RepeatStride = uint16_t(rowBytes / 32);
    p.src1RepeatStride = 0;
    uint64_t kept = 0;
    GatherMask(dst.template ReinterpretCast<uint16_t>(), mask.template ReinterpretCast<uint16_t>(), uint8_t(7), true,
               keepBytes / 2, p, kept, loc);
}
template <typename T, typename U, bool isReuseMask, bool reverse>
TUNER_SIM_UNCHARGED inline void select_bytes(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalar,
                                             const LocalTensor<U>& mask, const LocalTensor<uint8_t>& tmp,
                                             const SelectWithBytesMaskShapeInfo& info, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(SelectWithBytesMask, T);
    static_assert(select_mask_type<U>,
                  "Select: the mask type must be bool, int8_t, uint8_t, int16_t, uint16_t, int32_t or uint32_t");
    tuner_sim::api_site("Select", loc);
    const uint32_t srcSize = src.GetSize();
    if (uint64_t(info.firstAxis) * info.srcLastAxis != srcSize ||
        uint64_t(info.firstAxis) * info.maskLastAxis > mask.GetSize() || info.maskLastAxis < info.srcLastAxis ||
        (info.srcLastAxis * sizeof(T)) % 32 != 0 || (info.maskLastAxis * sizeof(U)) % 32 != 0 ||
        info.maskLastAxis % 16 != 0 || dst.GetSize() < srcSize) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "Select: SelectWithBytesMaskShapeInfo {firstAxis %u, srcLastAxis %u, maskLastAxis %u} does "
                         "not fit the tensors (src %u, mask %u elements) or their 32-byte row alignment",
                         info.firstAxis, info.srcLastAxis, info.maskLastAxis, srcSize, mask.GetSize());
    }
    const TensorShape srcShape({int64_t(info.firstAxis), int64_t(info.srcLastAxis)});
    const TensorShape maskShape({int64_t(info.firstAxis), int64_t(info.maskLastAxis)});
    require_tmp("Select", tmp,
                GetSelectMinTmpSize(srcShape, TensorShape({1}), sizeof(T), maskShape, sizeof(U), isReuseMask), false);
    uint32_t bufferSize = tmp.GetSize();
    LocalTensor<U> tmpMask = mask;
    uint32_t workOff = 0;
    if (!isReuseMask && info.srcLastAxis != info.maskLastAxis) {
        const uint32_t extra = (srcSize * uint32_t(sizeof(U)) + 31) / 32 * 32;
        tmpMask = tmp.ReinterpretCast<U>();
        bufferSize -= extra;
        workOff = extra;
    }
    // The last 256 bytes (asc-devkit's reserved repeat) hold a repeat of half zeros to compare against.
    bufferSize -= 256;
    const LocalTensor<half> zeros = tmp[(tmp.GetSize() - 256) / 32 * 32].ReinterpretCast<half>();
    // asc-devkit compares the widened mask into bits over itself; the simulator's Compare cannot write over its
    // own source, so the bits follow the half plane (1/16 more space per element). Whole repeats of 128.
    const uint32_t loopSize = std::min<uint32_t>(bufferSize * 8 / 17 / 128 * 128, kMaxRepeat * 128);
    if (info.srcLastAxis != info.maskLastAxis) {
        compact_rows(tmpMask, mask, info.firstAxis, info.srcLastAxis * uint32_t(sizeof(U)),
                     info.maskLastAxis * uint32_t(sizeof(U)), loc);
    }
    Duplicate(zeros, half(0.0f), 128, loc);
    const LocalTensor<half> wide = tmp[workOff].ReinterpretCast<half>();
    const LocalTensor<uint8_t> bits = tmp[workOff + loopSize * uint32_t(sizeof(half))];
    const BinaryRepeatParams against(1, 1, 1, 8, 8, 0);
    for (uint32_t off = 0; off < srcSize; off += loopSize) {
        const uint32_t n = std::min(loopSize, srcSize - off);
        select_mask_to_half(wide, tmpMask[off], n, loc);
        Compare(bits, wide, zeros, reverse ? CMPMODE::NE : CMPMODE::EQ, uint64_t(128), uint8_t((n + 127) / 128),
                against, loc);
        Select(dst[off], bits, src[off], scalar, SELMODE::VSEL_TENSOR_SCALAR_MODE, n, loc);
    }
}

// ---- DropOut (数据过滤/DropOut.md): dst = mask ? src / keepProb : 0 ----------------------------------------
// Byte mode (one uint8_t per element): the mask widened and multiplied in; bit mode: Select against 0.
// dropOutMode 0 infers the mode from info; masks with padding rows are compacted by GatherMask in place.
template <typename T>
TUNER_SIM_UNCHARGED inline void dropout_byte(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                             const LocalTensor<uint8_t>& mask, const LocalTensor<uint8_t>& tmp,
                                             T div, uint32_t dataSize, Loc loc) {
    constexpr bool isHalf = sizeof(T) == 2;
    const uint32_t stack = tmp.GetSize() / (isHalf ? 2 : 6) / 32 * 32;
    const LocalTensor<half> first = tmp.ReinterpretCast<half>();
    const LocalTensor<float> second = tmp[stack * 2].ReinterpretCast<float>();
    for (uint32_t off = 0; off < dataSize; off += stack) {
        const uint32_t n = std::min(stack, dataSize - off);
        Cast(first, mask[off], RoundMode::CAST_NONE, n, loc);
        if constexpr (isHalf) {
            Mul(dst[off], first, src[off], int32_t(n), loc);
        } else {
            Cast(second, first, RoundMode::CAST_NONE, n, loc);
            Mul(dst[off], second, src[off], int32_t(n), loc);
        }
        Muls(dst[off], dst[off], div, int32_t(n), loc);
    }
}
template <typename T, bool isInitBitMode>
TUNER_SIM_UNCHARGED inline void dropout_bit(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                            const LocalTensor<uint8_t>& mask, const LocalTensor<uint8_t>& tmp, T div,
                                            uint32_t dataSize, Loc loc) {
    if constexpr (!isInitBitMode) {
        // asc-devkit zeroes the CmpMask register (the scalar Select takes 0 from it)
        const LocalTensor<int16_t> zero = tmp.ReinterpretCast<int16_t>();
        Muls(zero, zero, int16_t(0), uint64_t(128), 1, UnaryRepeatParams(), loc);
        SetCmpMask(zero, loc);
    }
    Select(dst, mask, src, T(0.0f), SELMODE::VSEL_TENSOR_SCALAR_MODE, dataSize, loc);
    Muls(dst, dst, div, int32_t(dataSize), loc);
}
template <typename T, bool isInitBitMode, uint32_t dropOutMode>
TUNER_SIM_UNCHARGED inline void dropout(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                        const LocalTensor<uint8_t>& mask, const LocalTensor<uint8_t>& tmp,
                                        float keepProb, const DropOutShapeInfo& info, bool own, Loc loc) {
    TUNER_SIM_ADV_REQUIRE(DropOut, T);
    static_assert(dropOutMode <= 4, "DropOut: dropOutMode must be 0 (inferred), 1, 2, 3 or 4 (DropOut.md)");
    tuner_sim::api_site("DropOut", loc);
    require_tmp("DropOut", tmp, kDropOutMinTmp, own);
    const uint32_t dataSize = info.firstAxis * info.srcLastAxis;
    if (dataSize > src.GetSize() || dataSize > dst.GetSize() || info.maskLastAxis == 0 ||
        uint64_t(info.firstAxis) * info.maskLastAxis > mask.GetSize()) {
        tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                         "DropOut: DropOutShapeInfo {firstAxis %u, srcLastAxis %u, maskLastAxis %u} exceeds the "
                         "tensors (src %u, dst %u, mask %u elements)",
                         info.firstAxis, info.srcLastAxis, info.maskLastAxis, src.GetSize(), dst.GetSize(),
                         mask.GetSize());
    }
    const T div = T(1.0f / keepProb);
    uint32_t mode = dropOutMode;
    if (mode == 0) {
        if (info.srcLastAxis < info.maskLastAxis) {
            mode = 1;
        } else if (info.srcLastAxis == info.maskLastAxis) {
            mode = 2;
        } else if (info.srcLastAxis == info.maskLastAxis * 8) {
            mode = 3;
        } else {
            mode = 4;
        }
    }
    if (mode == 1) {
        compact_rows(mask, mask, info.firstAxis, info.srcLastAxis, info.maskLastAxis, loc);
        dropout_byte(dst, src, mask, tmp, div, dataSize, loc);
    } else if (mode == 2) {
        dropout_byte(dst, src, mask, tmp, div, dataSize, loc);
    } else if (mode == 3) {
        dropout_bit<T, isInitBitMode>(dst, src, mask, tmp, div, dataSize, loc);
    } else {
        if constexpr (!isInitBitMode) {
            const LocalTensor<int16_t> zero = tmp.ReinterpretCast<int16_t>();
            Muls(zero, zero, int16_t(0), uint64_t(128), 1, UnaryRepeatParams(), loc);
            SetCmpMask(zero, loc);
        }
        compact_rows(mask, mask, info.firstAxis, info.srcLastAxis / 8, info.maskLastAxis, loc);
        dropout_bit<T, true>(dst, src, mask, tmp, div, dataSize, loc);
    }
}

}  // namespace adv

// ---- Arange / ArithProgression ---------------------------------------------------------------------------
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void Arange(const LocalTensor<T>& dst, const T firstValue, const T diffValue,
                                                  const int32_t count, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::arange(dst, firstValue, diffValue, count, loc);
}
template <typename T>
TUNER_SIM_UNCHARGED __aicore__ inline void ArithProgression(const LocalTensor<T>& dstLocal, const T firstValue,
                                                            const T diffValue, const int32_t count,
                                                            tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::arange(dstLocal, firstValue, diffValue, count, loc);
}

// ---- Select with a byte mask (the advanced Select) ---------------------------------------------------------
template <typename T, typename U, bool isReuseMask = true>
TUNER_SIM_UNCHARGED __aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, T src1,
                                                  const LocalTensor<U>& mask,
                                                  const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                  const SelectWithBytesMaskShapeInfo& info,
                                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::select_bytes<T, U, isReuseMask, false>(dst, src0, src1, mask, sharedTmpBuffer, info, loc);
}
template <typename T, typename U, bool isReuseMask = true>
TUNER_SIM_UNCHARGED __aicore__ inline void Select(const LocalTensor<T>& dst, T src0, const LocalTensor<T>& src1,
                                                  const LocalTensor<U>& mask,
                                                  const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                  const SelectWithBytesMaskShapeInfo& info,
                                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::select_bytes<T, U, isReuseMask, true>(dst, src1, src0, mask, sharedTmpBuffer, info, loc);
}

// ---- DropOut -----------------------------------------------------------------------------------------------
template <typename T, bool isInitBitMode = false, uint32_t dropOutMode = 0>
TUNER_SIM_UNCHARGED __aicore__ inline void DropOut(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                                                   const LocalTensor<uint8_t>& maskLocal,
                                                   const LocalTensor<uint8_t>& sharedTmpBuffer, const float keepProb,
                                                   const DropOutShapeInfo& info,
                                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::dropout<T, isInitBitMode, dropOutMode>(dstLocal, srcLocal, maskLocal, sharedTmpBuffer, keepProb, info, false,
                                                loc);
}
template <typename T, bool isInitBitMode = false, uint32_t dropOutMode = 0>
TUNER_SIM_UNCHARGED __aicore__ inline void DropOut(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                                                   const LocalTensor<uint8_t>& maskLocal, const float keepProb,
                                                   const DropOutShapeInfo& info,
                                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::dropout<T, isInitBitMode, dropOutMode>(dstLocal, srcLocal, maskLocal, adv::own_tmp("DropOut"), keepProb,
                                                info, true, loc);
}

}  // namespace AscendC

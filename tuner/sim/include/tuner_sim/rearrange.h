// Data rearrangement APIs on the V pipe (issue 16): Gather, Gatherb, GatherMask, Transpose, Sort32, MrgSort,
// GetMrgSortResult, Interleave, DeInterleave, with their parameter structs. Signatures and semantics follow the
// asc-devkit pages under docs/zh/api/SIMD-API/基础API/Memory矢量计算/ named at each API; each entry checks its
// element type against the SoC's support table at compile time and hands one descriptor to the runtime
// (runtime/rearrange.cpp), which checks the UB spans really touched, charges the cost model and moves the data.
#pragma once
#include "tensor.h"

#define TUNER_SIM_REQUIRE(API, T) \
    static_assert(tuner_sim::support::API<T>, #API ": this element type is not supported on " TUNER_SIM_SOC_NAME)

namespace AscendC {

// ---- parameter structs ----------------------------------------------------------------------------------
struct GatherRepeatParams {
    GatherRepeatParams() = default;
    TUNER_SIM_UNCHARGED
    GatherRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t dstRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;  // reserved (Gatherb(ISASI).md)
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V1;
constexpr GatherMaskMode defaultGahterMaskMode = defaultGatherMaskMode;  // the spelling CANN's headers use

struct GatherMaskParams {
    GatherMaskParams() = default;
    TUNER_SIM_UNCHARGED
    GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn, const uint16_t src0RepeatStrideIn,
                     const uint8_t src1RepeatStrideIn)
        : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn), src0RepeatStride(src0RepeatStrideIn),
          src1RepeatStride(src1RepeatStrideIn) {}
    uint8_t src0BlockStride = DEFAULT_BLK_STRIDE;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepeatStride = DEFAULT_REPEAT_STRIDE;
};

enum class TransposeType : uint8_t {
    TRANSPOSE_TYPE_NONE,
    TRANSPOSE_NZ2ND_0213,
    TRANSPOSE_NZ2NZ_0213,
    TRANSPOSE_NZ2NZ_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITHOUT_N,
    TRANSPOSE_NZ2NZ_012_WITHOUT_N,
    TRANSPOSE_ND2ND_ONLY,
    TRANSPOSE_ND_UB_GM,
    TRANSPOSE_GRAD_ND_UB_GM,
    TRANSPOSE_ND2ND_B16,
    TRANSPOSE_NCHW2NHWC,
    TRANSPOSE_NHWC2NCHW
};

struct TransposeParamsExt {
    TransposeParamsExt() = default;
    TUNER_SIM_UNCHARGED
    TransposeParamsExt(const uint16_t nSizeIn, const uint16_t cSizeIn, const uint16_t hSizeIn, const uint16_t wSizeIn,
                       const TransposeType transposeTypeIn)
        : nSize(nSizeIn), cSize(cSizeIn), hSize(hSizeIn), wSize(wSizeIn), transposeType(transposeTypeIn) {}
    uint16_t nSize = 0;
    uint16_t cSize = 0;
    uint16_t hSize = 0;
    uint16_t wSize = 0;
    TransposeType transposeType = TransposeType::TRANSPOSE_ND2ND_B16;
};

constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;
struct TransDataTo5HDParams {
    TransDataTo5HDParams() = default;
    TUNER_SIM_UNCHARGED
    TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn,
                         const uint16_t dstRepStrideIn, const uint16_t srcRepStrideIn)
        : dstHighHalf(dstHighHalfIn), srcHighHalf(srcHighHalfIn), repeatTimes(repeatTimesIn),
          dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn) {}
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
};

// AscendC::Conditional<B, T1, T2>::type: T1 when B, else T2 (the examples' type switch).
template <bool B, typename T1, typename T2>
struct Conditional {
    using type = T1;
};
template <typename T1, typename T2>
struct Conditional<false, T1, T2> {
    using type = T2;
};

struct MrgSort4Info {
    MrgSort4Info() = default;
    TUNER_SIM_UNCHARGED
    MrgSort4Info(const uint16_t elementLengthsIn[4], const bool ifExhaustedSuspensionIn, const uint16_t validBitIn,
                 const uint16_t repeatTimesIn)
        : ifExhaustedSuspension(ifExhaustedSuspensionIn), validBit(validBitIn), repeatTimes(repeatTimesIn) {
        for (int i = 0; i < 4; ++i) elementLengths[i] = elementLengthsIn[i];
    }
    uint16_t elementLengths[4] = {0, 0, 0, 0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 0;
    uint16_t repeatTimes = 1;
};

template <typename T>
struct MrgSortSrcList {
    MrgSortSrcList() = default;
    TUNER_SIM_UNCHARGED
    MrgSortSrcList(const LocalTensor<T>& src1In, const LocalTensor<T>& src2In, const LocalTensor<T>& src3In,
                   const LocalTensor<T>& src4In)
        : src1(src1In[0]), src2(src2In[0]), src3(src3In[0]), src4(src4In[0]) {}
    LocalTensor<T> src1;
    LocalTensor<T> src2;
    LocalTensor<T> src3;
    LocalTensor<T> src4;
};

namespace detail {
template <typename T>
TUNER_SIM_UNCHARGED inline tuner_sim::VecOperand ropnd(const LocalTensor<T>& t) {
    return {t.tuner_off(), t.tuner_buf_end(), 1, 8, tuner_sim::elem_v<T>};
}
template <typename T>
TUNER_SIM_UNCHARGED inline tuner_sim::GatherDesc gather_desc(const char* api, const LocalTensor<T>& dst,
                                                              const LocalTensor<T>& src,
                                                              const LocalTensor<uint32_t>& offset) {
    tuner_sim::GatherDesc d{};
    d.api = api;
    d.type = tuner_sim::elem_v<T>;
    d.dst = ropnd(dst);
    d.src = ropnd(src);
    d.offset = ropnd(offset);
    return d;
}
}  // namespace detail

// ---- Gather (离散与聚合/Gather.md) ------------------------------------------------------------------------
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                              const uint32_t srcBaseAddr, const uint32_t count,
                              tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Gather, T);
    tuner_sim::api_begin("Gather", loc);
    auto d = detail::gather_desc("Gather", dst, src, srcOffset);
    d.base_addr = srcBaseAddr;
    d.count_form = true;
    d.count = count;
    detail::mask_register_after_count_form();
    tuner_sim::gather_exec(d);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                              const uint32_t srcBaseAddr, const uint64_t mask[], const uint8_t repeatTime,
                              const uint16_t dstRepStride, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Gather, T);
    tuner_sim::api_begin("Gather", loc);
    auto d = detail::gather_desc("Gather", dst, src, srcOffset);
    d.base_addr = srcBaseAddr;
    const detail::Lanes m = detail::lanes<T>(mask);
    d.mask_bits = true;
    d.mask_lo = m.lo;
    d.mask_hi = m.hi;
    d.repeat = repeatTime;
    d.dst_rep_stride = dstRepStride;
    tuner_sim::mask_state().lo = m.lo;
    tuner_sim::mask_state().hi = m.hi;
    tuner_sim::gather_exec(d);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                              const uint32_t srcBaseAddr, const uint64_t mask, const uint8_t repeatTime,
                              const uint16_t dstRepStride, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Gather, T);
    tuner_sim::api_begin("Gather", loc);
    auto d = detail::gather_desc("Gather", dst, src, srcOffset);
    d.base_addr = srcBaseAddr;
    d.mask_bits = false;
    d.mask_lo = mask;
    d.repeat = repeatTime;
    d.dst_rep_stride = dstRepStride;
    detail::mask_register_set_lanes(mask);
    tuner_sim::gather_exec(d);
}

// ---- Gatherb (离散与聚合/Gatherb(ISASI).md): 8 blocks of 32 bytes a repeat ----------------------------------
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& offset,
                               const uint8_t repeatTime, const GatherRepeatParams& repeatParams,
                               tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Gatherb, T);
    tuner_sim::api_begin("Gatherb", loc);
    auto d = detail::gather_desc("Gatherb", dst, src, offset);
    d.by_block = true;
    d.repeat = repeatTime;
    d.dst_blk_stride = repeatParams.dstBlkStride;
    d.dst_rep_stride = repeatParams.dstRepStride;
    tuner_sim::gather_exec(d);
}

// ---- GatherMask (比较与选择/GatherMask.md) ------------------------------------------------------------------
// Afterwards the mask register is in normal mode (the page: a kernel in counter mode must set it again).
namespace detail {
template <typename T>
TUNER_SIM_UNCHARGED inline tuner_sim::GatherMaskDesc gather_mask_desc(const LocalTensor<T>& dst,
                                                                       const LocalTensor<T>& src0, bool reduceMode,
                                                                       uint32_t mask, const GatherMaskParams& p) {
    tuner_sim::GatherMaskDesc d{};
    d.api = "GatherMask";
    d.type = tuner_sim::elem_v<T>;
    d.dst = ropnd(dst);
    d.src0 = ropnd(src0);
    d.counter = reduceMode;
    d.mask = mask;
    d.repeat = p.repeatTimes;
    d.src0_blk_stride = p.src0BlockStride;
    d.src0_rep_stride = p.src0RepeatStride;
    d.src1_rep_stride = p.src1RepeatStride;
    return d;
}
}  // namespace detail
template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
TUNER_SIM_UNCHARGED
__aicore__ inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern,
                                  const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                                  uint64_t& rsvdCnt, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(GatherMask, T);
    static_assert(std::is_unsigned_v<U> && sizeof(U) == sizeof(T),
                  "GatherMask: src1Pattern must be uint16_t for 2-byte and uint32_t for 4-byte elements");
    tuner_sim::api_begin("GatherMask", loc);
    auto d = detail::gather_mask_desc(dst, src0, reduceMode, mask, gatherMaskParams);
    d.pattern = detail::ropnd(src1Pattern);
    rsvdCnt = tuner_sim::gather_mask_exec(d);
    tuner_sim::mask_state().counter = false;
}
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
TUNER_SIM_UNCHARGED
__aicore__ inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                                  const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                                  uint64_t& rsvdCnt, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(GatherMask, T);
    tuner_sim::api_begin("GatherMask", loc);
    auto d = detail::gather_mask_desc(dst, src0, reduceMode, mask, gatherMaskParams);
    if (src1Pattern == 0 || src1Pattern > 7) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported, "GatherMask: built-in pattern %u is not one of 1..7",
                         unsigned(src1Pattern));
    }
    d.builtin = src1Pattern;
    rsvdCnt = tuner_sim::gather_mask_exec(d);
    tuner_sim::mask_state().counter = false;
}

// ---- Transpose (数据排布转换/Transpose.md) ------------------------------------------------------------------
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                 tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Transpose, T);
    tuner_sim::api_begin("Transpose", loc);
    tuner_sim::TransposeDesc d{};
    d.api = "Transpose";
    d.kind = tuner_sim::TransposeKind::B16;
    d.type = tuner_sim::elem_v<T>;
    d.dst = detail::ropnd(dst);
    d.src = detail::ropnd(src);
    tuner_sim::transpose_exec(d);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                 const LocalTensor<uint8_t>& sharedTmpBuffer, const TransposeParamsExt& transposeParams,
                                 tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    // Transpose.md 数据类型, NCHW<->NHWC: int8_t uint8_t int16_t uint16_t half int32_t uint32_t float on A2/A3 and
    // 310P; 950 adds bfloat16_t.
    static_assert(tuner_sim::is_one_of<T, int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t, float> ||
                      (__NPU_ARCH__ == 3510 && std::is_same_v<T, bfloat16_t>),
                  "Transpose: this element type is not supported on " TUNER_SIM_SOC_NAME " with TransposeParamsExt");
    tuner_sim::api_begin("Transpose", loc);
    tuner_sim::TransposeDesc d{};
    d.api = "Transpose";
    d.type = tuner_sim::elem_v<T>;
    d.dst = detail::ropnd(dst);
    d.src = detail::ropnd(src);
    d.tmp = detail::ropnd(sharedTmpBuffer);
    d.has_tmp = true;
    d.tmp_bytes = sharedTmpBuffer.GetSize();
    d.n = transposeParams.nSize;
    d.c = transposeParams.cSize;
    d.h = transposeParams.hSize;
    d.w = transposeParams.wSize;
    switch (transposeParams.transposeType) {
        case TransposeType::TRANSPOSE_TYPE_NONE: return;
        case TransposeType::TRANSPOSE_ND2ND_B16:
            // Transpose.md: the extended form's 16x16 transpose takes uint16_t only on A2/A3 and 310P.
            if (!std::is_same_v<T, uint16_t> && !(tuner_sim::is_one_of<T, int16_t, half> && __NPU_ARCH__ == 3510)) {
                tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                                 "Transpose: TRANSPOSE_ND2ND_B16 with TransposeParamsExt takes uint16_t on %s",
                                 TUNER_SIM_SOC_NAME);
            }
            d.kind = tuner_sim::TransposeKind::B16;
            break;
        case TransposeType::TRANSPOSE_NCHW2NHWC: d.kind = tuner_sim::TransposeKind::Nchw2Nhwc; break;
        case TransposeType::TRANSPOSE_NHWC2NCHW: d.kind = tuner_sim::TransposeKind::Nhwc2Nchw; break;
        default:
            tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                             "Transpose: transposeType %d is not supported (asc-devkit Transpose.md: 当前不支持)",
                             int(transposeParams.transposeType));
    }
    tuner_sim::transpose_exec(d);
}

// ---- TransDataTo5HD (数据排布转换/TransDataTo5HD.md): the 2-byte (int16_t, uint16_t, half) and 4-byte forms -------
// Addresses given as values (GetPhyAddr) are checked against UB as a whole; as LocalTensors, against their buffers.
namespace detail {
template <typename T>
TUNER_SIM_UNCHARGED inline void trans_5hd_addrs(const uint64_t dstList[], const uint64_t srcList[],
                                                const TransDataTo5HDParams& p) {
    const uint64_t base = reinterpret_cast<uint64_t>(tuner_sim::ub_base());
    uint32_t d[16], s[16], de[16], se[16];
    for (int i = 0; i < 16; ++i) {  // an address outside UB saturates past every buffer
        const uint64_t dv = dstList[i] - base, sv = srcList[i] - base;
        d[i] = dv > 0xFFFFFFE0u ? 0xFFFFFFE0u : uint32_t(dv);
        s[i] = sv > 0xFFFFFFE0u ? 0xFFFFFFE0u : uint32_t(sv);
        de[i] = se[i] = 0;  // 0: bounded by UB as a whole
    }
    tuner_sim::trans_5hd_exec("TransDataTo5HD", tuner_sim::elem_v<T>, d, de, s, se, p.repeatTimes, p.dstRepStride,
                              p.srcRepStride);
}
}  // namespace detail
#define TUNER_SIM_TRANS5HD_CHECK()                                                                            \
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "TransDataTo5HD: the tuner simulator provides the 2- and "    \
                                                    "4-byte forms (the 1-byte form with its HighHalf flags is not)"); \
    TUNER_SIM_REQUIRE(TransDataTo5HD, T)
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                                      const TransDataTo5HDParams& nchwconvParams,
                                      tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_TRANS5HD_CHECK();
    tuner_sim::api_begin("TransDataTo5HD", loc);
    detail::trans_5hd_addrs<T>(dstList, srcList, nchwconvParams);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void TransDataTo5HD(const LocalTensor<uint64_t>& dst, const LocalTensor<uint64_t>& src,
                                      const TransDataTo5HDParams& nchwconvParams,
                                      tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_TRANS5HD_CHECK();
    uint64_t d[16], s[16];
    for (int i = 0; i < 16; ++i) {  // the address lists, read from UB (ordered and charged as scalar reads)
        d[i] = dst.GetValue(uint32_t(i), loc);
        s[i] = src.GetValue(uint32_t(i), loc);
    }
    tuner_sim::api_begin("TransDataTo5HD", loc);
    detail::trans_5hd_addrs<T>(d, s, nchwconvParams);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
                                      const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE],
                                      const TransDataTo5HDParams& nchwconvParams,
                                      tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_TRANS5HD_CHECK();
    tuner_sim::api_begin("TransDataTo5HD", loc);
    uint32_t d[16], s[16], de[16], se[16];
    for (int i = 0; i < 16; ++i) {
        d[i] = dstList[i].tuner_off();
        de[i] = dstList[i].tuner_buf_end();
        s[i] = srcList[i].tuner_off();
        se[i] = srcList[i].tuner_buf_end();
    }
    tuner_sim::trans_5hd_exec("TransDataTo5HD", tuner_sim::elem_v<T>, d, de, s, se, nchwconvParams.repeatTimes,
                              nchwconvParams.dstRepStride, nchwconvParams.srcRepStride);
}
#undef TUNER_SIM_TRANS5HD_CHECK

// ---- Sort32 / MrgSort / GetMrgSortResult (排序组合（ISASI）/Sort32.md, MrgSort.md, GetMrgSortResult.md) ------------
// GetMrgSortResult reports the last MrgSort (A2/A3, 950) or MrgSort4 (310P).
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& src1,
                              const int32_t repeatTime, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Sort32, T);
    tuner_sim::api_begin("Sort32", loc);
    tuner_sim::sort32_exec("Sort32", tuner_sim::elem_v<T>, detail::ropnd(dst), detail::ropnd(src0), detail::ropnd(src1),
                           uint32_t(repeatTime < 0 ? 0 : repeatTime));
}
namespace detail {
// The descriptor MrgSort and the 310P MrgSort4 share: four sorted lists into one.
template <typename T>
TUNER_SIM_UNCHARGED inline tuner_sim::MrgSortDesc mrg_sort_desc(const char* api, const LocalTensor<T>& dst,
                                                                 const MrgSortSrcList<T>& src,
                                                                 const MrgSort4Info& params) {
    tuner_sim::MrgSortDesc d{};
    d.api = api;
    d.type = tuner_sim::elem_v<T>;
    d.dst = ropnd(dst);
    d.src[0] = ropnd(src.src1);
    d.src[1] = ropnd(src.src2);
    d.src[2] = ropnd(src.src3);
    d.src[3] = ropnd(src.src4);
    for (int i = 0; i < 4; ++i) d.lengths[i] = params.elementLengths[i];
    d.exhausted_suspension = params.ifExhaustedSuspension;
    d.valid_bits = params.validBit;
    d.repeat = params.repeatTimes;
    return d;
}
}  // namespace detail
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params,
                               tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(MrgSort, T);
    tuner_sim::api_begin("MrgSort", loc);
    tuner_sim::MrgSortDesc d = detail::mrg_sort_desc("MrgSort", dst, src, params);
    tuner_sim::mrg_sort_exec(d);
}
// ---- region proposals (排序组合（ISASI）/ProposalConcat.md, ProposalExtract.md, RpSort16.md, MrgSort4.md): 310P ---
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void ProposalConcat(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                                      const int32_t modeNumber, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(ProposalConcat, T);
    tuner_sim::api_begin("ProposalConcat", loc);
    tuner_sim::proposal_exec("ProposalConcat", tuner_sim::ProposalOp::Concat, tuner_sim::elem_v<T>, detail::ropnd(dst),
                             detail::ropnd(src), uint32_t(repeatTime < 0 ? 0 : repeatTime), modeNumber);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void ProposalExtract(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                                       const int32_t modeNumber, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(ProposalExtract, T);
    tuner_sim::api_begin("ProposalExtract", loc);
    tuner_sim::proposal_exec("ProposalExtract", tuner_sim::ProposalOp::Extract, tuner_sim::elem_v<T>,
                             detail::ropnd(dst), detail::ropnd(src), uint32_t(repeatTime < 0 ? 0 : repeatTime),
                             modeNumber);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void RpSort16(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(RpSort16, T);
    tuner_sim::api_begin("RpSort16", loc);
    tuner_sim::proposal_exec("RpSort16", tuner_sim::ProposalOp::Sort16, tuner_sim::elem_v<T>, detail::ropnd(dst),
                             detail::ropnd(src), uint32_t(repeatTime < 0 ? 0 : repeatTime), 0);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void MrgSort4(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params,
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(MrgSort4, T);
    tuner_sim::api_begin("MrgSort4", loc);
    tuner_sim::MrgSortDesc d = detail::mrg_sort_desc("MrgSort4", dst, src, params);
    d.entry_bytes = 8 * sizeof(T);
    d.score_off = 4 * sizeof(T);
    tuner_sim::mrg_sort_exec(d);
}
TUNER_SIM_UNCHARGED
__aicore__ inline void GetMrgSortResult(uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3,
                                        uint16_t& mrgSortList4, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("GetMrgSortResult", loc);
    uint16_t counts[4];
    tuner_sim::mrg_sort_result(counts);
    mrgSortList1 = counts[0];
    mrgSortList2 = counts[1];
    mrgSortList3 = counts[2];
    mrgSortList4 = counts[3];
}

// ---- Interleave / DeInterleave (数据重排（ISASI）/Interleave.md, DeInterleave.md): Ascend 950 only ----------------
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void Interleave(const LocalTensor<T>& dst0, const LocalTensor<T>& dst1, const LocalTensor<T>& src0,
                                  const LocalTensor<T>& src1, const int32_t count,
                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(Interleave, T);
    tuner_sim::api_begin("Interleave", loc);
    const auto s1 = detail::ropnd(src1);
    tuner_sim::interleave_exec("Interleave", false, tuner_sim::elem_v<T>, detail::ropnd(dst0), detail::ropnd(dst1),
                               detail::ropnd(src0), &s1, uint64_t(count < 0 ? 0 : count));
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DeInterleave(const LocalTensor<T>& dst0, const LocalTensor<T>& dst1, const LocalTensor<T>& src0,
                                    const LocalTensor<T>& src1, const int32_t count,
                                    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(DeInterleave, T);
    tuner_sim::api_begin("DeInterleave", loc);
    const auto s1 = detail::ropnd(src1);
    tuner_sim::interleave_exec("DeInterleave", true, tuner_sim::elem_v<T>, detail::ropnd(dst0), detail::ropnd(dst1),
                               detail::ropnd(src0), &s1, uint64_t(count < 0 ? 0 : count));
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DeInterleave(const LocalTensor<T>& dst0, const LocalTensor<T>& dst1, const LocalTensor<T>& src,
                                    const int32_t srcCount, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    TUNER_SIM_REQUIRE(DeInterleave, T);
    tuner_sim::api_begin("DeInterleave", loc);
    tuner_sim::interleave_exec("DeInterleave", true, tuner_sim::elem_v<T>, detail::ropnd(dst0), detail::ropnd(dst1),
                               detail::ropnd(src), nullptr, uint64_t(srcCount < 0 ? 0 : srcCount));
}

}  // namespace AscendC

#undef TUNER_SIM_REQUIRE

// DataCopy and DataCopyPad: GM <-> UB and UB <-> UB transfers on the MTE2 / MTE3 pipes.
#pragma once
#include <vector>

#include "tensor.h"

namespace AscendC {

namespace detail {
// One descriptor per transfer; `ub` is the UB side (destination of GM->UB and UB->UB, source of UB->GM).
template <typename T>
TUNER_SIM_UNCHARGED
inline tuner_sim::CopyDesc copy_desc(const char* api, tuner_sim::CopyDir dir, const LocalTensor<T>& ub,
                                     const T* gm = nullptr) {
    tuner_sim::CopyDesc d{};
    d.api = api;
    d.dir = dir;
    d.elem_size = sizeof(T);
    d.block_count = 1;
    d.ub_off = ub.tuner_off();
    d.ub_buf_end = ub.tuner_buf_end();
    d.gm = const_cast<T*>(gm);
    return d;
}
template <typename T>
TUNER_SIM_UNCHARGED inline void set_ub_source(tuner_sim::CopyDesc& d, const LocalTensor<T>& src) {
    d.ub2_off = src.tuner_off();
    d.ub2_buf_end = src.tuner_buf_end();
}
// A copy to GM goes through gm_store: atomic when SetAtomicAdd/Max/Min is in effect.
TUNER_SIM_UNCHARGED inline void submit(const tuner_sim::CopyDesc& d) {
    if (d.dir == tuner_sim::CopyDir::UbToGm) {
        tuner_sim::gm_store(d);
    } else {
        tuner_sim::data_copy(d);
    }
}
TUNER_SIM_UNCHARGED inline void copy_count(tuner_sim::CopyDesc d, uint32_t count) {
    d.block_bytes = count * d.elem_size;
    d.require_32b_blocks = true;
    submit(d);
}
// DataCopyParams: blockLen and both gaps in 32-byte blocks.
TUNER_SIM_UNCHARGED inline void copy_blocks(tuner_sim::CopyDesc d, const DataCopyParams& p) {
    d.block_count = p.blockCount;
    d.block_bytes = uint32_t(p.blockLen) * 32u;
    d.src_gap_bytes = uint64_t(p.srcStride) * 32u;
    d.dst_gap_bytes = uint64_t(p.dstStride) * 32u;
    submit(d);
}
}  // namespace detail

template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count,
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopy", loc);
    detail::copy_count(detail::copy_desc("DataCopy", tuner_sim::CopyDir::GmToUb, dst, src.GetPhyAddr()), count);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopy", loc);
    detail::copy_count(detail::copy_desc("DataCopy", tuner_sim::CopyDir::UbToGm, src, dst.GetPhyAddr()), count);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopy", loc);
    auto d = detail::copy_desc("DataCopy", tuner_sim::CopyDir::UbToUb, dst);
    detail::set_ub_source(d, src);
    detail::copy_count(d, count);
}

template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                                const DataCopyParams& params, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopy", loc);
    detail::copy_blocks(detail::copy_desc("DataCopy", tuner_sim::CopyDir::GmToUb, dst, src.GetPhyAddr()), params);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                                const DataCopyParams& params, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopy", loc);
    detail::copy_blocks(detail::copy_desc("DataCopy", tuner_sim::CopyDir::UbToGm, src, dst.GetPhyAddr()), params);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DataCopy(const LocalTensor<T>&, const GlobalTensor<T>&, const Nd2NzParams&,
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopy", loc);
    tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                     "DataCopy(Nd2NzParams): a GM to L1 ND-to-NZ copy feeds the cube core, which the simulator does "
                     "not model (it runs the vector core)");
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                const DataCopyParams& params, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopy", loc);
    auto d = detail::copy_desc("DataCopy", tuner_sim::CopyDir::UbToUb, dst);
    detail::set_ub_source(d, src);
    detail::copy_blocks(d, params);
}

namespace detail {
template <typename T, typename P>
TUNER_SIM_UNCHARGED
inline void pad_in(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const P& params, bool isPad, uint32_t left,
                   uint32_t right, uint64_t padBits) {
    static_assert(tuner_sim::support::DataCopyPad<T>,
                  "DataCopyPad: this element type is not supported on " TUNER_SIM_SOC_NAME);
    auto d = copy_desc("DataCopyPad", tuner_sim::CopyDir::GmToUb, dst, src.GetPhyAddr());
    d.block_count = params.blockCount;
    d.block_bytes = params.blockLen;
    d.src_gap_bytes = params.srcStride;
    d.dst_gap_bytes = uint64_t(params.dstStride) * 32u;
    d.ub_blocks_padded = true;
    // isPad false: the padding is what SetPadValue set (SetPadValue(ISASI).md), else left unspecified.
    uint64_t setBits = 0;
    if (!isPad && (left || right) && tuner_sim::pad_value(&setBits)) {
        isPad = true;
        padBits = setBits;
    }
    d.left_pad = left, d.right_pad = right, d.is_pad = isPad, d.pad_bits = padBits;
    tuner_sim::data_copy(d);
}
template <typename T, typename P>
TUNER_SIM_UNCHARGED inline void pad_out(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const P& params) {
    static_assert(tuner_sim::support::DataCopyPad<T>,
                  "DataCopyPad: this element type is not supported on " TUNER_SIM_SOC_NAME);
    auto d = copy_desc("DataCopyPad", tuner_sim::CopyDir::UbToGm, src, dst.GetPhyAddr());
    d.block_count = params.blockCount;
    d.block_bytes = params.blockLen;
    d.src_gap_bytes = uint64_t(params.srcStride) * 32u;
    d.dst_gap_bytes = params.dstStride;
    d.ub_blocks_padded = true;
    submit(d);
}
template <typename T>
TUNER_SIM_UNCHARGED inline uint64_t bits_of(const T& v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    return bits;
}
}  // namespace detail

template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                                   const DataCopyExtParams& dataCopyParams, const DataCopyPadExtParams<T>& padParams,
                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopyPad", loc);
    detail::pad_in(dst, src, dataCopyParams, padParams.isPad, padParams.leftPadding, padParams.rightPadding,
                   detail::bits_of(padParams.paddingValue));
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                                   const DataCopyParams& dataCopyParams, const DataCopyPadParams& padParams,
                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopyPad", loc);
    detail::pad_in(dst, src, dataCopyParams, padParams.isPad, padParams.leftPadding, padParams.rightPadding,
                   padParams.paddingValue);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                                   const DataCopyExtParams& dataCopyParams,
                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopyPad", loc);
    detail::pad_out(dst, src, dataCopyParams);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                                   const DataCopyParams& dataCopyParams, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopyPad", loc);
    detail::pad_out(dst, src, dataCopyParams);
}

// 数据搬运辅助配置接口/SetPadValue(ISASI).md: the value DataCopyPad GM->UB writes into the padding when its
// DataCopyPadExtParams say isPad = false.
template <typename T, TPosition pos = TPosition::MAX>
TUNER_SIM_UNCHARGED __aicore__ inline void SetPadValue(T paddingValue, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(pos == TPosition::VECIN || pos == TPosition::VECOUT || pos == TPosition::MAX,
                  "SetPadValue: pos is VECIN, VECOUT or MAX");
    tuner_sim::api_begin("SetPadValue", loc);
    tuner_sim::set_pad_value(detail::bits_of(paddingValue));
}

// ---- DataCopy with SliceInfo (数据搬运/DataCopy（GM与UB切片数据搬运）.md) ---------------------------------------
// Dimension 0 is cut into slices of burstLen 32-byte blocks, the first at startIndex, each the next after
// `stride` elements, while they start at or before endIndex; each higher dimension k takes every
// (stride + 1)-th index from startIndex to endIndex, in a tensor of shapeValue elements per dimension. The n-th
// source slice goes to the n-th destination slice; runs of evenly spaced slices move as one strided copy.
struct SliceInfo {
    TUNER_SIM_UNCHARGED __aicore__ SliceInfo() {}
    TUNER_SIM_UNCHARGED
    __aicore__ SliceInfo(const uint32_t startIndexIn, const uint32_t endIndexIn, const uint32_t strideIn,
                         const uint32_t burstLenIn, const uint32_t shapeValueIn = 0)
        : startIndex(startIndexIn), endIndex(endIndexIn), stride(strideIn), burstLen(burstLenIn),
          shapeValue(shapeValueIn) {}
    uint32_t startIndex = 0;
    uint32_t endIndex = ONE_BLK_SIZE - 1;
    uint32_t stride = 0;
    uint32_t burstLen = ONE_BLK_SIZE;
    uint32_t shapeValue = 0;
};

// The most dimensions a SliceInfo list describes (asc-devkit's utility constant of that name).
constexpr int32_t K_MAX_DIM = 8;

namespace detail {
constexpr uint32_t kMaxSliceDims = K_MAX_DIM;
// Element offsets of every slice, in order; `burst` gets the slice length in elements.
template <typename T>
TUNER_SIM_UNCHARGED inline void slice_starts(const SliceInfo* info, uint32_t dims, const char* which,
                                             std::vector<uint64_t>& out, uint32_t& burst) {
    if (dims == 0 || dims > kMaxSliceDims) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported, "DataCopy(SliceInfo): dimValue %u is outside 1..%u",
                         dims, kMaxSliceDims);
    }
    for (uint32_t k = 1; k < dims; ++k) {
        if (info[k].burstLen != 1) {
            tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                             "DataCopy(SliceInfo): %s dimension %u has burstLen %u; above dimension 0 it must be 1",
                             which, k, info[k].burstLen);
        }
    }
    burst = info[0].burstLen * 32u / sizeof(T);
    if (burst == 0) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported, "DataCopy(SliceInfo): %s burstLen is 0", which);
    }
    std::vector<uint64_t> rows{0};  // element offset of each row (all dimensions above 0)
    uint64_t pitch = info[0].shapeValue;
    for (uint32_t k = 1; k < dims; ++k) {
        std::vector<uint64_t> next;
        for (uint64_t base : rows) {
            for (uint64_t i = info[k].startIndex; i <= info[k].endIndex; i += uint64_t(info[k].stride) + 1) {
                next.push_back(base + i * pitch);
            }
        }
        rows.swap(next);
        pitch *= info[k].shapeValue;
    }
    for (uint64_t base : rows) {
        for (uint64_t i = info[0].startIndex; i <= info[0].endIndex; i += uint64_t(burst) + info[0].stride) {
            out.push_back(base + i);
        }
    }
}
template <typename T>
TUNER_SIM_UNCHARGED
inline void slice_copy(tuner_sim::CopyDesc base, bool to_ub, const SliceInfo dstInfo[], const SliceInfo srcInfo[],
                       uint32_t dims) {
    std::vector<uint64_t> dst, src;
    uint32_t dburst = 0, sburst = 0;
    slice_starts<T>(dstInfo, dims, "dstSliceInfo", dst, dburst);
    slice_starts<T>(srcInfo, dims, "srcSliceInfo", src, sburst);
    if (dst.size() != src.size() || dburst != sburst) {
        tuner_sim::fault(tuner_sim::FaultClass::Unsupported,
                         "DataCopy(SliceInfo): the source has %zu slices of %u elements, the destination %zu of %u",
                         src.size(), sburst, dst.size(), dburst);
    }
    const uint64_t es = sizeof(T), bytes = uint64_t(sburst) * es;
    size_t i = 0;
    while (i < src.size()) {
        size_t j = i + 1;
        const uint64_t ds = j < src.size() ? dst[j] - dst[i] : 0, ss = j < src.size() ? src[j] - src[i] : 0;
        if (ds * es >= bytes && ss * es >= bytes) {
            while (j < src.size() && dst[j] - dst[j - 1] == ds && src[j] - src[j - 1] == ss) ++j;
        }
        tuner_sim::CopyDesc d = base;
        d.block_count = uint32_t(j - i);
        d.block_bytes = uint32_t(bytes);
        d.require_32b_blocks = true;
        const uint64_t dgap = j - i > 1 ? ds * es - bytes : 0, sgap = j - i > 1 ? ss * es - bytes : 0;
        const uint64_t ub_elem = to_ub ? dst[i] : src[i], gm_elem = to_ub ? src[i] : dst[i];
        const uint64_t ub_gap = to_ub ? dgap : sgap;
        if ((ub_elem * es) % 32 != 0 || ub_gap % 32 != 0) {
            tuner_sim::fault(tuner_sim::FaultClass::Misaligned,
                             "DataCopy(SliceInfo): a UB slice starts at element %llu, not on a 32-byte boundary",
                             (unsigned long long)(to_ub ? dst[i] : src[i]));
        }
        d.ub_off = base.ub_off + uint32_t(ub_elem * es);
        d.gm = static_cast<uint8_t*>(base.gm) + gm_elem * es;
        d.src_gap_bytes = sgap;
        d.dst_gap_bytes = dgap;
        submit(d);
        i = j;
    }
}
}  // namespace detail

template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const SliceInfo dstSliceInfo[],
                                const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1,
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(tuner_sim::support::DataCopySlice<T>,
                  "DataCopy(SliceInfo): this element type is not supported on " TUNER_SIM_SOC_NAME);
    tuner_sim::api_begin("DataCopy", loc);
    detail::slice_copy<T>(detail::copy_desc("DataCopy", tuner_sim::CopyDir::GmToUb, dst, src.GetPhyAddr()), true,
                          dstSliceInfo, srcSliceInfo, dimValue);
}
template <typename T>
TUNER_SIM_UNCHARGED
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const SliceInfo dstSliceInfo[],
                                const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1,
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    static_assert(tuner_sim::support::DataCopySlice<T>,
                  "DataCopy(SliceInfo): this element type is not supported on " TUNER_SIM_SOC_NAME);
    tuner_sim::api_begin("DataCopy", loc);
    detail::slice_copy<T>(detail::copy_desc("DataCopy", tuner_sim::CopyDir::UbToGm, src, dst.GetPhyAddr()), false,
                          dstSliceInfo, srcSliceInfo, dimValue);
}

// ---- Copy (数据搬运/Copy（UBToUB掩码式高维数据搬运）.md): a V-pipe UB->UB copy with a mask, repeats and block
// strides, run as a bitwise OR of the source with itself on 16-bit lanes (exact for every type); a 32-bit
// element is two lanes, so its mask bits are doubled.
struct CopyRepeatParams {
    TUNER_SIM_UNCHARGED __aicore__ CopyRepeatParams() {}
    TUNER_SIM_UNCHARGED
    __aicore__ CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, uint16_t dstRepeatSizeIn,
                                uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn),
          srcRepeatSize(srcRepeatSizeIn) {}
    uint16_t dstStride = DEFAULT_BLK_STRIDE;
    uint16_t srcStride = DEFAULT_BLK_STRIDE;
    uint16_t dstRepeatSize = DEFAULT_REPEAT_STRIDE;
    uint16_t srcRepeatSize = DEFAULT_REPEAT_STRIDE;
};

namespace detail {
TUNER_SIM_UNCHARGED inline uint64_t spread_bits(uint32_t bits) {  // bit i -> bits 2i and 2i+1
    uint64_t out = 0;
    for (int i = 0; i < 32; ++i) {
        if (bits & (1u << i)) out |= 3ull << (2 * i);
    }
    return out;
}
template <typename T, bool isSetMask>
TUNER_SIM_UNCHARGED
inline void ub_copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, bool bits, uint64_t hi, uint64_t lo,
                    uint8_t repeat, const CopyRepeatParams& p) {
    static_assert(tuner_sim::support::Copy<T>, "Copy: this element type is not supported on " TUNER_SIM_SOC_NAME);
    static_assert(isSetMask || sizeof(T) == 2,
                  "Copy<T, false> (the mask register) is simulated for 16-bit types only");
    if (repeat == 0) return;  // A2: a NOP
    tuner_sim::VecDesc d{};
    d.api = "Copy";
    d.kind = tuner_sim::VecKind::Binary;
    d.op = 7;  // BinaryOp::Or of numerics.h
    d.cls = tuner_sim::InstrClass::CopyUb;
    d.dst = {dst.tuner_off(), dst.tuner_buf_end(), p.dstStride, p.dstRepeatSize, tuner_sim::ElemType::U16};
    d.src0 = {src.tuner_off(), src.tuner_buf_end(), p.srcStride, p.srcRepeatSize, tuner_sim::ElemType::U16};
    d.src1 = d.src0;
    d.mask_bits = bits;
    if (sizeof(T) == 4) {
        d.mask_hi = bits ? spread_bits(uint32_t(lo >> 32)) : 0;
        d.mask_lo = bits ? spread_bits(uint32_t(lo)) : lo * 2;
    } else {
        d.mask_hi = hi;
        d.mask_lo = lo;
    }
    d.use_mask_register = !isSetMask;
    d.repeat = repeat;
    tuner_sim::vec_exec(d);
}
}  // namespace detail

template <typename T, bool isSetMask = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                            const uint8_t repeatTime, const CopyRepeatParams& repeatParams,
                            tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("Copy", loc);
    detail::ub_copy<T, isSetMask>(dst, src, true, sizeof(T) == 2 ? mask[1] : 0, mask[0], repeatTime, repeatParams);
}
template <typename T, bool isSetMask = true>
TUNER_SIM_UNCHARGED
__aicore__ inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask,
                            const uint8_t repeatTime, const CopyRepeatParams& repeatParams,
                            tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("Copy", loc);
    detail::ub_copy<T, isSetMask>(dst, src, false, 0, mask, repeatTime, repeatParams);
}

}  // namespace AscendC

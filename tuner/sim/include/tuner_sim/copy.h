// DataCopy and DataCopyPad: GM <-> UB and UB <-> UB transfers on the MTE2 / MTE3 pipes.
#pragma once
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
TUNER_SIM_UNCHARGED inline void copy_count(tuner_sim::CopyDesc d, uint32_t count) {
    d.block_bytes = count * d.elem_size;
    d.require_32b_blocks = true;
    tuner_sim::data_copy(d);
}
// DataCopyParams: blockLen and both gaps in 32-byte blocks.
TUNER_SIM_UNCHARGED inline void copy_blocks(tuner_sim::CopyDesc d, const DataCopyParams& p) {
    d.block_count = p.blockCount;
    d.block_bytes = uint32_t(p.blockLen) * 32u;
    d.src_gap_bytes = uint64_t(p.srcStride) * 32u;
    d.dst_gap_bytes = uint64_t(p.dstStride) * 32u;
    tuner_sim::data_copy(d);
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
    tuner_sim::data_copy(d);
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

}  // namespace AscendC

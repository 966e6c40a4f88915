// DataCopy and DataCopyPad: GM <-> UB and UB <-> UB transfers on the MTE2 / MTE3 pipes.
#pragma once
#include "tensor.h"

namespace AscendC {

namespace detail {
template <typename T>
inline tuner_sim::CopyDesc copy_desc(const char* api, tuner_sim::CopyDir dir) {
    tuner_sim::CopyDesc d{};
    d.api = api;
    d.dir = dir;
    d.elem_size = sizeof(T);
    d.block_count = 1;
    return d;
}
}  // namespace detail

template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count,
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopy", loc);
    auto d = detail::copy_desc<T>("DataCopy", tuner_sim::CopyDir::GmToUb);
    d.ub_off = dst.tuner_off(), d.ub_buf_end = dst.tuner_buf_end();
    d.gm = const_cast<T*>(src.GetPhyAddr());
    d.block_bytes = count * sizeof(T);
    d.require_32b_blocks = true;
    tuner_sim::data_copy(d);
}
template <typename T>
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopy", loc);
    auto d = detail::copy_desc<T>("DataCopy", tuner_sim::CopyDir::UbToGm);
    d.ub_off = src.tuner_off(), d.ub_buf_end = src.tuner_buf_end();
    d.gm = const_cast<T*>(dst.GetPhyAddr());
    d.block_bytes = count * sizeof(T);
    d.require_32b_blocks = true;
    tuner_sim::data_copy(d);
}
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
                                tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopy", loc);
    auto d = detail::copy_desc<T>("DataCopy", tuner_sim::CopyDir::UbToUb);
    d.ub_off = dst.tuner_off(), d.ub_buf_end = dst.tuner_buf_end();
    d.ub2_off = src.tuner_off(), d.ub2_buf_end = src.tuner_buf_end();
    d.block_bytes = count * sizeof(T);
    d.require_32b_blocks = true;
    tuner_sim::data_copy(d);
}

template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                                const DataCopyParams& params, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopy", loc);
    auto d = detail::copy_desc<T>("DataCopy", tuner_sim::CopyDir::GmToUb);
    d.ub_off = dst.tuner_off(), d.ub_buf_end = dst.tuner_buf_end();
    d.gm = const_cast<T*>(src.GetPhyAddr());
    d.block_count = params.blockCount;
    d.block_bytes = uint32_t(params.blockLen) * 32u;
    d.src_gap_bytes = uint64_t(params.srcStride) * 32u;
    d.dst_gap_bytes = uint64_t(params.dstStride) * 32u;
    tuner_sim::data_copy(d);
}
template <typename T>
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                                const DataCopyParams& params, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopy", loc);
    auto d = detail::copy_desc<T>("DataCopy", tuner_sim::CopyDir::UbToGm);
    d.ub_off = src.tuner_off(), d.ub_buf_end = src.tuner_buf_end();
    d.gm = const_cast<T*>(dst.GetPhyAddr());
    d.block_count = params.blockCount;
    d.block_bytes = uint32_t(params.blockLen) * 32u;
    d.src_gap_bytes = uint64_t(params.srcStride) * 32u;
    d.dst_gap_bytes = uint64_t(params.dstStride) * 32u;
    tuner_sim::data_copy(d);
}
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                const DataCopyParams& params, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopy", loc);
    auto d = detail::copy_desc<T>("DataCopy", tuner_sim::CopyDir::UbToUb);
    d.ub_off = dst.tuner_off(), d.ub_buf_end = dst.tuner_buf_end();
    d.ub2_off = src.tuner_off(), d.ub2_buf_end = src.tuner_buf_end();
    d.block_count = params.blockCount;
    d.block_bytes = uint32_t(params.blockLen) * 32u;
    d.src_gap_bytes = uint64_t(params.srcStride) * 32u;
    d.dst_gap_bytes = uint64_t(params.dstStride) * 32u;
    tuner_sim::data_copy(d);
}

namespace detail {
template <typename T, typename P>
inline void pad_in(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const P& params, bool isPad, uint32_t left,
                   uint32_t right, uint64_t padBits) {
    static_assert(tuner_sim::support::DataCopyPad<T>,
                  "DataCopyPad: this element type is not supported on " TUNER_SIM_SOC_NAME);
    auto d = copy_desc<T>("DataCopyPad", tuner_sim::CopyDir::GmToUb);
    d.ub_off = dst.tuner_off(), d.ub_buf_end = dst.tuner_buf_end();
    d.gm = const_cast<T*>(src.GetPhyAddr());
    d.block_count = params.blockCount;
    d.block_bytes = params.blockLen;
    d.src_gap_bytes = params.srcStride;
    d.dst_gap_bytes = uint64_t(params.dstStride) * 32u;
    d.ub_blocks_padded = true;
    d.left_pad = left, d.right_pad = right, d.is_pad = isPad, d.pad_bits = padBits;
    tuner_sim::data_copy(d);
}
template <typename T, typename P>
inline void pad_out(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const P& params) {
    static_assert(tuner_sim::support::DataCopyPad<T>,
                  "DataCopyPad: this element type is not supported on " TUNER_SIM_SOC_NAME);
    auto d = copy_desc<T>("DataCopyPad", tuner_sim::CopyDir::UbToGm);
    d.ub_off = src.tuner_off(), d.ub_buf_end = src.tuner_buf_end();
    d.gm = const_cast<T*>(dst.GetPhyAddr());
    d.block_count = params.blockCount;
    d.block_bytes = params.blockLen;
    d.src_gap_bytes = uint64_t(params.srcStride) * 32u;
    d.dst_gap_bytes = params.dstStride;
    d.ub_blocks_padded = true;
    tuner_sim::data_copy(d);
}
template <typename T>
inline uint64_t bits_of(const T& v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    return bits;
}
}  // namespace detail

template <typename T>
__aicore__ inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                                   const DataCopyExtParams& dataCopyParams, const DataCopyPadExtParams<T>& padParams,
                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopyPad", loc);
    detail::pad_in(dst, src, dataCopyParams, padParams.isPad, padParams.leftPadding, padParams.rightPadding,
                   detail::bits_of(padParams.paddingValue));
}
template <typename T>
__aicore__ inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                                   const DataCopyParams& dataCopyParams, const DataCopyPadParams& padParams,
                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopyPad", loc);
    detail::pad_in(dst, src, dataCopyParams, padParams.isPad, padParams.leftPadding, padParams.rightPadding,
                   padParams.paddingValue);
}
template <typename T>
__aicore__ inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                                   const DataCopyExtParams& dataCopyParams,
                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopyPad", loc);
    detail::pad_out(dst, src, dataCopyParams);
}
template <typename T>
__aicore__ inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                                   const DataCopyParams& dataCopyParams, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    tuner_sim::api_begin("DataCopyPad", loc);
    detail::pad_out(dst, src, dataCopyParams);
}

}  // namespace AscendC

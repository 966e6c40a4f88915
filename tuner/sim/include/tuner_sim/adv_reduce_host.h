// The host side of the advanced reduce APIs (高阶API/归约操作/ReduceMax接口, ReduceMin接口, ReduceSum接口) and of the
// advanced Axpy (高阶API/数学计算/Axpy接口): ReducePattern and the temporary sizes, after asc-devkit's
// impl/adv_api/tiling/reduce/reduce_tiling.cpp and impl/adv_api/tiling/math/axpy_tiling_impl.cpp.
// Plain C++; the data type is AscendC::TensorDataType (ge::DataType, declared with the CANN host API in
// cann_host.h), taken here as any enum with ge's numbering so that this header needs no host API.
#pragma once
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

namespace AscendC {
class TensorShape;

// GetReduceMaxMaxMinTmpSize.md: the pattern as the host helpers take it (AR and RA only, on every SoC).
enum class ReducePattern : uint32_t {
    AR = 0,
    RA = 1,
    R,
    ARA,
    ARAR,
    ARARA,
    ARARAR,
    ARARARA,
    ARARARAR,
    ARARARARA,
    RAR,
    RARA,
    RARAR,
    RARARA,
    RARARAR,
    RARARARA,
};

namespace adv {
// ge::DataType numbers: DT_FLOAT 0, DT_FLOAT16 1, DT_INT32 3.
inline uint32_t reduce_type_size(int dataType) { return dataType == 0 || dataType == 3 ? 4 : dataType == 1 ? 2 : 1; }
inline uint32_t floor_pow2(uint32_t n) {
    uint32_t k = 1;
    while (n > 1) {
        k <<= 1;
        n >>= 1;
    }
    return k;
}
// The checks of reduce_tiling.cpp (ASCENDC_HOST_ASSERT: a message, and the sizes left as they were).
inline bool reduce_params_ok(const std::vector<int64_t>& dims, int dataType, bool isSrcInnerPad,
                             ReducePattern pattern, const char* api) {
    const char* why = dims.size() != 2                                          ? "srcShape dims must be 2"
                      : !(dataType == 0 || dataType == 1)                       ? "it only supports float and half type"
                      : !isSrcInnerPad                                          ? "isSrcInnerPad must be true"
                      : pattern != ReducePattern::AR && pattern != ReducePattern::RA ? "only AR and RA are supported"
                      : dims[0] <= 0 || dims[1] <= 0 ? "both first and last axis must be greater than 0"
                                                     : nullptr;
    if (why) fprintf(stderr, "[ERROR] [%s][Get%sMaxMinTmpSize] %s on this platform.\n", api, api, why);
    return why == nullptr;
}
// GetReduceMax/MinMaxMinTmpSize (A2): AR keeps one block (last < a repeat) or one repeat per row; RA the
// upper half of the rows folded in by powers of two, each row padded to 32 bytes. Nothing with isReuseSource.
inline void reduce_max_min_tmp(const std::vector<int64_t>& dims, int dataType, ReducePattern pattern,
                               bool isSrcInnerPad, bool isReuseSource, uint32_t& maxValue, uint32_t& minValue,
                               const char* api) {
    if (!reduce_params_ok(dims, dataType, isSrcInnerPad, pattern, api)) return;
    if (isReuseSource) {
        maxValue = minValue = 0;
        return;
    }
    const uint32_t first = uint32_t(dims[0]), last = uint32_t(dims[1]), size = reduce_type_size(dataType);
    if (pattern == ReducePattern::AR) {
        const uint32_t perBlk = 32 / size, perRep = 256 / size;
        maxValue = minValue = last <= perBlk ? 0 : last < perRep ? first * perBlk * size : first * perRep * size;
        return;
    }
    uint32_t k = floor_pow2(first);
    if (k == first && first > 1) k >>= 1;
    maxValue = minValue = k * ((last * size + 31) / 32 * 32);
}
}  // namespace adv

template <typename DataType>
inline void GetReduceMaxMaxMinTmpSize(const TensorShape& srcShape, const DataType dataType, ReducePattern pattern,
                                      bool isSrcInnerPad, bool isReuseSource, uint32_t& maxValue,
                                      uint32_t& minValue) {
    static_assert(std::is_enum_v<DataType>, "GetReduceMaxMaxMinTmpSize: dataType is an AscendC::TensorDataType");
    adv::reduce_max_min_tmp(srcShape.GetDims(), int(dataType), pattern, isSrcInnerPad, isReuseSource, maxValue,
                            minValue, "ReduceMax");
}
template <typename DataType>
inline void GetReduceMinMaxMinTmpSize(const TensorShape& srcShape, const DataType dataType, ReducePattern pattern,
                                      bool isSrcInnerPad, bool isReuseSource, uint32_t& maxValue,
                                      uint32_t& minValue) {
    static_assert(std::is_enum_v<DataType>, "GetReduceMinMaxMinTmpSize: dataType is an AscendC::TensorDataType");
    adv::reduce_max_min_tmp(srcShape.GetDims(), int(dataType), pattern, isSrcInnerPad, isReuseSource, maxValue,
                            minValue, "ReduceMin");
}

// GetReduceSumMaxMinTmpSize (A2, float only): AR keeps, for rows longer than a repeat, each row's largest power of
// two of elements (half the row when it is one and there is more than one row); RA as ReduceMax.
template <typename DataType>
inline void GetReduceSumMaxMinTmpSize(const TensorShape& srcShape, const DataType dataType, ReducePattern pattern,
                                      bool isSrcInnerPad, bool isReuseSource, uint32_t& maxValue,
                                      uint32_t& minValue) {
    static_assert(std::is_enum_v<DataType>, "GetReduceSumMaxMinTmpSize: dataType is an AscendC::TensorDataType");
    const std::vector<int64_t> dims = srcShape.GetDims();
    if (int(dataType) != 0) {
        fprintf(stderr, "[ERROR] [ReduceSum][GetReduceSumMaxMinTmpSize] it only supports float type on this "
                        "platform.\n");
        return;
    }
    if (!adv::reduce_params_ok(dims, int(dataType), isSrcInnerPad, pattern, "ReduceSum")) return;
    if (isReuseSource) {
        maxValue = minValue = 0;
        return;
    }
    const uint32_t first = uint32_t(dims[0]), last = uint32_t(dims[1]);
    if (pattern == ReducePattern::AR) {
        uint32_t k = adv::floor_pow2(last);
        if (k == last && first > 1) k >>= 1;
        maxValue = minValue = last <= 64 ? 0 : first * k * 4;
        return;
    }
    uint32_t k = adv::floor_pow2(first);
    if (k == first && first > 1) k >>= 1;
    maxValue = minValue = k * ((last + 7) / 8 * 8) * 4;
}

// GetAxpyMaxMinTmpSize.md: a half source takes 4 float planes of 256 bytes at least, of the whole input at
// most; a float source none (it is the basic Axpy).
inline void GetAxpyMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool /*isReuseSource*/,
                                 uint32_t& maxValue, uint32_t& minValue) {
    const uint32_t n = uint32_t(srcShape.GetShapeSize());
    if (n == 0) {
        fprintf(stderr, "[ERROR] [Axpy][GetAxpyMaxMinTmpSize] Input Shape size must be greater than 0.\n");
        return;
    }
    if (typeSize == 4) {
        maxValue = minValue = 0;
        return;
    }
    minValue = 4 * 256;
    maxValue = n * typeSize > 256 ? 4 * n * typeSize : 4 * 256;
}
// GetAxpyTmpBufferFactorSize.md: the temporary space is maxLiveNodeCount times the input's bytes.
inline void GetAxpyTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
    extraBuf = 0;
    maxLiveNodeCount = typeSize == 4 ? 1 : 4;
}
}  // namespace AscendC

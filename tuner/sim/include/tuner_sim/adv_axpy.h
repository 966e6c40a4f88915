// The advanced Axpy (高阶API/数学计算/Axpy接口/Axpy-80.md): dst = scalar * src + dst with a sharedTmpBuffer,
// computed in float by Cast, Muls and Add instead of the vaxpy instruction, for better precision. Expanded in
// the order of asc-devkit's A2 implementation (impl/adv_api/detail/math/axpy/axpy_common_impl.h): a float
// source goes to the basic Axpy; a half source is cut into passes of `stack` elements (the temporary space as
// float, halved for a half destination, rounded down to 32 elements), each pass one counter-mode instruction
// per step with a PIPE_V barrier after it.
#pragma once
#include <type_traits>

#include "adv_math.h"

namespace AscendC {
namespace adv {
template <typename T, typename U>
TUNER_SIM_UNCHARGED inline void axpy_pass(const LocalTensor<T>& dst, const LocalTensor<U>& src, U scalar,
                                          const LocalTensor<float>& buf, uint32_t stack, Loc loc) {
    const UnaryRepeatParams unary;
    const BinaryRepeatParams binary;
    if constexpr (std::is_same_v<T, half>) {  // half mode: src and dst to float, Muls, Add, back to half
        const LocalTensor<float> tmpSrc = buf;
        const LocalTensor<float> tmpDst = buf[stack];
        Cast<float, half, false>(tmpSrc, src, RoundMode::CAST_NONE, MASK_PLACEHOLDER, 1, {1, 1, 8, 4}, loc);
        PipeBarrier<PIPE_V>(loc);
        Cast<float, half, false>(tmpDst, dst, RoundMode::CAST_NONE, MASK_PLACEHOLDER, 1, {1, 1, 8, 4}, loc);
        PipeBarrier<PIPE_V>(loc);
        Muls<float, false>(tmpSrc, tmpSrc, float(scalar), MASK_PLACEHOLDER, 1, unary, loc);
        PipeBarrier<PIPE_V>(loc);
        Add<float, false>(tmpDst, tmpSrc, tmpDst, MASK_PLACEHOLDER, 1, binary, loc);
        PipeBarrier<PIPE_V>(loc);
        Cast<half, float, false>(dst, tmpDst, RoundMode::CAST_NONE, MASK_PLACEHOLDER, 1, {1, 1, 4, 8}, loc);
        PipeBarrier<PIPE_V>(loc);
    } else {  // mix mode: src to float, Muls, Add into the float dst
        Cast<float, half, false>(buf, src, RoundMode::CAST_NONE, MASK_PLACEHOLDER, 1, {1, 1, 8, 4}, loc);
        PipeBarrier<PIPE_V>(loc);
        Muls<float, false>(buf, buf, float(scalar), MASK_PLACEHOLDER, 1, unary, loc);
        PipeBarrier<PIPE_V>(loc);
        Add<float, false>(dst, buf, dst, MASK_PLACEHOLDER, 1, binary, loc);
        PipeBarrier<PIPE_V>(loc);
    }
}

template <typename T, typename U>
TUNER_SIM_UNCHARGED inline void axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, U scalar,
                                     const LocalTensor<uint8_t>& tmp, uint32_t count, Loc loc) {
    static_assert((std::is_same_v<T, half> && std::is_same_v<U, half>) ||
                      (std::is_same_v<T, float> && std::is_same_v<U, float>) ||
                      (std::is_same_v<T, float> && std::is_same_v<U, half>),
                  "Axpy (advanced): (dstTensor, srcTensor) must be (half, half), (float, float) or (float, half)");
    TUNER_SIM_ADV_REQUIRE(AdvAxpy, U);
    tuner_sim::api_site("Axpy", loc);
    if constexpr (sizeof(U) == sizeof(float)) {
        Axpy(dst, src, scalar, int32_t(count), loc);
    } else {
        if (count > dst.GetSize() || count > src.GetSize()) {
            tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds, "Axpy: calCount %u is larger than the tensors (%u "
                             "and %u elements)", count, dst.GetSize(), src.GetSize());
        }
        require_tmp("Axpy", tmp, 4 * kRepeatBytes, false);  // GetAxpyMaxMinTmpSize: 4 float repeats for half
        const LocalTensor<float> buf = tmp.ReinterpretCast<float>();
        const uint32_t floats = buf.GetSize();
        const uint32_t stack = (sizeof(T) == sizeof(half) ? floats / 2 : floats) / 32 * 32;
        const uint32_t round = count / stack, tail = count % stack;
        SetMaskCount();
        SetVectorMask<T, MaskMode::COUNTER>(0, stack);
        uint32_t offset = 0;
        for (uint32_t i = 0; i < round; ++i, offset += stack) axpy_pass(dst[offset], src[offset], scalar, buf, stack, loc);
        if (tail != 0) {
            SetVectorMask<T, MaskMode::COUNTER>(0, tail);
            axpy_pass(dst[offset], src[offset], scalar, buf, stack, loc);
        }
        SetMaskNorm();
        ResetMask();
    }
}
}  // namespace adv

// Axpy with a sharedTmpBuffer: 高阶API/数学计算/Axpy接口/Axpy-80.md
template <typename T, typename U, bool isReuseSource = false>
TUNER_SIM_UNCHARGED __aicore__ inline void Axpy(const LocalTensor<T>& dstTensor, const LocalTensor<U>& srcTensor,
                                                const U scalarValue, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                                const uint32_t calCount, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
    adv::axpy(dstTensor, srcTensor, scalarValue, sharedTmpBuffer, calCount, loc);
}
}  // namespace AscendC

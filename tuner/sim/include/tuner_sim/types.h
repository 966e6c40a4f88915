// Qualifiers, enums and parameter structs of Ascend C, with the names and layouts of the public headers.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "fp16.h"
#include "rt.h"

#define __global__
#define __aicore__
#define __gm__
#define __ubuf__
#define __vector__
#define __cube__
#define __mix__(cube, vec)
#define __inout_pipe__(...)
#define __schedmode__(mode)
#define __sync_alias__
#define __sync_in__
#define __sync_out__
#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif
#define KERNEL_TASK_TYPE_DEFAULT(type)

enum pipe_t : uint8_t { PIPE_S = 0, PIPE_V = 1, PIPE_MTE2 = 2, PIPE_MTE3 = 3, PIPE_M, PIPE_MTE1, PIPE_FIX, PIPE_ALL };
enum event_t : int32_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };

namespace AscendC {

enum class TPosition : uint8_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM,
    C2PIPE2GM, C2PIPE2LOCAL, MAX
};
using QuePosition = TPosition;

enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3,
    MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3,
    MTE3_S, MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX
};
using TEventID = int8_t;

enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD, UNKNOWN = 0xFF };
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
enum class CacheMode : uint8_t { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL, CACHE_MODE_LAST, CACHE_MODE_PERSISTENT };
enum class CacheRwMode : uint8_t { READ = 1, WRITE = 2, RW = 3 };
enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_OUT = 0, CACHELINE_UB, CACHELINE_ALL, CACHELINE_ATOMIC };
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
enum class KernelMode : uint8_t { MIX_MODE = 0, AIC_MODE, AIV_MODE, MIX_AIC_1_1 };
// Physical memories (LocalMemAllocator构造函数.md); the simulated vector core has GM and UB.
enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };
// MemDsbT of DataSyncBarrier(ISASI).md: which accesses the barrier waits for.
enum class MemDsbT : uint8_t { ALL = 0, DDR, UB, SEQ };
// PipeMode of GroupBarrier构造函数.md.
enum class PipeMode : uint8_t { SCALAR_MODE = 0, MTE3_MODE = 1, MAX };

constexpr uint64_t MASK_PLACEHOLDER = 0;
constexpr int32_t DEFAULT_BLK_NUM = 8;
constexpr int32_t DEFAULT_BLK_STRIDE = 1;
constexpr int32_t DEFAULT_REPEAT_STRIDE = 8;
constexpr int32_t ONE_BLK_SIZE = 32;
constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256;

struct DataCopyParams {
    DataCopyParams() = default;
    TUNER_SIM_UNCHARGED
    DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;
    union {
        uint16_t srcGap = 0;
        uint16_t srcStride;
    };
    union {
        uint16_t dstGap = 0;
        uint16_t dstStride;
    };
};

// GM (ND) to L1 (NZ) copies feed the cube core; the simulator models the vector core, so a kernel using them
// compiles and a copy faults as unsupported (copy.h).
struct Nd2NzParams {
    Nd2NzParams() = default;
    TUNER_SIM_UNCHARGED
    Nd2NzParams(const uint16_t ndNumIn, const uint16_t nValueIn, const uint16_t dValueIn,
                const uint16_t srcNdMatrixStrideIn, const uint16_t srcDValueIn, const uint16_t dstNzC0StrideIn,
                const uint16_t dstNzNStrideIn, const uint16_t dstNzMatrixStrideIn)
        : ndNum(ndNumIn), nValue(nValueIn), dValue(dValueIn), srcNdMatrixStride(srcNdMatrixStrideIn),
          srcDValue(srcDValueIn), dstNzC0Stride(dstNzC0StrideIn), dstNzNStride(dstNzNStrideIn),
          dstNzMatrixStride(dstNzMatrixStrideIn) {}
    uint16_t ndNum = 0;
    uint16_t nValue = 0;
    uint16_t dValue = 0;
    uint16_t srcNdMatrixStride = 0;
    uint16_t srcDValue = 0;
    uint16_t dstNzC0Stride = 0;
    uint16_t dstNzNStride = 0;
    uint16_t dstNzMatrixStride = 0;
};

struct DataCopyExtParams {
    DataCopyExtParams() = default;
    TUNER_SIM_UNCHARGED
    DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn, const uint32_t dstStrideIn,
                      const uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
};

struct DataCopyPadParams {
    DataCopyPadParams() = default;
    TUNER_SIM_UNCHARGED
    DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue,
                      const uint64_t padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
};

template <typename T>
struct DataCopyPadExtParams {
    DataCopyPadExtParams() = default;
    TUNER_SIM_UNCHARGED
    DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, T padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = T(0);
};

struct BinaryRepeatParams {
    BinaryRepeatParams() = default;
    TUNER_SIM_UNCHARGED
    BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn, const uint8_t src1BlkStrideIn,
                       const uint8_t dstRepStrideIn, const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
        : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn), src1BlkStride(src1BlkStrideIn),
          dstRepStride(dstRepStrideIn), src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

struct UnaryRepeatParams {
    UnaryRepeatParams() = default;
    TUNER_SIM_UNCHARGED
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                      const uint8_t srcRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn) {}
    TUNER_SIM_UNCHARGED
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                      const uint8_t srcRepStrideIn, const bool halfBlockIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn), halfBlock(halfBlockIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t srcBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t srcRepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
    bool halfBlock = false;
};

struct BrcbRepeatParams {
    BrcbRepeatParams() = default;
    TUNER_SIM_UNCHARGED
    BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
        : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

}  // namespace AscendC

namespace AscendC {
// int4b_t (基础API/数据类型, Cast.md): a 4-bit signed integer, -8..7. Tensors of it hold two per byte, the even
// element in the low nibble; a kernel allocates int8_t and takes it as int4b_t with ReinterpretCast. The
// simulator computes int4b_t in Cast only (the int4b_t <-> half pairs of A2).
struct int4b_t {
    uint8_t storage;
};
}  // namespace AscendC

namespace tuner_sim {
using AscendC::int4b_t;

template <class T>
struct elem_type_of;
#define TUNER_SIM_ELEM(T, E)                          \
    template <>                                       \
    struct elem_type_of<T> {                          \
        static constexpr ElemType value = ElemType::E; \
    }
TUNER_SIM_ELEM(uint8_t, U8);
TUNER_SIM_ELEM(int8_t, I8);
TUNER_SIM_ELEM(uint16_t, U16);
TUNER_SIM_ELEM(int16_t, I16);
TUNER_SIM_ELEM(half, F16);
TUNER_SIM_ELEM(bfloat16_t, BF16);
TUNER_SIM_ELEM(uint32_t, U32);
TUNER_SIM_ELEM(int32_t, I32);
TUNER_SIM_ELEM(float, F32);
TUNER_SIM_ELEM(uint64_t, U64);
TUNER_SIM_ELEM(int64_t, I64);
TUNER_SIM_ELEM(double, F64);
TUNER_SIM_ELEM(bool, U8);
TUNER_SIM_ELEM(int4b_t, I8);  // a placeholder: Cast handles its nibbles itself (int4.h)
#undef TUNER_SIM_ELEM

template <class T>
constexpr ElemType elem_v = elem_type_of<std::remove_cv_t<T>>::value;

template <class T, class... Ts>
constexpr bool is_one_of = (std::is_same_v<T, Ts> || ...);

template <class...>
constexpr bool dependent_false = false;

// A scalar of the element type as the exact double the numerics library expects.
template <class T>
TUNER_SIM_UNCHARGED inline double scalar_as_double(const T& v) {
    return static_cast<double>(static_cast<float>(v));
}
template <>
TUNER_SIM_UNCHARGED inline double scalar_as_double<double>(const double& v) { return v; }
template <>
TUNER_SIM_UNCHARGED inline double scalar_as_double<int64_t>(const int64_t& v) { return static_cast<double>(v); }
template <>
TUNER_SIM_UNCHARGED inline double scalar_as_double<uint64_t>(const uint64_t& v) { return static_cast<double>(v); }
template <>
TUNER_SIM_UNCHARGED inline double scalar_as_double<int32_t>(const int32_t& v) { return v; }
template <>
TUNER_SIM_UNCHARGED inline double scalar_as_double<uint32_t>(const uint32_t& v) { return v; }

}  // namespace tuner_sim

// GlobalTensor and LocalTensor: handles onto GM buffers and onto this block's unified buffer (UB).
#pragma once
#include <algorithm>
#include <unordered_map>

#include "types.h"
#include "utils.h"

// UB bytes a kernel may address (GetUBSizeInBytes.md: 248 KB on Ascend 950; the whole UB elsewhere). Here, not
// in types.h: the generated support header defines __NPU_ARCH__ after it includes types.h.
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 3510
constexpr uint32_t TUNER_SIM_UB_SIZE_BYTES = 253952;
#elif defined(__NPU_ARCH__) && __NPU_ARCH__ == 2002
constexpr uint32_t TUNER_SIM_UB_SIZE_BYTES = 262144;
#else
constexpr uint32_t TUNER_SIM_UB_SIZE_BYTES = 196608;
#endif

namespace AscendC {

// A tensor's shape, original shape and layout (基础API/辅助数据结构/ShapeInfo.md; kernel_tensor.h), set on a
// LocalTensor with SetShapeInfo for the APIs that read it (SoftmaxFlashV3, the ShapeInfo form of a tiling).
constexpr int32_t K_MAX_SHAPE_DIM = 8;
struct ShapeInfo {
public:
    TUNER_SIM_UNCHARGED __aicore__ inline ShapeInfo() {}
    TUNER_SIM_UNCHARGED __aicore__ inline ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[],
                                                    const uint8_t inputOriginalShapeDim,
                                                    const uint32_t inputOriginalShape[], const DataFormat inputFormat)
        : shapeDim(clamp_dim(inputShapeDim)), originalShapeDim(clamp_dim(inputOriginalShapeDim)),
          dataFormat(inputFormat) {
        for (int i = 0; i < shapeDim; ++i) shape[i] = inputShape[i];
        for (int i = 0; i < originalShapeDim; ++i) originalShape[i] = inputOriginalShape[i];
    }
    TUNER_SIM_UNCHARGED __aicore__ inline ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[],
                                                    const DataFormat inputFormat)
        : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, inputFormat) {}
    TUNER_SIM_UNCHARGED __aicore__ inline ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[])
        : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, DataFormat::ND) {}
    uint8_t shapeDim = 0;
    uint8_t originalShapeDim = 0;
    uint32_t shape[K_MAX_SHAPE_DIM] = {};
    uint32_t originalShape[K_MAX_SHAPE_DIM] = {};
    DataFormat dataFormat = DataFormat::ND;

private:
    // ShapeInfo's constructor asserts at most K_MAX_SHAPE_DIM dimensions.
    TUNER_SIM_UNCHARGED static uint8_t clamp_dim(uint8_t dim) {
        if (dim > K_MAX_SHAPE_DIM) {
            tuner_sim::fault(tuner_sim::FaultClass::Unsupported, "ShapeInfo: %u dimensions, at most %d", dim,
                             K_MAX_SHAPE_DIM);
        }
        return dim;
    }
};
namespace detail {
// The ShapeInfo set on each of this block's LocalTensors (LocalTensor::SetShapeInfo), by UB offset: a tensor
// that reuses a buffer sees the last shape set on it.
TUNER_SIM_UNCHARGED inline std::unordered_map<uint32_t, ShapeInfo>& shape_infos() {
    static thread_local std::unordered_map<uint32_t, ShapeInfo> infos;
    return infos;
}
}  // namespace detail

// The number of elements a ShapeInfo's shape holds (GetShapeSize).
TUNER_SIM_UNCHARGED __aicore__ inline int GetShapeSize(const ShapeInfo& shapeInfo) {
    int n = 1;
    for (int i = 0; i < shapeInfo.shapeDim; ++i) n *= int(shapeInfo.shape[i]);
    return n;
}

template <typename T>
class GlobalTensor {
public:
    using PrimType = T;
    TUNER_SIM_UNCHARGED __aicore__ inline GlobalTensor() = default;
    TUNER_SIM_UNCHARGED __aicore__ inline void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
        addr_ = buffer;
        size_ = bufferSize;
    }
    TUNER_SIM_UNCHARGED __aicore__ inline void SetGlobalBuffer(__gm__ T* buffer) {
        addr_ = buffer;
        size_ = 0;
    }
    TUNER_SIM_UNCHARGED __aicore__ inline const __gm__ T* GetPhyAddr() const { return addr_; }
    TUNER_SIM_UNCHARGED __aicore__ inline __gm__ T* GetPhyAddr(const uint64_t offset) const { return addr_ + offset; }
    TUNER_SIM_UNCHARGED
    __aicore__ inline T GetValue(const uint64_t offset, tuner_sim::Loc loc = tuner_sim::Loc::here()) const {
        tuner_sim::api_site("GlobalTensor::GetValue", loc);
        tuner_sim::gm_scalar_access(addr_ + offset, sizeof(T), tuner_sim::Access::Read);
        const T value = addr_[offset];
        tuner_sim::gm_scalar_read_done();
        return value;
    }
    TUNER_SIM_UNCHARGED
    __aicore__ inline void SetValue(const uint64_t offset, T value, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_site("GlobalTensor::SetValue", loc);
        tuner_sim::gm_scalar_access(addr_ + offset, sizeof(T), tuner_sim::Access::Write);
        addr_[offset] = value;
    }
    TUNER_SIM_UNCHARGED __aicore__ inline __gm__ T& operator()(const uint64_t offset) const { return addr_[offset]; }
    TUNER_SIM_UNCHARGED __aicore__ inline uint64_t GetSize() const { return size_; }
    TUNER_SIM_UNCHARGED __aicore__ inline GlobalTensor operator[](const uint64_t offset) const {
        GlobalTensor view;
        view.addr_ = addr_ + offset;
        view.size_ = size_ > offset ? size_ - offset : 0;
        view.cache_mode_ = cache_mode_;
        return view;
    }
    template <CacheRwMode rwMode = CacheRwMode::RW>
    TUNER_SIM_UNCHARGED __aicore__ inline void SetL2CacheHint(CacheMode mode) {
        cache_mode_ = mode;
        tuner_sim::l2_hint(addr_, size_ * sizeof(T), mode == CacheMode::CACHE_MODE_DISABLE);
    }
    TUNER_SIM_UNCHARGED __aicore__ inline CacheMode GetL2CacheHint() const { return cache_mode_; }

private:
    __gm__ T* addr_ = nullptr;
    uint64_t size_ = 0;
    CacheMode cache_mode_ = CacheMode::CACHE_MODE_NORMAL;
};

template <typename T>
class LocalTensor {
public:
    using PrimType = T;
    TUNER_SIM_UNCHARGED __aicore__ inline LocalTensor() = default;
    // Static Tensor programming: `tileSize` elements at UB byte address `addr` (LocalTensor构造函数.md: addr in
    // [0, the UB size), 32-byte aligned; addr plus the tile's bytes within the UB).
    TUNER_SIM_UNCHARGED
    __aicore__ inline LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize,
                                  tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_site("LocalTensor", loc);
        const uint64_t bytes = uint64_t(tileSize) * sizeof(T);
        tuner_sim::ub_static_tensor(addr, bytes, TUNER_SIM_UB_SIZE_BYTES, "LocalTensor(pos, addr, tileSize)");
        off_ = addr;
        size_ = tileSize;
        buf_end_ = static_cast<uint32_t>(addr + bytes);
        pos_ = pos;
    }

    TUNER_SIM_UNCHARGED
    __aicore__ inline T GetValue(const uint32_t index, tuner_sim::Loc loc = tuner_sim::Loc::here()) const {
        tuner_sim::api_site("LocalTensor::GetValue", loc);
        check_index(index);
        tuner_sim::scalar_access(off_ + index * sizeof(T), sizeof(T), tuner_sim::Access::Read);
        T value;
        std::memcpy(&value, tuner_sim::ub_base() + off_ + index * sizeof(T), sizeof(T));
        return value;
    }
    template <typename S>
    TUNER_SIM_UNCHARGED
    __aicore__ inline void SetValue(const uint32_t index, const S value,
                                    tuner_sim::Loc loc = tuner_sim::Loc::here()) const {
        tuner_sim::api_site("LocalTensor::SetValue", loc);
        check_index(index);
        tuner_sim::scalar_access(off_ + index * sizeof(T), sizeof(T), tuner_sim::Access::Write);
        const T converted = static_cast<T>(value);
        std::memcpy(tuner_sim::ub_base() + off_ + index * sizeof(T), &converted, sizeof(T));
    }
    TUNER_SIM_UNCHARGED __aicore__ inline T& operator()(const uint32_t offset) const {
        return *reinterpret_cast<T*>(tuner_sim::ub_base() + off_ + offset * sizeof(T));
    }
    TUNER_SIM_UNCHARGED __aicore__ inline LocalTensor operator[](const uint32_t offset) const {
        LocalTensor view = *this;
        // Computed in 64 bits: an offset that leaves UB (x[-16], a huge index) saturates past every buffer, so
        // using the view is out of bounds instead of wrapping onto the buffer before it.
        const uint64_t off = uint64_t(off_) + uint64_t(offset) * sizeof(T);
        view.off_ = off > 0xFFFFFFE0u ? 0xFFFFFFE0u : static_cast<uint32_t>(off);
        view.size_ = size_ > offset ? size_ - offset : 0;
        return view;
    }
    template <typename U>
    TUNER_SIM_UNCHARGED __aicore__ inline LocalTensor<U> ReinterpretCast() const {
        LocalTensor<U> out;
        out.tuner_bind(off_, static_cast<uint32_t>(uint64_t(size_) * sizeof(T) / sizeof(U)), buf_end_, pos_);
        return out;
    }
    TUNER_SIM_UNCHARGED __aicore__ inline uint32_t GetSize() const { return size_; }
    TUNER_SIM_UNCHARGED __aicore__ inline uint32_t GetLength() const { return size_ * sizeof(T); }
    TUNER_SIM_UNCHARGED __aicore__ inline void SetSize(const uint32_t size) { size_ = size; }
    TUNER_SIM_UNCHARGED __aicore__ inline void SetBufferLen(uint32_t dataLen) { size_ = dataLen / sizeof(T); }
    TUNER_SIM_UNCHARGED
    __aicore__ inline uint64_t GetPhyAddr() const { return reinterpret_cast<uint64_t>(tuner_sim::ub_base() + off_); }
    TUNER_SIM_UNCHARGED
    __aicore__ inline uint64_t GetPhyAddr(const uint32_t offset) const { return GetPhyAddr() + offset * sizeof(T); }
    TUNER_SIM_UNCHARGED __aicore__ inline int32_t GetPosition() const { return static_cast<int32_t>(pos_); }
    TUNER_SIM_UNCHARGED __aicore__ inline void SetUserTag(int32_t tag) { tag_ = tag; }
    TUNER_SIM_UNCHARGED __aicore__ inline int32_t GetUserTag() const { return tag_; }
    // Kept beside the tensor, by its UB offset, not in it: a larger LocalTensor would change the code the
    // simulator compiles for every copy of one, and with it the modelled scalar time of every kernel.
    TUNER_SIM_UNCHARGED __aicore__ inline void SetShapeInfo(const ShapeInfo& shapeInfo) {
        detail::shape_infos()[off_] = shapeInfo;
    }
    TUNER_SIM_UNCHARGED __aicore__ inline ShapeInfo GetShapeInfo() const {
        const auto found = detail::shape_infos().find(off_);
        return found == detail::shape_infos().end() ? ShapeInfo() : found->second;
    }

    // Simulator plumbing (not Ascend C API).
    TUNER_SIM_UNCHARGED void tuner_bind(uint32_t off, uint32_t size, uint32_t buf_end, TPosition pos) {
        off_ = off;
        size_ = size;
        buf_end_ = buf_end;
        pos_ = pos;
    }
    TUNER_SIM_UNCHARGED uint32_t tuner_off() const { return off_; }
    TUNER_SIM_UNCHARGED uint32_t tuner_buf_end() const { return buf_end_; }
    TUNER_SIM_UNCHARGED T* tuner_ptr() const { return reinterpret_cast<T*>(tuner_sim::ub_base() + off_); }
    TUNER_SIM_UNCHARGED
    tuner_sim::UbSpan tuner_span(uint64_t elems, tuner_sim::Access access, const char* operand) const {
        return {off_, elems * sizeof(T), buf_end_, access, operand};
    }
    TUNER_SIM_UNCHARGED
    tuner_sim::UbSpan tuner_span_bytes(uint64_t bytes, tuner_sim::Access access, const char* operand) const {
        return {off_, bytes, buf_end_, access, operand};
    }

private:
    TUNER_SIM_UNCHARGED void check_index(uint32_t index) const {
        if (off_ + (uint64_t(index) + 1) * sizeof(T) > buf_end_) {
            tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                             "element %u is outside its UB buffer (%u bytes left from the tensor start)", index,
                             buf_end_ > off_ ? buf_end_ - off_ : 0);
        }
    }
    uint32_t off_ = 0;
    uint32_t size_ = 0;
    uint32_t buf_end_ = 0;
    TPosition pos_ = TPosition::VECCALC;
    int32_t tag_ = 0;
};

// PopStackBuffer (基础API/资源管理/PopStackBuffer.md): all the UB left after the TPipe's InitBuffer buffers, as
// one tensor at `pos` (what the advanced APIs without sharedTmpBuffer take as their temporary space).
// `api` names the caller in a fault (an advanced API's own temporary space is taken the same way).
template <typename T, TPosition pos>
TUNER_SIM_UNCHARGED __aicore__ inline bool PopStackBuffer(LocalTensor<T>& popLocal,
                                                          const char* api = "PopStackBuffer") {
    const uint32_t end = tuner_sim::soc_config.ub_stack_end;
    const uint32_t off = std::min(end, (tuner_sim::ub_alloc(0, api) + 31u) / 32u * 32u);
    popLocal.tuner_bind(off, uint32_t((end - off) / sizeof(T)), end, pos);
    return true;
}

// Static Tensor programming's UB allocator (LocalMemAllocator简介.md, Alloc.md, GetCurAddr-72.md): hands out
// consecutive UB tiles from address 0, each rounded up to 32 bytes so the next one stays aligned. Only UB
// exists on a vector core; a tile past the UB is a ub-overflow.
template <Hardware hard = Hardware::UB>
class LocalMemAllocator {
    static_assert(hard == Hardware::UB, "LocalMemAllocator: the simulated vector core has only the UB (Hardware::UB)");

public:
    TUNER_SIM_UNCHARGED __aicore__ inline LocalMemAllocator() = default;
    TUNER_SIM_UNCHARGED __aicore__ inline uint32_t GetCurAddr() const { return cur_; }

    template <class DataType, uint32_t tileSize>
    TUNER_SIM_UNCHARGED __aicore__ inline LocalTensor<DataType> Alloc(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        return take<DataType>(TPosition::VECCALC, tileSize, loc);
    }
    template <TPosition pos, class DataType, uint32_t tileSize>
    TUNER_SIM_UNCHARGED __aicore__ inline LocalTensor<DataType> Alloc(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        return take<DataType>(pos, tileSize, loc);
    }
    template <class DataType>
    TUNER_SIM_UNCHARGED
    __aicore__ inline LocalTensor<DataType> Alloc(uint32_t tileSize, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        return take<DataType>(TPosition::VECCALC, tileSize, loc);
    }
    template <TPosition pos, class DataType>
    TUNER_SIM_UNCHARGED
    __aicore__ inline LocalTensor<DataType> Alloc(uint32_t tileSize, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        return take<DataType>(pos, tileSize, loc);
    }

private:
    template <class DataType>
    TUNER_SIM_UNCHARGED LocalTensor<DataType> take(TPosition pos, uint32_t tileSize, tuner_sim::Loc loc) {
        tuner_sim::api_site("LocalMemAllocator::Alloc", loc);
        const uint64_t bytes = uint64_t(tileSize) * sizeof(DataType);
        tuner_sim::ub_static_tensor(cur_, bytes, TUNER_SIM_UB_SIZE_BYTES, "LocalMemAllocator::Alloc");
        LocalTensor<DataType> t;
        t.tuner_bind(cur_, tileSize, static_cast<uint32_t>(cur_ + bytes), pos);
        cur_ = static_cast<uint32_t>((cur_ + bytes + 31) / 32 * 32);
        return t;
    }
    uint32_t cur_ = 0;
};

}  // namespace AscendC

// The device compiler's scalar min / max (kernels call them unqualified, e.g. asc-devkit's softmaxflashv3
// example). Non-template overloads, so that a kernel with `using namespace std;` still resolves std::min's calls
// of the same type to these, without ambiguity.
#define TUNER_SIM_SCALAR_MINMAX(T)                                                          \
    TUNER_SIM_UNCHARGED __aicore__ inline T min(T a, T b) { return b < a ? b : a; } \
    TUNER_SIM_UNCHARGED __aicore__ inline T max(T a, T b) { return a < b ? b : a; }
TUNER_SIM_SCALAR_MINMAX(int32_t)
TUNER_SIM_SCALAR_MINMAX(uint32_t)
TUNER_SIM_SCALAR_MINMAX(int64_t)
TUNER_SIM_SCALAR_MINMAX(uint64_t)
TUNER_SIM_SCALAR_MINMAX(float)
#undef TUNER_SIM_SCALAR_MINMAX

// ListTensorDesc and TensorDesc (基础API/辅助数据结构/ListTensorDesc.md, TensorDesc/*.md;
// kernel_operator_list_tensor_intf.h): a list of tensors passed to a kernel as one GM block, decoded on the
// kernel side. The layout, as asc-devkit's A2 implementation (impl/basic_api/dav_c220/
// kernel_operator_list_tensor_impl.h) reads it, in uint64_t words:
//   word 0: the byte offset from the start to the data pointers;
//   then one descriptor per tensor: a word with dim in its low 32 bits and (for the first) the count in its high
//   32 bits (0: the count is the last descriptor's index + 1), then `dim` shape words (dim 0: one 0xffffffff word);
//   then the data pointers, one per tensor.
// Each word is a scalar GM read (the data cache's), checked for bounds and races as GetValue is.
#pragma once
#include <cstdint>

#include "rt.h"
#include "tensor.h"
#include "utils.h"

namespace AscendC {
namespace detail {
TUNER_SIM_UNCHARGED inline uint64_t gm_word(const __gm__ uint64_t* p) {
    tuner_sim::gm_scalar_access(p, sizeof(uint64_t), tuner_sim::Access::Read);
    const uint64_t v = *p;
    tuner_sim::gm_scalar_read_done();
    return v;
}
}  // namespace detail

class ListTensorDesc;

template <class T>
class TensorDesc {
public:
    TUNER_SIM_UNCHARGED __aicore__ inline TensorDesc() {}
    TUNER_SIM_UNCHARGED __aicore__ inline ~TensorDesc() {}
    // Where GetDesc writes the shape (the caller's array, at least `dim` words).
    TUNER_SIM_UNCHARGED __aicore__ inline void SetShapeAddr(uint64_t* shapePtr) {
        ascendc_assert(shapePtr != nullptr, "TensorDesc::SetShapeAddr: null shape address");
        shape_ = shapePtr;
    }
    TUNER_SIM_UNCHARGED __aicore__ inline uint64_t GetDim() { return dim_; }
    TUNER_SIM_UNCHARGED __aicore__ inline uint64_t GetIndex() { return index_; }
    TUNER_SIM_UNCHARGED __aicore__ inline uint64_t GetShape(uint32_t offset) {
        ascendc_assert(offset < dim_, "TensorDesc::GetShape: offset %u is not below the dim %u", offset, dim_);
        return shape_[offset];
    }
    TUNER_SIM_UNCHARGED __aicore__ inline __gm__ T* GetDataPtr() { return ptr_; }
    // A GlobalTensor over the data pointer, sized by the product of the shape (elements).
    TUNER_SIM_UNCHARGED __aicore__ inline GlobalTensor<T> GetDataObj() {
        uint64_t n = 1;
        for (uint32_t i = 0; i < dim_; ++i) n *= shape_[i];
        GlobalTensor<T> obj;
        obj.SetGlobalBuffer(ptr_, n);
        return obj;
    }
    friend class ListTensorDesc;

private:
    uint32_t dim_ = 0;
    uint32_t index_ = 0;
    uint64_t* shape_ = nullptr;
    __gm__ T* ptr_ = nullptr;
};

class ListTensorDesc {
public:
    TUNER_SIM_UNCHARGED __aicore__ inline ListTensorDesc() {}
    TUNER_SIM_UNCHARGED __aicore__ inline ~ListTensorDesc() {}
    TUNER_SIM_UNCHARGED __aicore__ inline ListTensorDesc(__gm__ void* data, uint32_t length = 0xffffffff,
                                                         uint32_t shapeSize = 0xffffffff,
                                                         tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        Init(data, length, shapeSize, loc);
    }
    // Decodes the head of the list (length and shapeSize only check it, when both are given).
    TUNER_SIM_UNCHARGED __aicore__ inline void Init(__gm__ void* data, uint32_t length = 0xffffffff,
                                                    uint32_t shapeSize = 0xffffffff,
                                                    tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_site("ListTensorDesc", loc);
        ascendc_assert(data != nullptr, "ListTensorDesc: null data");
        const __gm__ uint64_t* head = static_cast<const __gm__ uint64_t*>(data);
        const uint64_t ptr_offset = detail::gm_word(head);
        shapes_ = head + 1;
        ptrs_ = head + ptr_offset / sizeof(uint64_t);
        const uint64_t first = detail::gm_word(shapes_);
        dim_ = uint32_t(first & 0xffffffffu);
        const uint32_t count = uint32_t(first >> 32);
        stride_ = dim_ == 0 ? 2 : 1 + dim_;
        count_ = count != 0 ? count : uint32_t(detail::gm_word(ptrs_ - stride_) >> 32) + 1;
        ascendc_assert((dim_ != 0 && count_ == (ptr_offset - sizeof(uint64_t)) / (stride_ * sizeof(uint64_t))) ||
                           (dim_ == 0 && detail::gm_word(shapes_ + 1) == 0xffffffffu && ptr_offset == 24),
                       "ListTensorDesc: the data does not hold a tensor list (pointer offset %llu, dim %u, count %u)",
                       (unsigned long long)ptr_offset, dim_, count_);
        if (length != 0xffffffff && shapeSize != 0xffffffff) {
            ascendc_assert(count_ == shapeSize, "ListTensorDesc: %u tensors, shapeSize says %u", count_, shapeSize);
            ascendc_assert(length == ptr_offset + count_ * sizeof(uint64_t),
                           "ListTensorDesc: the list takes %llu bytes, length says %u",
                           (unsigned long long)(ptr_offset + count_ * sizeof(uint64_t)), length);
        }
    }
    // The descriptor of tensor `index`: its dim, data pointer and index, the shape copied to desc's shape address.
    template <class T>
    TUNER_SIM_UNCHARGED __aicore__ inline void GetDesc(TensorDesc<T>& desc, uint32_t index,
                                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_site("ListTensorDesc::GetDesc", loc);
        ascendc_assert(index < count_, "ListTensorDesc::GetDesc: index %u, the list has %u tensors", index, count_);
        ascendc_assert(dim_ != 0, "ListTensorDesc::GetDesc: the list holds data pointers only (dim 0)");
        ascendc_assert(desc.shape_ != nullptr, "ListTensorDesc::GetDesc: call TensorDesc::SetShapeAddr first");
        desc.dim_ = dim_;
        desc.ptr_ = reinterpret_cast<__gm__ T*>(detail::gm_word(ptrs_ + index));
        desc.index_ = index;
        const __gm__ uint64_t* shape = shapes_ + uint64_t(index) * stride_ + 1;
        for (uint32_t i = 0; i < dim_; ++i) desc.shape_[i] = detail::gm_word(shape + i);
    }
    template <class T>
    TUNER_SIM_UNCHARGED __aicore__ inline __gm__ T* GetDataPtr(uint32_t index,
                                                            tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_site("ListTensorDesc::GetDataPtr", loc);
        ascendc_assert(index < count_, "ListTensorDesc::GetDataPtr: index %u, the list has %u tensors", index,
                       count_);
        return reinterpret_cast<__gm__ T*>(detail::gm_word(ptrs_ + index));
    }
    TUNER_SIM_UNCHARGED __aicore__ inline uint32_t GetSize() { return count_; }

private:
    const __gm__ uint64_t* ptrs_ = nullptr;
    const __gm__ uint64_t* shapes_ = nullptr;
    uint32_t dim_ = 0;
    uint32_t stride_ = 0;
    uint32_t count_ = 0;
};
}  // namespace AscendC

// tuner simulator: the kernel side of a CANN operator project's tiling (GET_TILING_DATA and its relatives,
// TILING_KEY_IS, REGISTER_TILING_DEFAULT, the DT_* / FORMAT_* numbers of ORIG_DTYPE_<ARG> / FORMAT_<ARG>, and
// the workspace helpers), after asc-devkit docs/zh/api/SIMD-API/基础API/Kernel-Tiling.
//
// In CANN the build generates the kernel's TilingData structs from the op_host registration (fields in
// declaration order, natural alignment: the host serializes the same layout). `tuner simulate --project`
// does the same (tuner/sim/project.py): its generated header defines the structs and names the default one
// (TUNER_SIM_PROJECT_DEFAULT_TILING) before this file is read, and compiles one kernel per tiling key with
// TILING_KEY_VAR set to it. GET_TILING_DATA copies the struct out of the `tiling` GM buffer.
#pragma once
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <type_traits>

#include "uncharged.h"

// The dtype and format numbers (ge::DataType, ge::Format), as macros so that `#if ORIG_DTYPE_X == DT_FLOAT`
// works in the preprocessor (asc-devkit include/basic_api/kernel_type.h); not where the host API is compiled
// too (a whole program), whose ge::DataType has them as enumerators.
#if !defined(DT_FLOAT) && !defined(TUNER_SIM_CANN_HOST)
#define DT_FLOAT 0
#define DT_FLOAT16 1
#define DT_INT8 2
#define DT_INT32 3
#define DT_UINT8 4
#define DT_INT16 6
#define DT_UINT16 7
#define DT_UINT32 8
#define DT_INT64 9
#define DT_UINT64 10
#define DT_DOUBLE 11
#define DT_BOOL 12
#define DT_STRING 13
#define DT_COMPLEX64 16
#define DT_COMPLEX128 17
#define DT_BF16 27
#define DT_UNDEFINED 28
#define DT_INT4 29
#define DT_HIFLOAT8 34
#define DT_FLOAT8_E5M2 35
#define DT_FLOAT8_E4M3FN 36
#define DT_MAX 42
#endif
#if !defined(FORMAT_ND) && !defined(TUNER_SIM_CANN_HOST)
#define FORMAT_NCHW 0
#define FORMAT_NHWC 1
#define FORMAT_ND 2
#define FORMAT_NC1HWC0 3
#define FORMAT_FRACTAL_Z 4
#define FORMAT_HWCN 16
#define FORMAT_NDHWC 27
#define FORMAT_FRACTAL_NZ 29
#define FORMAT_NCDHW 30
#define FORMAT_NC 35
#endif

// The tiling key this kernel was compiled for (one build per key, as CANN compiles one binary per key).
#ifndef TILING_KEY_VAR
#define TILING_KEY_VAR 0
#endif
#define TILING_KEY_IS(key) (static_cast<uint64_t>(TILING_KEY_VAR) == static_cast<uint64_t>(key))
#define TILING_KEY_LIST(...) (::tuner_sim::tiling_key_in(static_cast<uint64_t>(TILING_KEY_VAR), {__VA_ARGS__}))

// The library's share at the start of the workspace (platform_ascendc GetLibApiWorkSpaceSize: 16 MiB on NPU
// arch 2201 and 3510, 2 MiB elsewhere); project.py passes the SoC's value.
#ifndef TUNER_SIM_SYS_WORKSPACE
#define TUNER_SIM_SYS_WORKSPACE (16u * 1024u * 1024u)
#endif

namespace tuner_sim {
// What GET_TILING_DATA reads when no TilingData struct is known: refused at compile time with the reason.
struct NoDefaultTiling {};

template <class T>
TUNER_SIM_UNCHARGED inline T load_tiling(const void* tiling) {
    static_assert(!std::is_same_v<T, NoDefaultTiling>,
                  "GET_TILING_DATA is not supported by the tuner simulator without a TilingData struct: run the "
                  "op as a CANN project (tuner simulate --project DIR generates the struct from op_host's "
                  "BEGIN_TILING_DATA_DEF), or name a standard C++ struct with REGISTER_TILING_DEFAULT(T) first");
    static_assert(std::is_trivially_copyable_v<T>, "a TilingData struct must be trivially copyable");
    T value;
    std::memcpy(static_cast<void*>(&value), tiling, sizeof(T));
    return value;
}

template <class T>
TUNER_SIM_UNCHARGED constexpr bool tiling_key_in(uint64_t key, std::initializer_list<T> keys) {
    for (T k : keys)
        if (static_cast<uint64_t>(k) == key) return true;
    return false;
}
}  // namespace tuner_sim

#ifdef TUNER_SIM_PROJECT_DEFAULT_TILING
using tuner_sim_default_tiling_type = TUNER_SIM_PROJECT_DEFAULT_TILING;
#else
using tuner_sim_default_tiling_type = ::tuner_sim::NoDefaultTiling;
#endif

#define GET_TILING_DATA(tiling_data, tiling_arg) \
    auto tiling_data = ::tuner_sim::load_tiling<tuner_sim_default_tiling_type>(tiling_arg)
#define GET_TILING_DATA_WITH_STRUCT(tiling_struct, tiling_data, tiling_arg) \
    tiling_struct tiling_data = ::tuner_sim::load_tiling<tiling_struct>(tiling_arg)
#define GET_TILING_DATA_MEMBER(tiling_type, member, var, tiling_arg)                                     \
    const tiling_type tuner_sim_tiling_holder_##var = ::tuner_sim::load_tiling<tiling_type>(tiling_arg); \
    auto& var = tuner_sim_tiling_holder_##var.member
#define GET_TILING_DATA_PTR_WITH_STRUCT(tiling_struct, dst_ptr, tiling_ptr) \
    const tiling_struct* dst_ptr = reinterpret_cast<const tiling_struct*>(tiling_ptr)
#define COPY_TILING_WITH_STRUCT(tiling_struct, src_ptr, dst_ptr)                                              \
    const tiling_struct tuner_sim_tiling_copy_##dst_ptr = ::tuner_sim::load_tiling<tiling_struct>(src_ptr); \
    const tiling_struct* dst_ptr = &tuner_sim_tiling_copy_##dst_ptr
#define COPY_TILING_WITH_ARRAY(arr_type, arr_count, src_ptr, dst_ptr)                                     \
    struct tuner_sim_tiling_arr_##dst_ptr {                                                              \
        arr_type v[arr_count];                                                                           \
    };                                                                                                   \
    const tuner_sim_tiling_arr_##dst_ptr tuner_sim_tiling_copy_##dst_ptr =                               \
        ::tuner_sim::load_tiling<tuner_sim_tiling_arr_##dst_ptr>(src_ptr);                               \
    const arr_type(*dst_ptr)[arr_count] = &tuner_sim_tiling_copy_##dst_ptr.v
// A standard C++ TilingData struct (the host fills it through context->GetTilingData<T>()).
#define REGISTER_TILING_DEFAULT(tiling_struct) using tuner_sim_default_tiling_type = tiling_struct
#define REGISTER_TILING_FOR_TILINGKEY(expr, tiling_struct)
#define REGISTER_NONE_TILING
#ifndef KERNEL_TASK_TYPE
#define KERNEL_TASK_TYPE(key, type)
#endif

// The op_host tiling header included by a kernel: its classes become unused structs (the real ones come from
// the generated header, by the same names), and registrations vanish.
#if !defined(TUNER_SIM_CANN_HOST)
#define BEGIN_TILING_DATA_DEF(class_name) struct tuner_sim_unused_##class_name {
#define TILING_DATA_FIELD_DEF(data_type, field_name) data_type field_name = 0;
#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name) arr_type field_name[arr_size] = {};
#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name) struct_type field_name;
#define END_TILING_DATA_DEF }
#define REGISTER_TILING_DATA_CLASS(op_type, class_name)
#endif

namespace AscendC {
#ifndef TUNER_SIM_HAS_WORKSPACE_API
#define TUNER_SIM_HAS_WORKSPACE_API
// The user's part of the workspace: past the library's share (GetUserWorkspace in CANN).
template <class T>
TUNER_SIM_UNCHARGED inline T* GetUserWorkspace(T* workspace) {
    return workspace == nullptr ? nullptr
                                : reinterpret_cast<T*>(reinterpret_cast<uint8_t*>(workspace) + TUNER_SIM_SYS_WORKSPACE);
}
template <class T>
TUNER_SIM_UNCHARGED inline void SetSysWorkspace(T*) {}
TUNER_SIM_UNCHARGED inline void SetSysWorkspaceForce(void*) {}
#endif
}  // namespace AscendC

#ifndef ASCEND_IS_AIV
#define ASCEND_IS_AIV (true)
#define ASCEND_IS_AIC (false)
#define ASCEND_IS_NOT_AIV (false)
#define ASCEND_IS_NOT_AIC (true)
#endif

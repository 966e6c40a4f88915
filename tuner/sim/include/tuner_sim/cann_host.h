// tuner simulator: the host side of a CANN custom-operator project (msopgen layout), for `tuner simulate
// --project`. op_host/*.cpp compile unchanged against these declarations (register/op_def_registry.h,
// register/tilingdata_base.h, tiling/platform/platform_ascendc.h, exe_graph/..., graph/... include this file)
// and are linked with a driver (cann_host_main.h) that registers the op, builds the contexts from the inputs'
// shapes and dtypes and the attrs, runs InferShape and the tiling function, and prints what they set.
// Names, signatures and numbers follow Huawei's documentation (asc-devkit docs/zh/api/Utils-API: OpDef,
// TilingData, PlatformAscendC; the gert:: context classes of the metadef API reference).
//
// Compiled in a kernel (__CCE_KT_TEST__ without TUNER_SIM_CANN_HOST), the tiling-data macros define plain
// structs instead (tiling_data.h): a kernel that includes its op_host tiling header still compiles.
#pragma once

#if defined(__CCE_KT_TEST__) && !defined(TUNER_SIM_CANN_HOST)
#include "tiling_data.h"
#else

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#ifndef TUNER_SIM_CANN_HOST
#define TUNER_SIM_CANN_HOST 1
#endif

// The advanced APIs' host helpers and tiling structs (SoftMaxTilingFunc, SoftMaxTiling, ...): a TilingData may
// hold one (TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, ...)).
#include "adv_host.h"

// ------------------------------------------------------------------------------------------------ ge::
namespace ge {
using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFFU;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649U;
constexpr graphStatus GRAPH_NOT_CHANGED = 1343242304U;
using Status = uint32_t;
constexpr Status SUCCESS = 0;
constexpr Status FAILED = 0xFFFFFFFFU;
constexpr Status PARAM_INVALID = 50331649U;

// The numbering of graph/types.h (the same numbers the kernel side's DT_* macros carry).
enum DataType {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7,
    DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12, DT_STRING = 13,
    DT_DUAL_SUB_INT8 = 14, DT_DUAL_SUB_UINT8 = 15, DT_COMPLEX64 = 16, DT_COMPLEX128 = 17, DT_QINT8 = 18,
    DT_QINT16 = 19, DT_QINT32 = 20, DT_QUINT8 = 21, DT_QUINT16 = 22, DT_RESOURCE = 23, DT_STRING_REF = 24,
    DT_DUAL = 25, DT_VARIANT = 26, DT_BF16 = 27, DT_UNDEFINED = 28, DT_INT4 = 29, DT_UINT1 = 30, DT_INT2 = 31,
    DT_UINT2 = 32, DT_COMPLEX32 = 33, DT_HIFLOAT8 = 34, DT_FLOAT8_E5M2 = 35, DT_FLOAT8_E4M3FN = 36,
    DT_FLOAT8_E8M0 = 37, DT_FLOAT6_E3M2 = 38, DT_FLOAT6_E2M3 = 39, DT_FLOAT4_E2M1 = 40, DT_FLOAT4_E1M2 = 41,
    DT_MAX = 42
};

enum Format {
    FORMAT_NCHW = 0, FORMAT_NHWC = 1, FORMAT_ND = 2, FORMAT_NC1HWC0 = 3, FORMAT_FRACTAL_Z = 4,
    FORMAT_NC1C0HWPAD = 5, FORMAT_NHWC1C0 = 6, FORMAT_FSR_NCHW = 7, FORMAT_FRACTAL_DECONV = 8, FORMAT_C1HWNC0 = 9,
    FORMAT_FRACTAL_DECONV_TRANSPOSE = 10, FORMAT_FRACTAL_DECONV_SP_STRIDE_TRANS = 11, FORMAT_NC1HWC0_C04 = 12,
    FORMAT_FRACTAL_Z_C04 = 13, FORMAT_CHWN = 14, FORMAT_FRACTAL_DECONV_SP_STRIDE8_TRANS = 15, FORMAT_HWCN = 16,
    FORMAT_NC1KHKWHWC0 = 17, FORMAT_BN_WEIGHT = 18, FORMAT_FILTER_HWCK = 19, FORMAT_HASHTABLE_LOOKUP_LOOKUPS = 20,
    FORMAT_HASHTABLE_LOOKUP_KEYS = 21, FORMAT_HASHTABLE_LOOKUP_VALUE = 22, FORMAT_HASHTABLE_LOOKUP_OUTPUT = 23,
    FORMAT_HASHTABLE_LOOKUP_HITS = 24, FORMAT_C1HWNCoC0 = 25, FORMAT_MD = 26, FORMAT_NDHWC = 27,
    FORMAT_FRACTAL_ZZ = 28, FORMAT_FRACTAL_NZ = 29, FORMAT_NCDHW = 30, FORMAT_DHWCN = 31, FORMAT_NDC1HWC0 = 32,
    FORMAT_FRACTAL_Z_3D = 33, FORMAT_CN = 34, FORMAT_NC = 35, FORMAT_DHWNC = 36,
    FORMAT_FRACTAL_Z_3D_TRANSPOSE = 37, FORMAT_FRACTAL_ZN_LSTM = 38, FORMAT_FRACTAL_Z_G = 39,
    FORMAT_RESERVED = 40, FORMAT_ALL = 41, FORMAT_NULL = 42, FORMAT_ND_RNN_BIAS = 43, FORMAT_FRACTAL_ZN_RNN = 44,
    FORMAT_NYUV = 45, FORMAT_NYUV_A = 46, FORMAT_NCL = 47, FORMAT_MAX = 0xff
};

inline int GetSizeByDataType(DataType dt) {
    switch (dt) {
        case DT_INT8: case DT_UINT8: case DT_BOOL: case DT_QINT8: case DT_QUINT8: case DT_HIFLOAT8:
        case DT_FLOAT8_E5M2: case DT_FLOAT8_E4M3FN: case DT_FLOAT8_E8M0: case DT_DUAL_SUB_INT8:
        case DT_DUAL_SUB_UINT8: return 1;
        case DT_FLOAT16: case DT_BF16: case DT_INT16: case DT_UINT16: case DT_QINT16: case DT_QUINT16: return 2;
        case DT_FLOAT: case DT_INT32: case DT_UINT32: case DT_QINT32: case DT_COMPLEX32: return 4;
        case DT_INT64: case DT_UINT64: case DT_DOUBLE: case DT_COMPLEX64: return 8;
        case DT_COMPLEX128: return 16;
        default: return -1;
    }
}
inline int GetSizeByDataType(int dt) { return GetSizeByDataType(static_cast<DataType>(dt)); }

inline const char* tuner_data_type_name(DataType dt) {
    switch (dt) {
        case DT_FLOAT: return "DT_FLOAT"; case DT_FLOAT16: return "DT_FLOAT16"; case DT_BF16: return "DT_BF16";
        case DT_INT8: return "DT_INT8"; case DT_UINT8: return "DT_UINT8"; case DT_INT16: return "DT_INT16";
        case DT_UINT16: return "DT_UINT16"; case DT_INT32: return "DT_INT32"; case DT_UINT32: return "DT_UINT32";
        case DT_INT64: return "DT_INT64"; case DT_UINT64: return "DT_UINT64"; case DT_DOUBLE: return "DT_DOUBLE";
        case DT_BOOL: return "DT_BOOL"; case DT_STRING: return "DT_STRING"; case DT_COMPLEX64: return "DT_COMPLEX64";
        case DT_INT4: return "DT_INT4"; case DT_UNDEFINED: return "DT_UNDEFINED";
        default: return "DT_UNKNOWN";
    }
}

// graph/tensor.h's shape, as the advanced APIs' host helpers take it (GetSoftMaxMaxTmpSize(ge::Shape, ...)).
class Shape {
public:
    Shape() = default;
    explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}
    std::vector<int64_t> GetDims() const { return dims_; }
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t i) const { return i < dims_.size() ? dims_[i] : 0; }
    ge::graphStatus SetDim(size_t i, int64_t v) {
        if (i >= dims_.size()) return GRAPH_FAILED;
        dims_[i] = v;
        return GRAPH_SUCCESS;
    }
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (int64_t d : dims_) n *= d;
        return dims_.empty() ? 0 : n;
    }
    operator AscendC::TensorShape() const { return AscendC::TensorShape(dims_); }  // NOLINT: implicit

private:
    std::vector<int64_t> dims_;
};

class AscendString {
public:
    AscendString() = default;
    AscendString(const char* s) : s_(s ? s : "") {}  // NOLINT: implicit, as in graph/ascend_string.h
    const char* GetString() const { return s_.c_str(); }
    size_t GetLength() const { return s_.size(); }
    bool operator<(const AscendString& o) const { return s_ < o.s_; }
    bool operator==(const AscendString& o) const { return s_ == o.s_; }
private:
    std::string s_;
};

class TypeUtils {
public:
    static std::string DataTypeToSerialString(DataType dt) { return tuner_data_type_name(dt); }
    static AscendString DataTypeToAscendString(DataType dt) { return AscendString(tuner_data_type_name(dt)); }
    static std::string FormatToSerialString(Format f) { return f == FORMAT_ND ? "ND" : std::to_string(int(f)); }
    static bool GetDataTypeLength(DataType dt, uint32_t& length) {
        int n = GetSizeByDataType(dt);
        if (n < 0) return false;
        length = uint32_t(n);
        return true;
    }
};
inline Format GetPrimaryFormat(int f) { return static_cast<Format>(f & 0xff); }
inline Format GetPrimaryFormat(Format f) { return static_cast<Format>(int(f) & 0xff); }
}  // namespace ge
// 高阶API/数据结构/TensorDataType.md: the advanced APIs' host helpers take ge::DataType under this name.
namespace AscendC {
using TensorDataType = ge::DataType;
}  // namespace AscendC

namespace domi {
using Status = uint32_t;
}

// ---------------------------------------------------------------------------------------------- fe::
namespace fe {
// The platform description the tiling function reads through PlatformAscendC; the driver fills it from the
// tuner's SoC data (tuner/data/socs.yaml) and the documented per-family buffer sizes.
class PlatFormInfos {
public:
    std::map<std::string, std::map<std::string, std::string>> res;
    uint32_t core_num = 0;
    uint32_t GetCoreNum() const { return core_num; }
    void SetCoreNum(uint32_t n) { core_num = n; }
    bool GetPlatformRes(const std::string& label, const std::string& key, std::string& val) const {
        auto l = res.find(label);
        if (l == res.end()) return false;
        auto k = l->second.find(key);
        if (k == l->second.end()) return false;
        val = k->second;
        return true;
    }
    bool GetPlatformResWithLock(const std::string& label, const std::string& key, std::string& val) const {
        return GetPlatformRes(label, key, val);
    }
    bool GetPlatformResWithLock(const std::string& label, std::map<std::string, std::string>& vals) const {
        auto l = res.find(label);
        if (l == res.end()) return false;
        vals = l->second;
        return true;
    }
    void SetPlatformRes(const std::string& label, const std::string& key, const std::string& val) {
        res[label][key] = val;
    }
    uint64_t tuner_u64(const char* label, const char* key) const {
        std::string v;
        return GetPlatformRes(label, key, v) && !v.empty() ? std::strtoull(v.c_str(), nullptr, 10) : 0;
    }
};
class OptionalInfos {};
}  // namespace fe

// ----------------------------------------------------------------------------------- platform_ascendc
enum class NpuArch : uint32_t {
    DAV_1001 = 1001, DAV_2002 = 2002, DAV_2201 = 2201, DAV_3002 = 3002, DAV_3102 = 3102, DAV_3510 = 3510,
    DAV_5102 = 5102, DAV_RESV = 0xFFFFFFFFU
};

namespace platform_ascendc {
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };
enum class SocVersion {
    ASCEND910 = 0, ASCEND910B, ASCEND310P, ASCEND310B, ASCEND950, ASCEND910_55, ASCEND910_95 = ASCEND950, AS31XM1,
    ASCEND031, ASCEND035, ASCEND310, ASCEND610, ASCEND610Lite, ASCEND910_93, BS9SX1A, BS9SX2A, HI3796CV300CS,
    HI3796CV300ES, MC61AM21A, MC62, SD3403, KIRINX90, KIRIN9030, MC32DM11A, ASCEND350, RESERVED_VERSION = 99999
};
enum class ReservedSize { RESERVED_SIZE_8K, RESERVED_SIZE_16K, RESERVED_SIZE_32K };

// Workspace the Ascend C library reserves at the start of a kernel's workspace (GetLibApiWorkSpaceSize): 16 MiB
// on NPU arch 2201 (Atlas A2/A3) and 3510 (950), 2 MiB elsewhere; asc-devkit
// impl/utils/tiling/platform/platform_ascendc.cpp (WORK_SPACE_SIZE_910B, WORK_SPACE_SIZE_950, WORK_SPACE_SIZE).
inline uint32_t tuner_lib_workspace_bytes(uint32_t npu_arch) {
    return (npu_arch == 2201 || npu_arch == 3510) ? 16U * 1024U * 1024U : 2U * 1024U * 1024U;
}

class PlatformAscendC {
public:
    PlatformAscendC() = delete;
    ~PlatformAscendC() = default;
    explicit PlatformAscendC(fe::PlatFormInfos* platformInfo) : platformInfo_(platformInfo) {}
    uint32_t GetCoreNum() const { return info() ? info()->GetCoreNum() : 0; }
    uint32_t GetCoreNumAic() const { return by_type(false); }
    uint32_t GetCoreNumAiv() const { return by_type(true); }
    uint32_t GetCoreNumVector() const {
        return GetSocVersion() == SocVersion::ASCEND310P ? uint32_t(info()->tuner_u64("SoCInfo", "vector_core_cnt"))
                                                         : 0;
    }
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        return CalcTschNumBlocks(sliceNum, aicCoreNum, aivCoreNum);
    }
    // The documented rule: with both core kinds in use on A2/A3, blocks are counted in AI cores (one AIC and
    // its two AIVs); otherwise the slice count itself.
    uint32_t CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) return sliceNum;
        uint32_t ration = aivCoreNum / aicCoreNum;
        uint32_t blocks = (sliceNum + ration - 1) / ration;
        return (ration == 2 && blocks > aicCoreNum) ? 0 : blocks;  // more groups than AI cores: refused (0)
    }
    uint32_t GetLibApiWorkSpaceSize() const { return tuner_lib_workspace_bytes(arch()); }
    uint32_t GetResCubeGroupWorkSpaceSize() const { return arch() == 2201 ? 1U << 20 : 0; }
    uint32_t GetResGroupBarrierWorkSpaceSize() const { return arch() == 2201 ? 1U << 20 : 0; }
    void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const {
        static const char* const keys[] = {"l0_a_size", "l0_b_size", "l0_c_size", "l1_size", "l2_size", "ub_size",
                                           "memory_size", "fb_size", "bt_size"};
        int i = static_cast<int>(memType);
        size = (i >= 0 && i < 9 && info()) ? info()->tuner_u64(i == 4 || i == 6 ? "SoCInfo" : "AICoreSpec", keys[i])
                                           : 0;
        // platform_ascendc.cpp: 256 bytes of UB and L1 are kept back on Ascend910B-class SoCs, and what
        // ReserveLocalMemory reserved comes off the UB.
        if ((memType == CoreMemType::UB || memType == CoreMemType::L1) && GetSocVersion() == SocVersion::ASCEND910B &&
            size >= 256) {
            size -= 256;
        }
        if (memType == CoreMemType::UB) size -= std::min<uint64_t>(size, reserved_);
    }
    void GetCoreMemBw(const CoreMemType& memType, uint64_t& bwSize) const {
        bwSize = memType == CoreMemType::HBM ? info()->tuner_u64("SoCInfo", "hbm_bw") : 0;
    }
    void ReserveLocalMemory(ReservedSize size) {
        reserved_ = size == ReservedSize::RESERVED_SIZE_8K ? 8192U : size == ReservedSize::RESERVED_SIZE_16K ? 16384U
                                                                                                             : 32768U;
    }
    SocVersion GetSocVersion() const {
        std::string s;
        if (!info() || !info()->GetPlatformRes("version", "Short_SoC_version", s)) return SocVersion::RESERVED_VERSION;
        if (s == "Ascend910B" || s == "Ascend910_93") return SocVersion::ASCEND910B;
        if (s == "Ascend310P") return SocVersion::ASCEND310P;
        if (s == "Ascend950") return SocVersion::ASCEND950;
        if (s == "Ascend910") return SocVersion::ASCEND910;
        if (s == "Ascend310B") return SocVersion::ASCEND310B;
        return SocVersion::RESERVED_VERSION;
    }
    NpuArch GetCurNpuArch() const { return static_cast<NpuArch>(arch()); }
    uint32_t GetVecRegLen() const { return uint32_t(info()->tuner_u64("AICoreSpec", "vector_reg_width")); }

private:
    fe::PlatFormInfos* info() const { return platformInfo_; }
    uint32_t arch() const { return info() ? uint32_t(info()->tuner_u64("version", "NpuArch")) : 0; }
    uint32_t by_type(bool aiv) const {
        if (!info()) return 0;
        std::string split;
        info()->GetPlatformRes("SoCInfo", "core_type_list", split);
        const char* key = split != "CubeCore,VectorCore" ? "ai_core_cnt" : aiv ? "vector_core_cnt" : "cube_core_cnt";
        return uint32_t(info()->tuner_u64("SoCInfo", key));
    }
    fe::PlatFormInfos* platformInfo_;
    uint64_t reserved_ = 0;
};

fe::PlatFormInfos* tuner_platform_infos();
#ifndef TUNER_SIM_PROJECT_DRIVER
// A whole program (tuner simulate PROGRAM.asc) has no project driver to define it: an empty platform, weak so
// that a driver's definition wins.
__attribute__((weak)) fe::PlatFormInfos* tuner_platform_infos() {
    static fe::PlatFormInfos p;
    return &p;
}
#endif
class PlatformAscendCManager {
public:
    static PlatformAscendC* GetInstance() {
        static PlatformAscendC instance(tuner_platform_infos());
        return &instance;
    }
    static PlatformAscendC* GetInstance(const char*) { return GetInstance(); }
};
}  // namespace platform_ascendc

// --------------------------------------------------------------------------------------------- gert::
namespace gert {
class Shape {
public:
    static constexpr size_t kMaxDimNum = 25;
    Shape() = default;
    Shape(std::initializer_list<int64_t> dims) {
        for (int64_t d : dims) AppendDim(d);
    }
    size_t GetDimNum() const { return dim_num_; }
    void SetDimNum(size_t n) { dim_num_ = std::min(n, kMaxDimNum); }
    int64_t GetDim(size_t i) const { return i < dim_num_ ? dims_[i] : std::numeric_limits<int64_t>::min(); }
    void SetDim(size_t i, int64_t v) {
        if (i < kMaxDimNum) dims_[i] = v;
    }
    Shape& AppendDim(int64_t v) {
        if (dim_num_ < kMaxDimNum) dims_[dim_num_++] = v;
        return *this;
    }
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (size_t i = 0; i < dim_num_; ++i) {
            if (dims_[i] < 0) return -1;
            n *= dims_[i];
        }
        return n;
    }
    bool IsScalar() const { return dim_num_ == 0; }
    void SetScalar() { dim_num_ = 0; }
    const int64_t& operator[](size_t i) const { return dims_[i]; }
    int64_t& operator[](size_t i) { return dims_[i]; }
    bool operator==(const Shape& o) const {
        if (dim_num_ != o.dim_num_) return false;
        for (size_t i = 0; i < dim_num_; ++i)
            if (dims_[i] != o.dims_[i]) return false;
        return true;
    }
    bool operator!=(const Shape& o) const { return !(*this == o); }
    const Shape& GetOriginShape() const { return *this; }
    const Shape& GetStorageShape() const { return *this; }

private:
    size_t dim_num_ = 0;
    int64_t dims_[kMaxDimNum] = {};
};

class StorageShape {
public:
    StorageShape() = default;
    StorageShape(std::initializer_list<int64_t> origin, std::initializer_list<int64_t> storage)
        : origin_(origin), storage_(storage) {}
    const Shape& GetOriginShape() const { return origin_; }
    const Shape& GetStorageShape() const { return storage_; }
    Shape& MutableOriginShape() { return origin_; }
    Shape& MutableStorageShape() { return storage_; }
    bool operator==(const StorageShape& o) const { return origin_ == o.origin_ && storage_ == o.storage_; }

private:
    Shape origin_;
    Shape storage_;
};

class StorageFormat {
public:
    StorageFormat() = default;
    StorageFormat(ge::Format origin, ge::Format storage) : origin_(origin), storage_(storage) {}
    ge::Format GetOriginFormat() const { return origin_; }
    ge::Format GetStorageFormat() const { return storage_; }
    void SetOriginFormat(ge::Format f) { origin_ = f; }
    void SetStorageFormat(ge::Format f) { storage_ = f; }

private:
    ge::Format origin_ = ge::FORMAT_ND;
    ge::Format storage_ = ge::FORMAT_ND;
};

class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return dtype_; }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    const StorageFormat& GetFormat() const { return format_; }
    void SetDataType(ge::DataType dt) { dtype_ = dt; }
    void SetStorageFormat(ge::Format f) { format_.SetStorageFormat(f); }
    void SetOriginFormat(ge::Format f) { format_.SetOriginFormat(f); }

private:
    ge::DataType dtype_ = ge::DT_UNDEFINED;
    StorageFormat format_;
};

enum TensorPlacement { kOnDeviceHbm, kOnHost, kFollowing, kTensorPlacementEnd };

class Tensor {
public:
    const StorageShape& GetShape() const { return shape_; }
    StorageShape& GetShape() { return shape_; }
    const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
    const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
    Shape& MutableOriginShape() { return shape_.MutableOriginShape(); }
    Shape& MutableStorageShape() { return shape_.MutableStorageShape(); }
    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
    ge::DataType GetDataType() const { return dtype_; }
    void SetDataType(ge::DataType dt) { dtype_ = dt; }
    const StorageFormat& GetFormat() const { return format_; }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    TensorPlacement GetPlacement() const { return nbytes_ ? kOnHost : kOnDeviceHbm; }
    template <class T>
    const T* GetData() const { return nbytes_ ? reinterpret_cast<const T*>(words_.data()) : nullptr; }
    const void* GetAddr() const { return nbytes_ ? words_.data() : nullptr; }
    const void* GetTensorData() const { return GetAddr(); }
    size_t GetSize() const { return nbytes_; }
    // The values of a ValueDepend input, as the framework hands them to the tiling function (8-byte aligned).
    void tuner_set_data(const std::string& bytes) {
        words_.assign((bytes.size() + 7) / 8, 0);
        if (!bytes.empty()) std::memcpy(words_.data(), bytes.data(), bytes.size());
        nbytes_ = bytes.size();
    }

private:
    StorageShape shape_;
    ge::DataType dtype_ = ge::DT_UNDEFINED;
    StorageFormat format_;
    std::vector<uint64_t> words_;
    size_t nbytes_ = 0;
};

template <class T>
class TypedContinuousVector {
public:
    TypedContinuousVector() = default;
    explicit TypedContinuousVector(const std::vector<T>& v) { assign(v.begin(), v.end(), v.size()); }
    TypedContinuousVector(const TypedContinuousVector& o) { assign(o.p_.get(), o.p_.get() + o.n_, o.n_); }
    TypedContinuousVector& operator=(const TypedContinuousVector& o) {
        if (this != &o) assign(o.p_.get(), o.p_.get() + o.n_, o.n_);
        return *this;
    }
    size_t GetSize() const { return n_; }
    size_t GetCapacity() const { return n_; }
    const T* GetData() const { return p_.get(); }
    T* MutableData() { return p_.get(); }
    bool SetSize(size_t n) {
        if (n > n_) return false;
        n_ = n;
        return true;
    }

private:
    template <class It>
    void assign(It first, It last, size_t n) {
        p_.reset(new T[n ? n : 1]());
        std::copy(first, last, p_.get());
        n_ = n;
    }
    std::unique_ptr<T[]> p_;
    size_t n_ = 0;
};
using ContinuousVector = TypedContinuousVector<int64_t>;

class ContinuousVectorVector {
public:
    size_t GetSize() const { return v_.size(); }
    const TypedContinuousVector<int64_t>* Get(size_t i) const { return i < v_.size() ? &v_[i] : nullptr; }
    std::vector<TypedContinuousVector<int64_t>> v_;
};

// One attr value as the runtime keeps it; which getter applies depends on the type the OpDef declared.
struct TunerAttrValue {
    enum Kind { Int, Float, Bool, Str, ListInt, ListFloat, ListBool, ListListInt } kind = Int;
    int64_t i = 0;
    float f = 0.0F;
    bool b = false;
    std::string s;
    TypedContinuousVector<int64_t> li;
    TypedContinuousVector<float> lf;
    TypedContinuousVector<bool> lb;
    ContinuousVectorVector lli;
};

class RuntimeAttrs {
public:
    size_t GetAttrNum() const { return attrs_.size(); }
    const int64_t* GetInt(size_t i) const { return at(i, TunerAttrValue::Int) ? &attrs_[i].i : nullptr; }
    const float* GetFloat(size_t i) const { return at(i, TunerAttrValue::Float) ? &attrs_[i].f : nullptr; }
    const bool* GetBool(size_t i) const { return at(i, TunerAttrValue::Bool) ? &attrs_[i].b : nullptr; }
    const char* GetStr(size_t i) const { return at(i, TunerAttrValue::Str) ? attrs_[i].s.c_str() : nullptr; }
    const TypedContinuousVector<int64_t>* GetListInt(size_t i) const {
        return at(i, TunerAttrValue::ListInt) ? &attrs_[i].li : nullptr;
    }
    const TypedContinuousVector<float>* GetListFloat(size_t i) const {
        return at(i, TunerAttrValue::ListFloat) ? &attrs_[i].lf : nullptr;
    }
    const TypedContinuousVector<bool>* GetListBool(size_t i) const {
        return at(i, TunerAttrValue::ListBool) ? &attrs_[i].lb : nullptr;
    }
    const ContinuousVectorVector* GetListListInt(size_t i) const {
        return at(i, TunerAttrValue::ListListInt) ? &attrs_[i].lli : nullptr;
    }
    // The attr's raw storage seen as T, as the runtime hands it out: an Int attr read as int32_t gives its low
    // half (the value, on little-endian hosts), a list attr is its TypedContinuousVector.
    template <class T>
    const T* GetAttrPointer(size_t i) const {
        if (i >= attrs_.size()) return nullptr;
        const TunerAttrValue& a = attrs_[i];
        const void* p = nullptr;
        switch (a.kind) {
            case TunerAttrValue::Int: p = &a.i; break;
            case TunerAttrValue::Float: p = &a.f; break;
            case TunerAttrValue::Bool: p = &a.b; break;
            case TunerAttrValue::Str: p = a.s.c_str(); break;
            case TunerAttrValue::ListInt: p = &a.li; break;
            case TunerAttrValue::ListFloat: p = &a.lf; break;
            case TunerAttrValue::ListBool: p = &a.lb; break;
            case TunerAttrValue::ListListInt: p = &a.lli; break;
        }
        return static_cast<const T*>(p);
    }
    std::vector<TunerAttrValue> attrs_;

private:
    bool at(size_t i, TunerAttrValue::Kind k) const { return i < attrs_.size() && attrs_[i].kind == k; }
};

// The tiling data buffer of one launch (exe_graph/runtime/tiling_data.h).
class TilingData {
public:
    size_t GetCapacity() const { return capacity_; }
    size_t GetDataSize() const { return data_size_; }
    void SetDataSize(size_t size) {
        if (size > capacity_) tuner_overflow(size, capacity_, "SetDataSize");
        data_size_ = size;
    }
    void* GetData() { return data_; }
    const void* GetData() const { return data_; }
    void Init(size_t cap, void* data) {
        capacity_ = cap;
        data_ = static_cast<uint8_t*>(data);
        data_size_ = 0;
    }
    template <class T>
    ge::graphStatus Append(const T& value) {
        if (data_size_ + sizeof(T) > capacity_) {
            tuner_overflow(data_size_ + sizeof(T), capacity_, "Append");
            return ge::GRAPH_FAILED;
        }
        std::memcpy(data_ + data_size_, &value, sizeof(T));
        data_size_ += sizeof(T);
        return ge::GRAPH_SUCCESS;
    }
    template <class T>
    ge::graphStatus Append(const T* values, size_t n) {
        for (size_t i = 0; i < n; ++i)
            if (Append(values[i]) != ge::GRAPH_SUCCESS) return ge::GRAPH_FAILED;
        return ge::GRAPH_SUCCESS;
    }
    static std::unique_ptr<uint8_t[]> CreateCap(size_t cap) {
        auto buf = std::unique_ptr<uint8_t[]>(new uint8_t[sizeof(TilingData) + cap]());
        reinterpret_cast<TilingData*>(buf.get())->Init(cap, buf.get() + sizeof(TilingData));
        return buf;
    }
    static void tuner_overflow(size_t wanted, size_t capacity, const char* how);

private:
    size_t capacity_ = 0;
    size_t data_size_ = 0;
    uint8_t* data_ = nullptr;
};

// What the driver gives every context: the op's instance inputs and outputs, attrs, platform.
struct TunerOpRun {
    std::string node_name;
    std::string node_type;
    std::vector<int> input_instance;  // IR input index -> instance index, -1 when an optional input is absent
    std::vector<StorageShape> in_shapes;
    std::vector<CompileTimeTensorDesc> in_descs;
    std::vector<Tensor> in_tensors;
    std::vector<StorageShape> out_shapes;
    std::vector<CompileTimeTensorDesc> out_descs;
    std::vector<ge::DataType> out_dtypes_inferred;
    RuntimeAttrs attrs;
    fe::PlatFormInfos* platform = nullptr;
    std::shared_ptr<void> compile_info;
    // what the tiling function sets
    uint32_t block_dim = 0;
    bool block_dim_set = false;
    uint64_t tiling_key = 0;
    bool need_atomic = false;
    uint32_t schedule_mode = 0;
    uint32_t local_memory_size = 0;
    std::vector<size_t> workspaces;
    TilingData* tiling = nullptr;
};

class ExtendedKernelContext {
public:
    explicit ExtendedKernelContext(TunerOpRun* run) : run_(run) {}
    const char* GetNodeName() const { return run_->node_name.c_str(); }
    const char* GetNodeType() const { return run_->node_type.c_str(); }
    const RuntimeAttrs* GetAttrs() const { return &run_->attrs; }
    size_t GetComputeNodeInputNum() const { return run_->in_shapes.size(); }
    size_t GetComputeNodeOutputNum() const { return run_->out_shapes.size(); }
    const CompileTimeTensorDesc* GetInputDesc(size_t i) const {
        return i < run_->in_descs.size() ? &run_->in_descs[i] : nullptr;
    }
    const CompileTimeTensorDesc* GetOptionalInputDesc(size_t ir) const {
        int k = instance(ir);
        return k < 0 ? nullptr : &run_->in_descs[size_t(k)];
    }
    const CompileTimeTensorDesc* GetDynamicInputDesc(size_t ir, size_t rel) const {
        return rel == 0 ? GetOptionalInputDesc(ir) : nullptr;
    }
    const CompileTimeTensorDesc* GetOutputDesc(size_t i) const {
        return i < run_->out_descs.size() ? &run_->out_descs[i] : nullptr;
    }
    const CompileTimeTensorDesc* GetRequiredInputDesc(size_t ir) const { return GetOptionalInputDesc(ir); }

protected:
    int instance(size_t ir) const {
        return ir < run_->input_instance.size() ? run_->input_instance[ir] : -1;
    }
    TunerOpRun* run_;
};

class TilingContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    const StorageShape* GetInputShape(size_t i) const {
        return i < run_->in_shapes.size() ? &run_->in_shapes[i] : nullptr;
    }
    const StorageShape* GetOptionalInputShape(size_t ir) const {
        int k = instance(ir);
        return k < 0 ? nullptr : &run_->in_shapes[size_t(k)];
    }
    const StorageShape* GetRequiredInputShape(size_t ir) const { return GetOptionalInputShape(ir); }
    const StorageShape* GetDynamicInputShape(size_t ir, size_t rel) const {
        return rel == 0 ? GetOptionalInputShape(ir) : nullptr;
    }
    const StorageShape* GetOutputShape(size_t i) const {
        return i < run_->out_shapes.size() ? &run_->out_shapes[i] : nullptr;
    }
    const Tensor* GetInputTensor(size_t i) const {
        return i < run_->in_tensors.size() ? &run_->in_tensors[i] : nullptr;
    }
    const Tensor* GetOptionalInputTensor(size_t ir) const {
        int k = instance(ir);
        return k < 0 ? nullptr : &run_->in_tensors[size_t(k)];
    }
    const Tensor* GetRequiredInputTensor(size_t ir) const { return GetOptionalInputTensor(ir); }
    const Tensor* GetDynamicInputTensor(size_t ir, size_t rel) const {
        return rel == 0 ? GetOptionalInputTensor(ir) : nullptr;
    }
    fe::PlatFormInfos* GetPlatformInfo() const { return run_->platform; }
    ge::graphStatus SetBlockDim(uint32_t n) {
        run_->block_dim = n;
        run_->block_dim_set = true;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetBlockDim() const { return run_->block_dim; }
    // The CANN 9 names of the same setting (SetSimdNumBlocks.md; CalcTschNumBlocks.md's example).
    ge::graphStatus SetSimdNumBlocks(uint32_t n) { return SetBlockDim(n); }
    ge::graphStatus SetNumBlocks(uint32_t n) { return SetBlockDim(n); }
    uint32_t GetSimdNumBlocks() const { return run_->block_dim; }
    uint32_t GetNumBlocks() const { return run_->block_dim; }
    ge::graphStatus SetTilingKey(uint64_t key) {
        run_->tiling_key = key;
        return ge::GRAPH_SUCCESS;
    }
    uint64_t GetTilingKey() const { return run_->tiling_key; }
    ge::graphStatus SetNeedAtomic(bool atomic) {
        run_->need_atomic = atomic;
        return ge::GRAPH_SUCCESS;
    }
    bool NeedAtomic() const { return run_->need_atomic; }
    ge::graphStatus SetScheduleMode(uint32_t mode) {
        run_->schedule_mode = mode;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetScheduleMode() const { return run_->schedule_mode; }
    ge::graphStatus SetLocalMemorySize(uint32_t size) {
        run_->local_memory_size = size;
        return ge::GRAPH_SUCCESS;
    }
    ge::graphStatus SetAicpuBlockDim(uint32_t) { return ge::GRAPH_SUCCESS; }
    TilingData* GetRawTilingData() { return run_->tiling; }
    const TilingData* GetRawTilingData() const { return run_->tiling; }
    // The standard-C++ TilingData (REGISTER_TILING_DEFAULT on the kernel side): the struct lives in the raw
    // tiling buffer, whose data size becomes the struct's.
    template <class T>
    T* GetTilingData() {
        if (sizeof(T) > run_->tiling->GetCapacity()) {
            TilingData::tuner_overflow(sizeof(T), run_->tiling->GetCapacity(), "GetTilingData");
            return nullptr;
        }
        run_->tiling->SetDataSize(sizeof(T));
        return reinterpret_cast<T*>(run_->tiling->GetData());
    }
    size_t* GetWorkspaceSizes(size_t num) {
        if (run_->workspaces.size() < num) run_->workspaces.resize(num, 0);
        return run_->workspaces.data();
    }
    size_t GetWorkspaceNum() const { return run_->workspaces.size(); }
    ge::graphStatus SetWorkspaceSizes(const std::vector<size_t>& sizes) {
        run_->workspaces = sizes;
        return ge::GRAPH_SUCCESS;
    }
    template <class T>
    const T* GetCompileInfo() const {
        if (!run_->compile_info) run_->compile_info = std::shared_ptr<void>(new T(), [](void* p) {
            delete static_cast<T*>(p);
        });
        return static_cast<const T*>(run_->compile_info.get());
    }
    const void* GetCompileInfo() const { return run_->compile_info.get(); }
    static TilingContext* tuner_make(TunerOpRun* run);
};

class InferShapeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    const Shape* GetInputShape(size_t i) const {
        return i < run_->in_shapes.size() ? &run_->in_shapes[i].GetOriginShape() : nullptr;
    }
    const Shape* GetOptionalInputShape(size_t ir) const {
        int k = instance(ir);
        return k < 0 ? nullptr : &run_->in_shapes[size_t(k)].GetOriginShape();
    }
    const Shape* GetRequiredInputShape(size_t ir) const { return GetOptionalInputShape(ir); }
    const Shape* GetDynamicInputShape(size_t ir, size_t rel) const {
        return rel == 0 ? GetOptionalInputShape(ir) : nullptr;
    }
    Shape* GetOutputShape(size_t i) {
        return i < run_->out_shapes.size() ? &run_->out_shapes[i].MutableOriginShape() : nullptr;
    }
    const Tensor* GetInputTensor(size_t i) const {
        return i < run_->in_tensors.size() ? &run_->in_tensors[i] : nullptr;
    }
    const Tensor* GetOptionalInputTensor(size_t ir) const {
        int k = instance(ir);
        return k < 0 ? nullptr : &run_->in_tensors[size_t(k)];
    }
};

class InferDataTypeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    ge::DataType GetInputDataType(size_t i) const {
        return i < run_->in_descs.size() ? run_->in_descs[i].GetDataType() : ge::DT_UNDEFINED;
    }
    ge::DataType GetOptionalInputDataType(size_t ir) const {
        int k = instance(ir);
        return k < 0 ? ge::DT_UNDEFINED : run_->in_descs[size_t(k)].GetDataType();
    }
    ge::DataType GetDynamicInputDataType(size_t ir, size_t rel) const {
        return rel == 0 ? GetOptionalInputDataType(ir) : ge::DT_UNDEFINED;
    }
    ge::DataType GetOutputDataType(size_t i) const {
        return i < run_->out_dtypes_inferred.size() ? run_->out_dtypes_inferred[i] : ge::DT_UNDEFINED;
    }
    ge::graphStatus SetOutputDataType(size_t i, ge::DataType dt) {
        if (i >= run_->out_dtypes_inferred.size()) return ge::GRAPH_FAILED;
        run_->out_dtypes_inferred[i] = dt;
        return ge::GRAPH_SUCCESS;
    }
};

class InferShapeRangeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
};

class TilingParseContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    template <class T>
    T* GetCompiledInfo() {
        if (!run_->compile_info) run_->compile_info = std::shared_ptr<void>(new T(), [](void* p) {
            delete static_cast<T*>(p);
        });
        return static_cast<T*>(run_->compile_info.get());
    }
    fe::PlatFormInfos* GetPlatformInfo() const { return run_->platform; }
    const char* GetCompiledJson() const { return "{}"; }
};

using KernelContext = ExtendedKernelContext;
using TilingKernelFunc = std::function<ge::graphStatus(TilingContext*)>;
using InferShapeKernelFunc = std::function<ge::graphStatus(InferShapeContext*)>;
using InferDataTypeKernelFunc = std::function<ge::graphStatus(InferDataTypeContext*)>;
using InferShapeRangeKernelFunc = std::function<ge::graphStatus(InferShapeRangeContext*)>;
using TilingParseKernelFunc = std::function<ge::graphStatus(TilingParseContext*)>;
}  // namespace gert

// ---------------------------------------------------------------------------- the project's registries
namespace tuner_sim {
namespace cann {
struct TilingField {
    std::string name;
    std::string type;       // as spelled in the TILING_DATA_FIELD_DEF*
    size_t arr_size = 0;    // 0: not an array
    bool is_struct = false;
};
struct TilingClass {
    std::string name;
    size_t size = 0;
    std::vector<TilingField> fields;
};
struct OpImpl {
    gert::InferShapeKernelFunc infer_shape;
    gert::InferDataTypeKernelFunc infer_dtype;
    gert::TilingKernelFunc tiling;
    gert::TilingParseKernelFunc tiling_parse;
    std::function<std::shared_ptr<void>()> compile_info;
};

inline std::map<std::string, TilingClass>& tiling_classes() {
    static std::map<std::string, TilingClass> classes;
    return classes;
}
inline std::map<std::string, std::string>& tiling_bindings() {  // op type (or op_key) -> class name
    static std::map<std::string, std::string> bindings;
    return bindings;
}
inline std::map<std::string, OpImpl>& op_impls() {
    static std::map<std::string, OpImpl> impls;
    return impls;
}
inline int add_field(const char* cls, const char* type, const char* name, size_t arr, bool is_struct) {
    TilingClass& c = tiling_classes()[cls];
    c.name = cls;
    for (const TilingField& f : c.fields)
        if (f.name == name) return 0;
    c.fields.push_back(TilingField{name, type, arr, is_struct});
    return 0;
}
inline int bind_tiling(const char* op, const char* cls, size_t size) {
    tiling_bindings()[op] = cls;
    TilingClass& c = tiling_classes()[cls];
    c.name = cls;
    c.size = size;
    return 0;
}
template <class T>
inline int note_size(const char* cls) {
    TilingClass& c = tiling_classes()[cls];
    c.name = cls;
    c.size = sizeof(T);
    return 0;
}
}  // namespace cann
}  // namespace tuner_sim

// ------------------------------------------------------------------------- register/tilingdata_base.h
namespace optiling {
// The base every BEGIN_TILING_DATA_DEF class is named after; the classes do not derive from it, so that their
// members are laid out exactly as the kernel's generated struct (declaration order, natural alignment).
class TilingDef {
public:
    virtual ~TilingDef() = default;
    virtual void SaveToBuffer(void* pdata, size_t capacity) = 0;
    virtual size_t GetDataSize() const = 0;
};
template <class T>
class TunerTilingDefHolder : public TilingDef {
public:
    void SaveToBuffer(void* pdata, size_t capacity) override { value.SaveToBuffer(pdata, capacity); }
    size_t GetDataSize() const override { return value.GetDataSize(); }
    T value;
};
using TilingDataConstructor = std::shared_ptr<TilingDef> (*)();
class CTilingDataClassFactory {
public:
    static CTilingDataClassFactory& GetInstance() {
        static CTilingDataClassFactory f;
        return f;
    }
    static void RegisterTilingData(const char* op, TilingDataConstructor ctor) { GetInstance().ctors_[op] = ctor; }
    std::shared_ptr<TilingDef> CreateTilingDataInstance(const char* op) {
        auto it = ctors_.find(op);
        return it == ctors_.end() ? nullptr : it->second();
    }

private:
    std::map<std::string, TilingDataConstructor> ctors_;
};
}  // namespace optiling

namespace tuner_sim {
namespace cann {
// A project's driver reports it as a project fault (cann_host_main.h); in a whole program, where the host code
// calls SaveToBuffer itself, it is said on stderr, and nothing is written, as in CANN.
#ifdef TUNER_SIM_PROJECT_DRIVER
void tiling_save_failed(const char* cls, size_t size, size_t capacity);
#else
__attribute__((weak)) void tiling_save_failed(const char* cls, size_t size, size_t capacity) {
    std::fprintf(stderr, "error: TilingData %s (%zu bytes) does not fit SaveToBuffer's %zu bytes: nothing written\n",
                 cls, size, capacity);
}
#endif
}
}  // namespace tuner_sim

#define BEGIN_TILING_DATA_DEF(class_name)                                                                      \
    class class_name {                                                                                         \
        using TunerSelf = class_name;                                                                          \
        static constexpr const char* tuner_class_name() { return #class_name; }                               \
                                                                                                               \
    public:                                                                                                    \
        /* zeroed whole, padding included, so that the serialized bytes are the same on every run */          \
        class_name() { std::memset(static_cast<void*>(this), 0, sizeof(class_name)); }                         \
        size_t GetDataSize() const { return sizeof(class_name); }                                              \
        void SaveToBuffer(void* pdata, size_t capacity) const {                                                \
            if (pdata == nullptr) return;                                                                      \
            if (sizeof(class_name) > capacity) {                                                               \
                ::tuner_sim::cann::tiling_save_failed(#class_name, sizeof(class_name), capacity);              \
                return;                                                                                        \
            }                                                                                                  \
            std::memcpy(pdata, static_cast<const void*>(this), sizeof(class_name));                            \
        }                                                                                                      \
        void SetDataPtr(void*) {}                                                                              \
        void InitData() { *this = class_name(); }                                                              \
        bool CheckAlignAndGenPlaceHolder(const char*, size_t) { return true; }

#define TILING_DATA_FIELD_DEF(data_type, field_name)                                                           \
public:                                                                                                        \
    data_type field_name = 0;                                                                                  \
    void set_##field_name(data_type v) { field_name = v; }                                                     \
    data_type get_##field_name() const { return field_name; }                                                  \
    static inline const int tuner_field_##field_name =                                                         \
        ::tuner_sim::cann::add_field(tuner_class_name(), #data_type, #field_name, 0, false);

#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                                              \
public:                                                                                                        \
    arr_type field_name[arr_size] = {};                                                                        \
    void set_##field_name(const arr_type* v) {                                                                 \
        if (v != nullptr) std::memcpy(field_name, v, sizeof(field_name));                                      \
    }                                                                                                          \
    arr_type* get_##field_name() { return field_name; }                                                        \
    static inline const int tuner_field_##field_name =                                                         \
        ::tuner_sim::cann::add_field(tuner_class_name(), #arr_type, #field_name, (arr_size), false);

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                                                  \
public:                                                                                                        \
    struct_type field_name;                                                                                    \
    void set_##field_name(const struct_type& v) { field_name = v; }                                            \
    struct_type& get_##field_name() { return field_name; }                                                     \
    static inline const int tuner_field_##field_name =                                                         \
        ::tuner_sim::cann::add_field(tuner_class_name(), #struct_type, #field_name, 0, true);

#define END_TILING_DATA_DEF }

#define TUNER_SIM_CAT_(a, b) a##b
#define TUNER_SIM_CAT(a, b) TUNER_SIM_CAT_(a, b)

#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                                        \
    static const int TUNER_SIM_CAT(tuner_tiling_bind_##op_type##_, __COUNTER__) = [] {                         \
        ::optiling::CTilingDataClassFactory::RegisterTilingData(#op_type, []() -> std::shared_ptr<::optiling::TilingDef> { \
            return std::make_shared<::optiling::TunerTilingDefHolder<class_name>>();                          \
        });                                                                                                    \
        return ::tuner_sim::cann::bind_tiling(#op_type, #class_name, sizeof(class_name));                      \
    }();

// ------------------------------------------------------------------------ register/op_def_registry.h
namespace ops {
enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class DependScope : uint32_t { ALL = 0, TILING = 1, INVALID_SCOPE };
enum class FollowType : uint32_t { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3, INVALID_TYPE };
enum class ItemFindStatus { ITEM_FIND = 0, ITEM_NOEXIST = 1 };
enum class FormatCheckOption : uint32_t { DEFAULT = 0, STRICT = 1, MAX };
enum class AttrDataType { ATTR_DT_BOOL = 0, ATTR_DT_FLOAT = 1, ATTR_DT_INT = 2, ATTR_DT_STR = 3,
                          ATTR_DT_LIST_BOOL = 4, ATTR_DT_LIST_FLOAT = 5, ATTR_DT_LIST_INT = 6,
                          ATTR_DT_LIST_LIST_INT = 7, ATTR_DT_MAX };

class OpParamDef {
public:
    explicit OpParamDef(const char* name = "") : name_(name) {}
    OpParamDef& ParamType(Option t) {
        param_type_ = t;
        return *this;
    }
    OpParamDef& DataType(std::vector<ge::DataType> types) {
        dtypes_ = std::move(types);
        dtype_list_ = false;
        return *this;
    }
    OpParamDef& DataTypeList(std::vector<ge::DataType> types) {
        dtypes_ = std::move(types);
        dtype_list_ = true;
        return *this;
    }
    OpParamDef& Format(std::vector<ge::Format> formats) {
        formats_ = std::move(formats);
        return *this;
    }
    OpParamDef& FormatList(std::vector<ge::Format> formats) {
        formats_ = std::move(formats);
        format_list_ = true;
        return *this;
    }
    OpParamDef& UnknownShapeFormat(std::vector<ge::Format> formats) {
        if (formats_.empty()) formats_ = std::move(formats);
        return *this;
    }
    OpParamDef& ValueDepend(Option v) {
        value_depend_ = v;
        return *this;
    }
    OpParamDef& ValueDepend(Option v, DependScope) { return ValueDepend(v); }
    OpParamDef& Follow(const char* name) {
        follow_ = name;
        return *this;
    }
    OpParamDef& Follow(const char* name, FollowType) { return Follow(name); }
    OpParamDef& To(ge::DataType) { return *this; }
    OpParamDef& To(const char*) { return *this; }
    OpParamDef& IgnoreContiguous() { return *this; }
    OpParamDef& AutoContiguous() { return *this; }
    OpParamDef& Scalar() { return *this; }
    OpParamDef& ScalarList() { return *this; }
    OpParamDef& OutputShapeDependOnCompute() { return *this; }
    OpParamDef& NoConstValue() { return *this; }
    template <class... A>
    OpParamDef& InitValue(A&&...) { return *this; }
    template <class... A>
    OpParamDef& Comment(A&&...) { return *this; }
    template <class... A>
    OpParamDef& DataTypeForBinQuery(A&&...) { return *this; }
    template <class... A>
    OpParamDef& FormatForBinQuery(A&&...) { return *this; }
    template <class... A>
    OpParamDef& Version(A&&...) { return *this; }
    template <class... A>
    OpParamDef& SetCheckSupport(A&&...) { return *this; }

    std::string name_;
    Option param_type_ = REQUIRED;
    std::vector<ge::DataType> dtypes_;
    bool dtype_list_ = false;
    std::vector<ge::Format> formats_;
    bool format_list_ = false;
    Option value_depend_ = IGNORE;
    std::string follow_;
};

class OpAttrDef {
public:
    explicit OpAttrDef(const char* name = "") : name_(name) {}
    OpAttrDef& AttrType(Option t) {
        required_ = (t == REQUIRED);
        return *this;
    }
    OpAttrDef& Bool() { return kind(gert::TunerAttrValue::Bool); }
    OpAttrDef& Bool(bool v) {
        value_.b = v;
        has_default_ = true;
        return kind(gert::TunerAttrValue::Bool);
    }
    OpAttrDef& Float() { return kind(gert::TunerAttrValue::Float); }
    OpAttrDef& Float(float v) {
        value_.f = v;
        has_default_ = true;
        return kind(gert::TunerAttrValue::Float);
    }
    OpAttrDef& Int() { return kind(gert::TunerAttrValue::Int); }
    OpAttrDef& Int(int64_t v) {
        value_.i = v;
        has_default_ = true;
        return kind(gert::TunerAttrValue::Int);
    }
    OpAttrDef& String() { return kind(gert::TunerAttrValue::Str); }
    OpAttrDef& String(const char* v) {
        value_.s = v ? v : "";
        has_default_ = true;
        return kind(gert::TunerAttrValue::Str);
    }
    OpAttrDef& ListBool() { return kind(gert::TunerAttrValue::ListBool); }
    OpAttrDef& ListBool(std::vector<bool> v) {
        value_.lb = gert::TypedContinuousVector<bool>(std::move(v));
        has_default_ = true;
        return kind(gert::TunerAttrValue::ListBool);
    }
    OpAttrDef& ListFloat() { return kind(gert::TunerAttrValue::ListFloat); }
    OpAttrDef& ListFloat(std::vector<float> v) {
        value_.lf = gert::TypedContinuousVector<float>(std::move(v));
        has_default_ = true;
        return kind(gert::TunerAttrValue::ListFloat);
    }
    OpAttrDef& ListInt() { return kind(gert::TunerAttrValue::ListInt); }
    OpAttrDef& ListInt(std::vector<int64_t> v) {
        value_.li = gert::TypedContinuousVector<int64_t>(std::move(v));
        has_default_ = true;
        return kind(gert::TunerAttrValue::ListInt);
    }
    OpAttrDef& ListListInt() { return kind(gert::TunerAttrValue::ListListInt); }
    OpAttrDef& ListListInt(std::vector<std::vector<int64_t>> v) {
        value_.lli.v_.clear();
        for (auto& row : v) value_.lli.v_.emplace_back(std::move(row));
        has_default_ = true;
        return kind(gert::TunerAttrValue::ListListInt);
    }
    template <class... A>
    OpAttrDef& Comment(A&&...) { return *this; }
    template <class... A>
    OpAttrDef& Version(A&&...) { return *this; }

    std::string name_;
    bool required_ = false;
    bool has_default_ = false;
    gert::TunerAttrValue value_;

private:
    OpAttrDef& kind(gert::TunerAttrValue::Kind k) {
        value_.kind = k;
        return *this;
    }
};

class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char*) {}
    OpParamDef& Input(const char* name) { return param(inputs_, name); }
    OpParamDef& Output(const char* name) { return param(outputs_, name); }
    template <class... A>
    OpAICoreConfig& DynamicCompileStaticFlag(A&&...) { return *this; }
    template <class... A>
    OpAICoreConfig& DynamicFormatFlag(A&&...) { return *this; }
    template <class... A>
    OpAICoreConfig& DynamicRankSupportFlag(A&&...) { return *this; }
    template <class... A>
    OpAICoreConfig& DynamicShapeSupportFlag(A&&...) { return *this; }
    template <class... A>
    OpAICoreConfig& NeedCheckSupportFlag(A&&...) { return *this; }
    template <class... A>
    OpAICoreConfig& PrecisionReduceFlag(A&&...) { return *this; }
    template <class... A>
    OpAICoreConfig& ExtendCfgInfo(A&&...) { return *this; }
    std::vector<OpParamDef> inputs_;
    std::vector<OpParamDef> outputs_;

private:
    static OpParamDef& param(std::vector<OpParamDef>& list, const char* name) {
        for (auto& p : list)
            if (p.name_ == name) return p;
        list.emplace_back(name);
        return list.back();
    }
};

class OpAICoreDef {
public:
    OpAICoreDef& SetTiling(gert::TilingKernelFunc f) {
        tiling_ = std::move(f);
        return *this;
    }
    template <class... A>
    OpAICoreDef& SetCheckSupport(A&&...) { return *this; }
    template <class... A>
    OpAICoreDef& SetOpSelectFormat(A&&...) { return *this; }
    template <class... A>
    OpAICoreDef& SetOpSupportInfo(A&&...) { return *this; }
    template <class... A>
    OpAICoreDef& SetOpSpecInfo(A&&...) { return *this; }
    template <class... A>
    OpAICoreDef& SetParamGeneralize(A&&...) { return *this; }
    OpAICoreDef& AddConfig(const char* soc) {
        configs_.emplace_back(soc, OpAICoreConfig());
        return *this;
    }
    OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig& cfg) {
        configs_.emplace_back(soc, cfg);
        return *this;
    }
    gert::TilingKernelFunc tiling_;
    std::vector<std::pair<std::string, OpAICoreConfig>> configs_;
};

class OpMC2Def {
public:
    template <class... A>
    OpMC2Def& HcclGroup(A&&...) { return *this; }
};

class OpDef {
public:
    explicit OpDef(const char* type) : type_(type) {}
    virtual ~OpDef() = default;
    OpParamDef& Input(const char* name) { return param(inputs_, name); }
    OpParamDef& Output(const char* name) { return param(outputs_, name); }
    OpAttrDef& Attr(const char* name) {
        for (auto& a : attrs_)
            if (a.name_ == name) return a;
        attrs_.emplace_back(name);
        return attrs_.back();
    }
    OpDef& SetInferShape(gert::InferShapeKernelFunc f) {
        infer_shape_ = std::move(f);
        return *this;
    }
    OpDef& SetInferShapeRange(gert::InferShapeRangeKernelFunc) { return *this; }
    OpDef& SetInferDataType(gert::InferDataTypeKernelFunc f) {
        infer_dtype_ = std::move(f);
        return *this;
    }
    OpAICoreDef& AICore() { return aicore_; }
    OpAICoreDef& AICPU() { return aicpu_; }
    OpAICoreDef& HostCPU() { return aicpu_; }
    OpMC2Def& MC2() { return mc2_; }
    template <class... A>
    OpDef& Comment(A&&...) { return *this; }
    template <class... A>
    OpDef& EnableFallBack(A&&...) { return *this; }
    template <class... A>
    OpDef& FormatMatchMode(A&&...) { return *this; }
    template <class... A>
    OpDef& SetWorkspaceFlag(A&&...) { return *this; }
    ge::AscendString& GetOpType() { return type_; }

    ge::AscendString type_;
    std::vector<OpParamDef> inputs_;
    std::vector<OpParamDef> outputs_;
    std::vector<OpAttrDef> attrs_;
    gert::InferShapeKernelFunc infer_shape_;
    gert::InferDataTypeKernelFunc infer_dtype_;
    OpAICoreDef aicore_;
    OpAICoreDef aicpu_;
    OpMC2Def mc2_;

private:
    static OpParamDef& param(std::vector<OpParamDef>& list, const char* name) {
        for (auto& p : list)
            if (p.name_ == name) return p;
        list.emplace_back(name);
        return list.back();
    }
};

using OpDefCreator = std::function<std::unique_ptr<OpDef>(const char*)>;
inline std::map<std::string, OpDefCreator>& tuner_op_defs() {
    static std::map<std::string, OpDefCreator> defs;
    return defs;
}
class OpDefFactory {
public:
    static int OpDefRegister(const char* name, OpDefCreator creator) {
        tuner_op_defs()[name] = std::move(creator);
        return 0;
    }
};
}  // namespace ops

#define OP_ADD(opType, ...)                                                                                    \
    static const int TUNER_SIM_CAT(tuner_op_add_##opType##_, __COUNTER__) = ::ops::OpDefFactory::OpDefRegister( \
        #opType, [](const char* n) -> std::unique_ptr<::ops::OpDef> { return std::unique_ptr<::ops::OpDef>(new opType(n)); })

// ------------------------------------------------------------------------ register/op_impl_registry.h
namespace gert {
class OpImplRegisterV2 {
public:
    explicit OpImplRegisterV2(const char* op) : op_(op) {}
    OpImplRegisterV2& InferShape(InferShapeKernelFunc f) {
        impl().infer_shape = std::move(f);
        return *this;
    }
    OpImplRegisterV2& InferDataType(InferDataTypeKernelFunc f) {
        impl().infer_dtype = std::move(f);
        return *this;
    }
    OpImplRegisterV2& Tiling(TilingKernelFunc f, size_t = 0) {
        impl().tiling = std::move(f);
        return *this;
    }
    template <class CompileInfoT>
    OpImplRegisterV2& TilingParse(TilingParseKernelFunc f) {
        impl().tiling_parse = std::move(f);
        impl().compile_info = [] { return std::shared_ptr<void>(new CompileInfoT(), [](void* p) {
                                       delete static_cast<CompileInfoT*>(p);
                                   }); };
        return *this;
    }
    template <class... A>
    OpImplRegisterV2& InferShapeRange(A&&...) { return *this; }
    template <class... A>
    OpImplRegisterV2& InputsDataDependency(A&&...) { return *this; }
    template <class... A>
    OpImplRegisterV2& TilingInputsDataDependency(A&&...) { return *this; }
    template <class... A>
    OpImplRegisterV2& PrivateAttr(A&&...) { return *this; }
    template <class... A>
    OpImplRegisterV2& OutputShapeDependOnCompute(A&&...) { return *this; }
    template <class... A>
    OpImplRegisterV2& GenSimplifiedKey(A&&...) { return *this; }

private:
    tuner_sim::cann::OpImpl& impl() { return tuner_sim::cann::op_impls()[op_]; }
    std::string op_;
};
}  // namespace gert

namespace gert {
inline OpImplRegisterV2& tuner_impl_op(const char* op) { return *new OpImplRegisterV2(op); }
}  // namespace gert
#define IMPL_OP(op_type)                                                                                       \
    [[maybe_unused]] static ::gert::OpImplRegisterV2& TUNER_SIM_CAT(tuner_impl_op_, __COUNTER__) =            \
        ::gert::tuner_impl_op(#op_type)
#define IMPL_OP_OPTILING(op_type) IMPL_OP(op_type)
#define IMPL_OP_INFERSHAPE(op_type) IMPL_OP(op_type)
#define IMPL_OP_DEFAULT() IMPL_OP(DefaultImpl)

#endif  // host side

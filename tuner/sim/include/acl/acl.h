// The ACL runtime calls a host program makes around its kernel launches (CANN's acl/acl.h), on the simulator:
// device memory is GM of the simulator (guarded, named, checked), streams and events are synchronous (a launch
// has finished when it returns), and a launch's faults make the next synchronisation return an error, as an
// AI Core exception does on the device. Error codes as CANN's acl_base.h / rt_error_codes.h give them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tuner_sim/fp16.h"
#include "tuner_sim/rt.h"
#include "tuner_sim/uncharged.h"

using aclError = int;
using aclFloat16 = uint16_t;  // the bits of an IEEE half, as acl_base.h has it
using aclrtStream = void*;
using aclrtContext = void*;
using aclrtEvent = void*;

constexpr aclError ACL_SUCCESS = 0;
constexpr aclError ACL_ERROR_NONE = 0;
constexpr aclError ACL_ERROR_INVALID_PARAM = 100000;
constexpr aclError ACL_ERROR_BAD_ALLOC = 200000;
constexpr aclError ACL_ERROR_RT_AICORE_EXCEPTION = 507015;

enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5,
};
enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
    ACL_MEMCPY_DEFAULT = 4,
};
enum aclrtEventRecordedStatus { ACL_EVENT_RECORDED_STATUS_NOT_READY = 0, ACL_EVENT_RECORDED_STATUS_COMPLETE = 1 };
constexpr uint32_t ACL_EVENT_SYNC = 1;

namespace tuner_sim::acl {
// Faults of the launches since the last synchronisation (tuner_sim::launch adds to it).
inline int& pending_faults() {
    static int n = 0;
    return n;
}
inline int& device_allocations() {
    static int n = 0;
    return n;
}
TUNER_SIM_UNCHARGED inline aclError synchronize() {
    const int faults = pending_faults();
    pending_faults() = 0;
    return faults ? ACL_ERROR_RT_AICORE_EXCEPTION : ACL_SUCCESS;
}
}  // namespace tuner_sim::acl

TUNER_SIM_UNCHARGED inline aclError aclInit(const char*) { return ACL_SUCCESS; }
TUNER_SIM_UNCHARGED inline aclError aclFinalize() { return ACL_SUCCESS; }
TUNER_SIM_UNCHARGED inline aclError aclrtSetDevice(int32_t) { return ACL_SUCCESS; }
TUNER_SIM_UNCHARGED inline aclError aclrtResetDevice(int32_t) { return ACL_SUCCESS; }
TUNER_SIM_UNCHARGED inline aclError aclrtGetDevice(int32_t* id) {
    if (id) *id = 0;
    return ACL_SUCCESS;
}
TUNER_SIM_UNCHARGED inline aclError aclrtGetDeviceCount(uint32_t* count) {
    if (count) *count = 1;
    return ACL_SUCCESS;
}
TUNER_SIM_UNCHARGED inline aclError aclrtCreateContext(aclrtContext* context, int32_t) {
    static int the_context;
    if (context) *context = &the_context;
    return ACL_SUCCESS;
}
TUNER_SIM_UNCHARGED inline aclError aclrtDestroyContext(aclrtContext) { return ACL_SUCCESS; }
TUNER_SIM_UNCHARGED inline aclError aclrtSetCurrentContext(aclrtContext) { return ACL_SUCCESS; }
TUNER_SIM_UNCHARGED inline aclError aclrtCreateStream(aclrtStream* stream) {
    static int the_stream;
    if (!stream) return ACL_ERROR_INVALID_PARAM;
    *stream = &the_stream;
    return ACL_SUCCESS;
}
TUNER_SIM_UNCHARGED inline aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t, uint32_t) {
    return aclrtCreateStream(stream);
}
TUNER_SIM_UNCHARGED inline aclError aclrtDestroyStream(aclrtStream) { return ACL_SUCCESS; }
TUNER_SIM_UNCHARGED inline aclError aclrtSynchronizeStream(aclrtStream) { return tuner_sim::acl::synchronize(); }
TUNER_SIM_UNCHARGED inline aclError aclrtSynchronizeStreamWithTimeout(aclrtStream, int32_t) {
    return tuner_sim::acl::synchronize();
}
TUNER_SIM_UNCHARGED inline aclError aclrtSynchronizeDevice() { return tuner_sim::acl::synchronize(); }
TUNER_SIM_UNCHARGED inline aclError aclrtCreateEvent(aclrtEvent* event) {
    static int the_event;
    if (!event) return ACL_ERROR_INVALID_PARAM;
    *event = &the_event;
    return ACL_SUCCESS;
}
TUNER_SIM_UNCHARGED inline aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t) {
    return aclrtCreateEvent(event);
}
TUNER_SIM_UNCHARGED inline aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t) {
    return aclrtCreateEvent(event);
}
TUNER_SIM_UNCHARGED inline aclError aclrtDestroyEvent(aclrtEvent) { return ACL_SUCCESS; }
TUNER_SIM_UNCHARGED inline aclError aclrtRecordEvent(aclrtEvent, aclrtStream) { return ACL_SUCCESS; }
TUNER_SIM_UNCHARGED inline aclError aclrtStreamWaitEvent(aclrtStream, aclrtEvent) { return ACL_SUCCESS; }
TUNER_SIM_UNCHARGED inline aclError aclrtSynchronizeEvent(aclrtEvent) { return tuner_sim::acl::synchronize(); }

// Device memory: a GM buffer of the simulator, named by its allocation order ('aclrtMalloc #2').
TUNER_SIM_UNCHARGED inline aclError aclrtMalloc(void** ptr, size_t size, aclrtMemMallocPolicy = ACL_MEM_MALLOC_HUGE_FIRST) {
    if (!ptr || size == 0) return ACL_ERROR_INVALID_PARAM;
    char name[32];
    std::snprintf(name, sizeof name, "aclrtMalloc #%d", ++tuner_sim::acl::device_allocations());
    *ptr = tuner_sim::gm_alloc(size, name);
    return *ptr ? ACL_SUCCESS : ACL_ERROR_BAD_ALLOC;
}
TUNER_SIM_UNCHARGED inline aclError aclrtFree(void* ptr) {
    if (ptr) tuner_sim::gm_free(ptr);
    return ACL_SUCCESS;
}
TUNER_SIM_UNCHARGED inline aclError aclrtMallocHost(void** ptr, size_t size) {
    if (!ptr || size == 0) return ACL_ERROR_INVALID_PARAM;
    *ptr = std::malloc(size);
    return *ptr ? ACL_SUCCESS : ACL_ERROR_BAD_ALLOC;
}
TUNER_SIM_UNCHARGED inline aclError aclrtFreeHost(void* ptr) {
    std::free(ptr);
    return ACL_SUCCESS;
}
// As on the device, a copy larger than its destination is refused (and copies nothing).
TUNER_SIM_UNCHARGED inline aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                                                aclrtMemcpyKind) {
    if (count > destMax || (count && (!dst || !src))) return ACL_ERROR_INVALID_PARAM;
    std::memmove(dst, src, count);
    return ACL_SUCCESS;
}
TUNER_SIM_UNCHARGED inline aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                                                     aclrtMemcpyKind kind, aclrtStream) {
    return aclrtMemcpy(dst, destMax, src, count, kind);
}
TUNER_SIM_UNCHARGED inline aclError aclrtMemset(void* dst, size_t destMax, int32_t value, size_t count) {
    if (count > destMax || (count && !dst)) return ACL_ERROR_INVALID_PARAM;
    std::memset(dst, value, count);
    return ACL_SUCCESS;
}
TUNER_SIM_UNCHARGED inline aclError aclrtMemsetAsync(void* dst, size_t destMax, int32_t value, size_t count,
                                                     aclrtStream) {
    return aclrtMemset(dst, destMax, value, count);
}
TUNER_SIM_UNCHARGED inline const char* aclGetRecentErrMsg() { return "the simulator's faults are printed above"; }
TUNER_SIM_UNCHARGED inline aclError aclrtGetLastError(int32_t = 0) { return ACL_SUCCESS; }
TUNER_SIM_UNCHARGED inline aclError aclrtPeekAtLastError(int32_t = 0) { return ACL_SUCCESS; }
TUNER_SIM_UNCHARGED inline float aclFloat16ToFloat(aclFloat16 value) { return tuner_sim::half_bits_to_float(value); }
TUNER_SIM_UNCHARGED inline aclFloat16 aclFloatToFloat16(float value) { return tuner_sim::float_to_half_bits_rne(value); }

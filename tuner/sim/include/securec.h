// The bounded copies of Huawei's securec library that CANN's headers bring in and asc-devkit's samples call on
// their tiling structs: memcpy_s and memset_s, returning 0 (EOK) or a non-zero error without touching memory
// past destMax.
#pragma once
#include <cstddef>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif
using errno_t = int;

inline errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count) {
    if (dest == nullptr || src == nullptr || count > destMax) return 1;
    std::memmove(dest, src, count);
    return EOK;
}

inline errno_t memset_s(void* dest, size_t destMax, int c, size_t count) {
    if (dest == nullptr || count > destMax) return 1;
    std::memset(dest, c, count);
    return EOK;
}

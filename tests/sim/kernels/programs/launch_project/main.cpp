// The host of a kernel-launch project: ACL calls and ACLRT_LAUNCH_KERNEL, checking its own result.
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclrtlaunch_negate_custom.h"

int main()
{
    constexpr uint32_t blocks = 8, perBlock = 2048, total = blocks * perBlock;
    const size_t bytes = total * sizeof(float);
    std::vector<float> x(total), y(total);
    for (uint32_t i = 0; i < total; ++i) x[i] = 0.25f * float(i % 101) - 3.0f;
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    void *xd, *yd;
    aclrtMalloc(&xd, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&yd, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(xd, bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    const uint32_t launched = ACLRT_LAUNCH_KERNEL(negate_custom)(blocks, stream,
                                                                 xd, yd, perBlock);
    const aclError status = aclrtSynchronizeStream(stream);
    aclrtMemcpy(y.data(), bytes, yd, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < total; ++i) wrong += y[i] != -x[i];
    std::printf("%s: %u wrong of %u (launch %u, stream status %d)\n", wrong ? "test failed" : "test pass", wrong, total,
                launched, status);
    aclrtFree(xd);
    aclrtFree(yd);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return wrong ? 1 : 0;
}

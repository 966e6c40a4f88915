/*
 * Host program of the SiLU sample, in the two build modes of the CANN KernelLaunch samples:
 * CPU debug (__CCE_KT_TEST__, tikicpulib: GmAlloc / ICPU_RUN_KF / GmFree) and NPU (ACL).
 * Reads ./input/input_x.bin, writes ./output/output_y.bin.
 * -DBUG: the output buffer is allocated with the element count instead of the byte count.
 */
#include "data_utils.h"
#ifndef __CCE_KT_TEST__
#include "acl/acl.h"
extern void silu_custom_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y, uint32_t totalLength,
                           uint32_t tileNum);
#else
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void silu_custom(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t tileNum);
#endif

int32_t main(int32_t argc, char *argv[])
{
    uint32_t blockDim = 8;
    uint32_t totalLength = 8 * 2048;
    uint32_t tileNum = 8;
    size_t inputByteSize = totalLength * sizeof(uint16_t);
#ifdef BUG
    size_t outputByteSize = totalLength;
#else
    size_t outputByteSize = totalLength * sizeof(uint16_t);
#endif

#ifdef __CCE_KT_TEST__
    uint8_t *x = (uint8_t *)AscendC::GmAlloc(inputByteSize);
    uint8_t *y = (uint8_t *)AscendC::GmAlloc(outputByteSize);
    if (!ReadFile("./input/input_x.bin", inputByteSize, x, inputByteSize)) {
        return 2;
    }
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(silu_custom, blockDim, x, y, totalLength, tileNum);
    WriteFile("./output/output_y.bin", y, outputByteSize);
    AscendC::GmFree((void *)x);
    AscendC::GmFree((void *)y);
#else
    aclInit(nullptr);
    int32_t deviceId = 0;
    aclrtSetDevice(deviceId);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    uint8_t *xHost, *yHost, *xDevice, *yDevice;
    aclrtMallocHost((void **)(&xHost), inputByteSize);
    aclrtMallocHost((void **)(&yHost), outputByteSize);
    aclrtMalloc((void **)&xDevice, inputByteSize, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void **)&yDevice, outputByteSize, ACL_MEM_MALLOC_HUGE_FIRST);
    ReadFile("./input/input_x.bin", inputByteSize, xHost, inputByteSize);
    aclrtMemcpy(xDevice, inputByteSize, xHost, inputByteSize, ACL_MEMCPY_HOST_TO_DEVICE);
    silu_custom_do(blockDim, stream, xDevice, yDevice, totalLength, tileNum);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(yHost, outputByteSize, yDevice, outputByteSize, ACL_MEMCPY_DEVICE_TO_HOST);
    WriteFile("./output/output_y.bin", yHost, outputByteSize);
    aclrtFree(xDevice);
    aclrtFree(yDevice);
    aclrtFreeHost(xHost);
    aclrtFreeHost(yHost);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
#endif
    return 0;
}

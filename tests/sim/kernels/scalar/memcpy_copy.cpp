// y = x, copied GM -> UB -> GM by memcpy through raw pointers (COPY=1) or by DataCopy (COPY=0), in tiles of
// `tile` floats; the memcpy path calls no API for its data movement.
#include <cstring>

#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void memcpy_copy(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tile)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, tile * sizeof(float));
    LocalTensor<float> local = buf.Get<float>();
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, total);
    yGm.SetGlobalBuffer((__gm__ float *)y, total);
    for (uint32_t start = 0; start < total; start += tile) {
#if COPY
        float* ub = (float*)local.GetPhyAddr();
        std::memcpy(ub, (__gm__ float *)x + start, tile * sizeof(float));
        std::memcpy((__gm__ float *)y + start, ub, tile * sizeof(float));
#else
        DataCopy(local, xGm[start], tile);
        PipeBarrier<PIPE_ALL>();
        DataCopy(yGm[start], local, tile);
        PipeBarrier<PIPE_ALL>();
#endif
    }
}

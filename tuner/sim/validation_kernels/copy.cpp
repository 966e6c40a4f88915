// DMA in isolation, on one block: `copies` back-to-back DataCopy calls of `bytes` each, GM -> UB
// (copy_in) or UB -> GM (copy_out), between consecutive GM spans and one UB buffer. Nothing else runs, so
// the MTE2 (MTE3) busy time in the report is the copies' own time; copies = 0 leaves the launch's head cost.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void copy_in(GM_ADDR x, uint32_t bytes, uint32_t copies)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, bytes);
    const uint32_t count = bytes / sizeof(half);
    GlobalTensor<half> xGm;
    xGm.SetGlobalBuffer((__gm__ half *)x, uint64_t(count) * copies);
    LocalTensor<half> ub = buf.Get<half>();
    for (uint32_t i = 0; i < copies; ++i) {
        DataCopy(ub, xGm[uint64_t(count) * i], count);
    }
}

extern "C" __global__ __aicore__ void copy_out(GM_ADDR y, uint32_t bytes, uint32_t copies)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, bytes);
    const uint32_t count = bytes / sizeof(half);
    GlobalTensor<half> yGm;
    yGm.SetGlobalBuffer((__gm__ half *)y, uint64_t(count) * copies);
    LocalTensor<half> ub = buf.Get<half>();
    for (uint32_t i = 0; i < copies; ++i) {
        DataCopy(yGm[uint64_t(count) * i], ub, count);
    }
}

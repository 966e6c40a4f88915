// A mask-form instruction reads and writes only up to the highest lane its mask enables: 40 floats in a buffer
// of 40 (160 bytes, less than one 256-byte repeat) with LANES=40 is in bounds; LANES=48 reaches past it.
#include "kernel_operator.h"

#ifndef LANES
#define LANES 40
#endif

extern "C" __global__ __aicore__ void masked_extent(GM_ADDR x, GM_ADDR z)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 40 * sizeof(float));
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 40);
    zGm.SetGlobalBuffer((__gm__ float*)z, 40);
    AscendC::DataCopy(t, xGm, 40);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Adds(t, t, 1.0f, uint64_t(LANES), 1, {1, 1, 8, 8});  // FAULT
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(zGm, t, 40);
}

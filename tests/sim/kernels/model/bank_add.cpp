// Adds two float vectors already in UB whose starts are B_OFFSET bytes apart: each repeat reads 8 blocks of 32 B from
// each, on the same 8 of A2's 16 bank groups when the offset is a multiple of 16 x 32 B, on the other 8 when it
// is 256 B more.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t N = 8192;  // 128 repeats of 64 floats

extern "C" __global__ __aicore__ void bank_add(GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 160 * 1024);
    LocalTensor<float> a = buf.GetWithOffset<float>(N, 0);
    LocalTensor<float> b = buf.GetWithOffset<float>(N, B_OFFSET);
    LocalTensor<float> out = buf.GetWithOffset<float>(N, 96 * 1024);
    Duplicate(a, 1.0f, N);
    Duplicate(b, 2.0f, N);
    PipeBarrier<PIPE_V>();
    for (int i = 0; i < 16; ++i) {
        Add(out, a, b, N);
        PipeBarrier<PIPE_V>();
    }
    GlobalTensor<float> yGm;
    yGm.SetGlobalBuffer((__gm__ float *)y, N);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(yGm, out, N);
}

// GetSystemCycle at the end of a block's work: the system counter's ticks since the block began, which run at the
// counter's own rate (50 MHz on A2/A3, 1 GHz on 950), not the core clock.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void system_counter(GM_ADDR x, uint32_t n, uint32_t rounds)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, n * sizeof(float));
    GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, n);
    LocalTensor<float> local = buf.Get<float>();
    DataCopy(local, xGm, n);
    PipeBarrier<PIPE_ALL>();
    for (uint32_t i = 0; i < rounds; ++i) {
        Exp(local, local, n);
        PipeBarrier<PIPE_V>();
        Muls(local, local, 0.5f, n);
        PipeBarrier<PIPE_V>();
    }
    PipeBarrier<PIPE_ALL>();
    AscendC::printf("ticks=%lld\n", static_cast<long long>(GetSystemCycle()));
}

// The kernel debugging APIs: printf / PRINTF of scalars (half included), DumpTensor of UB and GM, and
// GetSystemCycle, which grows as the block works.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void debug_print(GM_ADDR x, uint32_t n)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, n * sizeof(float));
    GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, n);
    LocalTensor<float> local = buf.Get<float>();
    const int64_t before = GetSystemCycle();
    DataCopy(local, xGm, n);
    PipeBarrier<PIPE_ALL>();
    const int64_t after = GetSystemCycle();
    half h = 1.5;
    AscendC::printf("n=%u half=%.2f grew=%d\n", n, h, int(after > before));
    PRINTF("done\n");
    DumpTensor(local, 7, 4);
    DumpTensor(xGm, 8, 2);
}

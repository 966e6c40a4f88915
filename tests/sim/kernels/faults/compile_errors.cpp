// Sources the simulator must refuse at compile time with one line naming the API or construct.
//   ERR=1 GroupNorm (a high-level API not provided) ERR=2 GET_TILING_DATA (custom-op tiling macro)
//   ERR=3 Exp on bfloat16_t (no such dtype) ERR=4 DataCopyPad (fine on A2; refused with --soc Ascend310P3)
//   ERR=5 a cube API (Mmad): the simulator models the vector core
//   ERR=6 an API the simulator lacks (AllocMutexID)  ERR=7 a double scalar for a float tensor
// ERR=0 compiles and runs clean. A line marked `// FAULT n` is where the error of ERR=n must be reported.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef ERR
#define ERR 0
#endif

#if ERR == 3
using T = bfloat16_t;
#else
using T = float;
#endif

constexpr uint32_t N = 64;

extern "C" __global__ __aicore__ void cerr_kernel(GM_ADDR x, GM_ADDR z, GM_ADDR tiling)
{
#if ERR == 2
    GET_TILING_DATA(tilingData, tiling);  // FAULT 2
#endif
    TPipe pipe;
    TBuf<QuePosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2 * N * sizeof(T));
    LocalTensor<T> a = buf.Get<T>();
    LocalTensor<T> b = a[N];
    GlobalTensor<T> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T *)x, N);
    zGm.SetGlobalBuffer((__gm__ T *)z, N);
#if ERR == 4
    DataCopyPad(a, xGm, {1, N * sizeof(T), 0, 0, 0}, {false, 0, 0, 0});  // FAULT 4
#else
    DataCopy(a, xGm, N);
#endif
    PipeBarrier<PIPE_ALL>();
#if ERR == 5
    Mmad(b, a, a, {});  // FAULT 5
#elif ERR == 6
    AllocMutexID();  // FAULT 6
#elif ERR == 7
    Muls(a, a, 2.0, N);  // FAULT 7
#endif
#if ERR == 1
    GroupNorm<T>(b, a, a, a, buf.Get<uint8_t>(), {}, {});  // FAULT 1
#else
    Exp(b, a, N);  // FAULT 3
#endif
    PipeBarrier<PIPE_ALL>();
    DataCopy(zGm, b, N);
}


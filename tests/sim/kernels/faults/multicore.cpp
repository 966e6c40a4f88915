// Faults between blocks. BUG=0 is clean: every block scales its slice (z = 2x), all meet at SyncAll, then
// each block adds 1 to its right neighbour's slice of z (bytes another block wrote before the barrier).
//   1 gm-race   every block writes the first slice of z (the block offset is forgotten on the output)
//   2 deadlock  block 0 skips the SyncAll the other blocks wait at
//   3 timeout   every block polls a GM flag that nothing ever sets
//   4 gm-race   the last block, long after block 0 is done, writes block 0's slice (found whatever the
//               thread schedule: races are looked for in the recorded writes after the launch)
//   5 gm-race   no SyncAll: every block reads its right neighbour's slice of z while that block may still
//               be writing it (the result goes to the block's own slice of x, so no two blocks write alike)
// Launching BUG=0 with more blocks than the SoC has vector cores is a deadlock too (blocks run in waves).
// A line marked `// FAULT n` is where the fault of BUG=n must be reported (tests/sim/test_faults.py).
#include "kernel_operator.h"
using namespace AscendC;

#ifndef BUG
#define BUG 0
#endif

constexpr uint32_t TILE = 64;  // floats per block

__aicore__ inline void ScaleSlice(TPipe &pipe, GlobalTensor<float> dst, GlobalTensor<float> src, float a, float b)
{
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, TILE * sizeof(float));
    pipe.InitBuffer(outQ, 1, TILE * sizeof(float));
    LocalTensor<float> in = inQ.AllocTensor<float>();
    DataCopy(in, src, TILE);  // FAULT 5
    inQ.EnQue(in);
    in = inQ.DeQue<float>();
    LocalTensor<float> out = outQ.AllocTensor<float>();
    Muls(out, in, a, TILE);
    Adds(out, out, b, TILE);
    outQ.EnQue(out);
    inQ.FreeTensor(in);
    out = outQ.DeQue<float>();
    DataCopy(dst, out, TILE);  // FAULT 1 4
    outQ.FreeTensor(out);
}

extern "C" __global__ __aicore__ void mc_fault(GM_ADDR x, GM_ADDR z, GM_ADDR flag)
{
    const int64_t b = GetBlockIdx();
    const int64_t right = (b + 1) % GetBlockNum();
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x);
    zGm.SetGlobalBuffer((__gm__ float *)z);
#if BUG == 3
    GlobalTensor<int32_t> flagGm;
    flagGm.SetGlobalBuffer((__gm__ int32_t *)flag, 8);
    while (flagGm.GetValue(0) == 0) {  // FAULT 3
    }
#endif
    TPipe pipe;
#if BUG == 1
    ScaleSlice(pipe, zGm, xGm[b * TILE], 2.0f, 0.0f);
#elif BUG == 4
    const bool last = b == GetBlockNum() - 1;
    float spin = 0.0f;
    for (int i = 0; last && i < 300000; ++i) spin += xGm.GetValue(i % TILE);
    ScaleSlice(pipe, zGm[(last ? 0 : b) * TILE], xGm[b * TILE], 2.0f, spin * 0.0f);
#else
    ScaleSlice(pipe, zGm[b * TILE], xGm[b * TILE], 2.0f, 0.0f);
#endif
#if BUG == 2
    if (b != 0) SyncAll();  // FAULT 2
#elif BUG != 5
    SyncAll();  // FAULT W
#endif
    pipe.Reset();
#if BUG == 5
    ScaleSlice(pipe, xGm[b * TILE], zGm[right * TILE], 1.0f, 1.0f);
#else
    ScaleSlice(pipe, zGm[right * TILE], zGm[right * TILE], 1.0f, 1.0f);
#endif
}

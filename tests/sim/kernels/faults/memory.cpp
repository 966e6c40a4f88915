// Memory faults: UB capacity, alignment, bounds. One kernel, one bug per BUG value (BUG=0 is clean).
//   1 ub-overflow     InitBuffer asks for more UB than the SoC has
//   2 misaligned      DataCopy of 10 floats (40 bytes, not a multiple of 32)
//   3 misaligned      DataCopy into a UB view that starts 12 bytes into a buffer
//   4 misaligned      a vector op on a UB view that starts 4 bytes into a buffer
//   5 out-of-bounds   DataCopy reads 64 floats past the end of the GM input
//   6 out-of-bounds   a vector op runs past the end of its UB buffer
//   7 out-of-bounds   a raw __gm__ pointer write one element past the GM output (guard page)
//   8 out-of-bounds   LocalTensor::GetValue past the end of its buffer
// A line marked `// FAULT n` is where the fault of BUG=n must be reported (tests/sim/test_faults.py).
#include "kernel_operator.h"
using namespace AscendC;

#ifndef BUG
#define BUG 0
#endif

constexpr uint32_t TILE = 256;  // floats per tile

class KernelMem {
public:
    __aicore__ inline KernelMem() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, uint32_t n)
    {
        this->n = n;
        xGm.SetGlobalBuffer((__gm__ float *)x, n);
        zGm.SetGlobalBuffer((__gm__ float *)z, n);
        zRaw = (__gm__ float *)z;
#if BUG == 1
        pipe.InitBuffer(inQ, 2, 97 * 1024);  // FAULT 1
#else
        pipe.InitBuffer(inQ, 2, TILE * sizeof(float));
#endif
        pipe.InitBuffer(outQ, 2, TILE * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t t = 0; t < n / TILE; ++t) {
            LocalTensor<float> xl = inQ.AllocTensor<float>();
#if BUG == 2
            DataCopy(xl, xGm[t * TILE], 10);  // FAULT 2
#elif BUG == 3
            DataCopy(xl[3], xGm[t * TILE], 8);  // FAULT 3
#elif BUG == 5
            DataCopy(xl, xGm[t * TILE + 64], TILE);  // FAULT 5
#else
            DataCopy(xl, xGm[t * TILE], TILE);
#endif
            inQ.EnQue(xl);
            xl = inQ.DeQue<float>();
            LocalTensor<float> zl = outQ.AllocTensor<float>();
#if BUG == 4
            Adds(zl, xl[1], 1.0f, 64);  // FAULT 4
#elif BUG == 6
            Adds(zl, xl, 1.0f, TILE + 8);  // FAULT 6
#else
            Adds(zl, xl, 1.0f, TILE);
#endif
#if BUG == 8
            float v = zl.GetValue(TILE);  // FAULT 8
            (void)v;
#endif
            outQ.EnQue(zl);
            inQ.FreeTensor(xl);
            zl = outQ.DeQue<float>();
            DataCopy(zGm[t * TILE], zl, TILE);
            outQ.FreeTensor(zl);
        }
#if BUG == 7
        zRaw[n] = 1.0f;  // FAULT 7
#endif
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    GlobalTensor<float> xGm, zGm;
    __gm__ float *zRaw;
    uint32_t n;
};

extern "C" __global__ __aicore__ void mem_fault(GM_ADDR x, GM_ADDR z, uint32_t n)
{
    KernelMem op;
    op.Init(x, z, n);
    op.Process();
}

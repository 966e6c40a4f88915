// y = x + 1 by the vector API over one tile, after a loop of plain scalar code (tests/sim/test_scalar_cost.py).
// `iters` is the loop's trip count; MODE what an iteration does with element `at` of a tile-sized buffer:
// 0 reads UB through a pointer (LocalTensor::GetPhyAddr), 1 reads GM through a __gm__ pointer, 2 reads GM
// 64 bytes (one data-cache line) further on each time, 3 writes UB (y's buffer, before the API fills it), 4
// writes GM. What the loop read is summed into scratch[0]; what it wrote is left in scratch (UB: copied out),
// so the work cannot be left out.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef MODE
#define MODE 0
#endif
constexpr uint32_t STRIDE = MODE == 2 ? 16 : 1;  // floats

extern "C" __global__ __aicore__ void scalar_loop(GM_ADDR x, GM_ADDR y, GM_ADDR scratch, uint32_t tile,
                                                  uint32_t iters)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, tile * sizeof(float));
    pipe.InitBuffer(outQueue, 1, tile * sizeof(float));
    GlobalTensor<float> xGm, yGm, scratchGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, tile);
    yGm.SetGlobalBuffer((__gm__ float *)y, tile);
    scratchGm.SetGlobalBuffer((__gm__ float *)scratch, tile);

    LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
    DataCopy(xLocal, xGm, tile);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<float>();
    LocalTensor<float> yLocal = outQueue.AllocTensor<float>();

#if MODE <= 2
    const float *in = MODE == 0 ? reinterpret_cast<const float *>(xLocal.GetPhyAddr())
                                : reinterpret_cast<const __gm__ float *>(x);
    float acc = 0.0f;
    for (uint32_t i = 0; i < iters; ++i) {
        acc += in[(i * STRIDE) % tile];
    }
    *reinterpret_cast<__gm__ float *>(scratch) = acc;
#else
    float *out = MODE == 3 ? reinterpret_cast<float *>(yLocal.GetPhyAddr()) : reinterpret_cast<__gm__ float *>(scratch);
    for (uint32_t i = 0; i < iters; ++i) {
        out[i % tile] = static_cast<float>(i);
    }
    if (MODE == 3) {
        DataCopy(scratchGm, yLocal, tile);
        SetFlag<HardEvent::MTE3_V>(EVENT_ID0);  // the copy has read y's buffer before Adds writes it
        WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
    }
#endif

    Adds(yLocal, xLocal, 1.0f, tile);
    outQueue.EnQue(yLocal);
    inQueue.FreeTensor(xLocal);
    yLocal = outQueue.DeQue<float>();
    DataCopy(yGm, yLocal, tile);
    outQueue.FreeTensor(yLocal);
}

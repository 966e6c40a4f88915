// Copies float tiles GM -> UB -> GM, `heavy` elements on block 0 and `light` on every other block, so the
// chip-level share of GM bandwidth can be seen; BYPASS_L2 marks both tensors as not to be cached in L2. SHARED_X:
// every block reads block 0's part of x instead of its own, starting at its own tile and going round, so that
// blocks seldom read one tile at the same time.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TILE = 8192;

extern "C" __global__ __aicore__ void chip_copy(GM_ADDR x, GM_ADDR y, uint32_t heavy, uint32_t light)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    const uint32_t idx = GetBlockIdx();
    const uint32_t mine = idx == 0 ? heavy : light;
    const uint32_t first = idx == 0 ? 0 : heavy + (idx - 1) * light;
    GlobalTensor<float> xGm, yGm;
#ifdef SHARED_X
    xGm.SetGlobalBuffer((__gm__ float *)x, mine);
#else
    xGm.SetGlobalBuffer((__gm__ float *)x + first, mine);
#endif
    yGm.SetGlobalBuffer((__gm__ float *)y + first, mine);
#ifdef BYPASS_L2
    xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
    yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
#endif
    pipe.InitBuffer(inQ, 2, TILE * sizeof(float));
    pipe.InitBuffer(outQ, 2, TILE * sizeof(float));
    const uint32_t tiles = mine / TILE;
    for (uint32_t step = 0; step < tiles; ++step) {
#ifdef SHARED_X
        const uint32_t done = (idx + step) % tiles * TILE;
#else
        const uint32_t done = step * TILE;
#endif
        LocalTensor<float> in = inQ.AllocTensor<float>();
        DataCopy(in, xGm[done], TILE);
        inQ.EnQue(in);
        in = inQ.DeQue<float>();
        LocalTensor<float> out = outQ.AllocTensor<float>();
        DataCopy(out, in, TILE);
        outQ.EnQue(out);
        inQ.FreeTensor(in);
        out = outQ.DeQue<float>();
        DataCopy(yGm[done], out, TILE);
        outQ.FreeTensor(out);
    }
}

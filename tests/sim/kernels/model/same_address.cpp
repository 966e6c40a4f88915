// Every block reads all `tiles` tiles of x (L2 bypassed) and writes the sum of its tiles to its own row of y:
// in the same order on every block, or STAGGERED, block b starting at tile b (asc-devkit's data_copy scenarios
// 7 and 8 in small).
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TILE = 4096;

extern "C" __global__ __aicore__ void same_address(GM_ADDR x, GM_ADDR y, uint32_t tiles)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TBuf<TPosition::VECCALC> acc;
    const uint32_t idx = GetBlockIdx();
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, tiles * TILE);
    yGm.SetGlobalBuffer((__gm__ float *)y + idx * TILE, TILE);
    xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
    pipe.InitBuffer(inQ, 2, TILE * sizeof(float));
    pipe.InitBuffer(acc, TILE * sizeof(float));
    LocalTensor<float> sum = acc.Get<float>();
    Duplicate(sum, 0.0f, TILE);
    for (uint32_t i = 0; i < tiles; ++i) {
#ifdef STAGGERED
        const uint32_t tile = (i + idx) % tiles;
#else
        const uint32_t tile = i;
#endif
        LocalTensor<float> in = inQ.AllocTensor<float>();
        DataCopy(in, xGm[tile * TILE], TILE);
        inQ.EnQue(in);
        in = inQ.DeQue<float>();
        Add(sum, sum, in, TILE);
        inQ.FreeTensor(in);
    }
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(yGm, sum, TILE);
}

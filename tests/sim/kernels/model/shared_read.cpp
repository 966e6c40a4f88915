// Every block copies `tiles` float tiles of x to its own part of y; with `shared` every block reads the same tiles
// (the first block's), otherwise its own. Each block starts at its own tile and goes round, so that blocks reading
// the same tiles seldom read one at the same time.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TILE = 8192;

extern "C" __global__ __aicore__ void shared_read(GM_ADDR x, GM_ADDR y, uint32_t tiles, uint32_t shared)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    const uint32_t mine = GetBlockIdx() * tiles * TILE;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + (shared ? 0 : mine), tiles * TILE);
    yGm.SetGlobalBuffer((__gm__ float *)y + mine, tiles * TILE);
    pipe.InitBuffer(inQ, 2, TILE * sizeof(float));
    pipe.InitBuffer(outQ, 2, TILE * sizeof(float));
    for (uint32_t step = 0; step < tiles; ++step) {
        const uint32_t done = (GetBlockIdx() + step) % tiles * TILE;
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

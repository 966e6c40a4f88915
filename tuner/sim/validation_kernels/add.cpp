// z = x + y in half over `total` elements, each block an equal share (total divisible by the blocks and the
// tile), streamed in double-buffered tiles of `tile` elements: the bandwidth-bound elementwise kernel. Every
// tensor bypasses L2, so all of its traffic is HBM traffic (L2 would otherwise absorb the writes).
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

extern "C" __global__ __aicore__ void add(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inX, inY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outZ;
    const uint32_t per = total / GetBlockNum();
    GlobalTensor<half> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ half *)x + per * GetBlockIdx(), per);
    yGm.SetGlobalBuffer((__gm__ half *)y + per * GetBlockIdx(), per);
    zGm.SetGlobalBuffer((__gm__ half *)z + per * GetBlockIdx(), per);
    xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
    yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
    zGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
    pipe.InitBuffer(inX, BUFFER_NUM, tile * sizeof(half));
    pipe.InitBuffer(inY, BUFFER_NUM, tile * sizeof(half));
    pipe.InitBuffer(outZ, BUFFER_NUM, tile * sizeof(half));
    for (uint32_t done = 0; done < per; done += tile) {
        LocalTensor<half> xl = inX.AllocTensor<half>();
        LocalTensor<half> yl = inY.AllocTensor<half>();
        DataCopy(xl, xGm[done], tile);
        DataCopy(yl, yGm[done], tile);
        inX.EnQue(xl);
        inY.EnQue(yl);
        xl = inX.DeQue<half>();
        yl = inY.DeQue<half>();
        LocalTensor<half> zl = outZ.AllocTensor<half>();
        Add(zl, xl, yl, tile);
        outZ.EnQue(zl);
        inX.FreeTensor(xl);
        inY.FreeTensor(yl);
        zl = outZ.DeQue<half>();
        DataCopy(zGm[done], zl, tile);
        outZ.FreeTensor(zl);
    }
}

// TQueBind<VECIN, VECOUT>: data goes GM -> UB -> GM through one queue with no compute in between (the
// EnQue/DeQue pair orders MTE2 before MTE3, AllocTensor/FreeTensor order MTE3 before the next MTE2).
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TILE = 256;  // int32 elements per tile

extern "C" __global__ __aicore__ void bind_copy(GM_ADDR x, GM_ADDR z, uint32_t n)
{
    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> que;
    pipe.InitBuffer(que, 2, TILE * sizeof(int32_t));
    const uint32_t perBlock = n / GetBlockNum();
    GlobalTensor<int32_t> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ int32_t *)x + perBlock * GetBlockIdx(), perBlock);
    zGm.SetGlobalBuffer((__gm__ int32_t *)z + perBlock * GetBlockIdx(), perBlock);
    for (uint32_t t = 0; t < perBlock / TILE; ++t) {
        LocalTensor<int32_t> buf = que.AllocTensor<int32_t>();
        DataCopy(buf, xGm[t * TILE], TILE);
        que.EnQue(buf);
        buf = que.DeQue<int32_t>();
        DataCopy(zGm[t * TILE], buf, TILE);
        que.FreeTensor(buf);
    }
}

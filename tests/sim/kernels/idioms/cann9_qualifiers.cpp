// CANN 9 style entries: no extern "C", `__vector__` for a vector-only kernel and `__mix__(0, 1)` for a pure
// vector kernel that uses the hardware SyncAll, with `__gm__ uint8_t*` parameters.
#include "kernel_operator.h"

constexpr uint32_t TILE = 256;

__aicore__ inline void Scale(AscendC::GlobalTensor<float> dst, AscendC::GlobalTensor<float> src, float a)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQ;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 2, TILE * sizeof(float));
    pipe.InitBuffer(outQ, 2, TILE * sizeof(float));
    AscendC::LocalTensor<float> in = inQ.AllocTensor<float>();
    AscendC::DataCopy(in, src, TILE);
    inQ.EnQue(in);
    in = inQ.DeQue<float>();
    AscendC::LocalTensor<float> out = outQ.AllocTensor<float>();
    AscendC::Muls(out, in, a, TILE);
    outQ.EnQue(out);
    inQ.FreeTensor(in);
    out = outQ.DeQue<float>();
    AscendC::DataCopy(dst, out, TILE);
    outQ.FreeTensor(out);
}

__global__ __vector__ void vector_scale(__gm__ uint8_t* x, __gm__ uint8_t* y)
{
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + AscendC::GetBlockIdx() * TILE, TILE);
    yGm.SetGlobalBuffer((__gm__ float*)y + AscendC::GetBlockIdx() * TILE, TILE);
    Scale(yGm, xGm, 3.0f);
}

// Pass 1 doubles each block's slice of x into y; after the barrier each block doubles its right
// neighbour's slice of y into z: z = 4x rotated by one slice.
__global__ __mix__(0, 1) void mix_sync(__gm__ uint8_t* x, __gm__ uint8_t* y, __gm__ uint8_t* z)
{
    const int64_t b = AscendC::GetBlockIdx(), right = (b + 1) % AscendC::GetBlockNum();
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x);
    yGm.SetGlobalBuffer((__gm__ float*)y);
    zGm.SetGlobalBuffer((__gm__ float*)z);
    Scale(yGm[b * TILE], xGm[b * TILE], 2.0f);
    AscendC::SyncAll<true>();
    Scale(zGm[b * TILE], yGm[right * TILE], 2.0f);
}

// Multi-block with SyncAll done right: z = x / sum(x) over the whole tensor.
// Phase 1: each block sums its slice and writes the partial to its own 32-byte slot of a GM workspace.
// SyncAll (hardware form; WORKSPACE=1: software form on a zeroed GM workspace + a UB workspace).
// Phase 2: each block reads every partial, adds them up with scalar reads, and scales its own slice.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef WORKSPACE
#define WORKSPACE 0
#endif

constexpr uint32_t SLOT = 8;  // floats per partial (one 32-byte block)

extern "C" __global__ __aicore__ void normalize_sum(GM_ADDR x, GM_ADDR z, GM_ADDR partials, GM_ADDR syncWs,
                                                    uint32_t n)
{
    const uint32_t blocks = GetBlockNum();
    const uint32_t len = n / blocks;
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ, partQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    TBuf<QuePosition::VECCALC> workBuf, syncBuf;
    pipe.InitBuffer(inQ, 1, len * sizeof(float));
    pipe.InitBuffer(partQ, 1, blocks * SLOT * sizeof(float));
    pipe.InitBuffer(outQ, 1, len * sizeof(float));
    pipe.InitBuffer(workBuf, len * sizeof(float));
    pipe.InitBuffer(syncBuf, blocks * 32);
    GlobalTensor<float> xGm, zGm, pGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + len * GetBlockIdx(), len);
    zGm.SetGlobalBuffer((__gm__ float *)z + len * GetBlockIdx(), len);
    pGm.SetGlobalBuffer((__gm__ float *)partials, blocks * SLOT);

    LocalTensor<float> xl = inQ.AllocTensor<float>();
    DataCopy(xl, xGm, len);
    inQ.EnQue(xl);
    xl = inQ.DeQue<float>();
    LocalTensor<float> part = outQ.AllocTensor<float>();
    Duplicate(part, 0.0f, SLOT);
    ReduceSum(part, xl, workBuf.Get<float>(), len);
    outQ.EnQue(part);
    part = outQ.DeQue<float>();
    DataCopy(pGm[GetBlockIdx() * SLOT], part, SLOT);
    outQ.FreeTensor(part);

#if WORKSPACE
    GlobalTensor<int32_t> wsGm;
    wsGm.SetGlobalBuffer((__gm__ int32_t *)syncWs, blocks * 8);
    SyncAll(wsGm, syncBuf.Get<int32_t>());
#else
    SyncAll();
#endif

    LocalTensor<float> all = partQ.AllocTensor<float>();
    DataCopy(all, pGm, blocks * SLOT);
    partQ.EnQue(all);
    all = partQ.DeQue<float>();
    float total = 0.0f;
    for (uint32_t b = 0; b < blocks; ++b) total += all.GetValue(b * SLOT);
    partQ.FreeTensor(all);
    LocalTensor<float> zl = outQ.AllocTensor<float>();
    Muls(zl, xl, 1.0f / total, len);
    outQ.EnQue(zl);
    inQ.FreeTensor(xl);
    zl = outQ.DeQue<float>();
    DataCopy(zGm, zl, len);
    outQ.FreeTensor(zl);
}

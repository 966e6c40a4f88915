// A source DMA'd into a TBuf and read by a rearrangement API with no MTE2 -> V ordering: a sync hazard on the
// bytes the API really reads. SYNC=1 adds the SetFlag/WaitFlag pair that orders them. API: 0 Gather, 1 GatherMask,
// 2 Sort32, 3 Transpose.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef API
#define API 0
#endif
#ifndef SYNC
#define SYNC 0
#endif

extern "C" __global__ __aicore__ void rearrange_hazard(GM_ADDR x, GM_ADDR z)
{
    TPipe pipe;
    TBuf<QuePosition::VECCALC> inBuf, outBuf, idxBuf;
    pipe.InitBuffer(inBuf, 1024);
    pipe.InitBuffer(outBuf, 2048);
    pipe.InitBuffer(idxBuf, 512);
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 256);
    zGm.SetGlobalBuffer((__gm__ float*)z, 512);
    LocalTensor<float> in = inBuf.Get<float>();
    LocalTensor<float> out = outBuf.Get<float>();
    LocalTensor<uint32_t> idx = idxBuf.Get<uint32_t>();
    Duplicate(idx.ReinterpretCast<int32_t>(), int32_t(0), 128);
    DataCopy(in, xGm, 256);
#if SYNC
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
#endif
#if API == 0
    Gather(out, in, idx, 0u, 64u);
#elif API == 1
    uint64_t rsvd = 0;
    GatherMask(out, in, uint8_t(1), false, 0u, GatherMaskParams{1, 1, 8, 0}, rsvd);
#elif API == 2
    Sort32(out, in, idx, 1);
#elif API == 3
    Transpose(out.ReinterpretCast<half>(), in.ReinterpretCast<half>());
#endif
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(zGm, out, 512);
}

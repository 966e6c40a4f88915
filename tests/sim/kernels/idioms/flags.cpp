// Explicit intra-core synchronisation, no queues: ping-pong TBuf halves ordered by SetFlag/WaitFlag.
// Loop-carried write-after-read flags are reserved with AllocEventID and primed before the loop; the
// immediate read-after-write pairs use FetchEventID; dependent vector ops are split by PipeBarrier<PIPE_V>.
// Correct with and without auto-sync.  z = 2 * exp(x)
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TILE = 256;  // floats per tile

extern "C" __global__ __aicore__ void flags_idiom(GM_ADDR x, GM_ADDR z, uint32_t n)
{
    TPipe pipe;
    TBuf<QuePosition::VECCALC> xBuf, zBuf;
    pipe.InitBuffer(xBuf, 2 * TILE * sizeof(float));
    pipe.InitBuffer(zBuf, 2 * TILE * sizeof(float));
    LocalTensor<float> xb[2] = {xBuf.Get<float>(), xBuf.Get<float>()[TILE]};
    LocalTensor<float> zb[2] = {zBuf.Get<float>(), zBuf.Get<float>()[TILE]};
    const uint32_t perBlock = n / GetBlockNum();
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + perBlock * GetBlockIdx(), perBlock);
    zGm.SetGlobalBuffer((__gm__ float *)z + perBlock * GetBlockIdx(), perBlock);

    TEventID vToMte2[2], mte3ToV[2], mte2ToV[2];
    for (int k = 0; k < 2; ++k) {
        vToMte2[k] = GetTPipePtr()->AllocEventID<HardEvent::V_MTE2>();
        mte3ToV[k] = GetTPipePtr()->AllocEventID<HardEvent::MTE3_V>();
        mte2ToV[k] = GetTPipePtr()->AllocEventID<HardEvent::MTE2_V>();
        SetFlag<HardEvent::V_MTE2>(vToMte2[k]);
        SetFlag<HardEvent::MTE3_V>(mte3ToV[k]);
    }
    for (uint32_t t = 0; t < perBlock / TILE; ++t) {
        const int k = t % 2;
        WaitFlag<HardEvent::V_MTE2>(vToMte2[k]);
        DataCopy(xb[k], xGm[t * TILE], TILE);
        SetFlag<HardEvent::MTE2_V>(mte2ToV[k]);
        WaitFlag<HardEvent::MTE2_V>(mte2ToV[k]);
        WaitFlag<HardEvent::MTE3_V>(mte3ToV[k]);
        Exp(zb[k], xb[k], TILE);
        SetFlag<HardEvent::V_MTE2>(vToMte2[k]);
        PipeBarrier<PIPE_V>();
        Muls(zb[k], zb[k], 2.0f, TILE);
        event_t vToMte3 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE3));
        SetFlag<HardEvent::V_MTE3>(vToMte3);
        WaitFlag<HardEvent::V_MTE3>(vToMte3);
        DataCopy(zGm[t * TILE], zb[k], TILE);
        SetFlag<HardEvent::MTE3_V>(mte3ToV[k]);
    }
    for (int k = 0; k < 2; ++k) {
        WaitFlag<HardEvent::V_MTE2>(vToMte2[k]);
        WaitFlag<HardEvent::MTE3_V>(mte3ToV[k]);
        GetTPipePtr()->ReleaseEventID<HardEvent::V_MTE2>(vToMte2[k]);
        GetTPipePtr()->ReleaseEventID<HardEvent::MTE3_V>(mte3ToV[k]);
        GetTPipePtr()->ReleaseEventID<HardEvent::MTE2_V>(mte2ToV[k]);
    }
}

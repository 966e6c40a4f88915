// Intra-core synchronisation faults on a TBuf kernel that orders its pipes by hand (no queues).
// BUG=0 is clean with and without auto-sync; every other value removes or breaks one flag:
//   1 sync-hazard  no MTE2_V flag: Adds reads the TBuf that DataCopy (MTE2) is still filling
//   2 sync-hazard  no V_S flag before GetValue (a hazard only with --no-auto-sync)
//   3 sync-hazard  a SetFlag<V_MTE3> that nothing waits for, left at the end of the kernel
//   4 deadlock     WaitFlag<MTE2_V> on an event id that is never set
//   5 sync-hazard  no V_MTE3 flag: DataCopy out (MTE3) reads the TBuf Adds (V) is still writing
//   6 sync-hazard  no loop-carried V_MTE2 flags at all: the next DataCopy in overwrites what Adds still reads
// A line marked `// FAULT n` is where the fault of BUG=n must be reported (tests/sim/test_faults.py).
#include "kernel_operator.h"
using namespace AscendC;

#ifndef BUG
#define BUG 0
#endif

constexpr uint32_t TILE = 256;  // floats per tile

extern "C" __global__ __aicore__ void sync_fault(GM_ADDR x, GM_ADDR z, GM_ADDR last, uint32_t n)
{
    TPipe pipe;
    TBuf<QuePosition::VECCALC> xBuf, zBuf;
    GlobalTensor<float> xGm, zGm, lastGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, n);
    zGm.SetGlobalBuffer((__gm__ float *)z, n);
    lastGm.SetGlobalBuffer((__gm__ float *)last, 8);
    pipe.InitBuffer(xBuf, TILE * sizeof(float));
    pipe.InitBuffer(zBuf, TILE * sizeof(float));
    LocalTensor<float> xb = xBuf.Get<float>();
    LocalTensor<float> zb = zBuf.Get<float>();

    // Loop-carried write-after-read flags, reserved for the whole loop and primed once.
    TEventID vToMte2 = GetTPipePtr()->AllocEventID<HardEvent::V_MTE2>();
    TEventID mte3ToV = GetTPipePtr()->AllocEventID<HardEvent::MTE3_V>();
#if BUG != 6
    SetFlag<HardEvent::V_MTE2>(vToMte2);
#endif
    SetFlag<HardEvent::MTE3_V>(mte3ToV);
    for (uint32_t t = 0; t < n / TILE; ++t) {
#if BUG != 6
        WaitFlag<HardEvent::V_MTE2>(vToMte2);
#endif
        DataCopy(xb, xGm[t * TILE], TILE);  // FAULT 6
        event_t e = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
#if BUG == 4
        WaitFlag<HardEvent::MTE2_V>(e + 1);  // FAULT 4
#elif BUG != 1
        SetFlag<HardEvent::MTE2_V>(e);
        WaitFlag<HardEvent::MTE2_V>(e);
#endif
        WaitFlag<HardEvent::MTE3_V>(mte3ToV);
        Adds(zb, xb, 1.0f, TILE);  // FAULT 1
#if BUG != 6
        SetFlag<HardEvent::V_MTE2>(vToMte2);
#endif
        e = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE3));
#if BUG == 3
        if (t == 0) SetFlag<HardEvent::V_MTE3>(e + 1);  // FAULT 3
#endif
#if BUG != 5
        SetFlag<HardEvent::V_MTE3>(e);
        WaitFlag<HardEvent::V_MTE3>(e);
#endif
        DataCopy(zGm[t * TILE], zb, TILE);  // FAULT 5
        SetFlag<HardEvent::MTE3_V>(mte3ToV);
    }
#if BUG != 6
    WaitFlag<HardEvent::V_MTE2>(vToMte2);
#endif
    WaitFlag<HardEvent::MTE3_V>(mte3ToV);
    // The first element of the last tile, read by the scalar unit: V must be done writing it. (Inside the
    // loop this V_S wait would also order everything after it, hiding the bugs above, as on the NPU.)
    event_t vs = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
#if BUG != 2
    SetFlag<HardEvent::V_S>(vs);
    WaitFlag<HardEvent::V_S>(vs);
#endif
    lastGm.SetValue(0, zb.GetValue(0));  // FAULT 2
    GetTPipePtr()->ReleaseEventID<HardEvent::V_MTE2>(vToMte2);
    GetTPipePtr()->ReleaseEventID<HardEvent::MTE3_V>(mte3ToV);
}

// Scalar writes to GM read back by DMA, and a scalar read of what DMA wrote (GlobalTensor Set/GetValue).
// A SetValue lands in the scalar data cache: DataCacheCleanAndInvalid writes it back before the DataCopy
// reads it. Auto-sync orders S->MTE2 and MTE3->S; EXPLICIT=1 does it by hand (S_MTE2, MTE3_S flag pairs).
// NO_DCCI=1 leaves the cache write-back out (a sync-hazard: the DMA would read stale GM).
// z[0:16] = table (table[i] = i * scale), z[16] = z[3]
#include "kernel_operator.h"
using namespace AscendC;

#ifndef EXPLICIT
#define EXPLICIT 0
#endif
#ifndef NO_DCCI
#define NO_DCCI 0
#endif

extern "C" __global__ __aicore__ void gm_scalar(GM_ADDR table, GM_ADDR z, float scale)
{
    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> que;
    pipe.InitBuffer(que, 1, 16 * sizeof(float));
    GlobalTensor<float> tableGm, zGm;
    tableGm.SetGlobalBuffer((__gm__ float *)table, 16);
    zGm.SetGlobalBuffer((__gm__ float *)z, 24);
    for (int32_t i = 0; i < 16; ++i) {
        tableGm.SetValue(i, static_cast<float>(i) * scale);
    }
#if !NO_DCCI
    DataCacheCleanAndInvalid<float, CacheLine::ENTIRE_DATA_CACHE, DcciDst::CACHELINE_OUT>(tableGm);
#endif
#if EXPLICIT
    event_t sToMte2 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_MTE2));
    SetFlag<HardEvent::S_MTE2>(sToMte2);
    WaitFlag<HardEvent::S_MTE2>(sToMte2);
#endif
    LocalTensor<float> t = que.AllocTensor<float>();
    DataCopy(t, tableGm, 16);  // the DMA read of the table
    que.EnQue(t);
    t = que.DeQue<float>();
    DataCopy(zGm, t, 16);
    que.FreeTensor(t);
#if EXPLICIT
    event_t mte3ToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE3_S));
    SetFlag<HardEvent::MTE3_S>(mte3ToS);
    WaitFlag<HardEvent::MTE3_S>(mte3ToS);
#endif
    float v = zGm.GetValue(3);
    zGm.SetValue(16, v);
    DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(zGm[16]);
}

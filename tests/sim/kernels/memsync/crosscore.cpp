// Cross-core synchronisation. BUG=0 is clean; a line marked `// FAULT n` is where the fault of BUG=n must be
// reported (tests/sim/test_memory_sync_api.py).
//
// ib_pair (2 blocks, ib_set_wait.asc's shape): block 0 writes z[0:N] = x + y and IBSets; block 1 IBWaits, then
// reads z[0:N] back and writes z[N:2N] = z[0:N] + y[N:2N]. WORK > 0 makes block 0 spin through WORK vector
// adds first (a long producer, for the time model).
//   1 gm-race    no IBSet/IBWait: block 1 reads bytes block 0 writes
//   2 deadlock   block 1 waits for eventID 1, which nobody sets
// ring (all blocks): each block writes its slice, CrossCoreSetFlag<0, PIPE_MTE3>(FLAG); CrossCoreWaitFlag, then
// each reads its right neighbour's slice and writes it + 1 to its own slice of w.
//   3 deadlock   the wait is on flag FLAG + 1, which nobody sets
//   4 gm-race    no cross-core flags
// ordered (all blocks): WaitPreBlock / NotifyNextBlock around an atomic add of each block's slice to z, in
// ROUNDS rounds; z = sum of the slices (float, added in blockIdx order).
//   5 deadlock   the last block skips its last NotifyNextBlock... and block 0 one extra WaitPreBlock
// group (ARRIVE + WAIT blocks): the arrivers write their slice of z and Arrive; the waiters Wait, then sum
// all arrivers' slices into their own slice of w.
//   6 deadlock   arriver 0 never arrives
// some_sync (all blocks): SyncAll(gm, ub, USED): blocks 0..USED-1 exchange slices; the others work alone.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef BUG
#define BUG 0
#endif
#ifndef WORK
#define WORK 0
#endif
#ifndef FLAG
#define FLAG 3
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif
#ifndef ARRIVE
#define ARRIVE 2
#endif
#ifndef USED
#define USED 2
#endif

constexpr uint32_t N = 256;  // floats per slice

__aicore__ inline void AddTo(GlobalTensor<float> dst, GlobalTensor<float> a, GlobalTensor<float> b, uint32_t work)
{
    LocalMemAllocator<Hardware::UB> ub;
    LocalTensor<float> ta = ub.Alloc<float, N>();
    LocalTensor<float> tb = ub.Alloc<float, N>();
    LocalTensor<float> tz = ub.Alloc<float, N>();
    DataCopy(ta, a, N);
    DataCopy(tb, b, N);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Add(tz, ta, tb, N);
    for (uint32_t i = 0; i < work; ++i) {
        Add(tz, tz, tb, N);
        Sub(tz, tz, tb, N);
    }
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(dst, tz, N);
    PipeBarrier<PIPE_ALL>();  // the next AddTo reuses the same UB
}

extern "C" __global__ __vector__ void ib_pair(GM_ADDR x, GM_ADDR y, GM_ADDR sync, GM_ADDR z)
{
    InitSocState();
    GlobalTensor<float> xGm, yGm, zGm;
    GlobalTensor<int32_t> syncGm;
    xGm.SetGlobalBuffer((__gm__ float*)x);
    yGm.SetGlobalBuffer((__gm__ float*)y);
    zGm.SetGlobalBuffer((__gm__ float*)z);
    syncGm.SetGlobalBuffer((__gm__ int32_t*)sync, 256);
    LocalTensor<int32_t> syncBuf(TPosition::VECCALC, 180 * 1024, 8);
    if (GetBlockIdx() == 1) {
#if BUG == 2
        IBWait(syncGm, syncBuf, 0, 1);  // FAULT 2
#elif BUG != 1
        IBWait(syncGm, syncBuf, 0, 0);
#endif
        AddTo(zGm[N], zGm, yGm[N], 0);  // FAULT 1
    } else {
        AddTo(zGm, xGm, yGm, WORK);
#if BUG != 1
        IBSet(syncGm, syncBuf, 0, 0);
#endif
    }
}

extern "C" __global__ __vector__ void ring(GM_ADDR x, GM_ADDR z, GM_ADDR w)
{
    InitSocState();
    const int64_t b = GetBlockIdx(), right = (b + 1) % GetBlockNum();
    GlobalTensor<float> xGm, zGm, wGm, ones;
    xGm.SetGlobalBuffer((__gm__ float*)x);
    zGm.SetGlobalBuffer((__gm__ float*)z);
    wGm.SetGlobalBuffer((__gm__ float*)w);
    AddTo(zGm[b * N], xGm[b * N], xGm[b * N], 0);  // z = 2x
#if BUG != 4
    CrossCoreSetFlag<0, PIPE_MTE3>(FLAG);
#endif
#if BUG == 3
    CrossCoreWaitFlag<0, PIPE_MTE3>(FLAG + 1);  // FAULT 3
#elif BUG != 4
    CrossCoreWaitFlag<0, PIPE_MTE3>(FLAG);
#endif
    AddTo(wGm[b * N], zGm[right * N], zGm[right * N], 0);  // FAULT 4
}

extern "C" __global__ __vector__ void ordered(GM_ADDR x, GM_ADDR z, GM_ADDR ws)
{
    TPipe pipe;
    GlobalTensor<float> xGm, zGm;
    GlobalTensor<int32_t> wsGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * N * ROUNDS);
    zGm.SetGlobalBuffer((__gm__ float*)z);
    wsGm.SetGlobalBuffer((__gm__ int32_t*)ws);
    TQue<TPosition::VECIN, 1> wsQue, que;
    pipe.InitBuffer(wsQue, 1, GetBlockNum() * 32 + 32);
    pipe.InitBuffer(que, 1, N * sizeof(float));
    LocalTensor<int32_t> wsLocal = wsQue.AllocTensor<int32_t>();
    InitDetermineComputeWorkspace(wsGm, wsLocal);
    for (int r = 0; r < ROUNDS; ++r) {
        LocalTensor<float> t = que.AllocTensor<float>();
        DataCopy(t, xGm[r * N], N);
        WaitPreBlock(wsGm, wsLocal);  // FAULT 5
        SetAtomicAdd<float>();
        DataCopy(zGm[r * N], t, N);
        DisableDmaAtomic();
#if BUG == 5
        if (!(GetBlockIdx() == GetBlockNum() - 1 && r == ROUNDS - 1)) NotifyNextBlock(wsGm, wsLocal);
#else
        NotifyNextBlock(wsGm, wsLocal);
#endif
        que.FreeTensor(t);
    }
#if BUG == 5
    if (GetBlockIdx() == 0) WaitPreBlock(wsGm, wsLocal);  // FAULT 5
#endif
    wsQue.FreeTensor(wsLocal);
}

extern "C" __global__ __vector__ void group(GM_ADDR x, GM_ADDR z, GM_ADDR w, GM_ADDR ws)
{
    InitSocState();
    const int64_t b = GetBlockIdx();
    GlobalTensor<float> xGm, zGm, wGm;
    xGm.SetGlobalBuffer((__gm__ float*)x);
    zGm.SetGlobalBuffer((__gm__ float*)z);
    wGm.SetGlobalBuffer((__gm__ float*)w);
    GroupBarrier<PipeMode::MTE3_MODE> bar(ws, ARRIVE, GetBlockNum() - ARRIVE);
    if (b < ARRIVE) {
        AddTo(zGm[b * N], xGm[b * N], xGm[b * N], b == 0 ? 20 : 0);
#if BUG == 6
        if (b != 0) bar.Arrive(b);
#else
        bar.Arrive(b);
#endif
    } else {
        bar.Wait(b - ARRIVE);  // FAULT 6
        AddTo(wGm[(b - ARRIVE) * N], zGm[0], zGm[N], 0);
    }
}

extern "C" __global__ __vector__ void some_sync(GM_ADDR x, GM_ADDR z, GM_ADDR w, GM_ADDR ws)
{
    InitSocState();
    const int64_t b = GetBlockIdx();
    GlobalTensor<float> xGm, zGm, wGm;
    GlobalTensor<int32_t> wsGm;
    xGm.SetGlobalBuffer((__gm__ float*)x);
    zGm.SetGlobalBuffer((__gm__ float*)z);
    wGm.SetGlobalBuffer((__gm__ float*)w);
    wsGm.SetGlobalBuffer((__gm__ int32_t*)ws);
    LocalTensor<int32_t> wsLocal(TPosition::VECCALC, 160 * 1024, GetBlockNum() * 8);
    AddTo(zGm[b * N], xGm[b * N], xGm[b * N], 0);
    if (b < USED) {
        SyncAll(wsGm, wsLocal, USED);
        AddTo(wGm[b * N], zGm[((b + 1) % USED) * N], xGm[b * N], 0);
    } else {
        AddTo(wGm[b * N], zGm[b * N], xGm[b * N], 0);
    }
}

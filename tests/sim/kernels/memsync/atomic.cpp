// DMA atomics: every block copies its own N elements of x into UB and writes them to the same N elements of z
// under SetAtomicAdd / SetAtomicMax / SetAtomicMin (OP 0 / 1 / 2), so z = z0 (+ / max / min) all the slices.
// PAD 1 writes with DataCopyPad (an unaligned count), PAD 0 with DataCopy.
// BUG=0 is clean. A line marked `// FAULT n` is where the fault of BUG=n must be reported.
//   1 gm-race       no SetAtomicAdd: the blocks overwrite each other's z
//   2 gm-race       block 0 writes z plainly (DisableDmaAtomic before it) while the others add atomically
//   3 unsupported   SetAtomicAdd<float> with a half copy
#include "kernel_operator.h"
using namespace AscendC;

#ifndef BUG
#define BUG 0
#endif
#ifndef DTYPE
#define DTYPE float
#endif
#ifndef OP
#define OP 0
#endif
#ifndef PAD
#define PAD 0
#endif

extern "C" __global__ __vector__ void atomic_reduce(GM_ADDR x, GM_ADDR z, uint32_t n)
{
    using T = DTYPE;
    InitSocState();
    GlobalTensor<T> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x + GetBlockIdx() * n, n);
    zGm.SetGlobalBuffer((__gm__ T*)z, n);
    LocalMemAllocator<Hardware::UB> ub;
    LocalTensor<T> buf = ub.Alloc<T>(n + 32);
#if PAD
    DataCopyPad(buf, xGm, DataCopyExtParams(1, n * sizeof(T), 0, 0, 0), DataCopyPadExtParams<T>(false, 0, 0, T(0)));
#else
    DataCopy(buf, xGm, n);
#endif
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
#if BUG == 3
    SetAtomicAdd<float>();
#elif BUG == 1
#elif OP == 0
    SetAtomicAdd<T>();
#elif OP == 1
    SetAtomicMax<T>();
#else
    SetAtomicMin<T>();
#endif
#if BUG == 2
    if (GetBlockIdx() == 0) DisableDmaAtomic();
#endif
#if PAD
    DataCopyPad(zGm, buf, DataCopyExtParams(1, n * sizeof(T), 0, 0, 0));  // FAULT 1 2 3
#else
    DataCopy(zGm, buf, n);  // FAULT 1 2 3
#endif
    DisableDmaAtomic();
}

// Atomic and plain stores in one block: a strided atomic DataCopy (DataCopyParams, a gap at GM) adds only to
// the blocks it writes; the GM bytes in the gaps keep their value. Then SetAtomicNone and a plain copy.
extern "C" __global__ __vector__ void atomic_strided(GM_ADDR x, GM_ADDR z)
{
    InitSocState();
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 64);
    zGm.SetGlobalBuffer((__gm__ float*)z, 128);
    LocalTensor<float> buf(TPosition::VECCALC, 0, 64);
    DataCopy(buf, xGm, 64);
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    SetAtomicType<float>();
    SetAtomicAdd<float>();
    DataCopy(zGm, buf, DataCopyParams(4, 2, 0, 2));  // 4 blocks of 16 floats, 16 floats apart at GM
    SetAtomicNone();
    DataCopy(zGm[96], buf, 32);
}

// InitSocState turns DMA atomics off: two atomic adds of x, then InitSocState and a plain copy of x.
extern "C" __global__ __vector__ void init_clears_atomic(GM_ADDR x, GM_ADDR z, GM_ADDR w)
{
    GlobalTensor<float> xGm, zGm, wGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 64);
    zGm.SetGlobalBuffer((__gm__ float*)z, 64);
    wGm.SetGlobalBuffer((__gm__ float*)w, 64);
    LocalTensor<float> buf(TPosition::VECCALC, 0, 64);
    DataCopy(buf, xGm, 64);
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    SetAtomicAdd<float>();
    DataCopy(zGm, buf, 64);
    DataCopy(zGm, buf, 64);
    DataCopy(wGm, buf, 64);
    InitSocState();
    DataCopy(wGm, buf, 64);
}

// A GM flag handed over with WriteGmByPassDCache / ReadGmByPassDCache (data_sync_barrier.asc's protocol): block 0
// copies x to z, writes a value and then the flag; block 1 polls the flag, then reads the value and copies z to
// w. The flag orders the blocks: no gm-race.
extern "C" __global__ __vector__ void bypass_flag(GM_ADDR x, GM_ADDR z, GM_ADDR w, GM_ADDR sync)
{
    InitSocState();
    __gm__ int32_t* flag = (__gm__ int32_t*)sync;
    GlobalTensor<float> xGm, zGm, wGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 64);
    zGm.SetGlobalBuffer((__gm__ float*)z, 64);
    wGm.SetGlobalBuffer((__gm__ float*)w, 64);
    LocalTensor<float> buf(TPosition::VECCALC, 0, 64);
    if (GetBlockIdx() == 0) {
        DataCopy(buf, xGm, 64);
        PipeBarrier<PIPE_ALL>();
        DataCopy(zGm, buf, 64);
        PipeBarrier<PIPE_ALL>();
        WriteGmByPassDCache<int32_t>(flag + 1, 42);
        DataSyncBarrier<MemDsbT::DDR>();
        WriteGmByPassDCache<int32_t>(flag, 1);
    } else {
        while (ReadGmByPassDCache<int32_t>(flag) != 1) {
        }
        const int32_t v = ReadGmByPassDCache<int32_t>(flag + 1);
        WriteGmByPassDCache<int32_t>(flag + 8, 2 * v);
        DataCopy(buf, zGm, 64);
        PipeBarrier<PIPE_ALL>();
        DataCopy(wGm, buf, 64);
    }
}

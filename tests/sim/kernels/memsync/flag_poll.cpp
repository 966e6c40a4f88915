// Blocks hand data over through a GM flag set with GlobalTensor::SetValue and polled with GetValue, each side
// calling DataCacheCleanAndInvalid (the protocol of asc-devkit's gm_by_dcache example): every block but 0 writes
// its partial sum to GM and then its flag; block 0 waits for every flag and adds the partials up.
// BUG=1: the writers leave their flag in the data cache (no DataCacheCleanAndInvalid) — on the device block 0
// would never see it; here the handover is unordered, a gm-race.
#include "kernel_operator.h"

#ifndef BUG
#define BUG 0
#endif

constexpr uint32_t N = 64;          // floats per block
constexpr uint32_t FLAG_STRIDE = 16;  // int32 per 64-byte line

extern "C" __global__ __aicore__ void flag_poll(GM_ADDR x, GM_ADDR partial, GM_ADDR flags, GM_ADDR z)
{
    AscendC::InitSocState();
    const int32_t idx = AscendC::GetBlockIdx(), blocks = AscendC::GetBlockNum();
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 3 * N * sizeof(float));
    AscendC::LocalTensor<float> a = buf.Get<float>();
    AscendC::LocalTensor<float> acc = a[N];
    AscendC::LocalTensor<float> part = a[2 * N];
    AscendC::GlobalTensor<float> xGm, partialGm, zGm;
    AscendC::GlobalTensor<int32_t> flagGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + idx * N, N);
    partialGm.SetGlobalBuffer((__gm__ float*)partial, N * blocks);
    flagGm.SetGlobalBuffer((__gm__ int32_t*)flags, FLAG_STRIDE * blocks);
    zGm.SetGlobalBuffer((__gm__ float*)z, N);
    AscendC::DataCopy(a, xGm, N);
    AscendC::PipeBarrier<PIPE_ALL>();
    if (idx > 0) {
        AscendC::DataCopy(partialGm[idx * N], a, N);
        AscendC::PipeBarrier<PIPE_ALL>();
        flagGm.SetValue(idx * FLAG_STRIDE, 1);
#if BUG != 1
        AscendC::DataCacheCleanAndInvalid<int32_t, AscendC::CacheLine::SINGLE_CACHE_LINE,
                                          AscendC::DcciDst::CACHELINE_OUT>(flagGm[idx * FLAG_STRIDE]);
#endif
        return;
    }
    for (int32_t b = 1; b < blocks; ++b) {
        int32_t seen = 0;
        while (seen != 1) {
            AscendC::DataCacheCleanAndInvalid<int32_t, AscendC::CacheLine::SINGLE_CACHE_LINE,
                                              AscendC::DcciDst::CACHELINE_OUT>(flagGm[b * FLAG_STRIDE]);
            seen = flagGm.GetValue(b * FLAG_STRIDE);
        }
    }
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Adds(acc, a, 0.0f, N);
    for (int32_t b = 1; b < blocks; ++b) {
        AscendC::DataCopy(part, partialGm[b * N], N);  // FAULT 1
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::Add(acc, acc, part, N);
        AscendC::PipeBarrier<PIPE_ALL>();
    }
    AscendC::DataCopy(zGm, acc, N);
}

// Writes of several blocks to the same GM bytes (tests/sim/test_basic_extras.py). MODE selects what each block
// stores into dst[0, n) (each block its own slice of out for the rest):
//   0: every block the same bytes (src[0, n)): no race, as on the NPU (create_vec_index does this)
//   1: block b stores src[b * n, (b + 1) * n): different bytes, a gm-race
//   2: block b stores src[b * half, b * half + n) at dst[b * half]: overlapping halves with equal bytes, no race
//   3: like 0 with DataCopyPad of n - 3 elements (not whole 32-byte blocks)
//   4: like 0, then every block reads dst back (another block's write): a gm-race (read against write)
//   5: every block stores src[0, n); odd blocks then store src[n, 2n) over it: their last bytes differ, a gm-race
//   6: every block stores src[n, 2n), then src[0, n) over it: the last bytes agree, no race
#include "kernel_operator.h"
using namespace AscendC;

#ifndef MODE
#define MODE 0
#endif

extern "C" __global__ __aicore__ void basic_race(GM_ADDR src, GM_ADDR dst, GM_ADDR out, uint32_t n)
{
    const int64_t b = GetBlockIdx();
    GlobalTensor<float> srcGm, dstGm, outGm;
    srcGm.SetGlobalBuffer((__gm__ float *)src);
    dstGm.SetGlobalBuffer((__gm__ float *)dst);
    outGm.SetGlobalBuffer((__gm__ float *)out);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, n * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    const uint32_t half = n / 2;
    const uint64_t from = MODE == 1 ? b * n : MODE == 2 ? b * half : MODE == 6 ? n : 0;
    DataCopy(t, srcGm[from], n);
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
#if MODE == 3
    DataCopyExtParams p{1, uint32_t((n - 3) * sizeof(float)), 0, 0, 0};
    DataCopyPad(dstGm, t, p);
#elif MODE == 2
    DataCopy(dstGm[b * half], t, n);
#else
    DataCopy(dstGm, t, n);
#endif
#if MODE == 5 || MODE == 6
    if (MODE == 6 || b % 2 == 1) {
        PipeBarrier<PIPE_ALL>();
        DataCopy(t, srcGm[MODE == 5 ? n : 0], n);
        SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID1);
        WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID1);
        DataCopy(dstGm, t, n);
    }
#endif
#if MODE == 4
    PipeBarrier<PIPE_ALL>();
    DataCopy(t, dstGm, n);
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID1);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID1);
#endif
    PipeBarrier<PIPE_ALL>();
    DataCopy(outGm[b * n], t, n);
}

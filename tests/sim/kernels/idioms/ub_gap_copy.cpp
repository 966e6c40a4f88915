// A strided UB->UB copy whose destination gaps hold data another pipe writes at the same time: the copy
// touches only its blocks, so the two writers share no bytes and nothing needs ordering between them.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void ub_gap_copy(GM_ADDR src, GM_ADDR middle, GM_ADDR dst)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> inBuf, outBuf;
    pipe.InitBuffer(inBuf, 64);
    pipe.InitBuffer(outBuf, 96);
    GlobalTensor<half> srcGm, midGm, dstGm;
    srcGm.SetGlobalBuffer((__gm__ half *)src, 32);
    midGm.SetGlobalBuffer((__gm__ half *)middle, 16);
    dstGm.SetGlobalBuffer((__gm__ half *)dst, 48);
    LocalTensor<half> in = inBuf.Get<half>();
    LocalTensor<half> out = outBuf.Get<half>();
    DataCopy(in, srcGm, 32);
    PipeBarrier<PIPE_ALL>();
    DataCopy(out[16], midGm, 16);                   // MTE2 writes bytes [32, 64) of out
    DataCopy(out, in, DataCopyParams(2, 1, 0, 1));  // V writes bytes [0, 32) and [64, 96)
    PipeBarrier<PIPE_ALL>();
    DataCopy(dstGm, out, 48);
}

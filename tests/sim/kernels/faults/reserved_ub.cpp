// The whole UB is TPipe's on A2, but Select's modes 1 and 2 stage a block in Ascend C's reserved UB (184 KB on):
// a kernel whose buffers reach it has them overwritten. UB_BYTES sizes the one TBuf; MODE is the Select mode.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void reserved_ub(GM_ADDR x, GM_ADDR z)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, UB_BYTES);
    LocalTensor<float> all = buf.Get<float>();
    LocalTensor<float> a = all, b = all[64], out = all[128];
    LocalTensor<uint8_t> mask = all[192].ReinterpretCast<uint8_t>();
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 64);
    zGm.SetGlobalBuffer((__gm__ float*)z, 64);
    DataCopy(a, xGm, 64);
    Duplicate(b, 2.0f, 64);
    Duplicate(mask.ReinterpretCast<uint32_t>(), 0x55555555u, 8);
    PipeBarrier<PIPE_ALL>();
#if MODE == 1
    Select(out, mask, a, 2.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);  // FAULT 1
#else
    Select(out, mask, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, 64);  // FAULT 2
#endif
    PipeBarrier<PIPE_ALL>();
    DataCopy(zGm, out, 64);
}

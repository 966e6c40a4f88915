// Copies: DataCopy with SliceInfo (GM->UB and back), SetPadValue for DataCopyPad, and the masked UB->UB Copy.
// BUG=0 is clean. A line marked `// FAULT n` is where the fault of BUG=n must be reported.
//   1 misaligned   a UB slice that does not start on 32 bytes
#include "kernel_operator.h"
using namespace AscendC;

#ifndef BUG
#define BUG 0
#endif
#ifndef DTYPE
#define DTYPE float
#endif

// data_copy_gm2ub_slice's case: rows 0 and 2 of a 3 x 87 float source, two 24-float slices from each
// (elements 16..39 and 47..70), packed into a 2 x 48 tile and written back to a 2 x 48 output.
extern "C" __global__ __vector__ void slice2d(GM_ADDR x, GM_ADDR z)
{
    InitSocState();
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 3 * 87);
    zGm.SetGlobalBuffer((__gm__ float*)z, 2 * 48);
    LocalTensor<float> t(TPosition::VECIN, 0, 2 * 48);
    SliceInfo src[] = {{16, 70, 7, 3, 87}, {0, 2, 1, 1, 3}};
#if BUG == 1
    SliceInfo dst[] = {{4, 51, 0, 3, 52}, {0, 1, 0, 1, 2}};
#else
    SliceInfo dst[] = {{0, 47, 0, 3, 48}, {0, 1, 0, 1, 2}};
#endif
    DataCopy(t, xGm, dst, src, 2);  // FAULT 1
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    DataCopy(zGm, t, dst, dst, 2);
}

// One dimension: every third 8-float block of x (a gap of 16 floats) into consecutive UB blocks, then out to
// every other block of z.
extern "C" __global__ __vector__ void slice1d(GM_ADDR x, GM_ADDR z)
{
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 96);
    zGm.SetGlobalBuffer((__gm__ float*)z, 64);
    LocalTensor<float> t(TPosition::VECIN, 0, 32);
    SliceInfo src[] = {{0, 95, 16, 1, 96}};
    SliceInfo ub[] = {{0, 31, 0, 1, 32}};
    SliceInfo dst[] = {{0, 63, 8, 1, 64}};
    DataCopy(t, xGm, ub, src);
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    DataCopy(zGm, t, dst, ub);
}

// DataCopyPad of `cols` halves per row into 16-half UB rows, the padding filled by SetPadValue(7) (isPad false).
extern "C" __global__ __vector__ void pad_value(GM_ADDR x, GM_ADDR z, uint32_t rows, uint32_t cols)
{
    GlobalTensor<half> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, rows * cols);
    zGm.SetGlobalBuffer((__gm__ half*)z, rows * 16);
    LocalTensor<half> t(TPosition::VECIN, 0, rows * 16);
    DataCopyPadExtParams<half> pad;
    pad.isPad = false;
    pad.rightPadding = 16 - cols;
    SetPadValue(half(7));
    DataCopyPad(t, xGm, DataCopyExtParams(rows, cols * sizeof(half), 0, 0, 0), pad);
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    DataCopy(zGm, t, rows * 16);
}

// Copy with a mask: REPEAT repeats, block strides DSTB/SRCB and repeat strides DSTR/SRCR (32-byte blocks);
// the mask is the first MASK elements (BITS 0) or the bit pattern MASK_LO / MASK_HI (BITS 1).
#ifndef REPEAT
#define REPEAT 2
#endif
#ifndef DSTB
#define DSTB 1
#endif
#ifndef SRCB
#define SRCB 1
#endif
#ifndef DSTR
#define DSTR 8
#endif
#ifndef SRCR
#define SRCR 8
#endif
#ifndef BITS
#define BITS 0
#endif
#ifndef MASK
#define MASK 64
#endif
#ifndef MASK_LO
#define MASK_LO 0
#endif
#ifndef MASK_HI
#define MASK_HI 0
#endif
extern "C" __global__ __vector__ void masked_copy(GM_ADDR x, GM_ADDR z, uint32_t n)
{
    using T = DTYPE;
    GlobalTensor<T> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, n);
    zGm.SetGlobalBuffer((__gm__ T*)z, n);
    LocalMemAllocator<Hardware::UB> ub;
    LocalTensor<T> src = ub.Alloc<T>(n);
    LocalTensor<T> dst = ub.Alloc<T>(n);
    DataCopy(src, xGm, n);
    Duplicate(dst, T(0), n);
    PipeBarrier<PIPE_ALL>();
#if BITS
    uint64_t mask[2] = {MASK_LO, MASK_HI};
    Copy(dst, src, mask, REPEAT, CopyRepeatParams(DSTB, SRCB, DSTR, SRCR));
#else
    Copy(dst, src, MASK, REPEAT, CopyRepeatParams(DSTB, SRCB, DSTR, SRCR));
#endif
    PipeBarrier<PIPE_ALL>();
    DataCopy(zGm, dst, n);
}

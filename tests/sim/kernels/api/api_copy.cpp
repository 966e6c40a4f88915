// API semantics driver: DataCopy (count and DataCopyParams forms, GM<->UB and UB->UB) and DataCopyPad
// (GM->UB with both parameter structs and padding, UB->GM). Element type from -DDTYPE=...
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

struct CopyTiling {
    uint64_t form;     // see Process()
    uint64_t len;      // elements of x, z0 and of the UB buffer
    uint64_t outLen;   // elements of the GM output
    uint64_t count;    // DataCopy count form
    uint64_t blockCount, blockLen, srcStride, dstStride;  // first (GM->UB / UB->UB / UB->GM) copy
    uint64_t outSrcStride, outDstStride;                  // form 1: the UB->GM copy back
    uint64_t isPad, leftPadding, rightPadding, padBits;   // DataCopyPad; padBits: DataCopyPadParams value
    double padValue;                                      // DataCopyPadExtParams<T> value
};

template <typename T>
class KernelCopy {
public:
    __aicore__ inline KernelCopy() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z0, GM_ADDR z, const CopyTiling& tiling)
    {
        t = tiling;
        xGm.SetGlobalBuffer((__gm__ T*)x, t.len);
        z0Gm.SetGlobalBuffer((__gm__ T*)z0, t.len);
        zGm.SetGlobalBuffer((__gm__ T*)z, t.outLen);
        pipe.InitBuffer(bindQue, 1, t.len * sizeof(T));
        pipe.InitBuffer(inQueue, 1, t.len * sizeof(T));
        pipe.InitBuffer(seedQueue, 1, t.len * sizeof(T));
        pipe.InitBuffer(outQueue, 1, t.len * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        switch (t.form) {
            case 0: CountRoundTrip(); break;
            case 1: GatherRows(); break;
            case 2: UbToUb(); break;
            case 3: PadIn(true); break;
            case 4: PadIn(false); break;
            case 5: PadOut(true); break;
            case 6: PadOut(false); break;
            default: break;
        }
    }

private:
    // form 0: DataCopy count form GM -> UB -> GM.
    __aicore__ inline void CountRoundTrip()
    {
        LocalTensor<T> buf = bindQue.AllocTensor<T>();
        DataCopy(buf, xGm, uint32_t(t.count));
        bindQue.EnQue(buf);
        buf = bindQue.DeQue<T>();
        DataCopy(zGm, buf, uint32_t(t.count));
        bindQue.FreeTensor(buf);
    }
    // form 1: DataCopyParams GM -> UB (rows with a source gap), then UB -> GM (rows with a destination gap).
    __aicore__ inline void GatherRows()
    {
        LocalTensor<T> buf = bindQue.AllocTensor<T>();
        DataCopyParams in(uint16_t(t.blockCount), uint16_t(t.blockLen), uint16_t(t.srcStride), uint16_t(t.dstStride));
        DataCopy(buf, xGm, in);
        bindQue.EnQue(buf);
        buf = bindQue.DeQue<T>();
        DataCopyParams out(uint16_t(t.blockCount), uint16_t(t.blockLen), uint16_t(t.outSrcStride),
                           uint16_t(t.outDstStride));
        DataCopy(zGm, buf, out);
        bindQue.FreeTensor(buf);
    }
    // form 2: UB -> UB: z0 seeds the destination (count form), then x's rows are copied over it
    // with DataCopyParams gaps on both sides.
    __aicore__ inline void UbToUb()
    {
        LocalTensor<T> src = inQueue.AllocTensor<T>();
        LocalTensor<T> seed = seedQueue.AllocTensor<T>();
        DataCopy(src, xGm, t.len);
        DataCopy(seed, z0Gm, t.len);
        inQueue.EnQue(src);
        seedQueue.EnQue(seed);
        src = inQueue.DeQue<T>();
        seed = seedQueue.DeQue<T>();
        LocalTensor<T> dst = outQueue.AllocTensor<T>();
        DataCopy(dst, seed, t.len);
        DataCopyParams p(uint16_t(t.blockCount), uint16_t(t.blockLen), uint16_t(t.srcStride), uint16_t(t.dstStride));
        DataCopy(dst, src, p);
        outQueue.EnQue(dst);
        inQueue.FreeTensor(src);
        seedQueue.FreeTensor(seed);
        dst = outQueue.DeQue<T>();
        DataCopy(zGm, dst, t.outLen);
        outQueue.FreeTensor(dst);
    }
    // forms 3/4: DataCopyPad GM -> UB over a z0-seeded buffer, then the whole buffer back out with DataCopy.
    __aicore__ inline void PadIn(bool ext)
    {
        LocalTensor<T> buf = bindQue.AllocTensor<T>();
        DataCopy(buf, z0Gm, t.len);
        PipeBarrier<PIPE_MTE2>();  // the two copies write the same UB bytes
        if (ext) {
            DataCopyExtParams p(uint16_t(t.blockCount), uint32_t(t.blockLen), uint32_t(t.srcStride),
                                uint32_t(t.dstStride), 0);
            DataCopyPadExtParams<T> pad(t.isPad != 0, uint8_t(t.leftPadding), uint8_t(t.rightPadding),
                                        static_cast<T>(t.padValue));
            DataCopyPad(buf, xGm, p, pad);
        } else {
            DataCopyParams p(uint16_t(t.blockCount), uint16_t(t.blockLen), uint16_t(t.srcStride),
                             uint16_t(t.dstStride));
            DataCopyPadParams pad(t.isPad != 0, uint8_t(t.leftPadding), uint8_t(t.rightPadding), t.padBits);
            DataCopyPad(buf, xGm, p, pad);
        }
        bindQue.EnQue(buf);
        buf = bindQue.DeQue<T>();
        DataCopy(zGm, buf, t.len);
        bindQue.FreeTensor(buf);
    }
    // forms 5/6: the whole of x into UB, then DataCopyPad UB -> GM.
    __aicore__ inline void PadOut(bool ext)
    {
        LocalTensor<T> buf = bindQue.AllocTensor<T>();
        DataCopy(buf, xGm, t.len);
        bindQue.EnQue(buf);
        buf = bindQue.DeQue<T>();
        if (ext) {
            DataCopyExtParams p(uint16_t(t.blockCount), uint32_t(t.blockLen), uint32_t(t.srcStride),
                                uint32_t(t.dstStride), 0);
            DataCopyPad(zGm, buf, p);
        } else {
            DataCopyParams p(uint16_t(t.blockCount), uint16_t(t.blockLen), uint16_t(t.srcStride),
                             uint16_t(t.dstStride));
            DataCopyPad(zGm, buf, p);
        }
        bindQue.FreeTensor(buf);
    }

    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> bindQue;
    TQue<QuePosition::VECIN, 1> inQueue, seedQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    GlobalTensor<T> xGm, z0Gm, zGm;
    CopyTiling t;
};

extern "C" __global__ __aicore__ void api_copy(GM_ADDR x, GM_ADDR z0, GM_ADDR z, CopyTiling tiling)
{
    KernelCopy<DTYPE> op;
    op.Init(x, z0, z, tiling);
    op.Process();
}

// Shared harness of the API-semantics driver kernels (api_binary, api_scalar, api_unary, api_fill, api_reduce,
// api_mask, api_cast): GM x (and y) and z0 are copied into UB, z0 seeds the output tile (lanes the API under
// test does not write keep z0's values), the driver's Compute runs on the local tensors, and the tile is
// copied out to GM z. Each driver keeps only its tiling struct, its Init and its Compute. api_cmpsel (byte-mask
// input and output) and api_copy (a different queue set per form) keep their own harness.
#ifndef TESTS_SIM_KERNELS_API_HARNESS_H
#define TESTS_SIM_KERNELS_API_HARNESS_H

#include "kernel_operator.h"
using namespace AscendC;

// Kernel: the driver class (CRTP). It provides a public
//   Compute(LocalTensor<Out>& z, LocalTensor<In>& x)                        when NumIn == 1, or
//   Compute(LocalTensor<Out>& z, LocalTensor<In>& x, LocalTensor<In>& y)    when NumIn == 2;
// z already holds z0. x (and y) have inLen elements of In; z0 and z have outLen elements of Out.
template <typename Kernel, typename In, typename Out = In, int NumIn = 1>
class ApiHarness {
    static_assert(NumIn == 1 || NumIn == 2, "one or two input tensors");

public:
    __aicore__ inline void Process()
    {
        CopyIn();
        ComputeTile();
        CopyOut();
    }

protected:
    // y is ignored when NumIn == 1. Drivers add their own buffers to `pipe` after this.
    __aicore__ inline void InitHarness(GM_ADDR x, GM_ADDR y, GM_ADDR z0, GM_ADDR z, uint64_t inLen,
                                       uint64_t outLen)
    {
        GM_ADDR in[2] = {x, y};
        this->inLen = inLen;
        this->outLen = outLen;
        for (int i = 0; i < NumIn; ++i) {
            inGm[i].SetGlobalBuffer((__gm__ In*)in[i], inLen);
        }
        z0Gm.SetGlobalBuffer((__gm__ Out*)z0, outLen);
        zGm.SetGlobalBuffer((__gm__ Out*)z, outLen);
        for (int i = 0; i < NumIn; ++i) {
            pipe.InitBuffer(inQueue[i], 1, inLen * sizeof(In));
        }
        pipe.InitBuffer(inQueueZ0, 1, outLen * sizeof(Out));
        pipe.InitBuffer(outQueueZ, 1, outLen * sizeof(Out));
    }

    TPipe pipe;

private:
    __aicore__ inline void CopyIn()
    {
        LocalTensor<In> inLocal[2];
        for (int i = 0; i < NumIn; ++i) {
            inLocal[i] = inQueue[i].AllocTensor<In>();
        }
        LocalTensor<Out> z0Local = inQueueZ0.AllocTensor<Out>();
        for (int i = 0; i < NumIn; ++i) {
            DataCopy(inLocal[i], inGm[i], inLen);
        }
        DataCopy(z0Local, z0Gm, outLen);
        for (int i = 0; i < NumIn; ++i) {
            inQueue[i].EnQue(inLocal[i]);
        }
        inQueueZ0.EnQue(z0Local);
    }
    __aicore__ inline void ComputeTile()
    {
        LocalTensor<In> inLocal[2];
        for (int i = 0; i < NumIn; ++i) {
            inLocal[i] = inQueue[i].DeQue<In>();
        }
        LocalTensor<Out> z0Local = inQueueZ0.DeQue<Out>();
        LocalTensor<Out> zLocal = outQueueZ.AllocTensor<Out>();
        DataCopy(zLocal, z0Local, outLen);  // UB->UB: lanes the API does not write keep z0
        if constexpr (NumIn == 2) {
            static_cast<Kernel*>(this)->Compute(zLocal, inLocal[0], inLocal[1]);
        } else {
            static_cast<Kernel*>(this)->Compute(zLocal, inLocal[0]);
        }
        outQueueZ.EnQue<Out>(zLocal);
        for (int i = 0; i < NumIn; ++i) {
            inQueue[i].FreeTensor(inLocal[i]);
        }
        inQueueZ0.FreeTensor(z0Local);
    }
    __aicore__ inline void CopyOut()
    {
        LocalTensor<Out> zLocal = outQueueZ.DeQue<Out>();
        DataCopy(zGm, zLocal, outLen);
        outQueueZ.FreeTensor(zLocal);
    }

    TQue<QuePosition::VECIN, 1> inQueue[2], inQueueZ0;  // inQueue: x, then y (the first NumIn used)
    TQue<QuePosition::VECOUT, 1> outQueueZ;
    GlobalTensor<In> inGm[2];
    GlobalTensor<Out> z0Gm, zGm;
    uint64_t inLen, outLen;
};

#endif  // TESTS_SIM_KERNELS_API_HARNESS_H

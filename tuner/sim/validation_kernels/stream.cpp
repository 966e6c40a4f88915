// Streams float tiles GM -> UB -> GM through queues of BUFFER_NUM buffers, with `work` Exp passes per tile:
// `tile` and `work` set the balance between the copy pipes (MTE2, MTE3) and the vector pipe, BUFFER_NUM
// whether they can overlap. Each block takes an equal share of `total` elements.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef BUFFER_NUM
#define BUFFER_NUM 2
#endif

extern "C" __global__ __aicore__ void stream(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tile, uint32_t work)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQ;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQ;
    const uint32_t per = total / GetBlockNum();
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + per * GetBlockIdx(), per);
    yGm.SetGlobalBuffer((__gm__ float *)y + per * GetBlockIdx(), per);
    pipe.InitBuffer(inQ, BUFFER_NUM, tile * sizeof(float));
    pipe.InitBuffer(outQ, BUFFER_NUM, tile * sizeof(float));
    for (uint32_t done = 0; done < per; done += tile) {
        LocalTensor<float> in = inQ.AllocTensor<float>();
        DataCopy(in, xGm[done], tile);
        inQ.EnQue(in);
        in = inQ.DeQue<float>();
        LocalTensor<float> out = outQ.AllocTensor<float>();
        Exp(out, in, tile);
        for (uint32_t k = 0; k < work; ++k) {
            Exp(out, out, tile);
        }
        outQ.EnQue(out);
        inQ.FreeTensor(in);
        out = outQ.DeQue<float>();
        DataCopy(yGm[done], out, tile);
        outQ.FreeTensor(out);
    }
}

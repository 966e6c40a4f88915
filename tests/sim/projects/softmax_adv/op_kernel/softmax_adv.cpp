#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void softmax_adv(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    uint32_t n = t.rowsPerCore * t.cols;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * n, n);
    yGm.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * n, n);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQ;
    TQue<TPosition::VECOUT, 1> outQ;
    TBuf<TPosition::VECCALC> tmp;
    pipe.InitBuffer(inQ, 1, n * sizeof(float));
    pipe.InitBuffer(outQ, 1, n * sizeof(float));
    pipe.InitBuffer(tmp, t.tmpBytes);
    LocalTensor<float> in = inQ.AllocTensor<float>();
    DataCopy(in, xGm, n);
    inQ.EnQue(in);
    in = inQ.DeQue<float>();
    LocalTensor<float> out = outQ.AllocTensor<float>();
    SoftMaxShapeInfo info = {t.rowsPerCore, t.cols, t.rowsPerCore, t.cols};
    SoftMax<float>(out, in, tmp.Get<uint8_t>(), t.softmaxTilingData, info);
    outQ.EnQue(out);
    inQ.FreeTensor(in);
    out = outQ.DeQue<float>();
    DataCopy(yGm, out, n);
    outQ.FreeTensor(out);
}

// fp32 compute on fp16 data through TBuf temporaries: Cast half -> float into a TBuf, compute in float,
// Cast back (CAST_RINT) into the output queue.   z = half(float(x) * float(x) + 1)
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t TILE = 512;  // elements per tile

class KernelTbufCast {
public:
    __aicore__ inline KernelTbufCast() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, uint32_t n)
    {
        blockLen = n / GetBlockNum();
        xGm.SetGlobalBuffer((__gm__ half *)x + blockLen * GetBlockIdx(), blockLen);
        zGm.SetGlobalBuffer((__gm__ half *)z + blockLen * GetBlockIdx(), blockLen);
        pipe.InitBuffer(inQ, BUFFER_NUM, TILE * sizeof(half));
        pipe.InitBuffer(outQ, BUFFER_NUM, TILE * sizeof(half));
        pipe.InitBuffer(f32Buf, TILE * sizeof(float));
        pipe.InitBuffer(sqBuf, TILE * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t t = 0; t < blockLen / TILE; ++t) {
            LocalTensor<half> xl = inQ.AllocTensor<half>();
            DataCopy(xl, xGm[t * TILE], TILE);
            inQ.EnQue(xl);
            xl = inQ.DeQue<half>();
            LocalTensor<float> xf = f32Buf.Get<float>();
            LocalTensor<float> sq = sqBuf.Get<float>();
            Cast(xf, xl, RoundMode::CAST_NONE, TILE);
            inQ.FreeTensor(xl);
            Mul(sq, xf, xf, TILE);
            Adds(sq, sq, 1.0f, TILE);
            LocalTensor<half> zl = outQ.AllocTensor<half>();
            Cast(zl, sq, RoundMode::CAST_RINT, TILE);
            outQ.EnQue(zl);
            zl = outQ.DeQue<half>();
            DataCopy(zGm[t * TILE], zl, TILE);
            outQ.FreeTensor(zl);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQ;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQ;
    TBuf<QuePosition::VECCALC> f32Buf, sqBuf;
    GlobalTensor<half> xGm, zGm;
    uint32_t blockLen;
};

extern "C" __global__ __aicore__ void tbuf_cast(GM_ADDR x, GM_ADDR z, uint32_t n)
{
    KernelTbufCast op;
    op.Init(x, z, n);
    op.Process();
}

#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
class AxpyKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR y, uint32_t perCore, float alpha, float beta)
    {
        n = perCore;
        a = alpha;
        b = beta;
        hasBias = bias != nullptr;
        xGm.SetGlobalBuffer((__gm__ T*)x + GetBlockIdx() * n, n);
        yGm.SetGlobalBuffer((__gm__ T*)y + GetBlockIdx() * n, n);
        if (hasBias) {
            bGm.SetGlobalBuffer((__gm__ T*)bias + GetBlockIdx() * n, n);
        }
        pipe.InitBuffer(inQ, 1, n * sizeof(T));
        pipe.InitBuffer(biasQ, 1, n * sizeof(T));
        pipe.InitBuffer(outQ, 1, n * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<T> in = inQ.AllocTensor<T>();
        DataCopy(in, xGm, n);
        inQ.EnQue(in);
        in = inQ.DeQue<T>();
        LocalTensor<T> out = outQ.AllocTensor<T>();
        Muls(out, in, (T)a, n);
        if (hasBias) {
            LocalTensor<T> bl = biasQ.AllocTensor<T>();
            DataCopy(bl, bGm, n);
            biasQ.EnQue(bl);
            bl = biasQ.DeQue<T>();
            Muls(bl, bl, (T)b, n);
            Add(out, out, bl, n);
            biasQ.FreeTensor(bl);
        }
        inQ.FreeTensor(in);
        outQ.EnQue(out);
        out = outQ.DeQue<T>();
        DataCopy(yGm, out, n);
        outQ.FreeTensor(out);
    }

private:
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQ, biasQ;
    TQue<TPosition::VECOUT, 1> outQ;
    GlobalTensor<T> xGm, bGm, yGm;
    uint32_t n;
    float a, b;
    bool hasBias;
};

extern "C" __global__ __aicore__ void axpy_optional(GM_ADDR x, GM_ADDR bias, GM_ADDR y, GM_ADDR workspace,
                                                    GM_ADDR tiling)
{
#if ORIG_DTYPE_X == DT_FLOAT16
    static_assert(sizeof(DTYPE_X) == 2, "DTYPE_X follows ORIG_DTYPE_X");
#elif ORIG_DTYPE_X == DT_FLOAT
    static_assert(sizeof(DTYPE_X) == 4, "DTYPE_X follows ORIG_DTYPE_X");
#else
#error "unexpected ORIG_DTYPE_X"
#endif
#if FORMAT_Y != FORMAT_ND
#error "unexpected FORMAT_Y"
#endif
    AxpyKernel<DTYPE_X> op;
    if (TILING_KEY_LIST(1, 2)) {
        GET_TILING_DATA(t, tiling);
        if (t.offset != -1 || t.pad[0] != 3 || t.pad[1] != 4) {
            return;  // the attrs' values did not arrive
        }
        op.Init(x, nullptr, y, t.perCore, t.alpha, 0.0f);
        op.Process();
    } else if (TILING_KEY_IS(7)) {
        GET_TILING_DATA_WITH_STRUCT(AxpyBiasTilingData, t, tiling);
        GET_TILING_DATA_MEMBER(AxpyBiasTilingData, beta, beta, tiling);
        op.Init(x, bias, y, t.perCore, t.alpha, beta);
        op.Process();
    }
}

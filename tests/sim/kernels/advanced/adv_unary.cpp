// Advanced-API driver: the elementwise advanced APIs (Sigmoid, Tanh, Erf, Log, Log2, Log10, Silu, Swish,
// Gelu, FasterGelu, FasterGeluV2, Exp with Taylor expansion, SwiGLU, GeGLU) in each of their calling forms. Element type from -DDTYPE=...; the API,
// the form and the temporary space are chosen at run time from the tiling struct.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

struct AdvTiling {
    uint64_t api;       // see Compute
    uint64_t form;      // 0 (tmp, count), 1 (tmp), 2 (count), 3 (): the forms without tmp use the API's own space
    uint64_t len;       // elements in GM and in the UB buffers (a multiple of 32 bytes)
    uint64_t count;     // calCount / dataSize
    uint64_t tmpBytes;  // sharedTmpBuffer size
    uint64_t fillBytes; // UB taken by an extra buffer, to leave the API's own space short
    double beta;        // Swish
};

template <typename T>
class KernelAdv {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, const AdvTiling& tiling)
    {
        t = tiling;
        xGm.SetGlobalBuffer((__gm__ T*)x, t.len);
        zGm.SetGlobalBuffer((__gm__ T*)z, t.len);
        pipe.InitBuffer(inQ, 1, t.len * sizeof(T));
        pipe.InitBuffer(outQ, 1, t.len * sizeof(T));
        if (t.tmpBytes > 0) pipe.InitBuffer(tmpBuf, t.tmpBytes);
        if (t.fillBytes > 0) pipe.InitBuffer(fillBuf, t.fillBytes);
    }
    __aicore__ inline void Process()
    {
        LocalTensor<T> xLocal = inQ.AllocTensor<T>();
        DataCopy(xLocal, xGm, t.len);
        inQ.EnQue(xLocal);
        xLocal = inQ.DeQue<T>();
        LocalTensor<T> zLocal = outQ.AllocTensor<T>();
        Duplicate(zLocal, T(0), t.len);
        LocalTensor<uint8_t> tmp;
        if (t.tmpBytes > 0) tmp = tmpBuf.Get<uint8_t>();
        Compute(zLocal, xLocal, tmp);
        outQ.EnQue(zLocal);
        inQ.FreeTensor(xLocal);
        zLocal = outQ.DeQue<T>();
        DataCopy(zGm, zLocal, t.len);
        outQ.FreeTensor(zLocal);
    }

private:
    // The four forms of an API with temporary space.
#define FOUR_FORMS(CALL)                                       \
    switch (t.form) {                                          \
        case 0: CALL(z, x, tmp, n); break;                     \
        case 1: CALL(z, x, tmp); break;                        \
        case 2: CALL(z, x, n); break;                          \
        default: CALL(z, x); break;                            \
    }
    __aicore__ inline void Compute(LocalTensor<T>& z, LocalTensor<T>& x, LocalTensor<uint8_t>& tmp)
    {
        const uint32_t n = uint32_t(t.count);
        switch (t.api) {
            case 0: FOUR_FORMS(Sigmoid<T>); break;
            case 1: FOUR_FORMS(Tanh<T>); break;
            case 2: FOUR_FORMS(Erf<T>); break;
            case 3: FOUR_FORMS(Log2<T>); break;
            case 4: if (t.form == 2) Log(z, x, n); else Log(z, x); break;
            case 5: if (t.form == 2) Log10<T>(z, x, n); else Log10<T>(z, x); break;
            case 6: Silu(z, x, n); break;
            case 7: Swish(z, x, n, T(float(t.beta))); break;
            case 8: if (t.form == 0) Gelu(z, x, tmp, n); else Gelu(z, x, n); break;
            case 9: if (t.form == 0) FasterGelu(z, x, tmp, n); else FasterGelu(z, x, n); break;
            case 10: if (t.form == 0) FasterGeluV2(z, x, tmp, n); else FasterGeluV2(z, x, n); break;
            case 11: Gelu<T, true, false>(z, x, tmp, n); break;
            case 12: Gelu<T, false, true>(z, x, tmp, n); break;
            case 13: FasterGelu<T, true, true>(z, x, tmp, n); break;
            case 14: FasterGeluV2<T, true, false>(z, x, tmp, n); break;
            case 15: Exp<T, 10>(z, x, tmp, n); break;
            case 16: Exp<T, 12, true>(z, x, tmp, n); break;
            case 17: Exp<T, 10>(z, x, n); break;
            case 18: Exp<T, 0>(z, x, tmp, n); break;
            // GLUs: src0 = the first half of x, src1 = the second half; dst = the first half of z.
            case 19: SwiGLU(z, x, x[uint32_t(t.len / 2)], float(t.beta), tmp, n); break;
            case 20: SwiGLU(z, x, x[uint32_t(t.len / 2)], float(t.beta), n); break;
            case 21: GeGLU(z, x, x[uint32_t(t.len / 2)], tmp, n); break;
            case 22: GeGLU(z, x, x[uint32_t(t.len / 2)], n); break;
            default: break;
        }
    }
#undef FOUR_FORMS

    AdvTiling t;
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQ;
    TQue<TPosition::VECOUT, 1> outQ;
    TBuf<TPosition::VECCALC> tmpBuf, fillBuf;
    GlobalTensor<T> xGm, zGm;
};

extern "C" __global__ __aicore__ void adv_unary(GM_ADDR x, GM_ADDR z, AdvTiling tiling)
{
    KernelAdv<DTYPE> op;
    op.Init(x, z, tiling);
    op.Process();
}

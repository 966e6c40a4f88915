// Advanced-API driver for adv_elem.h: Ceil, Floor, Trunc, Frac, Acosh, ClampMin, ClampMax (on x), Fmod and Xor
// (on x and y), in each of their calling forms. Element type from -DDTYPE=... (int16_t / uint16_t: Xor only);
// the API, the form and the temporary space are chosen at run time from the tiling struct.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef DTYPE
#define DTYPE float
#endif

struct ElemTiling {
    uint64_t api;       // see Compute
    uint64_t form;      // 0 (tmp, count), 1 (tmp), 2 (count), 3 (): the forms without tmp use the API's own space
    uint64_t len;       // elements in GM and in the UB buffers (a multiple of 32 bytes)
    uint64_t count;     // calCount
    uint64_t tmpBytes;  // sharedTmpBuffer size
    uint64_t fillBytes; // UB taken by an extra buffer, to leave the API's own space short
    double scalar;      // ClampMin / ClampMax
};

template <typename T>
class KernelElem {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const ElemTiling& tiling)
    {
        t = tiling;
        xGm.SetGlobalBuffer((__gm__ T*)x, t.len);
        yGm.SetGlobalBuffer((__gm__ T*)y, t.len);
        zGm.SetGlobalBuffer((__gm__ T*)z, t.len);
        pipe.InitBuffer(inQ, 2, t.len * sizeof(T));
        pipe.InitBuffer(outQ, 1, t.len * sizeof(T));
        if (t.tmpBytes > 0) pipe.InitBuffer(tmpBuf, t.tmpBytes);
        if (t.fillBytes > 0) pipe.InitBuffer(fillBuf, t.fillBytes);
    }
    __aicore__ inline void Process()
    {
        LocalTensor<T> xLocal = inQ.AllocTensor<T>();
        LocalTensor<T> yLocal = inQ.AllocTensor<T>();
        DataCopy(xLocal, xGm, t.len);
        DataCopy(yLocal, yGm, t.len);
        inQ.EnQue(xLocal);
        inQ.EnQue(yLocal);
        xLocal = inQ.DeQue<T>();
        yLocal = inQ.DeQue<T>();
        LocalTensor<T> zLocal = outQ.AllocTensor<T>();
        Duplicate(zLocal.template ReinterpretCast<int16_t>(), int16_t(0), int32_t(t.len * sizeof(T) / 2));
        LocalTensor<uint8_t> tmp;
        if (t.tmpBytes > 0) tmp = tmpBuf.Get<uint8_t>();
        Compute(zLocal, xLocal, yLocal, tmp);
        outQ.EnQue(zLocal);
        inQ.FreeTensor(xLocal);
        inQ.FreeTensor(yLocal);
        zLocal = outQ.DeQue<T>();
        DataCopy(zGm, zLocal, t.len);
        outQ.FreeTensor(zLocal);
    }

private:
#define TWO_FORMS(CALL)                                           \
    if (t.form == 0) {                                            \
        CALL(z, x, tmp, n);                                       \
    } else {                                                      \
        CALL(z, x, n);                                            \
    }
#define FOUR_FORMS(CALL)                                          \
    switch (t.form) {                                             \
        case 0: CALL(z, x, tmp, n); break;                        \
        case 1: CALL(z, x, tmp); break;                           \
        case 2: CALL(z, x, n); break;                             \
        default: CALL(z, x); break;                               \
    }
#define FOUR_FORMS_BINARY(CALL)                                   \
    switch (t.form) {                                             \
        case 0: CALL(z, x, y, tmp, n); break;                     \
        case 1: CALL(z, x, y, tmp); break;                        \
        case 2: CALL(z, x, y, n); break;                          \
        default: CALL(z, x, y); break;                            \
    }
    __aicore__ inline void Compute(LocalTensor<T>& z, LocalTensor<T>& x, LocalTensor<T>& y, LocalTensor<uint8_t>& tmp)
    {
        const uint32_t n = uint32_t(t.count);
        if constexpr (sizeof(T) == 2 && !std::is_same_v<T, half>) {
            FOUR_FORMS_BINARY(Xor<T>);
        } else {
            const T s = T(float(t.scalar));
            switch (t.api) {
                case 0: TWO_FORMS(Ceil<T>); break;
                case 1: TWO_FORMS(Floor<T>); break;
                case 2: FOUR_FORMS(Trunc<T>); break;
                case 3: FOUR_FORMS(Frac<T>); break;
                case 4: FOUR_FORMS(Acosh<T>); break;
                case 5: FOUR_FORMS_BINARY(Fmod<T>); break;
                case 6:
                    if (t.form == 0) ClampMin<T>(z, x, tmp, s, n); else ClampMin<T>(z, x, s, n);
                    break;
                case 7:
                    if (t.form == 0) ClampMax<T>(z, x, tmp, s, n); else ClampMax<T>(z, x, s, n);
                    break;
                default: break;
            }
        }
    }
#undef TWO_FORMS
#undef FOUR_FORMS
#undef FOUR_FORMS_BINARY

    ElemTiling t;
    TPipe pipe;
    TQue<TPosition::VECIN, 2> inQ;
    TQue<TPosition::VECOUT, 1> outQ;
    TBuf<TPosition::VECCALC> tmpBuf, fillBuf;
    GlobalTensor<T> xGm, yGm, zGm;
};

extern "C" __global__ __aicore__ void adv_elem(GM_ADDR x, GM_ADDR y, GM_ADDR z, ElemTiling tiling)
{
    KernelElem<DTYPE> op;
    op.Init(x, y, z, tiling);
    op.Process();
}

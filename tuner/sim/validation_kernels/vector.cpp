// One vector instruction in isolation: `loops` back-to-back calls of instruction `op` over `count` elements
// of T (T = half unless FLOAT is defined), on UB buffers only, so the V busy time in the report is the
// instructions' own time. Two counts at the same `loops` give the cost of one 256-byte repeat by difference.
#include "kernel_operator.h"
using namespace AscendC;

#ifdef FLOAT
using T = float;
#else
using T = half;
#endif

enum Op : uint32_t { ADDS, ADD, EXP, DIV, REDUCE_SUM, REDUCE_MAX, WHOLE_REDUCE_SUM };

extern "C" __global__ __aicore__ void vector_op(uint32_t op, uint32_t count, uint32_t loops)
{
    constexpr int32_t lanes = 256 / sizeof(T);
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b, c;
    pipe.InitBuffer(a, count * sizeof(T));
    pipe.InitBuffer(b, count * sizeof(T));
    pipe.InitBuffer(c, count * sizeof(T));
    LocalTensor<T> x = a.Get<T>(), y = b.Get<T>(), z = c.Get<T>();
    for (uint32_t i = 0; i < loops; ++i) {
        switch (op) {
            case ADDS: Adds(z, x, T(1), count); break;
            case ADD: Add(z, x, y, count); break;
            case EXP: Exp(z, x, count); break;
            case DIV: Div(z, x, y, count); break;
            case REDUCE_SUM: ReduceSum(z, x, y, count); break;
            case REDUCE_MAX: ReduceMax(z, x, y, count); break;
            case WHOLE_REDUCE_SUM: WholeReduceSum(z, x, lanes, count / lanes, 1, 1, 8); break;
        }
    }
}

// Row softmax of a half matrix, one row resident in UB at a time, computed in fp32:
// y = exp(x - max(x)) / sum(exp(x - max(x))). Rows are spread over the blocks.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class SoftmaxRows {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols)
    {
        this->cols = cols;
        const uint32_t blocks = GetBlockNum(), idx = GetBlockIdx();
        const uint32_t base = rows / blocks, extra = rows % blocks;
        myRows = base + (idx < extra ? 1 : 0);
        const uint32_t firstRow = idx * base + (idx < extra ? idx : extra);
        xGm.SetGlobalBuffer((__gm__ half *)x + firstRow * cols, myRows * cols);
        yGm.SetGlobalBuffer((__gm__ half *)y + firstRow * cols, myRows * cols);
        pipe.InitBuffer(inQ, BUFFER_NUM, cols * sizeof(half));
        pipe.InitBuffer(outQ, BUFFER_NUM, cols * sizeof(half));
        pipe.InitBuffer(rowBuf, cols * sizeof(float));
        pipe.InitBuffer(workBuf, cols * sizeof(float));
        pipe.InitBuffer(statBuf, 32);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < myRows; ++r) {
            LocalTensor<half> in = inQ.AllocTensor<half>();
            DataCopy(in, xGm[r * cols], cols);
            inQ.EnQue(in);
            in = inQ.DeQue<half>();
            LocalTensor<float> row = rowBuf.Get<float>();
            LocalTensor<float> work = workBuf.Get<float>();
            LocalTensor<float> stat = statBuf.Get<float>();
            Cast(row, in, RoundMode::CAST_NONE, cols);
            inQ.FreeTensor(in);
            ReduceMax(stat, row, work, cols);
            const float mx = stat.GetValue(0);
            Adds(row, row, -mx, cols);
            Exp(row, row, cols);
            ReduceSum(stat, row, work, cols);
            const float inv = 1.0f / stat.GetValue(0);
            Muls(row, row, inv, cols);
            LocalTensor<half> out = outQ.AllocTensor<half>();
            Cast(out, row, RoundMode::CAST_RINT, cols);
            outQ.EnQue(out);
            out = outQ.DeQue<half>();
            DataCopy(yGm[r * cols], out, cols);
            outQ.FreeTensor(out);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQ;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQ;
    TBuf<QuePosition::VECCALC> rowBuf, workBuf, statBuf;
    GlobalTensor<half> xGm, yGm;
    uint32_t cols, myRows;
};

extern "C" __global__ __aicore__ void softmax_rows(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols)
{
    SoftmaxRows op;
    op.Init(x, y, rows, cols);
    op.Process();
}

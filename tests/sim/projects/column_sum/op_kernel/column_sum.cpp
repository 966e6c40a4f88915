#include "kernel_operator.h"
#include "column_sum_tiling.h"
using namespace AscendC;

// Each block sums its rows into its slot of the user workspace; after SyncAll, block 0 adds the slots up.
class ColumnSumKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR usrWorkspace, const ColumnSumTiling& t)
    {
        cols = t.cols;
        uint32_t idx = GetBlockIdx();
        uint32_t start = idx * t.rowsPerCore + (idx < t.tailRows ? idx : t.tailRows);
        myRows = t.rowsPerCore + (idx < t.tailRows ? 1 : 0);
        xGm.SetGlobalBuffer((__gm__ float*)x + start * cols, myRows * cols);
        yGm.SetGlobalBuffer((__gm__ float*)y, cols);
        wsGm.SetGlobalBuffer((__gm__ float*)usrWorkspace, GetBlockNum() * cols);
        pipe.InitBuffer(inQ, 2, cols * sizeof(float));
        pipe.InitBuffer(outQ, 1, cols * sizeof(float));
        pipe.InitBuffer(accBuf, cols * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> acc = accBuf.Get<float>();
        Duplicate(acc, 0.0f, cols);
        for (uint32_t r = 0; r < myRows; ++r) {
            AddRow(acc, xGm[r * cols]);
        }
        Store(wsGm[GetBlockIdx() * cols], acc);
        SyncAll();
        if (GetBlockIdx() == 0) {
            Duplicate(acc, 0.0f, cols);
            for (uint32_t b = 0; b < GetBlockNum(); ++b) {
                AddRow(acc, wsGm[b * cols]);
            }
            Store(yGm, acc);
        }
    }

private:
    __aicore__ inline void AddRow(const LocalTensor<float>& acc, const GlobalTensor<float>& src)
    {
        LocalTensor<float> in = inQ.AllocTensor<float>();
        DataCopy(in, src, cols);
        inQ.EnQue(in);
        in = inQ.DeQue<float>();
        Add(acc, acc, in, cols);
        inQ.FreeTensor(in);
    }
    __aicore__ inline void Store(const GlobalTensor<float>& dst, const LocalTensor<float>& acc)
    {
        LocalTensor<float> out = outQ.AllocTensor<float>();
        Adds(out, acc, 0.0f, cols);
        outQ.EnQue(out);
        out = outQ.DeQue<float>();
        DataCopy(dst, out, cols);
        outQ.FreeTensor(out);
    }
    TPipe pipe;
    TQue<TPosition::VECIN, 2> inQ;
    TQue<TPosition::VECOUT, 1> outQ;
    TBuf<TPosition::VECCALC> accBuf;
    GlobalTensor<float> xGm, yGm, wsGm;
    uint32_t cols, myRows;
};

extern "C" __global__ __aicore__ void column_sum(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(ColumnSumTiling);
    GET_TILING_DATA(t, tiling);
    GM_ADDR usrWorkspace = GetUserWorkspace(workspace);
    ColumnSumKernel op;
    op.Init(x, y, usrWorkspace, t);
    op.Process();
}

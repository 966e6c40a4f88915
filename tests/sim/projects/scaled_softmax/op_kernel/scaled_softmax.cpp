#include "kernel_operator.h"
using namespace AscendC;

class ScaledSoftmaxKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ScaledSoftmaxTilingData& t)
    {
        cols = t.cols;
        scale = t.scale;
        rowsPerTile = t.rowsPerTile;
        uint32_t idx = GetBlockIdx();
        uint32_t start = idx * t.split.rowsPerCore + (idx < t.split.tailRows ? idx : t.split.tailRows);
        myRows = t.split.rowsPerCore + (idx < t.split.tailRows ? 1 : 0);
        xGm.SetGlobalBuffer((__gm__ float*)x + start * cols, myRows * cols);
        yGm.SetGlobalBuffer((__gm__ float*)y + start * cols, myRows * cols);
        pipe.InitBuffer(inQ, 1, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(outQ, 1, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(work, cols * sizeof(float));
        pipe.InitBuffer(red, 64 * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < myRows; r += rowsPerTile) {
            uint32_t n = myRows - r < rowsPerTile ? myRows - r : rowsPerTile;
            LocalTensor<float> in = inQ.AllocTensor<float>();
            DataCopy(in, xGm[r * cols], n * cols);
            inQ.EnQue(in);
            in = inQ.DeQue<float>();
            LocalTensor<float> out = outQ.AllocTensor<float>();
            for (uint32_t i = 0; i < n; ++i) {
                Row(in[i * cols], out[i * cols]);
            }
            outQ.EnQue(out);
            inQ.FreeTensor(in);
            out = outQ.DeQue<float>();
            DataCopy(yGm[r * cols], out, n * cols);
            outQ.FreeTensor(out);
        }
    }

private:
    __aicore__ inline void Row(const LocalTensor<float>& in, const LocalTensor<float>& out)
    {
        LocalTensor<float> w = work.Get<float>();
        LocalTensor<float> s = red.Get<float>();
        Muls(w, in, scale, cols);
        ReduceMax(s, w, out, cols);
        float m = s.GetValue(0);
        Adds(w, w, -m, cols);
        Exp(w, w, cols);
        ReduceSum(s, w, out, cols);
        float sum = s.GetValue(0);
        Muls(out, w, 1.0f / sum, cols);
    }
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQ;
    TQue<TPosition::VECOUT, 1> outQ;
    TBuf<TPosition::VECCALC> work, red;
    GlobalTensor<float> xGm, yGm;
    uint32_t cols, rowsPerTile, myRows;
    float scale;
};

extern "C" __global__ __aicore__ void scaled_softmax(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    ScaledSoftmaxKernel op;
    if (TILING_KEY_IS(1)) {
        // one row per tile
        ScaledSoftmaxTilingData one = t;
        one.rowsPerTile = 1;
        op.Init(x, y, one);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        op.Init(x, y, t);
        op.Process();
    }
}

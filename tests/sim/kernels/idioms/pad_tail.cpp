// Rows whose length is not a multiple of 32 bytes (cols = 19 floats = 76 bytes): DataCopyPad moves them
// in, each row landing on its own 32-byte boundary in UB (stride of 24 floats), and back out exactly.
// z = |x| + 0.5, rows split over the blocks.
#include "kernel_operator.h"
using namespace AscendC;

struct PadTailTiling {
    uint32_t rows;        // rows per block
    uint32_t cols;        // floats per row (any)
    uint32_t rowsPerTile;
};

extern "C" __global__ __aicore__ void pad_tail(GM_ADDR x, GM_ADDR z, PadTailTiling tiling)
{
    const uint32_t padded = (tiling.cols * sizeof(float) + 31) / 32 * 32 / sizeof(float);
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    pipe.InitBuffer(inQ, 2, tiling.rowsPerTile * padded * sizeof(float));
    pipe.InitBuffer(outQ, 2, tiling.rowsPerTile * padded * sizeof(float));
    GlobalTensor<float> xGm, zGm;
    const uint32_t base = GetBlockIdx() * tiling.rows * tiling.cols;
    xGm.SetGlobalBuffer((__gm__ float *)x + base, tiling.rows * tiling.cols);
    zGm.SetGlobalBuffer((__gm__ float *)z + base, tiling.rows * tiling.cols);
    for (uint32_t r0 = 0; r0 < tiling.rows; r0 += tiling.rowsPerTile) {
        const uint32_t rows = tiling.rows - r0 < tiling.rowsPerTile ? tiling.rows - r0 : tiling.rowsPerTile;
        DataCopyExtParams params{static_cast<uint16_t>(rows), static_cast<uint32_t>(tiling.cols * sizeof(float)),
                                 0, 0, 0};
        LocalTensor<float> xl = inQ.AllocTensor<float>();
        DataCopyPad(xl, xGm[r0 * tiling.cols], params, DataCopyPadExtParams<float>{true, 0, 0, 0.0f});
        inQ.EnQue(xl);
        xl = inQ.DeQue<float>();
        LocalTensor<float> zl = outQ.AllocTensor<float>();
        Abs(zl, xl, rows * padded);
        Adds(zl, zl, 0.5f, rows * padded);
        outQ.EnQue(zl);
        inQ.FreeTensor(xl);
        zl = outQ.DeQue<float>();
        DataCopyPad(zGm[r0 * tiling.cols], zl, params);
        outQ.FreeTensor(zl);
    }
}

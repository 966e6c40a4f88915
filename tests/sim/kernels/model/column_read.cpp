// Every block reads a column of 128-byte pieces, one from each 1024-byte row of its own rows of x, starting `col`
// floats into the row (0: each piece on a 512-byte boundary; 32: none is), and writes them to y packed; BYPASS_L2
// keeps x out of L2.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t ROW = 256;   // floats a row: 1024 bytes
constexpr uint32_t PIECE = 32;  // floats a piece: 128 bytes
constexpr uint32_t TILE_ROWS = 64;

extern "C" __global__ __aicore__ void column_read(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t col)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    const uint32_t first = GetBlockIdx() * rows;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + first * ROW, rows * ROW);
    yGm.SetGlobalBuffer((__gm__ float *)y + first * PIECE, rows * PIECE);
#ifdef BYPASS_L2
    xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
#endif
    pipe.InitBuffer(inQ, 2, TILE_ROWS * PIECE * sizeof(float));
    pipe.InitBuffer(outQ, 2, TILE_ROWS * PIECE * sizeof(float));
    const DataCopyParams pieces{TILE_ROWS, PIECE * sizeof(float) / 32, (ROW - PIECE) * sizeof(float) / 32, 0};
    for (uint32_t row = 0; row < rows; row += TILE_ROWS) {
        LocalTensor<float> tile = inQ.AllocTensor<float>();
        DataCopy(tile, xGm[row * ROW + col], pieces);
        inQ.EnQue(tile);
        tile = inQ.DeQue<float>();
        LocalTensor<float> out = outQ.AllocTensor<float>();
        DataCopy(out, tile, TILE_ROWS * PIECE);
        outQ.EnQue(out);
        inQ.FreeTensor(tile);
        out = outQ.DeQue<float>();
        DataCopy(yGm[row * PIECE], out, TILE_ROWS * PIECE);
        outQ.FreeTensor(out);
    }
}

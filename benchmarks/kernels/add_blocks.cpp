// Elementwise half add over any number of blocks: 16-element units are spread evenly, the first
// `total % blocks` blocks take one unit more; each block streams its span in double-buffered tiles.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t UNIT = 16;  // halves per 32 bytes

class AddBlocks {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile)
    {
        const uint32_t units = total / UNIT, blocks = GetBlockNum(), idx = GetBlockIdx();
        const uint32_t base = units / blocks, extra = units % blocks;
        const uint32_t myUnits = base + (idx < extra ? 1 : 0);
        const uint32_t firstUnit = idx * base + (idx < extra ? idx : extra);
        length = myUnits * UNIT;
        tileLength = tile;
        xGm.SetGlobalBuffer((__gm__ half *)x + firstUnit * UNIT, length);
        yGm.SetGlobalBuffer((__gm__ half *)y + firstUnit * UNIT, length);
        zGm.SetGlobalBuffer((__gm__ half *)z + firstUnit * UNIT, length);
        pipe.InitBuffer(inX, BUFFER_NUM, tile * sizeof(half));
        pipe.InitBuffer(inY, BUFFER_NUM, tile * sizeof(half));
        pipe.InitBuffer(outZ, BUFFER_NUM, tile * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t done = 0; done < length; done += tileLength) {
            const uint32_t n = length - done < tileLength ? length - done : tileLength;
            LocalTensor<half> xl = inX.AllocTensor<half>();
            LocalTensor<half> yl = inY.AllocTensor<half>();
            DataCopy(xl, xGm[done], n);
            DataCopy(yl, yGm[done], n);
            inX.EnQue(xl);
            inY.EnQue(yl);
            xl = inX.DeQue<half>();
            yl = inY.DeQue<half>();
            LocalTensor<half> zl = outZ.AllocTensor<half>();
            Add(zl, xl, yl, n);
            outZ.EnQue(zl);
            inX.FreeTensor(xl);
            inY.FreeTensor(yl);
            zl = outZ.DeQue<half>();
            DataCopy(zGm[done], zl, n);
            outZ.FreeTensor(zl);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inX, inY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outZ;
    GlobalTensor<half> xGm, yGm, zGm;
    uint32_t length, tileLength;
};

extern "C" __global__ __aicore__ void add_blocks(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile)
{
    AddBlocks op;
    op.Init(x, y, z, total, tile);
    op.Process();
}

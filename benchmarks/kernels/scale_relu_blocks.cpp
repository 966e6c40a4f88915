// Elementwise float y = max(x, 0) * scale over any number of blocks and lengths past 2^32 elements: 8-element
// units (32 bytes) are spread evenly, the first `total % blocks` blocks take one unit more; each block streams
// its span in double-buffered tiles of `tile` elements. Its control flow and addresses depend on the shape alone.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint64_t UNIT = 8;  // floats per 32 bytes

class ScaleReluBlocks {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint64_t total, uint32_t tile, float scale)
    {
        const uint64_t units = total / UNIT, blocks = GetBlockNum(), idx = GetBlockIdx();
        const uint64_t base = units / blocks, extra = units % blocks;
        const uint64_t first = (idx * base + (idx < extra ? idx : extra)) * UNIT;
        length = (base + (idx < extra ? 1 : 0)) * UNIT;
        tileLength = tile;
        factor = scale;
        xGm.SetGlobalBuffer((__gm__ float *)x + first, length);
        yGm.SetGlobalBuffer((__gm__ float *)y + first, length);
        pipe.InitBuffer(inX, BUFFER_NUM, tile * sizeof(float));
        pipe.InitBuffer(outY, BUFFER_NUM, tile * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint64_t done = 0; done < length; done += tileLength) {
            const uint32_t n = length - done < tileLength ? uint32_t(length - done) : tileLength;
            LocalTensor<float> xl = inX.AllocTensor<float>();
            DataCopy(xl, xGm[done], n);
            inX.EnQue(xl);
            xl = inX.DeQue<float>();
            LocalTensor<float> yl = outY.AllocTensor<float>();
            Relu(yl, xl, n);
            Muls(yl, yl, factor, n);
            outY.EnQue(yl);
            inX.FreeTensor(xl);
            yl = outY.DeQue<float>();
            DataCopy(yGm[done], yl, n);
            outY.FreeTensor(yl);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outY;
    GlobalTensor<float> xGm, yGm;
    uint64_t length;
    uint32_t tileLength;
    float factor;
};

extern "C" __global__ __aicore__ void scale_relu_blocks(GM_ADDR x, GM_ADDR y, uint64_t total, uint32_t tile,
                                                        float scale)
{
    ScaleReluBlocks op;
    op.Init(x, y, total, tile, scale);
    op.Process();
}

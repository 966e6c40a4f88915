// y = 2x in float, block by block: each block streams its `block_len` elements GM -> UB -> GM in tiles of
// `tile_len` through double-buffered queues. The tiling is read from GM, as the tuner's kernels read it.
// `overrun` = 1 makes the last block copy one tile past the end of y (a fault every backend must report).
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct ScaleTiling {
    uint32_t block_len;
    uint32_t tile_len;
    uint32_t overrun;
};

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    const __gm__ uint32_t *fields = reinterpret_cast<const __gm__ uint32_t *>(tiling);
    const ScaleTiling t{fields[0], fields[1], fields[2]};
    const bool last = GetBlockIdx() + 1 == GetBlockNum();
    const uint32_t tiles = t.block_len / t.tile_len + (last && t.overrun ? 1 : 0);
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + t.block_len * GetBlockIdx(), t.block_len);
    yGm.SetGlobalBuffer((__gm__ float *)y + t.block_len * GetBlockIdx(), t.block_len + t.tile_len);
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> in;
    TQue<QuePosition::VECOUT, BUFFER_NUM> out;
    pipe.InitBuffer(in, BUFFER_NUM, t.tile_len * sizeof(float));
    pipe.InitBuffer(out, BUFFER_NUM, t.tile_len * sizeof(float));
    for (uint32_t i = 0; i < tiles; ++i) {
        const uint32_t from = i < t.block_len / t.tile_len ? i : 0;  // the overrun tile re-reads the first
        LocalTensor<float> xLocal = in.AllocTensor<float>();
        DataCopy(xLocal, xGm[from * t.tile_len], t.tile_len);
        in.EnQue(xLocal);
        xLocal = in.DeQue<float>();
        LocalTensor<float> yLocal = out.AllocTensor<float>();
        Muls(yLocal, xLocal, 2.0f, t.tile_len);
        out.EnQue(yLocal);
        in.FreeTensor(xLocal);
        yLocal = out.DeQue<float>();
        DataCopy(yGm[i * t.tile_len], yLocal, t.tile_len);
        out.FreeTensor(yLocal);
    }
}

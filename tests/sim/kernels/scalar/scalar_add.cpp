// z = x + y in half, computed by the scalar unit (tests/sim/test_scalar_cost.py): each tile of `tile`
// elements is copied into UB, added element by element in float, and copied back out. One block does all the
// work, as in the scalar case of Huawei's Add study that calibrates the scalar costs. ACCESS picks how the
// elements are read and written: 0 GetValue / SetValue, 1 raw pointers into UB (LocalTensor::GetPhyAddr).
#include "kernel_operator.h"
using namespace AscendC;

#ifndef ACCESS
#define ACCESS 0
#endif

class ScalarAdd {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile)
    {
        total_ = total;
        tile_ = tile;
        xGm_.SetGlobalBuffer((__gm__ half *)x, total);
        yGm_.SetGlobalBuffer((__gm__ half *)y, total);
        zGm_.SetGlobalBuffer((__gm__ half *)z, total);
        pipe_.InitBuffer(xBuf_, tile * sizeof(half));
        pipe_.InitBuffer(yBuf_, tile * sizeof(half));
        pipe_.InitBuffer(zBuf_, tile * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<half> xLocal = xBuf_.Get<half>();
        LocalTensor<half> yLocal = yBuf_.Get<half>();
        LocalTensor<half> zLocal = zBuf_.Get<half>();
        for (uint32_t start = 0; start < total_; start += tile_) {
            const uint32_t count = total_ - start < tile_ ? total_ - start : tile_;
            if (start != 0) {
                WaitFlag<HardEvent::MTE3_S>(EVENT_ID0);  // the previous tile of zLocal has left UB
            }
            DataCopy(xLocal, xGm_[start], count);
            DataCopy(yLocal, yGm_[start], count);
            SetFlag<HardEvent::MTE2_S>(EVENT_ID0);
            WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);
            Add(xLocal, yLocal, zLocal, count);
            SetFlag<HardEvent::S_MTE3>(EVENT_ID0);
            WaitFlag<HardEvent::S_MTE3>(EVENT_ID0);
            DataCopy(zGm_[start], zLocal, count);
            if (start + tile_ < total_) {
                SetFlag<HardEvent::MTE3_S>(EVENT_ID0);
            }
        }
    }

private:
    __aicore__ inline void Add(const LocalTensor<half> &x, const LocalTensor<half> &y, const LocalTensor<half> &z,
                               uint32_t count)
    {
#if ACCESS == 0
        for (uint32_t i = 0; i < count; ++i) {
            const float sum = static_cast<float>(x.GetValue(i)) + static_cast<float>(y.GetValue(i));
            z.SetValue(i, static_cast<half>(sum));
        }
#else
        const half *xp = reinterpret_cast<const half *>(x.GetPhyAddr());
        const half *yp = reinterpret_cast<const half *>(y.GetPhyAddr());
        half *zp = reinterpret_cast<half *>(z.GetPhyAddr());
        for (uint32_t i = 0; i < count; ++i) {
            zp[i] = static_cast<half>(static_cast<float>(xp[i]) + static_cast<float>(yp[i]));
        }
#endif
    }

    TPipe pipe_;
    TBuf<TPosition::VECCALC> xBuf_, yBuf_, zBuf_;
    GlobalTensor<half> xGm_, yGm_, zGm_;
    uint32_t total_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void scalar_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile)
{
    ScalarAdd op;
    op.Init(x, y, z, total, tile);
    op.Process();
}

// Static Tensor programming (no TPipe): InitSocState, LocalMemAllocator and LocalTensor at fixed UB addresses.
// BUG=0 is clean. A line marked `// FAULT n` is where the fault of BUG=n must be reported.
//   1 ub-overflow    a LocalTensor(pos, addr, tileSize) that ends past the UB
//   2 misaligned     a LocalTensor at a UB address that is not 32-byte aligned
//   3 ub-overflow    LocalMemAllocator::Alloc past the UB
//   4 sync-hazard    the fixed-address kernel without its MTE2->V flag pair
#include "kernel_operator.h"
using namespace AscendC;

#ifndef BUG
#define BUG 0
#endif
#ifndef TILE
#define TILE 2048
#endif

// add.asc's shape: each block adds its TILE floats with three tiles from the allocator.
extern "C" __global__ __vector__ void alloc_add(__gm__ float* x, __gm__ float* y, __gm__ float* z, __gm__ uint32_t* info)
{
    InitSocState();
    GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer(x + block_idx * TILE, TILE);
    yGm.SetGlobalBuffer(y + block_idx * TILE, TILE);
    zGm.SetGlobalBuffer(z + block_idx * TILE, TILE);
    LocalMemAllocator<Hardware::UB> ub;
    const uint32_t start = ub.GetCurAddr();
    LocalTensor<float> xLocal = ub.Alloc<float, TILE>();
    LocalTensor<float> yLocal = ub.Alloc<TPosition::VECIN, float>(TILE);
    const uint32_t third = ub.GetCurAddr();
    LocalTensor<float> zLocal = ub.Alloc<TPosition::VECOUT, float, TILE>();
#if BUG == 3
    LocalTensor<float> big = ub.Alloc<float>(GetUBSizeInBytes() / sizeof(float));  // FAULT 3
#endif
    DataCopy(xLocal, xGm, TILE);
    DataCopy(yLocal, yGm, TILE);
    PipeBarrier<PIPE_ALL>();
    Add(zLocal, xLocal, yLocal, TILE);
    PipeBarrier<PIPE_ALL>();
    DataCopy(zGm, zLocal, TILE);
    PipeBarrier<PIPE_ALL>();
    if (block_idx == 0) {
        info[0] = start;
        info[1] = third;
        info[2] = ub.GetCurAddr();
        info[3] = GetUBSizeInBytes();
        info[4] = GetRuntimeUBSize();
        info[5] = static_cast<uint32_t>(zLocal.GetPosition());
    }
}

// add_high_performance's shape: three tiles at fixed UB addresses, ordered by flag pairs, looping over the
// block's `len` halves in tiles of TILE.
extern "C" __global__ __vector__ void fixed_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t len)
{
    InitSocState();
    GlobalTensor<half> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ half*)x + GetBlockIdx() * len, len);
    yGm.SetGlobalBuffer((__gm__ half*)y + GetBlockIdx() * len, len);
    zGm.SetGlobalBuffer((__gm__ half*)z + GetBlockIdx() * len, len);
    constexpr uint32_t xAddr = 0, yAddr = TILE * sizeof(half), zAddr = 2 * TILE * sizeof(half);
    LocalTensor<half> xLocal(TPosition::VECCALC, xAddr, TILE);
    LocalTensor<half> yLocal(TPosition::VECCALC, yAddr, TILE);
#if BUG == 1
    LocalTensor<half> zLocal(TPosition::VECCALC, GetUBSizeInBytes() - TILE, TILE);  // FAULT 1
#elif BUG == 2
    LocalTensor<half> zLocal(TPosition::VECCALC, zAddr + 16, TILE);  // FAULT 2
#else
    LocalTensor<half> zLocal(TPosition::VECCALC, zAddr, TILE);
#endif
    const uint32_t loops = (len + TILE - 1) / TILE;
    for (uint32_t i = 0; i < loops; ++i) {
        const uint32_t n = (i + 1 == loops) ? len - i * TILE : TILE;
        if (i != 0) WaitFlag<HardEvent::V_MTE2>(EVENT_ID0);
        DataCopy(xLocal, xGm[i * TILE], n);
        DataCopy(yLocal, yGm[i * TILE], n);
#if BUG != 4
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
#endif
        if (i != 0) WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
        Add(zLocal, xLocal, yLocal, n);  // FAULT 4
        if (i + 1 != loops) SetFlag<HardEvent::V_MTE2>(EVENT_ID0);
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
        DataCopy(zGm[i * TILE], zLocal, n);
        if (i + 1 != loops) SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
    }
}

// The whole UB as six fixed tiles (add_high_performance's ping-pong layout on A2: 6 x 16384 halves).
extern "C" __global__ __vector__ void whole_ub(GM_ADDR x, GM_ADDR z)
{
    InitSocState();
    constexpr uint32_t n = 16384;
    GlobalTensor<half> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, n);
    zGm.SetGlobalBuffer((__gm__ half*)z, n);
    LocalTensor<half> last(TPosition::VECCALC, 5 * n * sizeof(half), n);
    DataCopy(last, xGm, n);
    PipeBarrier<PIPE_ALL>();
    DataCopy(zGm, last, n);
}

// The host side of the tensor-transform (张量变换) advanced APIs: the PadTiling / UnPadTiling /
// ConfusionTransposeTiling structs and GetPadMaxMinTmpSize, PadTilingFunc, GetUnPadMaxMinTmpSize,
// UnPadTilingFunc, GetBroadCastMaxMinTmpSize, GetTransposeMaxMinTmpSize, GetTransposeTilingInfo and their
// GetConfusionTranspose* aliases (asc-devkit docs/zh/api/SIMD-API/高阶API/张量变换/Pad-Tiling.md,
// UnPad-Tiling.md, GetBroadCastMaxMinTmpSize.md, Transpose-Tiling.md).
// Sizes and fields follow those pages and asc-devkit's tiling code for the A2 (2201) target the simulator runs.
// Plain C++ with no kernel dependency; included at the end of adv_host.h.
#pragma once
#include <cstdint>
#include <vector>

// Pad-Tiling.md: the kernel-side struct (AscendC::tiling::PadTiling), the same fields as optiling::PadTiling.
struct PadTiling {
    uint32_t srcHeight = 0;
    uint32_t srcWidth = 0;
    uint32_t srcOriWidth = 0;
    // width 32-byte aligned
    uint32_t widthWithoutLastBlock = 0;
    uint32_t blocksPerRow = 0;
    uint32_t heightTiling = 0;
    uint32_t heightFractal = 0;
    uint32_t heightFractalTail = 0;
    uint32_t mainLoopOffset = 0;
    uint32_t tailBlockOffset = 0;
    // width not 32-byte aligned
    uint32_t tmpBuffer1BlockNum = 0;
    uint32_t tmpBuffer1RowNum = 0;
    uint32_t tmpBuffer2Offset = 0;
    uint32_t widthTiling = 0;
    uint32_t widthFractal = 0;
    uint32_t widthFractalTail = 0;
    uint32_t widthFractalTailAlingned = 0;
    uint32_t brcbTiling = 0;
    uint32_t brcbFractal = 0;
    uint32_t brcbFractalTail = 0;
    uint32_t maxRepeatTimes = 0;
    uint32_t brcbTilingRepeatTimes = 0;
    uint32_t brcbTilingRepeatTimesTail = 0;
    uint32_t brcbFractalTailRepeatTimes = 0;
    uint32_t brcbFractalTailRepeatTimesTail = 0;
    uint32_t reserved = 0;
};
// UnPad-Tiling.md. On A2 UnPad needs no temporary space and reads srcHeight and srcWidth only.
struct UnPadTiling {
    uint32_t srcHeight = 0;
    uint32_t srcWidth = 0;
    uint32_t tmpBuffer1BlockNum = 0;
    uint32_t tmpBuffer1RowNum = 0;
    uint32_t tmpBuffer2Offset = 0;
    uint32_t widthTiling = 0;
    uint32_t widthFractal = 0;
    uint32_t widthFractalTail = 0;
};

// Transpose-Tiling.md: ConfusionTransposeTiling holds 18 words whose meaning depends on the scenario
// (asc-devkit confusion_transpose_tiling_impl.cpp). Scenarios 1 and 2 (NZ2ND_0213 / NZ2NZ_0213): blockSize,
// shapeB, shapeA1, alignA3, alignA2, widthTiling, newPopSize, newPopH, needSize, mainBlocks, tailSize,
// alignA2MulAlignA3, batchOffset, alignA3MulA1, shapeA1BlockCube, mainOffset. Scenarios 5 and 6: see
// GetTransposeTilingInfo. Scenario 7 (ND2ND_ONLY):
// blockSize, height, width, highBlock, stride, repeat.
struct ConfusionTransposeTiling {
    uint32_t param0 = 0;
    uint32_t param1 = 0;
    uint32_t param2 = 0;
    uint32_t param3 = 0;
    uint32_t param4 = 0;
    uint32_t param5 = 0;
    uint32_t param6 = 0;
    uint32_t param7 = 0;
    uint32_t param8 = 0;
    uint32_t param9 = 0;
    uint32_t param10 = 0;
    uint32_t param11 = 0;
    uint32_t param12 = 0;
    uint32_t param13 = 0;
    uint32_t param14 = 0;
    uint32_t param15 = 0;
    uint32_t param16 = 0;
    uint32_t param17 = 0;
};

namespace AscendC {
namespace tiling {
using ::ConfusionTransposeTiling;
using ::PadTiling;
using ::UnPadTiling;
}  // namespace tiling

namespace adv {
constexpr uint32_t kPadBlk = 32;        // bytes of one block
constexpr uint32_t kPadAddrList = 16;   // TransDataTo5HD's 16 address lists
constexpr uint32_t kPadTmpBuffers = 2;  // tmp1 (Brcb rows) and tmp2 (the 16 x 16 transpose)
}  // namespace adv

// Pad-Tiling.md / asc-devkit pad_tiling_impl.cpp: the minimum holds one 16-row group in each of the two
// temporaries; the maximum the whole input.
inline void GetPadMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                uint32_t& minValue) {
    maxValue = minValue = 0;
    if (srcShape.GetDimNum() != 2 || (typeSize != 2 && typeSize != 4)) return;
    const uint32_t h = uint32_t(srcShape.GetDim(0)), w = uint32_t(srcShape.GetDim(1));
    const uint32_t perBlk = adv::kPadBlk / typeSize;
    const uint32_t n = h * w;
    maxValue = (n == 0 ? 0 : (n - 1) / adv::kPadAddrList + 1) * adv::kPadAddrList * perBlk * adv::kPadTmpBuffers *
               typeSize;
    minValue = adv::kPadAddrList * perBlk * adv::kPadTmpBuffers * typeSize;
}

inline void PadTilingFunc(const TensorShape srcShape, const TensorShape oriSrcShape, const uint32_t stackBufferSize,
                          const uint32_t typeSize, PadTiling& tiling) {
    tiling = PadTiling{};
    if (srcShape.GetDimNum() != 2 || oriSrcShape.GetDimNum() != 2 || (typeSize != 2 && typeSize != 4)) return;
    const uint32_t h = uint32_t(srcShape.GetDim(0)), w = uint32_t(srcShape.GetDim(1));
    const uint32_t perBlk = adv::kPadBlk / typeSize;
    tiling.srcHeight = h;
    tiling.srcWidth = w;
    tiling.srcOriWidth = uint32_t(oriSrcShape.GetDim(1));
    tiling.widthWithoutLastBlock = w - perBlk;
    tiling.blocksPerRow = w * typeSize / adv::kPadBlk;
    tiling.heightTiling = 255;
    tiling.heightFractal = h / 255;
    tiling.heightFractalTail = h % 255;
    tiling.mainLoopOffset = 255 * w;
    tiling.tailBlockOffset = tiling.heightFractal * 255 * w + tiling.widthWithoutLastBlock;
    if (stackBufferSize == 0) return;
    const uint32_t baseElems = adv::kPadAddrList * adv::kPadBlk / typeSize;
    const uint32_t blocks = stackBufferSize / typeSize / baseElems / 2;
    tiling.tmpBuffer1BlockNum = blocks;
    tiling.tmpBuffer1RowNum = adv::kPadAddrList * blocks;
    tiling.tmpBuffer2Offset = blocks * baseElems;
    const uint32_t widthTiling = adv::kPadAddrList * blocks;
    if (widthTiling == 0) return;  // below one 16-row group: the kernel side reports it
    tiling.widthTiling = widthTiling;
    tiling.widthFractal = w / widthTiling;
    tiling.widthFractalTail = w % widthTiling;
    tiling.widthFractalTailAlingned =
        tiling.widthFractalTail == 0 ? 0 : ((tiling.widthFractalTail - 1) / perBlk + 1) * perBlk;
    tiling.brcbTiling = widthTiling;
    tiling.brcbFractal = h * w / widthTiling;
    tiling.brcbFractalTail = h * w % widthTiling;
    tiling.maxRepeatTimes = 254;  // 255 x 8 rows is not a whole number of 32-byte blocks
    tiling.brcbTilingRepeatTimes = widthTiling / 8 / 254;
    tiling.brcbTilingRepeatTimesTail = widthTiling / 8 % 254;
    tiling.brcbFractalTailRepeatTimes = tiling.brcbFractalTail / 8 / 254;
    tiling.brcbFractalTailRepeatTimesTail = tiling.brcbFractalTail / 8 % 254;
}

// UnPad-Tiling.md: on A2 (and 950) UnPad is one GatherMask and takes no temporary space.
template <typename Platform>
inline void GetUnPadMaxMinTmpSize(const Platform& /*ascendcPlatform*/, const TensorShape& /*srcShape*/,
                                  const uint32_t /*typeSize*/, uint32_t& maxValue, uint32_t& minValue) {
    maxValue = minValue = 0;
}
inline void UnPadTilingFunc(const TensorShape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                            UnPadTiling& tiling) {
    tiling = UnPadTiling{};
    if (srcShape.GetDimNum() != 2 || (typeSize != 2 && typeSize != 4)) return;
    const uint32_t w = uint32_t(srcShape.GetDim(1));
    tiling.srcHeight = uint32_t(srcShape.GetDim(0));
    tiling.srcWidth = w;
    if (stackBufferSize == 0) return;
    const uint32_t baseElems = adv::kPadAddrList * adv::kPadBlk / typeSize;
    const uint32_t blocks = stackBufferSize / typeSize / baseElems / 2;
    tiling.tmpBuffer1BlockNum = blocks;
    tiling.tmpBuffer1RowNum = adv::kPadAddrList * blocks;
    tiling.tmpBuffer2Offset = blocks * baseElems;
    const uint32_t widthTiling = adv::kPadAddrList * blocks;
    if (widthTiling == 0) return;
    tiling.widthTiling = widthTiling;
    tiling.widthFractal = w / widthTiling + (w % widthTiling != 0 ? 1 : 0);
    tiling.widthFractalTail = w % widthTiling != 0 ? w % widthTiling : widthTiling;
}

// GetBroadCastMaxMinTmpSize.md / asc-devkit broadcast_tiling.cpp, the A2 (2201) sizes. int8_t / uint8_t add
// the half copies of src and dst (the simulator's Broadcast does not offer 1-byte types yet).
namespace adv {
inline uint32_t brc_cast_bytes(const TensorShape& src, const TensorShape& dst, uint32_t& typeSize) {
    if (typeSize != 1) return 0;
    typeSize = 2;
    const uint32_t s = (uint32_t(src.GetShapeSize()) + 15) / 16 * 16;
    const uint32_t d = (uint32_t(dst.GetShapeSize()) + 15) / 16 * 16;
    return (s + d) * 2;
}
}  // namespace adv
template <typename Platform>
inline void GetBroadCastMaxMinTmpSize(const Platform& /*ascendcPlatform*/, const TensorShape& srcShape,
                                      const TensorShape& dstShape, uint32_t typeSize, const bool /*isReuseSource*/,
                                      uint32_t& maxValue, uint32_t& minValue) {
    maxValue = minValue = 0;
    const size_t dims = dstShape.GetDimNum();
    if ((dims != 1 && dims != 2) || srcShape.GetDimNum() != dims || typeSize == 0) return;
    for (size_t i = 0; i < dims; ++i) {
        if (srcShape.GetDim(i) != dstShape.GetDim(i) && srcShape.GetDim(i) != 1) return;
    }
    if (srcShape.GetShapeSize() <= 0) return;
    if (srcShape.GetShapeSize() == dstShape.GetShapeSize() || srcShape.GetShapeSize() == 1) {
        if (typeSize != 1) return;
        const uint32_t cast = adv::brc_cast_bytes(srcShape, dstShape, typeSize);
        minValue = maxValue = cast + adv::kPadBlk;
        return;
    }
    const bool lastAxis = srcShape.GetDim(1) == 1;
    const uint32_t cast = adv::brc_cast_bytes(srcShape, dstShape, typeSize);
    if (!lastAxis) {  // first axis: one zero block for the Or copies
        minValue = maxValue = adv::kPadBlk + cast;
        return;
    }
    const uint32_t perBlk = adv::kPadBlk / typeSize;
    const uint32_t m = uint32_t(dstShape.GetDim(0)), k = uint32_t(dstShape.GetDim(1));
    const uint32_t brcbMin = perBlk * perBlk * typeSize;
    const uint32_t brcbMax = (m + 7) / 8 * 8 * perBlk * typeSize;
    if (k % perBlk == 0) {
        minValue = brcbMin + cast;
        maxValue = brcbMax + cast;
    } else {
        const uint32_t kAlign = (k + perBlk - 1) / perBlk * perBlk;
        minValue = brcbMin + perBlk * kAlign * typeSize + cast;
        maxValue = brcbMax + m * kAlign * typeSize + cast;
    }
}
// ---- Transpose / ConfusionTranspose (Transpose-Tiling.md) -------------------------------------------------
// transposeTypeIn numbers TransposeType: 1 NZ2ND_0213, 2 NZ2NZ_0213, 3 NZ2NZ_012_WITH_N, 4 NZ2ND_012_WITH_N,
// 5 NZ2ND_012_WITHOUT_N, 6 NZ2NZ_012_WITHOUT_N, 7 ND2ND_ONLY (the A2 scenarios). Sizes in bytes.
inline void GetTransposeMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize,
                                      const uint32_t transposeTypeIn, uint32_t& maxValue, uint32_t& minValue) {
    constexpr uint32_t cube = 16 * 16;
    maxValue = minValue = 0;
    if (transposeTypeIn == 1 || transposeTypeIn == 2) {
        if (srcShape.GetDimNum() != 4) return;
        const uint32_t alignA2 = (uint32_t(srcShape.GetDim(2)) + 15) / 16 * 16;
        maxValue = alignA2 * 16 * typeSize;
        minValue = cube * typeSize;
    } else if (transposeTypeIn >= 3 && transposeTypeIn <= 6) {
        maxValue = minValue = 2 * cube * typeSize;
    }
}
inline void GetConfusionTransposeMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize,
                                               const uint32_t transposeTypeIn, uint32_t& maxValue,
                                               uint32_t& minValue) {
    GetTransposeMaxMinTmpSize(srcShape, typeSize, transposeTypeIn, maxValue, minValue);
}
inline void GetConfusionTransposeOnlyTilingInfo(const TensorShape& srcShape, const uint32_t /*stackBufferSize*/,
                                                const uint32_t typeSize, ConfusionTransposeTiling& tiling) {
    tiling = ConfusionTransposeTiling{};
    if (srcShape.GetDimNum() != 2 || typeSize == 0) return;
    const uint32_t blockSize = 32 / typeSize, h = uint32_t(srcShape.GetDim(0)), w = uint32_t(srcShape.GetDim(1));
    tiling.param0 = blockSize;
    tiling.param1 = h;
    tiling.param2 = w;
    tiling.param3 = h / 16;
    tiling.param4 = h * blockSize * typeSize / 32;
    tiling.param5 = w / blockSize;
}
// Fills the scenarios the simulator's Transpose provides (1, 2, 5, 6 and 7); the others are left zero (the
// kernel side refuses them).
inline void GetTransposeTilingInfo(const TensorShape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                                   const uint32_t transposeTypeIn, ConfusionTransposeTiling& tiling) {
    tiling = ConfusionTransposeTiling{};
    if (typeSize == 0) return;
    if (transposeTypeIn == 7) {
        GetConfusionTransposeOnlyTilingInfo(srcShape, stackBufferSize, typeSize, tiling);
        return;
    }
    if ((transposeTypeIn == 5 || transposeTypeIn == 6) && srcShape.GetDimNum() == 4) {
        // scenarios 5 and 6, srcShape [B, N, S, H/N]: blockSize, shapeB, shapeN, hnDiv, shapeH, hBlockNum,
        // sBlockNum, hnDivBlockNum, alignH, alignsCube, alignhBlockCube, blockSizeMulAlignH, srcBatchOffset,
        // dstBatchOffset, blockNum
        const uint32_t b = uint32_t(srcShape.GetDim(0)), n = uint32_t(srcShape.GetDim(1));
        const uint32_t hn = uint32_t(srcShape.GetDim(3)), h = n * hn, blockSize = 32 / typeSize;
        const uint32_t hBlocks = (h + 15) / 16, sBlocks = (uint32_t(srcShape.GetDim(2)) + 15) / 16;
        const uint32_t hnBlocks = (hn + 15) / 16, alignH = hBlocks * 16;
        tiling.param0 = blockSize;
        tiling.param1 = b;
        tiling.param2 = n;
        tiling.param3 = hn;
        tiling.param4 = h;
        tiling.param5 = hBlocks;
        tiling.param6 = sBlocks;
        tiling.param7 = hnBlocks;
        tiling.param8 = alignH;
        tiling.param9 = sBlocks * 256;
        tiling.param10 = alignH * 16;
        tiling.param11 = blockSize * alignH;
        tiling.param12 = n * hnBlocks * 16 * sBlocks * 16;
        tiling.param13 = alignH * sBlocks * 16;
        tiling.param14 = 16 / blockSize;
        return;
    }
    if ((transposeTypeIn != 1 && transposeTypeIn != 2) || srcShape.GetDimNum() != 4) return;
    const uint32_t b = uint32_t(srcShape.GetDim(0)), a1 = uint32_t(srcShape.GetDim(1));
    const uint32_t alignA2 = (uint32_t(srcShape.GetDim(2)) + 15) / 16 * 16;
    const uint32_t widthTiling = (uint32_t(srcShape.GetDim(3)) + 15) / 16;
    const uint32_t alignA3 = widthTiling * 16;
    const uint32_t newPopSize = stackBufferSize / typeSize / 256 * 256;  // whole 16 x 16 cubes
    const uint32_t newPopH = newPopSize / 16;
    const uint32_t needSize = alignA2 * 16;
    tiling.param0 = 32 / typeSize;
    tiling.param1 = b;
    tiling.param2 = a1;
    tiling.param3 = alignA3;
    tiling.param4 = alignA2;
    tiling.param5 = widthTiling;
    tiling.param6 = newPopSize;
    tiling.param7 = newPopH;
    tiling.param8 = needSize;
    tiling.param9 = newPopSize == 0 ? 0 : needSize / newPopSize;
    tiling.param10 = newPopSize == 0 ? needSize : needSize % newPopSize;
    tiling.param11 = alignA2 * alignA3;
    tiling.param12 = a1 * alignA2 * alignA3;
    tiling.param13 = a1 * alignA3;
    tiling.param14 = a1 * 16;
    tiling.param15 = newPopH * tiling.param9 * a1 * alignA3;
}
inline void GetConfusionTransposeTilingInfo(const TensorShape& srcShape, const uint32_t stackBufferSize,
                                            const uint32_t typeSize, const uint32_t transposeTypeIn,
                                            ConfusionTransposeTiling& tiling) {
    GetTransposeTilingInfo(srcShape, stackBufferSize, typeSize, transposeTypeIn, tiling);
}
}  // namespace AscendC

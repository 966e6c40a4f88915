// Tensor-transform APIs (张量变换: Broadcast.md, Pad.md, UnPad.md, Transpose-96.md) driver. The tiling is made
// in the kernel with the host helpers of adv_transform_host.h (plain C++). api: 0 Broadcast [m, 1] -> [m, k],
// 1 Broadcast [1, k] -> [m, k], 2 Broadcast [1] -> [k] (1-D), 3 Broadcast [k] -> [k], 4 Pad, 5 UnPad,
// 6 Transpose NZ2ND_0213 (src [b, n, hn/16, s/16, 16, 16]), 7 Transpose NZ2NZ_0213, 8 Transpose ND2ND_ONLY,
// 13 Transpose NZ2ND_012_WITHOUT_N, 14 Transpose NZ2NZ_012_WITHOUT_N (d0..d3 = b, n, s, hn),
// 9-12 TransData NCDHW -> NDC1HWC0, NDC1HWC0 -> NCDHW, NCDHW -> FRACTAL_Z_3D, FRACTAL_Z_3D -> NCDHW
// (d0..d4 = n, c, d, h, w).
// own != 0: the form without sharedTmpBuffer. tmpBytes: the sharedTmpBuffer (0: GetXxxMaxMinTmpSize's minimum).
#include "kernel_operator.h"
using namespace AscendC;

namespace {
constexpr TransDataConfig kTo6hd = {DataFormat::NCDHW, DataFormat::NDC1HWC0};
constexpr TransDataConfig kFrom6hd = {DataFormat::NDC1HWC0, DataFormat::NCDHW};
constexpr TransDataConfig kToFz = {DataFormat::NCDHW, DataFormat::FRACTAL_Z_3D};
constexpr TransDataConfig kFromFz = {DataFormat::FRACTAL_Z_3D, DataFormat::NCDHW};

template <const TransDataConfig& config, typename T, typename U, typename S>
void run_transdata(const LocalTensor<T>& y, const LocalTensor<T>& x, const LocalTensor<uint8_t>& tmp, bool own,
                   const U& src, const S& dst) {
    TransDataParams<U, S> params = {src, dst};
    if (own) {
        TransData<config>(y, x, params);
    } else {
        TransData<config>(y, x, tmp, params);
    }
}
}  // namespace

#ifndef DTYPE
#define DTYPE float
#endif

struct TransformParams {
    uint32_t api;
    uint32_t own;
    uint32_t inLen;   // elements of the input buffer (a multiple of 32 bytes)
    uint32_t outLen;  // elements of the output buffer (a multiple of 32 bytes)
    uint32_t d0;      // m / h / b
    uint32_t d1;      // k / w / n
    uint32_t d2;      // Pad: original width; Transpose: s
    uint32_t d3;      // Pad: leftPad; Transpose: hn
    uint32_t d4;      // Pad / UnPad: rightPad
    int32_t padValue;
    uint32_t tmpBytes;
    uint32_t tilingTmpBytes;  // the stackBufferSize given to the tiling function (0: tmpBytes)
};

extern "C" __global__ __aicore__ void adv_transform(GM_ADDR x, GM_ADDR y, TransformParams p)
{
    using T = DTYPE;
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, yb, tb;
    pipe.InitBuffer(xb, p.inLen * sizeof(T));
    pipe.InitBuffer(yb, p.outLen * sizeof(T));
    uint32_t tmpBytes = p.tmpBytes;
    uint32_t maxV = 0, minV = 0;
    const uint32_t ts = sizeof(T);
    if (p.api == 4) {
        GetPadMaxMinTmpSize(TensorShape({int64_t(p.d0), int64_t(p.d1)}), ts, maxV, minV);
    } else if (p.api == 6 || p.api == 7 || p.api >= 13) {
        GetTransposeMaxMinTmpSize(TensorShape({int64_t(p.d0), int64_t(p.d1), int64_t(p.d2), int64_t(p.d3)}), ts,
                                  p.api == 6 ? 1 : p.api == 7 ? 2 : p.api == 13 ? 5 : 6, maxV, minV);
    } else if (p.api >= 9 && p.api <= 12) {
        const TensorShape nc({int64_t(p.d0), int64_t(p.d1), int64_t(p.d2), int64_t(p.d3), int64_t(p.d4)});
        const int64_t c1 = (p.d1 + 15) / 16, n1 = (p.d0 + 15) / 16;
        const TensorShape hd({int64_t(p.d0), int64_t(p.d2), c1, int64_t(p.d3), int64_t(p.d4), 16});
        const TensorShape fz({int64_t(p.d2), c1, int64_t(p.d3), int64_t(p.d4), n1, 16, 16});
        const TransDataConfig& cfg = p.api == 9 ? kTo6hd : p.api == 10 ? kFrom6hd : p.api == 11 ? kToFz : kFromFz;
        const bool fromNc = p.api == 9 || p.api == 11;
        const TensorShape& other = p.api <= 10 ? hd : fz;
        GetTransDataMaxMinTmpSize(0, fromNc ? nc : other, fromNc ? other : nc, 1, cfg, maxV, minV);
    } else if (p.api <= 3) {
        if (p.api <= 1) {
            GetBroadCastMaxMinTmpSize(0, TensorShape({int64_t(p.api == 0 ? p.d0 : 1), int64_t(p.api == 0 ? 1 : p.d1)}),
                                      TensorShape({int64_t(p.d0), int64_t(p.d1)}), ts, false, maxV, minV);
        } else {
            GetBroadCastMaxMinTmpSize(0, TensorShape({int64_t(p.api == 2 ? 1 : p.d1)}), TensorShape({int64_t(p.d1)}),
                                      ts, false, maxV, minV);
        }
    }
    if (tmpBytes == 0) tmpBytes = minV;
    if (!p.own && tmpBytes > 0) pipe.InitBuffer(tb, tmpBytes);
    GlobalTensor<T> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, p.inLen);
    yGm.SetGlobalBuffer((__gm__ T*)y, p.outLen);
    LocalTensor<T> xl = xb.Get<T>(), yl = yb.Get<T>();
    DataCopy(xl, xGm, p.inLen);
    Duplicate(yl.template ReinterpretCast<uint16_t>(), uint16_t(0), int32_t(p.outLen * sizeof(T) / 2));
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    LocalTensor<uint8_t> tmp;
    if (!p.own && tmpBytes > 0) tmp = tb.Get<uint8_t>();
    const uint32_t stack = p.tilingTmpBytes ? p.tilingTmpBytes : tmpBytes;
    if (p.api <= 3) {
        const uint32_t m = p.d0, k = p.d1;
        if (p.api == 0) {
            const uint32_t src[2] = {m, 1}, dst[2] = {m, k};
            if (p.own) Broadcast<T, 2, 1>(yl, xl, dst, src); else Broadcast<T, 2, 1>(yl, xl, dst, src, tmp);
        } else if (p.api == 1) {
            const uint32_t src[2] = {1, k}, dst[2] = {m, k};
            if (p.own) Broadcast<T, 2, 0>(yl, xl, dst, src); else Broadcast<T, 2, 0>(yl, xl, dst, src, tmp);
        } else {
            const uint32_t src[1] = {p.api == 2 ? 1u : k}, dst[1] = {k};
            if (p.own) Broadcast<T, 1, 0>(yl, xl, dst, src); else Broadcast<T, 1, 0>(yl, xl, dst, src, tmp);
        }
    }
    if constexpr (sizeof(T) == 1) {
        // Pad, UnPad and Transpose take 2- and 4-byte types only
    } else if (p.api == 4) {
        PadTiling tiling;
        PadTilingFunc(TensorShape({int64_t(p.d0), int64_t(p.d1)}), TensorShape({int64_t(p.d0), int64_t(p.d2)}), stack,
                      ts, tiling);
        PadParams pp{uint16_t(p.d3), uint16_t(p.d4), p.padValue};
        if (p.own) Pad(yl, xl, pp, tiling); else Pad(yl, xl, pp, tmp, tiling);
    } else if (p.api == 5) {
        UnPadTiling tiling;
        UnPadTilingFunc(TensorShape({int64_t(p.d0), int64_t(p.d1)}), 0, ts, tiling);
        UnPadParams up{0, uint16_t(p.d4)};
        UnPad(yl, xl, up, tiling);
    } else if (p.api >= 9 && p.api <= 12) {
        if constexpr (sizeof(T) == 2) {
            const int32_t n = p.d0, c = p.d1, d = p.d2, h = p.d3, w = p.d4, c1 = (c + 15) / 16, n1 = (n + 15) / 16;
            auto nc = MakeLayout(MakeShape(n, c, d, h, w), MakeStride());
            auto hd = MakeLayout(MakeShape(n, d, c1, h, w, 16), MakeStride());
            auto fz = MakeLayout(MakeShape(d, c1, h, w, n1, 16, 16), MakeStride());
            if (p.api == 9) run_transdata<kTo6hd>(yl, xl, tmp, p.own, nc, hd);
            if (p.api == 10) run_transdata<kFrom6hd>(yl, xl, tmp, p.own, hd, nc);
            if (p.api == 11) run_transdata<kToFz>(yl, xl, tmp, p.own, nc, fz);
            if (p.api == 12) run_transdata<kFromFz>(yl, xl, tmp, p.own, fz, nc);
        }
    } else if (p.api >= 6) {
        ConfusionTransposeTiling tiling;
        TransposeType type = TransposeType::TRANSPOSE_ND2ND_ONLY;
        if (p.api == 8) {
            GetTransposeTilingInfo(TensorShape({int64_t(p.d0), int64_t(p.d1)}), stack, ts, 7, tiling);
        } else {
            type = p.api == 6    ? TransposeType::TRANSPOSE_NZ2ND_0213
                   : p.api == 7  ? TransposeType::TRANSPOSE_NZ2NZ_0213
                   : p.api == 13 ? TransposeType::TRANSPOSE_NZ2ND_012_WITHOUT_N
                                 : TransposeType::TRANSPOSE_NZ2NZ_012_WITHOUT_N;
            GetTransposeTilingInfo(TensorShape({int64_t(p.d0), int64_t(p.d1), int64_t(p.d2), int64_t(p.d3)}), stack,
                                   ts, uint32_t(type), tiling);
        }
        if (p.own) Transpose(yl, xl, type, tiling); else Transpose(yl, xl, tmp, type, tiling);
    }
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(yGm, yl, p.outLen);
}

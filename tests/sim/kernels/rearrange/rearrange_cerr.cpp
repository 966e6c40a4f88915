// One API call outside a SoC's support per ERR value (0: none): each must be a compile error naming the API.
#include "kernel_operator.h"
using namespace AscendC;

#ifndef ERR
#define ERR 0
#endif

extern "C" __global__ __aicore__ void rearrange_cerr(GM_ADDR x)
{
    TPipe pipe;
    TBuf<QuePosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096);
    LocalTensor<half> h = buf.Get<half>();
    LocalTensor<float> f = buf.Get<float>();
    LocalTensor<int16_t> i16 = buf.Get<int16_t>();
    LocalTensor<uint32_t> u32 = buf.Get<uint32_t>();
    (void)h, (void)f, (void)i16, (void)u32;
#if ERR == 1
    Sort32(f, f[256], u32[512], 1);  // not on 310P
#elif ERR == 2
    ShiftLeft(i16, i16[256], int16_t(1), 128);  // not on 310P
#elif ERR == 3
    Interleave(h, h[128], h[256], h[384], 128);  // 950 only
#elif ERR == 4
    Gatherb(u32, u32[256], u32[512], 1, GatherRepeatParams{1, 8});  // not on 310P
#elif ERR == 5
    float v, i;
    GetReduceRepeatMaxMinSpr(v, i);  // not on 950
#elif ERR == 6
    Gather(f, f[256], u32[512], 0u, 64u);
    Transpose(i16, i16[256]);
    Sort32(f, f[256], u32[512], 1);
#elif ERR == 7
    Gather(h.ReinterpretCast<int8_t>(), h.ReinterpretCast<int8_t>()[256], u32[512], 0u, 64u);  // int8_t on A2
#elif ERR == 8
    MrgSort4Info info;
    MrgSort(f, MrgSortSrcList<float>(f[64], f[128], f[192], f[256]), info);  // not on 310P
#elif ERR == 9
    DeInterleave(h, h[128], h[256], 128);  // 950 only
#elif ERR == 10
    ProposalConcat(h, h[512], 1, 4);  // 310P only
#elif ERR == 11
    MrgSort4Info info;
    MrgSort4(h, MrgSortSrcList<half>(h[512], h[640], h[768], h[896]), info);  // 310P only
#elif ERR == 12
    uint64_t dl[16] = {}, sl[16] = {};
    TransDataTo5HD<int8_t>(dl, sl, TransDataTo5HDParams{});  // 1-byte form not provided
#endif
}

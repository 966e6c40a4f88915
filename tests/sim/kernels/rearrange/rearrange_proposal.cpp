// Region-proposal semantics driver (310P AI Core): ProposalConcat, ProposalExtract, RpSort16, and RpSort16 then
// MrgSort4 with GetMrgSortResult stored in the output's last 8 bytes. x holds the source, z0 seeds the output.
#include "../api/harness.h"

#ifndef DTYPE
#define DTYPE half
#endif

struct ProposalTiling {
    uint64_t form;  // 0 ProposalConcat, 1 ProposalExtract, 2 RpSort16, 3 RpSort16 + MrgSort4
    uint64_t xLen, zLen, repeat, mode;
    uint64_t len0, len1, len2, len3, validBit, suspend;
};

template <typename T>
class KernelProposal : public ApiHarness<KernelProposal<T>, T> {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z0, GM_ADDR z, const ProposalTiling& tiling)
    {
        t = tiling;
        this->InitHarness(x, nullptr, z0, z, t.xLen, t.zLen);
        this->pipe.InitBuffer(workBuf, t.xLen * sizeof(T));
    }
    __aicore__ inline void Compute(LocalTensor<T>& z, LocalTensor<T>& x)
    {
        const int32_t rep = int32_t(t.repeat), mode = int32_t(t.mode);
        switch (t.form) {
            case 0: ProposalConcat(z, x, rep, mode); break;
            case 1: ProposalExtract(z, x, rep, mode); break;
            case 2: RpSort16(z, x, rep); break;
            case 3: {
                LocalTensor<T> work = workBuf.Get<T>();
                RpSort16(work, x, rep);
                PipeBarrier<PIPE_V>();
                const uint64_t len[4] = {t.len0, t.len1, t.len2, t.len3};
                LocalTensor<T> q[4];
                uint32_t at = 0;
                for (int i = 0; i < 4; ++i) {
                    q[i] = work[at];
                    at += uint32_t(len[i]) * 8;
                }
                uint16_t lengths[4] = {uint16_t(t.len0), uint16_t(t.len1), uint16_t(t.len2), uint16_t(t.len3)};
                MrgSort4(z, MrgSortSrcList<T>(q[0], q[1], q[2], q[3]),
                         MrgSort4Info(lengths, t.suspend != 0, uint16_t(t.validBit), 1));
                uint16_t r[4];
                GetMrgSortResult(r[0], r[1], r[2], r[3]);
                LocalTensor<uint16_t> tail = z.template ReinterpretCast<uint16_t>();
                const uint32_t n16 = uint32_t(t.zLen * sizeof(T) / 2);
                for (int i = 0; i < 4; ++i) tail.SetValue(n16 - 4 + i, r[i]);
                break;
            }
            default: break;
        }
    }

private:
    ProposalTiling t;
    TBuf<QuePosition::VECCALC> workBuf;
};

extern "C" __global__ __aicore__ void rearrange_proposal(GM_ADDR x, GM_ADDR z0, GM_ADDR z, ProposalTiling tiling)
{
    KernelProposal<DTYPE> op;
    op.Init(x, z0, z, tiling);
    op.Process();
}

// The kernel of a kernel-launch project in a file of its own, as CANN's samples split it: the host (main.cpp)
// launches it through ACLRT_LAUNCH_KERNEL and the aclrtlaunch_negate_custom.h the build generates.
#include "kernel_operator.h"

constexpr uint32_t TILE = 512;

extern "C" __global__ __aicore__ void negate_custom(GM_ADDR x, GM_ADDR y,
                                                    uint32_t perBlock)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, TILE * sizeof(float));
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + AscendC::GetBlockIdx() * perBlock, perBlock);
    yGm.SetGlobalBuffer((__gm__ float*)y + AscendC::GetBlockIdx() * perBlock, perBlock);
    for (uint32_t done = 0; done < perBlock; done += TILE) {
        AscendC::DataCopy(t, xGm[done], TILE);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::Muls(t, t, -1.0f, TILE);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::DataCopy(yGm[done], t, TILE);
        AscendC::PipeBarrier<PIPE_ALL>();
    }
}

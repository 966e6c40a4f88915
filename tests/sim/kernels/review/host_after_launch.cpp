// A CPU-debug host program that launches a short kernel twice with the launch timeout set to 1 s, and spends
// longer than that on the host between and after the launches. The timeout is per launch: neither launch
// runs long, so the program must exit 0 with a clean report.
#include <chrono>
#include <thread>

#include "tikicpulib.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void short_kernel(GM_ADDR z)
{
    GlobalTensor<float> zGm;
    zGm.SetGlobalBuffer((__gm__ float *)z, 8);
    zGm.SetValue(GetBlockIdx(), 1.0f);
}

int main()
{
    tuner_sim::launch_options().timeout_s = 1.0;
    uint8_t *z = (uint8_t *)GmAlloc(8 * sizeof(float));
    ICPU_RUN_KF(short_kernel, 2, z);
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    ICPU_RUN_KF(short_kernel, 2, z);
    std::this_thread::sleep_for(std::chrono::milliseconds(700));  // host work after the last launch
    GmFree((void *)z);
    return 0;
}

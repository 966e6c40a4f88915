// tuner simulator: the Ascend C kernel API on the CPU. Kernels include this exactly as on the NPU.
#pragma once
#include "tuner_sim_support.h"  // generated per SoC: TUNER_SIM_SOC_NAME and the API x dtype table
#include "tuner_sim/types.h"
#include "tuner_sim/tensor.h"
#include "tuner_sim/tpipe.h"
#include "tuner_sim/copy.h"
#include "tuner_sim/vec.h"
#include "tuner_sim/rearrange.h"
#include "tuner_sim/sync.h"
#include "tuner_sim/memsync.h"
#include "tuner_sim/debug.h"
#include "tuner_sim/utils.h"
#include "tuner_sim/advanced.h"
#include "tuner_sim/basic_extras.h"  // InitOutput
#include "tuner_sim/list_tensor.h"  // ListTensorDesc, TensorDesc (kernel_operator_list_tensor_intf.h)
#include "tuner_sim/unsupported.h"
// The kernel's own code is charged; a kernel cannot mark its functions as the simulator's.
#undef TUNER_SIM_UNCHARGED

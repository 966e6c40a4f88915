// tuner simulator: the kernel side of CANN tiling structs and macros (tuner_sim/tiling_data.h).
#pragma once
#include "tuner_sim/tiling_data.h"

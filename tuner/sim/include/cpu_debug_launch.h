// CANN 9's CPU-debug launch support, included by programs under ASCENDC_CPU_DEBUG. On the simulator the
// <<<...>>> launches are rewritten before compiling (tuner/sim/program.py) and run through tuner_sim/program.h.
#pragma once
#include "tuner_sim/program.h"

// tuner simulator: CANN host header of a custom-operator project; everything is in tuner_sim/cann_host.h.
#pragma once
#include "tuner_sim/cann_host.h"

// CANN 9 debug header (asc_printf.h): on the simulator, part of the kernel API.
#pragma once
#include "kernel_operator.h"

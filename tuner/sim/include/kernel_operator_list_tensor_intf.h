// CANN's kernel_operator_list_tensor_intf.h: ListTensorDesc and TensorDesc, which kernel_operator.h provides
// (tuner_sim/list_tensor.h).
#pragma once
#include "kernel_operator.h"

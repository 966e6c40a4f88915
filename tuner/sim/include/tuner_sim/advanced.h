// Ascend C's advanced and high-level vector APIs, each expanded into the basic APIs of vec.h so that its
// checks, arithmetic and modelled time are those of the instructions it issues.
#pragma once
#include "adv_host.h"  // host side: TensorShape, the tiling structs, temporary sizes, tiling functions
#include "adv_math.h"  // elementwise: Sigmoid, Tanh, Silu, Swish, Gelu family, Erf, Log family, Exp, GLUs
#include "adv_rows.h"  // row-wise: SoftMax family (Flash, FlashV2/V3, Grad), RmsNorm, LayerNorm
#include "adv_elem.h"  // elementwise: Ceil, Floor, Trunc, Frac, ClampMin/Max, Xor, Acosh, Fmod
#include "adv_power.h"  // Power
#include "adv_utils.h"  // Global Memory: Fill
#include "adv_std.h"  // AscendC::Std type traits
#include "adv_transform.h"  // tensor transforms: Broadcast, Pad, UnPad, Transpose (ConfusionTranspose), TransData
#include "adv_quant.h"  // AscendQuant, AscendDequant, AscendAntiQuant; Sort, TopK; Arange; DropOut, Select
#include "adv_norm.h"  // DeepNorm, LayerNormGrad(Beta), [A, R] LayerNorm, Normalize, WelfordUpdate/Finalize
#include "adv_reduce.h"  // ReduceMax / ReduceMin (AR, RA patterns); the advanced Axpy
#undef TUNER_SIM_ADV_REQUIRE

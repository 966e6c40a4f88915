// Cast between int4b_t and half (基础API/Memory矢量计算/类型转换/Cast.md, the A2 pairs int4b_t -> half with
// CAST_NONE and half -> int4b_t with CAST_RINT/FLOOR/CEIL/ROUND/TRUNC/NONE). The int4b_t operand packs two
// elements per byte, so its lanes are nibbles: a repeat is 128 lanes (the half side's 256 bytes), 64 bytes of
// int4b_t in two 32-byte blocks of 64 lanes each, its block and repeat strides in 32-byte blocks as usual.
// The VecDesc's int4b_t operand is typed I8 (a placeholder); `to_int4` says which side it is.
#pragma once
#include "rt.h"

namespace tuner_sim {
void cast_int4_exec(const VecDesc& d, bool to_int4);
}  // namespace tuner_sim

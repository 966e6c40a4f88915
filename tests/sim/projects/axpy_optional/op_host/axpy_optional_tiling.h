#pragma once
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AxpyOptionalTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, length);
  TILING_DATA_FIELD_DEF(uint32_t, perCore);
  TILING_DATA_FIELD_DEF(float, alpha);
  TILING_DATA_FIELD_DEF(int64_t, offset);
  TILING_DATA_FIELD_DEF_ARR(int32_t, 2, pad);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(AxpyOptional, AxpyOptionalTilingData)

// the struct of key 7 (the bias branch): GET_TILING_DATA gives it for that key's build
BEGIN_TILING_DATA_DEF(AxpyBiasTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, length);
  TILING_DATA_FIELD_DEF(uint32_t, perCore);
  TILING_DATA_FIELD_DEF(float, alpha);
  TILING_DATA_FIELD_DEF(float, beta);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(AxpyOptional_7, AxpyBiasTilingData)
}  // namespace optiling

#pragma once
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RowSplit)
  TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
  TILING_DATA_FIELD_DEF(uint32_t, tailRows);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(RowSplitOp, RowSplit)

BEGIN_TILING_DATA_DEF(ScaledSoftmaxTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, rows);
  TILING_DATA_FIELD_DEF(uint32_t, cols);
  TILING_DATA_FIELD_DEF(float, scale);
  TILING_DATA_FIELD_DEF(uint16_t, rowsPerTile);
  TILING_DATA_FIELD_DEF_ARR(uint16_t, 3, reserved);
  TILING_DATA_FIELD_DEF_STRUCT(RowSplit, split);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaledSoftmax, ScaledSoftmaxTilingData)
}  // namespace optiling

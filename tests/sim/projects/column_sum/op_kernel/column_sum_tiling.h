#pragma once
#include <cstdint>

// A standard C++ TilingData struct, shared by op_host (GetTilingData<T>) and the kernel (REGISTER_TILING_DEFAULT).
struct ColumnSumTiling {
    uint32_t rows;
    uint32_t cols;
    uint32_t rowsPerCore;
    uint32_t tailRows;
};

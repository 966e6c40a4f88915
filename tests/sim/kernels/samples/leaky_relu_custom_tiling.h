#ifndef LEAKY_RELU_CUSTOM_TILING_H
#define LEAKY_RELU_CUSTOM_TILING_H
#include <cstdint>

struct LeakyReluTilingData {
    uint32_t totalLength;  // elements
    uint32_t tileLength;   // elements per full tile, a multiple of 16
    float alpha;
};
#endif  // LEAKY_RELU_CUSTOM_TILING_H

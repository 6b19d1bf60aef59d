// attnscope — a heatmap texture's reduction pyramid built on the host, level by level as the GPU builds it.
//
// Level k has GL's mip size (each side halved, rounded down, at least 1); each of its texels reduces the 2×2 texels
// below it, and the last row and column also take the odd remainder, so every cell of level 0 reaches exactly one
// texel of every level. shaders/reduce_values.frag and reduce_mask.frag compute the same levels on the GPU; the GUI
// builds small textures here because a software GL driver flushes its pipeline for every level it renders.
#pragma once
#include <cstdint>
#include <vector>

#include "core/backend/interface/pooling.h"

namespace attnscope {

/// Number of levels of a (rows, cols) pyramid, level 0 included, down to 1×1 (GL's mip chain).
int pyramid_level_count(int rows, int cols);

/// Levels 1 … count − 1 of a (rows, cols) row-major value matrix, each row-major at its own size; `mode` is Max or
/// SignedMaxAbs (Mean is refused: a pyramid of means would not be the mean of the cells under a pixel).
std::vector<std::vector<float>> value_pyramid(const float* level0, int rows, int cols, PoolMode mode);

/// Levels 1 … count − 1 of a (rows, cols) reason mask: each texel keeps the most salient reason below it
/// (most_salient in core/reason.h, starting from 0 as the shader does).
std::vector<std::vector<uint8_t>> mask_pyramid(const uint8_t* level0, int rows, int cols);

}  // namespace attnscope

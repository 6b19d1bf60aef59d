// attnscope — colormaps shared by PNG export and the GUI's shaders (same tables, same look).
#pragma once
#include <array>
#include <cstdint>

namespace attnscope {

/// The colormaps of the project.
enum class Colormap {
    Viridis,    // perceptual, sequential: attention weights
    Diverging,  // blue–white–red (reversed ColorBrewer RdBu): differences to the exact softmax
};

/// 256 RGB entries in [0, 1] (from assets/colormaps/*.csv, embedded at build time).
const std::array<std::array<float, 3>, 256>& colormap_table(Colormap map);

/// 8-bit colour of t in [0, 1] (clamped).
std::array<uint8_t, 3> colormap_rgb(Colormap map, float t);

}  // namespace attnscope

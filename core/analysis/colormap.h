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

/// How a matrix value becomes a position on a colormap — the CPU twin of shaders/heatmap.frag's modes 0–2, used
/// by PNG exports and figures so a file looks like the screen.
struct ValueScale {
    enum class Kind { Linear, Log, Signed } kind = Kind::Linear;  // [0, vmax]; log10 over `decades`; [−vmax, vmax]
    float vmax = 1;       // top of the scale (max |v| when signed)
    float decades = 4;    // log: decades shown below vmax
    /// Position in [0, 1] of value v (non-positive values go to 0 on the log scale).
    float position(float v) const;
};

/// 256 RGB entries in [0, 1] (from assets/colormaps/*.csv, embedded at build time).
const std::array<std::array<float, 3>, 256>& colormap_table(Colormap map);

/// 8-bit colour of t in [0, 1] (clamped).
std::array<uint8_t, 3> colormap_rgb(Colormap map, float t);

}  // namespace attnscope

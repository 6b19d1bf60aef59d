// attnscope — a figure as a list of drawing commands in logical pixels, drawn by two writers (SVG and a PNG
// rasteriser) so both files show the same layout.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace attnscope::figure {

using Rgb = std::array<uint8_t, 3>;

/// A filled axis-aligned rectangle.
struct RectCmd {
    float x, y, w, h;
    Rgb colour;
};

/// An RGB image (rows top to bottom) stretched over a rectangle: the matrix cells. Enlarged, each texel becomes a
/// block of pixels; shrunk, each pixel shows the texel of highest `rank` among those it covers (the largest weight,
/// the most salient reason), so a one-cell column survives any size (reduce_image).
struct ImageCmd {
    float x, y, w, h;
    int width = 0, height = 0;
    std::vector<uint8_t> rgb;  // width·height·3 bytes
    std::vector<float> rank;   // width·height: which texel a shrunk pixel keeps; empty: the first it covers
};

/// `img` resampled to out_w × out_h texels: each output texel covers a rectangle of input texels and takes the
/// colour of the one with the highest rank (nearest texel when enlarging). Returns the RGB bytes.
std::vector<uint8_t> reduce_image(const ImageCmd& img, int out_w, int out_h);

/// One line of UTF-8 text. (x, y) is the baseline anchor; `vertical` rotates it 90° to read bottom to top.
struct TextCmd {
    float x, y, size;
    std::string text;
    Rgb colour;
    enum class Anchor { Start, Middle, End } anchor = Anchor::Start;
    bool vertical = false;
};

/// A polyline `width` logical pixels wide through `points` (x, y); dashed: 6 on, 4 off along its length.
struct LineCmd {
    std::vector<std::array<float, 2>> points;
    float width = 1.5f;
    Rgb colour;
    bool dashed = false;
};

/// A filled polygon (even–odd rule) at `opacity` (0…1): plot bands such as a sweep's min–max.
struct PolygonCmd {
    std::vector<std::array<float, 2>> points;
    Rgb colour;
    float opacity = 0.25f;
};

/// A marker centred at (x, y), `size` logical pixels across; ring: an outline `size`/6 wide instead of a fill.
struct MarkerCmd {
    enum class Shape { Circle, Square, Diamond };
    float x, y, size;
    Rgb colour;
    Shape shape = Shape::Circle;
    bool ring = false;
};

/// The whole figure: size in logical pixels and its commands in drawing order.
struct Canvas {
    float width = 0, height = 0;
    Rgb background{255, 255, 255};
    std::vector<RectCmd> rects;        // drawn first
    std::vector<ImageCmd> images;      // then images
    std::vector<PolygonCmd> polygons;  // then translucent areas
    std::vector<LineCmd> lines;        // then lines
    std::vector<MarkerCmd> markers;    // then markers
    std::vector<TextCmd> texts;        // then text on top
};

}  // namespace attnscope::figure

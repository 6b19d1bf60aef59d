// attnscope — drawing a Canvas into files: SVG (vector text and rectangles, matrices as embedded PNG) and PNG
// (rasterised here with the figure font). Both follow the same commands, so they show the same figure.
#pragma once
#include <string>
#include <vector>

#include "core/figure/canvas.h"

namespace attnscope::figure {

/// The canvas as an SVG document (size in logical pixels; text in the figure font's family).
std::string to_svg(const Canvas& canvas);

/// The canvas rasterised at `scale` device pixels per logical pixel: width·height·3 RGB bytes, rows top to bottom.
std::vector<uint8_t> rasterize(const Canvas& canvas, float scale, int& width, int& height);

/// Throws Error unless `path` ends in .png or .svg (checked before a figure is computed).
void require_figure_extension(const std::string& path);

/// Writes the canvas to `path` as .svg or .png (by the extension; PNG at `scale`, e.g. dpi / 96), atomically.
/// Throws Error for another extension or when the file cannot be written.
void write_canvas(const std::string& path, const Canvas& canvas, float scale);

}  // namespace attnscope::figure

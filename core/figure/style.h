// attnscope — what every figure shares: the light and dark colours, the series palette and fitting text to a width.
#pragma once
#include <string>
#include <vector>

#include "core/figure/canvas.h"

namespace attnscope::figure {

/// Light (slides, print) or dark (a dark slide deck) colours.
enum class Theme { Light, Dark };

/// The colours of a theme.
struct Colours {
    Rgb background, text, muted, frame, forbidden, grid;
};

/// The colours of `theme`.
Colours colours(Theme theme);

/// Colour `k` of the series palette (categorical, distinguishable on light and dark backgrounds; repeats after 10).
Rgb series_colour(int k);

/// `text` shortened with "…" (at whole code points) until it fits `max_width` at pixel size `size`.
std::string fit_text(const std::string& text, float size, float max_width);

/// Greedy word wrap of `text` into lines no wider than `width` at pixel size `size`.
std::vector<std::string> wrap(const std::string& text, float size, float width);

/// Moves everything drawn on `canvas` down by dy.
void shift_down(Canvas& canvas, float dy);

}  // namespace attnscope::figure

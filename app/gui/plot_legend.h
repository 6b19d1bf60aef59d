// attnscope — a legend drawn beside plots instead of inside them: a wrapping row of colour swatches and names at the
// cursor, shared by the plots that draw the same series (Spectrum's two plots, Performance's time and memory), so it
// never covers a curve and takes the room of one legend instead of two.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

namespace attnscope::gui {

/// One series of a legend: its name, its line colour, and whether it is drawn thick and faint (a model curve).
struct LegendEntry {
    std::string label;
    ImVec4 colour;
    bool faint = false;
};

/// Draws `entries` at the cursor, wrapping at the content width; ends on a new line.
void legend_row(const std::vector<LegendEntry>& entries);

/// Height legend_row would take for `entries` in `width` pixels (to size the plots below it).
float legend_row_height(const std::vector<LegendEntry>& entries, float width);

}  // namespace attnscope::gui

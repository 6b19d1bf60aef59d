// attnscope — whether a plot has room to be read: below a few lines of height or a dozen characters of width its
// axis labels and ticks would overlap into garbage (a large text size in a small dock), so the panel says so instead.
#pragma once
#include <imgui.h>

namespace attnscope::gui {

/// True when a plot of `size` pixels fits its axes and ticks at the current text size; otherwise draws a one-line
/// hint (give the panel more room or lower the text size) and returns false.
bool plot_fits(ImVec2 size);

}  // namespace attnscope::gui

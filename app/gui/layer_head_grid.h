// attnscope — the axes of a layers × heads heatmap (Spectrum's low-rank grid, Heads' mass kept): one labelled tick
// per head and per layer, layer 0 on top, locked so a click selects a cell instead of panning.
#pragma once

namespace attnscope::gui {

/// Between BeginPlot and the heatmap: sets up and finishes the locked grid axes ("head" on x, `y_label` on y) over
/// `layers` × `heads` unit cells; returns true when a cell is large enough to print a "0.00" value in it.
bool setup_layer_head_grid(int layers, int heads, const char* y_label);

}  // namespace attnscope::gui

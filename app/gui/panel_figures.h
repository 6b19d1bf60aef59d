// attnscope — File → Export figure of this panel: every panel that draws data hands a builder of its slide figure
// (the same core/figure layouts `attnscope figure --view …` writes) over data it shares with the worker; the export
// runs on the worker and writes PNG and SVG into the export folder, and the status bar says where.
#pragma once
#include <functional>
#include <string>

#include "core/figure/canvas.h"
#include "core/figure/plot.h"
#include "core/figure/style.h"

namespace attnscope::gui {

struct App;
struct PanelEntry;

/// A panel's slide figure as it shows now: a builder that may run off the UI thread (it holds shared copies of what it
/// draws), or, when the panel has nothing to draw yet, a sentence saying why.
struct PanelFigure {
    std::function<figure::Canvas(figure::Theme)> build;  // empty: `missing` says why
    std::string missing;
};

/// Posts `write` as a short worker job; the status bar then says "saved `what`" or why it failed.
void post_export(App& app, std::function<void()> write, std::string what);

/// The input as the figures' titles name it, e.g. "synthetic:hubs, n = 128, H = 4, d = 32".
std::string gui_figure_title(const App& app);

/// A builder laying `plot` out at slide width under `title` (the chart panels' figures).
std::function<figure::Canvas(figure::Theme)> chart_builder(figure::PlotFigure plot, std::string title);

/// Posts the export of `panel`'s figure as ALIAS-figure-THEME.png and .svg in the export folder; the status bar
/// reports the files or why there is no figure.
void export_panel_figure(App& app, const PanelEntry& panel, figure::Theme theme);

/// The panel whose window had keyboard focus last (Matrices before any): the File menu's "this panel".
const PanelEntry& focused_panel(const App& app);

}  // namespace attnscope::gui

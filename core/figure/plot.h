// attnscope — slide figures of charts: spectra, sweeps, error–cost maps, timing and memory curves, and small
// labelled grids (layers × heads). Panels in rows, each with a title naming what it shows, labelled axes (whole
// decades labelled 10ᵏ on log axes), and one shared legend below the panels, so no legend covers data.
// layout_plots() turns a PlotFigure into a Canvas that render.h writes as PNG or SVG, like layout_figure().
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/figure/canvas.h"
#include "core/figure/style.h"

namespace attnscope::figure {

/// One axis of a chart.
struct PlotAxis {
    std::string label;                // what it measures, with its unit
    bool log = false;                 // logarithmic, ticks at whole decades
    std::optional<double> min, max;   // a fixed range; otherwise the data's, padded a little
    std::vector<double> ticks;        // labelled ticks at these values (e.g. a sweep's parameter values); empty: automatic
    std::vector<std::string> tick_labels;  // the labels of `ticks` (e.g. tokens); empty: the values
};

/// One named series: points joined by a line and/or marked, with an optional band and horizontal error bars.
struct PlotSeries {
    std::string name;                 // the legend entry, e.g. an instance label; series of equal name share a colour
    std::vector<double> x, y;         // the points; non-finite ones (and non-positive ones on a log axis) are left out
    std::vector<double> y_lo, y_hi;   // a band around y, e.g. min–max over seeds (empty: none)
    std::vector<double> x_lo, x_hi;   // horizontal error bars, e.g. a timing's spread (empty: none)
    std::vector<uint8_t> highlight;   // per point: ringed (e.g. on the Pareto front); empty: none
    std::vector<std::string> labels;  // per point: a small label right of it (e.g. the instance); empty: none
    bool line = true, markers = true;
    bool bars = false;                // a bar from the axis floor (or 0) up to each y, centred on x
    double bar_width = 0.8;           // the bars' width in x units
    bool dashed = false;
    enum class Ink { Palette, Text, Muted };
    Ink ink = Ink::Palette;           // Text: the exact baseline; Muted: a guide; Palette: an instance
};

/// A heatmap of labelled rows and columns with its value printed in each cell that has room.
struct PlotGrid {
    int rows = 0, cols = 0;
    std::vector<double> values;                  // rows·cols, row-major; NaN: no value (drawn empty)
    std::vector<std::string> row_names, col_names;
    std::string row_label, col_label;            // e.g. "layer", "head"
    double vmin = 0, vmax = 1;                   // the colour scale (viridis)
    int decimals = 2;                            // digits printed in the cells
};

/// One panel: a chart of series on two axes, or a grid.
struct PlotPanel {
    std::string title;                // names the instance(s) or what is compared
    std::string subtitle;             // what is drawn and for which head(s)
    PlotAxis x, y;
    std::vector<PlotSeries> series;
    std::optional<PlotGrid> grid;     // set: the panel is this grid (x, y and series unused)
    std::vector<std::string> lines;   // notes under the panel, each saying what it is measured against
};

/// A whole figure of panels.
struct PlotFigure {
    std::string title;                       // above the panels (the input), may be empty
    std::vector<PlotPanel> panels;
    std::vector<std::string> legend_notes;   // explanations after the legend's entries, e.g. what a ring means
    std::string grid_label;                  // the grids' colour bar caption
    Theme theme = Theme::Light;
    float width = 1600, height = 0;          // logical pixels (0 height: as the panels need)
    int columns = 0;                         // panels per row (0: as many as fit at a readable size)
};

/// Lays the figure out. Throws Error when it has no panel, a series' arrays differ in length or a grid's values do
/// not number rows·cols.
Canvas layout_plots(const PlotFigure& figure);

/// The ticks of an axis over [lo, hi]: positions and labels (log: 10ᵏ at decades, and 2 and 5 within a decade when
/// fewer than two decades are labelled; linear: steps of 1, 2 or 5·10ᵏ, with `lo` and `hi` widened to the first and
/// last tick). A log range is padded by 15% on each side instead.
std::vector<std::pair<double, std::string>> axis_ticks(double& lo, double& hi, bool log);

}  // namespace attnscope::figure

// attnscope — the heads-at-a-glance figure (see chart_figures.h).
#include <cmath>

#include "core/error.h"
#include "core/figure/chart_figures.h"

namespace attnscope::figure {

PlotFigure heads_figure(const LayerHeadMass& mass) {
    if (mass.grids.empty()) throw Error("a heads figure needs at least one instance");
    PlotFigure f;
    for (const HeadMassGrid& grid : mass.grids) {
        PlotPanel p;
        p.title = grid.instance;
        p.subtitle = "exact softmax mass kept, per layer and head";
        PlotGrid g;
        g.rows = mass.layers, g.cols = mass.heads;
        for (int l = 0; l < mass.layers; ++l) {
            g.row_names.push_back(std::to_string(l));
            for (int h = 0; h < mass.heads; ++h) g.values.push_back(grid.recall.empty() ? NAN : grid.at(l, h, mass.heads));
        }
        for (int h = 0; h < mass.heads; ++h) g.col_names.push_back(std::to_string(h));
        g.row_label = "layer", g.col_label = "head";
        p.grid = std::move(g);
        if (!grid.error.empty()) p.lines.push_back("no values: " + grid.error);
        f.panels.push_back(std::move(p));
    }
    f.grid_label = "mass kept";
    f.legend_notes.push_back("each cell: mass_recall of that head alone — the share of the exact softmax weight (of the same "
                             "causality) that falls on cells the instance scores; n = " + std::to_string(mass.n) +
                             (mass.truncated ? " (text cut to the model's maximum positions)" : ""));
    return f;
}

}  // namespace attnscope::figure

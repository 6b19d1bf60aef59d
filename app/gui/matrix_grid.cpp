// attnscope — the Matrices grid and its axis ticks (see matrix_view.h): pure arithmetic, tested without a window.
#include <algorithm>
#include <cmath>

#include "app/gui/matrix_view.h"

namespace attnscope::gui {

GridChoice choose_grid(int count, ImVec2 avail, float spacing, int forced, bool compact_only, CellChrome chrome,
                       const void* context) {
    count = std::max(1, count);
    const int first = forced > 0 ? std::min(forced, count) : 1, last = forced > 0 ? first : count;
    // A candidate's worth: its heatmap side, discounted where the choice costs the reader. Compact cells (no axis
    // names, key badges only) must win by a tenth, so height left under a row of heatmaps goes to the numbers; a grid
    // with empty slots (three views in 2 × 2) by 15%, so no quadrant stays blank for a marginally larger picture.
    GridChoice best;
    float best_worth = -1e9f;
    for (const bool compact : {false, true}) {
        if (!compact && compact_only) continue;
        for (int cols = first; cols <= last; ++cols) {
            const int rows = (count + cols - 1) / cols;
            const float cell_w = (avail.x - spacing * float(cols - 1)) / float(cols);
            const float cell_h = (avail.y - spacing * float(rows - 1)) / float(rows);
            const ImVec2 room = chrome(cell_w, compact, context);
            const float side = std::floor(std::min(cell_w - room.x, cell_h - room.y));
            const float worth = side / (compact && !compact_only ? 1.1f : 1.0f) / (rows * cols > count ? 1.15f : 1.0f);
            // Strictly better by a pixel: among equal candidates the fewer columns (rows read left to right) win.
            if (worth > best_worth + 1) best_worth = worth, best = {cols, rows, side, ImVec2(cell_w, 0), compact};
        }
    }
    best.side = std::max(best.side, 48.0f);
    best.cell.y = best.side + chrome(best.cell.x, best.compact, context).y;
    return best;
}

std::vector<double> cell_ticks(double lo, double hi, float pixels, float label_width) {
    std::vector<double> ticks;
    const double span = hi - lo;
    if (!(span > 0) || !(pixels > 0)) return ticks;
    const double per_pixel = span / pixels;
    const double want = std::max(1.0, (label_width + 8) * per_pixel);  // cells between two labels, at least
    double step = std::pow(10.0, std::floor(std::log10(want)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (step * m >= want) {
            step *= m;
            break;
        }
    for (double c = std::ceil(std::max(0.0, lo) / step) * step; c < hi; c += step) ticks.push_back(c + 0.5);
    return ticks;
}

}  // namespace attnscope::gui

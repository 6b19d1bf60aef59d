// attnscope — the parts of the Matrices panel, shared by its files: the grid every cell shares (matrix_grid.cpp),
// one cell (matrix_cell.cpp), its textures (matrix_textures.cpp), the hover tooltip (matrix_tooltip.cpp), the shared
// colour bar and legend (matrix_strip.cpp) and the exports (matrix_exports.cpp). The panel itself is panel_matrix.cpp.
#pragma once
#include <string>
#include <vector>

#include "app/gui/app.h"
#include "core/lessons/lessons.h"
#include "app/gui/matrix_badges.h"

namespace attnscope::gui {

/// Inner padding of a cell: small, so the heatmap gets the room.
inline const ImVec2 kCellPadding{5, 4};

/// The colour scale of one view at one head.
struct ViewScale {
    float vmax = 1;              // top of the scale (max |v| when diverging)
    ScaleMode mode = ScaleMode::Linear;
    Colormap map = Colormap::Viridis;
    bool shared = false;         // the panel-wide scale (drawn once in the strip); else the cell draws its own bar
    bool diverging = false;      // differences and signed matrices
    std::string label;           // what the bar measures ("log10 P_eff", "P_eff − P")
    std::string note;            // how vmax was chosen when it is not the plain maximum ("±95th percentile of |Δ|")
};

/// The scale of view `v` at its plane `plane` under the panel's toggles (`diff`: the difference view).
ViewScale view_scale(const App& app, const VariantView& v, int plane, bool diff);

/// What every cell of the grid shares this frame, decided by the panel before drawing them.
struct CellLayout {
    ImVec2 size;                 // the cell's child window
    float side = 0;              // the heatmap's data area, square
    bool compact = false;        // key badges only ("more" holds the rest), no axis labels, no caption
    int badge_rows = 0;          // rows of badges the fullest cell needs: every cell reserves them (heatmaps align)
    const Lesson* lesson = nullptr;  // the open lesson: the badges it compares are always shown
    const char* window = "";     // the panel's title: the layout record names the window each heatmap is in
};

/// How many columns, and what each cell gets, for `count` views in `avail` (choose_grid in matrix_grid.cpp).
struct GridChoice {
    int cols = 1, rows = 1;
    float side = 0;        // data-area side of every heatmap
    ImVec2 cell;           // each cell's size
    bool compact = false;  // the cells show the key badges only (the full set would cost heatmap room)
};

/// Room a cell needs beside a side×side heatmap, given its width and whether it is compact: x = axes + own colour
/// bar + padding, y = title, badges, axes and caption.
using CellChrome = ImVec2 (*)(float cell_width, bool compact, const void* context);

/// The column count and badge mode that give the largest square heatmaps in `avail` (among equal sides: full badges,
/// then fewer columns), or `forced` columns when > 0; `compact_only` rules out full badges (presentation mode).
GridChoice choose_grid(int count, ImVec2 avail, float spacing, int forced, bool compact_only, CellChrome chrome,
                       const void* context);

/// Tick positions for an axis showing cells [lo, hi) in `pixels`, at a 1-2-5 step that leaves every label
/// `label_width` pixels apart; positions are cell centres (c + 0.5).
std::vector<double> cell_ticks(double lo, double hi, float pixels, float label_width);

/// The position shown at display slot `slot` of head `head` (the snapshot may order the axes by LSH bucket or
/// by cluster).
int position_of(const RunSnapshot& snap, int head, int slot);

/// Uploads view k's pooled view (base) and, when zoomed into a large matrix, a full-resolution crop (detail).
void update_textures(App& app, size_t k, const RunSnapshot& snap, const VariantView& v, int head, bool diff);

/// The hover tooltip of cell (i, j) (display slots) of head `head`: every view's weight and why it is allowed.
void cell_tooltip(const App& app, const RunSnapshot& snap, int head, int i, int j);

/// "⋯" on a cell's title line: exports (PNG of the cell, CSV, NPY) and the run's notes.
void view_menu(App& app, const VariantView& v, int head, ImVec4 cell_rect);

/// The head whose own metrics the badges show: the drawn head, or −1 (means over heads) when the view asks for
/// means.
int badge_head(const App& app, const RunSnapshot& snap);

/// The panel-wide strip under the toolbar: the shared colour bar, the reason legend of every view shown and what a
/// pixel of the heatmaps shows.
void draw_shared_strip(App& app, const RunSnapshot& snap, const std::vector<ViewScale>& scales, float cells_per_pixel);

/// A horizontal colour bar (label, low end, gradient, high end) at the cursor, `width` pixels of gradient.
void colour_bar(const ViewScale& s, float width);

/// Draws view k of `snap` in a cell (title, progress or error, badges, heatmap, outlines, caption) and records it.
void draw_cell(App& app, const RunSnapshot& snap, size_t k, const CellLayout& layout, const ViewScale& scale);

}  // namespace attnscope::gui

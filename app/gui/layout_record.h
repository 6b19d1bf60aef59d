// attnscope — what the frame drew where, for `gui --screenshot F --layout-json L`: every visible window's rectangle
// and, for every heatmap, its instance, its data area in window pixels, the cells it shows and how pixels reduce
// them, its badges as drawn and the lesson's outlined features. A test reads the pixels of a given key column in the
// screenshot from it (tests/gui/visible_columns.cpp).
#pragma once
#include <imgui.h>

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace attnscope::gui {

/// One outlined "what to look at" feature in a heatmap, in cells (positions).
struct OutlineRecord {
    std::string label;                 // the lesson's name for it ("sink columns")
    std::string kind;                  // "keys", "rows", "diagonal", "block"
    int first = 0, last = 0;           // keys / rows / diagonal offsets i − j, inclusive
    int rows_first = 0, rows_last = 0; // a block's rows (its keys are first … last)
};

/// One heatmap as drawn this frame.
struct HeatmapRecord {
    std::string panel;                 // window ("Matrices")
    int view = 0;                      // index of the view in the snapshot
    int slot = -1;                     // the Variants slot (preset view) it belongs to; -1 for other heatmaps
    std::string variant, instance;     // id and instance label ("Sink w = 32, s = 4")
    std::string title;                 // the matrix it shows (P_eff, C_n, …)
    int head = 0;                      // head shown
    std::string shows;                 // "weights", "mask", "difference"
    ImVec4 cell;                       // the cell's child window, window pixels (x0, y0, x1, y1)
    ImVec4 plot;                       // the heatmap's data area, window pixels
    double x_min = 0, x_max = 0, y_min = 0, y_max = 0;  // cells shown (columns = keys on x, rows = queries on y)
    double pixels_per_cell_x = 0, pixels_per_cell_y = 0;
    std::string reduction;             // how a pixel of several cells is coloured
    std::vector<std::pair<std::string, double>> badges;  // metric id → value of every badge drawn
    int badges_head = -1;          // the head whose own values the badges are (−1: means over heads)
    std::vector<OutlineRecord> outlines;
};

/// Everything recorded in one frame.
struct LayoutRecord {
    std::vector<HeatmapRecord> heatmaps;
    void clear() { heatmaps.clear(); }
};

/// The record as JSON, with every visible window of the current ImGui context and the display size.
nlohmann::json layout_json(const LayoutRecord& record);

}  // namespace attnscope::gui

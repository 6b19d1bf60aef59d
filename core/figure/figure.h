// attnscope — publication figures of attention matrices: panels side by side with titles naming each instance,
// token labels on both axes (thinned to stay legible), a colour bar, metric lines and a reason legend; no UI.
// layout_figure() turns a FigureSpec into a Canvas that render.h writes as PNG or SVG.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/colormap.h"
#include "core/figure/canvas.h"
#include "core/figure/style.h"

namespace attnscope::figure {

/// One matrix panel.
struct FigurePanel {
    std::string title;                // the instance, e.g. "Longformer w = 16"
    std::string subtitle;             // what is drawn, e.g. "P_eff, head 3"
    int n = 0;                        // the matrix is n×n
    std::vector<float> values;        // n·n row-major (query rows, key columns)
    std::vector<uint8_t> reasons;     // n·n Reason codes, or empty when every cell is allowed (see `causal`)
    bool causal = false;              // without reasons: cells above the diagonal are not allowed
    ValueScale scale;                 // how values become colours (differences and mixing matrices are Signed)
    std::vector<std::string> lines;   // metric lines under the matrix, each saying what it is measured against
};

/// A coloured row above every matrix: a class per display slot (e.g. the LSH bucket of each position in a round).
struct FigureStrip {
    std::string label;          // e.g. "round 0"
    std::vector<int> classes;   // n values; equal values share a colour
};

/// A whole figure.
struct FigureSpec {
    std::vector<FigurePanel> panels;
    std::vector<std::string> tokens;  // n axis labels (text input); empty: positions are numbered
    std::string title;                // above the panels (the input), may be empty
    std::string colour_label;         // the colour bar's caption, e.g. "P_eff (log10)"
    bool show_mask = false;           // tint allowed cells by reason and draw the legend
    std::vector<FigureStrip> strips;  // rows above every matrix (empty: none)
    std::vector<int> boundaries;      // display slots where a new bucket or group starts: lines across every matrix
    Theme theme = Theme::Light;
    float width = 1600;               // logical pixels (SVG units; PNG pixels at dpi 96)
    float height = 0;                 // 0: as tall as the panels need
};

/// Lays the figure out. Throws Error when it has no panel or a panel's arrays do not match its n.
Canvas layout_figure(const FigureSpec& spec);

/// Colour of one cell as figures and PNG exports draw it: the value on `scale` and `map`, then, when `mask` is set,
/// tinted by `reason` (allowed, as shaders/heatmap.frag tints) or the flat `forbidden` colour (not allowed).
Rgb cell_colour(float value, const ValueScale& scale, Colormap map, bool mask, uint8_t reason, const Rgb& forbidden);

}  // namespace attnscope::figure

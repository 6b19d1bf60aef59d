// attnscope — figure layout (see figure.h).
#include "core/figure/figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/error.h"
#include "core/backend/interface/pooling.h"
#include "core/reason.h"
#include "core/figure/font.h"
#include "core/figure/style.h"

namespace attnscope::figure {

namespace {

constexpr int kMaxImageSide = 1024;  // larger matrices are pooled to this many cells per side
constexpr float kMargin = 24, kGap = 36, kTitleSize = 22, kPanelTitleSize = 18, kSubtitleSize = 13, kLineSize = 12.5f;
constexpr float kBarWidth = 16, kMaxTokenSize = 13, kMinTokenSize = 6.5f;

Rgb mix(const Rgb& a, const std::array<float, 3>& b, float t) {
    Rgb out;
    for (int k = 0; k < 3; ++k) out[k] = uint8_t(std::lround(float(a[k]) * (1 - t) + b[k] * 255.0f * t));
    return out;
}

std::string tick_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

/// The panel's image: one texel per cell, pooled to kMaxImageSide by the GUI's rule (max of weights, the entry of
/// largest magnitude of signed values, the most salient reason), with each texel's rank so that a writer shrinking
/// it keeps the same features (canvas.h).
ImageCmd panel_image(const FigurePanel& p, Colormap map, bool mask, const Colours& c) {
    const int n = p.n, s = std::min(n, kMaxImageSide);
    ImageCmd img;
    img.width = img.height = s;
    img.rgb.resize(size_t(s) * s * 3);
    img.rank.resize(size_t(s) * s);
    const bool signed_values = p.scale.kind == ValueScale::Kind::Signed;
    const PoolMode mode = signed_values ? PoolMode::SignedMaxAbs : PoolMode::Max;
    for (int bi = 0; bi < s; ++bi) {
        const int i0 = int(pool_bin_begin(bi, n, s)), i1 = int(pool_bin_end(bi, n, s));
        for (int bj = 0; bj < s; ++bj) {
            const int j0 = int(pool_bin_begin(bj, n, s)), j1 = int(pool_bin_end(bj, n, s));
            float acc = pool_start(mode);
            uint8_t reason = 0;
            for (int i = i0; i < i1; ++i)
                for (int j = j0; j < j1; ++j) {
                    acc = pool_fold(mode, acc, p.values[size_t(i) * n + j]);
                    const uint8_t r = p.reasons.empty() ? uint8_t(p.causal && j > i ? 0 : 1) : p.reasons[size_t(i) * n + j];
                    reason = most_salient(reason, r);
                }
            const Rgb col = cell_colour(acc, p.scale, map, mask, reason, c.forbidden);
            std::copy(col.begin(), col.end(), &img.rgb[(size_t(bi) * s + bj) * 3]);
            // Shrunk further by a writer: the most salient reason first (when shown), then the strongest value.
            const float t = p.scale.position(acc);
            const float strength = signed_values ? std::fabs(t - 0.5f) : t;
            const int salience = reason_salience(static_cast<Reason>(std::min<int>(reason, int(Reason::Count) - 1)));
            img.rank[size_t(bi) * s + bj] = mask ? float(salience) * 2 + strength : strength;
        }
    }
    return img;
}

/// Throws unless every panel holds an n×n matrix of the first panel's n and the token labels (if any) number n.
void check_panels(const FigureSpec& spec) {
    if (spec.panels.empty()) throw Error("a figure needs at least one panel");
    const int n = spec.panels.front().n;
    for (const FigurePanel& p : spec.panels) {
        if (p.n != n || p.n <= 0 || p.values.size() != size_t(n) * n || (!p.reasons.empty() && p.reasons.size() != p.values.size()))
            throw Error("figure panel '" + p.title + "' does not hold an n×n matrix of the figure's n = " + std::to_string(n));
    }
    for (const FigureStrip& strip : spec.strips)
        if (int(strip.classes.size()) != n) throw Error("figure strip '" + strip.label + "' does not hold n = " + std::to_string(n) + " classes");
    for (int b : spec.boundaries)
        if (b < 0 || b > n) throw Error("figure boundary " + std::to_string(b) + " is outside 0…" + std::to_string(n));
    if (!spec.tokens.empty() && int(spec.tokens.size()) != n)
        throw Error("the figure has " + std::to_string(spec.tokens.size()) + " token labels for n = " + std::to_string(n));
}

/// The axis labels at one matrix side: their font size, every how many positions one is drawn, and the room they
/// take beside the matrix.
struct AxisLabels {
    float token_size = 0;
    int step = 1;
    float extent = 0;
};

std::string axis_label(const FigureSpec& spec, int t) { return spec.tokens.empty() ? std::to_string(t) : spec.tokens[t]; }

/// Tokens (or every position) at a size that fits the cell, thinned when cells are small.
AxisLabels axis_labels(const FigureSpec& spec, int n, float side) {
    AxisLabels a;
    const float cell = side / float(n);
    a.token_size = std::clamp(cell * 0.8f, kMinTokenSize, kMaxTokenSize);
    a.step = std::max(1, int(std::ceil(a.token_size * 1.2f / cell)));
    if (spec.tokens.empty()) {  // positions: legible numbers at a round step (1, 2, 5, 10, 20, 50, …)
        a.token_size = 11;
        const double want = std::max(1.0, std::ceil(a.token_size * 2.2 / cell));
        const double decade = std::pow(10.0, std::floor(std::log10(want)));
        a.step = int(want <= decade ? decade : want <= 2 * decade ? 2 * decade : want <= 5 * decade ? 5 * decade : 10 * decade);
    }
    a.extent = 0;
    for (int t = 0; t < n; t += a.step) a.extent = std::max(a.extent, Font::get().width(axis_label(spec, t), a.token_size));
    a.extent = std::min(a.extent, 110.0f) + 6;
    return a;
}

constexpr float kBarBlock = kBarWidth + 120;  // the bar, its tick labels and its rotated caption

constexpr float kStripHeight = 9;  // one FigureStrip row above a matrix

/// Height of the strips above each matrix.
float strips_height(const FigureSpec& spec) { return spec.strips.empty() ? 0 : float(spec.strips.size()) * (kStripHeight + 2) + 4; }

/// Height of what is not panels: the title, the legend and the margins.
float chrome_height(const FigureSpec& spec) {
    return (spec.title.empty() ? 0 : kTitleSize * 1.8f) + (spec.show_mask ? 40 : 0) + 2 * kMargin;
}

/// How the panels are laid out: in rows of `cols`, each matrix `side` wide with `labels` beside it.
struct PanelGrid {
    int cols = 1, rows = 1;
    float side = 0;
    AxisLabels labels;
};

/// The column count that gives the largest matrices within the width (and the height when given), reserving
/// 110 px of labels per panel; with the side that count gives.
std::pair<int, float> best_columns(const FigureSpec& spec) {
    const int k = int(spec.panels.size());
    int best_cols = 1;
    float best_side = -1;
    for (int cols = 1; cols <= k; ++cols) {
        const int rows = (k + cols - 1) / cols;
        float side = (spec.width - 2 * kMargin - kBarBlock - (cols - 1) * kGap - 110 * cols) / float(cols);
        // Without a height, aim for a slide's shape (16:9) when choosing how many panels share a row.
        const float target_height = spec.height > 0 ? spec.height : spec.width * 9.0f / 16.0f;
        const float chrome = chrome_height(spec);
        side = std::min(side, (target_height - chrome) / float(rows) - 230 - strips_height(spec));
        if (side > best_side + 1) best_side = side, best_cols = cols;
    }
    return {best_cols, best_side};
}

/// The grid of the best column count, its side widened to what the real axis labels leave (and bounded by the
/// height when given).
PanelGrid panel_grid(const FigureSpec& spec, int n) {
    const int k = int(spec.panels.size());
    const auto [cols, best_side] = best_columns(spec);
    PanelGrid g;
    g.cols = cols;
    g.rows = (k + cols - 1) / cols;
    float side = std::max(60.0f, best_side);
    const AxisLabels guess = axis_labels(spec, n, side);
    // The first guess reserved 110 px of labels per panel; give back what the real labels do not use.
    side = std::max(60.0f, (spec.width - 2 * kMargin - kBarBlock - (cols - 1) * kGap - guess.extent * cols) / float(cols));
    if (spec.height > 0) {
        const float chrome = chrome_height(spec);
        side = std::min(side, (spec.height - chrome) / float(g.rows) -
                                  (2.6f * kPanelTitleSize + guess.extent + 4 * kLineSize * 1.5f + strips_height(spec)));
        side = std::max(60.0f, side);
    }
    g.side = side;
    g.labels = axis_labels(spec, n, side);
    return g;
}

/// The strips above a matrix at (mx, y), `side` wide, each labelled at its left; returns the matrix's top.
float draw_strips(Canvas& canvas, const FigureSpec& spec, const Colours& col, float mx, float y, float side) {
    for (const FigureStrip& strip : spec.strips) {
        ImageCmd img;
        img.width = int(strip.classes.size()), img.height = 1;
        for (int c : strip.classes) {
            const Rgb rgb = series_colour(c);
            img.rgb.insert(img.rgb.end(), rgb.begin(), rgb.end());
        }
        img.x = mx, img.y = y, img.w = side, img.h = kStripHeight;
        canvas.images.push_back(std::move(img));
        canvas.texts.push_back({mx - 4, y + kStripHeight - 1, 9, strip.label, col.muted, TextCmd::Anchor::End});
        y += kStripHeight + 2;
    }
    return spec.strips.empty() ? y : y + 4;
}

/// Where a drawn panel's matrix sits, and the bottom of its text.
struct PanelPlace {
    float matrix_x = 0, matrix_y = 0, bottom = 0;
};

/// Draws panel `p` with its left edge at x0 and top at y: title, subtitle, matrix, axis labels and lines.
PanelPlace draw_panel(Canvas& canvas, const FigureSpec& spec, const FigurePanel& p, const Colours& col,
                      const PanelGrid& grid, float x0, float y) {
    const int n = p.n;
    const float side = grid.side, label_extent = grid.labels.extent, token_size = grid.labels.token_size;
    const float cell = side / float(n);
    const float mx = x0 + label_extent;  // matrix left edge
    float py = y;
    canvas.texts.push_back({mx, py + kPanelTitleSize, kPanelTitleSize, fit_text(p.title, kPanelTitleSize, side + label_extent * 0.5f), col.text});
    py += kPanelTitleSize * 1.45f;
    if (!p.subtitle.empty())
        canvas.texts.push_back({mx, py + kSubtitleSize, kSubtitleSize, fit_text(p.subtitle, kSubtitleSize, side), col.muted});
    py += kSubtitleSize * 1.7f;
    py = draw_strips(canvas, spec, col, mx, py, side);
    const float my = py;  // matrix top edge
    canvas.rects.push_back({mx - 1, my - 1, side + 2, side + 2, col.frame});
    ImageCmd img = panel_image(p, p.scale.kind == ValueScale::Kind::Signed ? Colormap::Diverging : Colormap::Viridis,
                               spec.show_mask, col);
    img.x = mx, img.y = my, img.w = side, img.h = side;
    canvas.images.push_back(std::move(img));
    for (int b : spec.boundaries) {  // a new bucket (or group) starts here: across and down the matrix
        const float at = float(b) * cell;
        canvas.lines.push_back({{{mx, my + at}, {mx + side, my + at}}, 1.2f, {255, 255, 255}});
        canvas.lines.push_back({{{mx + at, my}, {mx + at, my + side}}, 1.2f, {255, 255, 255}});
    }
    // Row labels (queries) on the left, column labels (keys) below, reading upward.
    for (int t = 0; t < n; t += grid.labels.step) {
        const std::string label = fit_text(axis_label(spec, t), token_size, label_extent - 6);
        const float centre = (float(t) + 0.5f) * cell;
        canvas.texts.push_back({mx - 4, my + centre + token_size * 0.35f, token_size, label, col.text, TextCmd::Anchor::End});
        canvas.texts.push_back({mx + centre + token_size * 0.35f, my + side + 4, token_size, label, col.text,
                                TextCmd::Anchor::End, true});
    }
    py = my + side + label_extent + 4;
    canvas.texts.push_back({mx + side, py + 10, 11, "rows: queries · columns: keys", col.muted, TextCmd::Anchor::End});
    py += 16;
    for (const std::string& text : p.lines)
        for (const std::string& line : wrap(text, kLineSize, side + label_extent * 0.5f)) {
            canvas.texts.push_back({mx, py + kLineSize, kLineSize, line, col.text});
            py += kLineSize * 1.45f;
        }
    return {mx, my, py};
}

/// The colour bar's tick labels: position 0 (bottom) … 1 (top), label.
std::vector<std::pair<float, std::string>> colour_bar_ticks(const ValueScale& s) {
    std::vector<std::pair<float, std::string>> ticks;
    if (s.kind == ValueScale::Kind::Log) {
        const double top = std::log10(std::max(double(s.vmax), 1e-30));
        for (int d = 0; d <= int(s.decades); ++d) {
            const double e = std::floor(top) - d;
            const float pos = float((e - (top - s.decades)) / s.decades);
            if (pos >= -0.001f && pos <= 1.001f) ticks.push_back({pos, "1e" + std::to_string(int(e))});
        }
    } else if (s.kind == ValueScale::Kind::Signed) {
        ticks = {{0.0f, tick_text(-s.vmax)}, {0.5f, "0"}, {1.0f, tick_text(s.vmax)}};
    } else {
        ticks = {{0.0f, "0"}, {0.5f, tick_text(s.vmax / 2)}, {1.0f, tick_text(s.vmax)}};
    }
    return ticks;
}

/// The colour bar at (bx, my), `side` tall. Every panel shares the scale of the first one of its kind; a figure
/// mixing kinds labels the bar by the first panel.
void draw_colour_bar(Canvas& canvas, const FigureSpec& spec, const Colours& col, float bx, float my, float side) {
    const FigurePanel& ref = spec.panels.front();
    const Colormap map = ref.scale.kind == ValueScale::Kind::Signed ? Colormap::Diverging : Colormap::Viridis;
    ImageCmd bar;
    bar.width = 1, bar.height = 256, bar.rgb.resize(256 * 3);
    for (int q = 0; q < 256; ++q) {
        const auto rgb = colormap_rgb(map, 1.0f - float(q) / 255.0f);
        std::copy(rgb.begin(), rgb.end(), &bar.rgb[size_t(q) * 3]);
    }
    bar.x = bx, bar.y = my, bar.w = kBarWidth, bar.h = side;
    canvas.rects.push_back({bx - 1, my - 1, kBarWidth + 2, side + 2, col.frame});
    canvas.images.push_back(std::move(bar));
    for (const auto& [pos, text] : colour_bar_ticks(ref.scale)) {
        const float ty = my + side * (1 - pos);
        canvas.rects.push_back({bx + kBarWidth, ty - 0.5f, 4, 1, col.text});
        canvas.texts.push_back({bx + kBarWidth + 7, ty + 4, 11, text, col.text});
    }
    if (!spec.colour_label.empty())
        canvas.texts.push_back({bx + kBarWidth + 52, my + side / 2, 12, spec.colour_label, col.muted,
                                TextCmd::Anchor::Middle, true});
}

/// Draws every panel in rows from y, with the colour bar beside the last panel of the first row; returns the
/// bottom of the last row.
float draw_panel_rows(Canvas& canvas, const FigureSpec& spec, const Colours& col, const PanelGrid& grid, float y) {
    const int k = int(spec.panels.size());
    const float panel_w = grid.labels.extent + grid.side;
    float bottom = y;
    for (int r = 0; r < grid.rows; ++r) {
        float row_bottom = y;
        for (int c = 0; c < grid.cols && r * grid.cols + c < k; ++c) {
            const float x0 = kMargin + float(c) * (panel_w + kGap);
            const PanelPlace place = draw_panel(canvas, spec, spec.panels[size_t(r * grid.cols + c)], col, grid, x0, y);
            row_bottom = std::max(row_bottom, place.bottom);
            if (r == 0 && (c == grid.cols - 1 || r * grid.cols + c == k - 1))
                draw_colour_bar(canvas, spec, col, place.matrix_x + grid.side + 14, place.matrix_y, grid.side);
        }
        y = row_bottom + kGap * 0.6f;
        bottom = row_bottom;
    }
    return bottom;
}

/// The reason legend below `bottom`: every reason present in any panel, and "not allowed"; returns its bottom.
float draw_reason_legend(Canvas& canvas, const FigureSpec& spec, const Colours& col, float bottom) {
    const Font& font = Font::get();
    std::set<int> present;
    bool forbidden = false;
    for (const FigurePanel& p : spec.panels) {
        for (uint8_t r : p.reasons) r ? void(present.insert(r)) : void(forbidden = true);
        if (p.reasons.empty() && p.causal) forbidden = true;
    }
    float lx = kMargin, ly = bottom + 18;
    auto chip = [&](const Rgb& colour, const std::string& name) {
        const float w = 14 + 6 + font.width(name, 13) + 18;
        if (lx + w > spec.width - kMargin) lx = kMargin, ly += 22;
        canvas.rects.push_back({lx, ly, 14, 14, col.frame});
        canvas.rects.push_back({lx + 1, ly + 1, 12, 12, colour});
        canvas.texts.push_back({lx + 20, ly + 12, 13, name, col.text});
        lx += w;
    };
    canvas.texts.push_back({lx, ly + 12, 13, "allowed because:", col.muted});
    lx += font.width("allowed because:", 13) + 12;
    present.erase(int(Reason::Dense));  // dense cells keep their weight colour: nothing to explain
    for (int r : present)  // the chip shows a tinted mid-scale cell, as the matrices draw it
        chip(cell_colour(0.6f, ValueScale{}, Colormap::Viridis, true, uint8_t(r), col.forbidden),
             reason_name(static_cast<Reason>(r)));
    if (forbidden) chip(col.forbidden, "not allowed (never scored)");
    return ly + 22;
}

}  // namespace

Rgb cell_colour(float value, const ValueScale& scale, Colormap map, bool mask, uint8_t reason, const Rgb& forbidden) {
    const auto base = colormap_rgb(map, scale.position(value));
    Rgb c{base[0], base[1], base[2]};
    if (!mask || reason == uint8_t(Reason::Dense)) return c;
    if (reason == uint8_t(Reason::None)) return forbidden;  // never scored: one flat colour, whatever P_eff holds
    return mix(c, reason_rgb(static_cast<Reason>(std::min<int>(reason, int(Reason::Count) - 1))), 0.55f);
}

Canvas layout_figure(const FigureSpec& spec) {
    check_panels(spec);
    const int n = spec.panels.front().n;
    const Colours col = colours(spec.theme);
    const PanelGrid grid = panel_grid(spec, n);
    Canvas canvas;
    canvas.background = col.background;
    canvas.width = spec.width;
    float y = kMargin;
    if (!spec.title.empty()) {
        canvas.texts.push_back({kMargin, y + kTitleSize, kTitleSize, fit_text(spec.title, kTitleSize, spec.width - 2 * kMargin), col.text});
        y += kTitleSize * 1.8f;
    }
    float bottom = draw_panel_rows(canvas, spec, col, grid, y);
    if (spec.show_mask) bottom = draw_reason_legend(canvas, spec, col, bottom);
    canvas.height = spec.height > 0 ? spec.height : bottom + kMargin;
    // A fixed slide size taller than the content: centre it vertically rather than leave a blank bottom.
    if (const float spare = canvas.height - (bottom + kMargin); spec.height > 0 && spare > 1) shift_down(canvas, spare / 2);
    return canvas;
}

}  // namespace attnscope::figure

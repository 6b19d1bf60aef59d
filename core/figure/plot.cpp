// attnscope — chart layout (see plot.h).
#include "core/figure/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/analysis/colormap.h"
#include "core/error.h"
#include "core/figure/font.h"

namespace attnscope::figure {

namespace {

constexpr float kMargin = 24, kGap = 44, kTitleSize = 22, kPanelTitleSize = 17, kSubtitleSize = 13, kTickSize = 12,
                kAxisLabelSize = 13, kLineSize = 12.5f, kMinPanelWidth = 460, kLegendSize = 13;

/// "10" followed by the exponent in superscript digits (the figure font has them).
std::string power_of_ten(int e) {
    static const char* const sup[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    std::string out = "10";
    if (e < 0) out += "⁻";
    const std::string digits = std::to_string(std::abs(e));
    for (char c : digits) out += sup[c - '0'];
    return out;
}

std::string short_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

/// The x or y range a panel's data spans on that axis (bands and error bars included).
std::pair<double, double> data_range(const PlotPanel& p, bool x_axis) {
    const bool log = x_axis ? p.x.log : p.y.log;
    double lo = INFINITY, hi = -INFINITY;
    auto take = [&](const std::vector<double>& v) {
        for (double d : v)
            if (std::isfinite(d) && (!log || d > 0)) lo = std::min(lo, d), hi = std::max(hi, d);
    };
    for (const PlotSeries& s : p.series) {
        take(x_axis ? s.x : s.y);
        take(x_axis ? s.x_lo : s.y_lo);
        take(x_axis ? s.x_hi : s.y_hi);
    }
    if (!(lo <= hi)) lo = log ? 1 : 0, hi = log ? 10 : 1;
    const PlotAxis& a = x_axis ? p.x : p.y;
    if (a.min) lo = *a.min;
    if (a.max) hi = *a.max;
    return {lo, hi};
}

/// Maps data values of one axis onto pixels [p0, p1].
struct AxisMap {
    double lo = 0, hi = 1;
    bool log = false;
    float p0 = 0, p1 = 1;
    float operator()(double v) const {
        const double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
        return p0 + float(t) * (p1 - p0);
    }
    bool inside(double v) const {
        if (!std::isfinite(v) || (log && v <= 0)) return false;
        const double eps = log ? 0 : 1e-9 * (hi - lo);
        return log ? v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9) : v >= lo - eps && v <= hi + eps;
    }
};

void check_figure(const PlotFigure& f) {
    if (f.panels.empty()) throw Error("a chart figure needs at least one panel");
    for (const PlotPanel& p : f.panels) {
        if (p.grid && p.grid->values.size() != size_t(p.grid->rows) * p.grid->cols)
            throw Error("grid panel '" + p.title + "' holds " + std::to_string(p.grid->values.size()) + " values for " +
                        std::to_string(p.grid->rows) + "×" + std::to_string(p.grid->cols) + " cells");
        for (const PlotSeries& s : p.series) {
            auto same = [&](const std::vector<double>& v) { return v.empty() || v.size() == s.x.size(); };
            if (s.x.size() != s.y.size() || !same(s.y_lo) || !same(s.y_hi) || !same(s.x_lo) || !same(s.x_hi) ||
                (!s.highlight.empty() && s.highlight.size() != s.x.size()) || (!s.labels.empty() && s.labels.size() != s.x.size()))
                throw Error("series '" + s.name + "' of panel '" + p.title + "' has arrays of different lengths");
        }
    }
}

/// Colour per series name: the palette in order of first appearance; baselines and guides in the theme's inks.
std::map<std::string, Rgb> series_colours(const PlotFigure& f, const Colours& c) {
    std::map<std::string, Rgb> out;
    int next = 0;
    for (const PlotPanel& p : f.panels)
        for (const PlotSeries& s : p.series)
            if (!out.count(s.name))
                out[s.name] = s.ink == PlotSeries::Ink::Text ? c.text : s.ink == PlotSeries::Ink::Muted ? c.muted : series_colour(next++);
    return out;
}

/// Draws one series inside the plot area.
void draw_series(Canvas& canvas, const PlotSeries& s, const AxisMap& X, const AxisMap& Y, const Rgb& colour, const Colours& c) {
    const size_t k = s.x.size();
    auto ok = [&](size_t i) { return X.inside(s.x[i]) && Y.inside(s.y[i]); };
    if (!s.y_lo.empty() && !s.y_hi.empty()) {  // the band: along the top, back along the bottom
        PolygonCmd band{{}, colour, 0.22f};
        for (size_t i = 0; i < k; ++i)
            if (X.inside(s.x[i]) && Y.inside(s.y_hi[i])) band.points.push_back({X(s.x[i]), Y(s.y_hi[i])});
        for (size_t i = k; i-- > 0;)
            if (X.inside(s.x[i]) && Y.inside(s.y_lo[i])) band.points.push_back({X(s.x[i]), Y(s.y_lo[i])});
        canvas.polygons.push_back(std::move(band));
    }
    if (!s.x_lo.empty() && !s.x_hi.empty())
        for (size_t i = 0; i < k; ++i) {
            if (!Y.inside(s.y[i]) || !X.inside(s.x_lo[i]) || !X.inside(s.x_hi[i])) continue;
            const float y = Y(s.y[i]), a = X(s.x_lo[i]), b = X(s.x_hi[i]);
            canvas.lines.push_back({{{a, y}, {b, y}}, 1.4f, colour});
            canvas.lines.push_back({{{a, y - 4}, {a, y + 4}}, 1.4f, colour});
            canvas.lines.push_back({{{b, y - 4}, {b, y + 4}}, 1.4f, colour});
        }
    if (s.bars) {  // bar_width wide (x units), from the floor (0 when on the axis)
        const float floor_y = Y.log || !Y.inside(0) ? Y.p0 : Y(0);
        for (size_t i = 0; i < k; ++i) {
            if (!ok(i)) continue;
            const float half = std::max(0.5f, std::fabs(X(s.x[i] + s.bar_width) - X(s.x[i])) / 2);
            const float top = Y(s.y[i]);
            canvas.rects.push_back({X(s.x[i]) - half, std::min(top, floor_y), 2 * half, std::fabs(floor_y - top), colour});
        }
    }
    if (s.line) {
        LineCmd line{{}, s.ink == PlotSeries::Ink::Palette ? 2.2f : 1.6f, colour, s.dashed};
        for (size_t i = 0; i < k; ++i)
            if (ok(i)) line.points.push_back({X(s.x[i]), Y(s.y[i])});
        if (line.points.size() > 1) canvas.lines.push_back(std::move(line));
    }
    for (size_t i = 0; i < k; ++i) {
        if (!ok(i)) continue;
        if (s.markers) canvas.markers.push_back({X(s.x[i]), Y(s.y[i]), 7.5f, colour});
        if (!s.highlight.empty() && s.highlight[i]) canvas.markers.push_back({X(s.x[i]), Y(s.y[i]), 17, c.text, MarkerCmd::Shape::Circle, true});
    }
}

/// The series' point labels, right of each point (left of it near the right edge), moved down a line when they
/// would overlap a label already placed and left out when that overlaps too (hover-free media: no label on a label).
void draw_point_labels(Canvas& canvas, const PlotPanel& p, const AxisMap& X, const AxisMap& Y, const Colours& c) {
    constexpr float kSize = 11;
    std::vector<std::array<float, 4>> placed;  // x0, y0, x1, y1
    auto free = [&](const std::array<float, 4>& r) {
        return std::none_of(placed.begin(), placed.end(), [&](const auto& q) { return r[0] < q[2] && q[0] < r[2] && r[1] < q[3] && q[1] < r[3]; });
    };
    for (const PlotSeries& s : p.series)
        for (size_t i = 0; i < s.labels.size(); ++i) {
            if (s.labels[i].empty() || !X.inside(s.x[i]) || !Y.inside(s.y[i])) continue;
            const float w = Font::get().width(s.labels[i], kSize), px = X(s.x[i]), py = Y(s.y[i]);
            const bool left = px + 10 + w > X.p1;
            for (const float dy : {-6.0f, 14.0f}) {
                const float x0 = left ? px - 10 - w : px + 10, base = py + dy;
                const std::array<float, 4> box{x0, base - kSize, x0 + w, base + 3};
                if (!free(box)) continue;
                placed.push_back(box);
                canvas.texts.push_back({left ? px - 10 : px + 10, base, kSize, s.labels[i], c.muted,
                                        left ? TextCmd::Anchor::End : TextCmd::Anchor::Start});
                break;
            }
        }
}

/// Where a panel sits: its box and, inside, the plot area.
struct Box {
    float x, y, w, h;
};

/// The axis' ticks; a fixed range stays as given (ticks outside it dropped), a data range widens to its ticks.
std::vector<std::pair<double, std::string>> ticks_of(const PlotAxis& a, double& lo, double& hi) {
    if (!a.ticks.empty()) {  // the caller's values, labelled; the range padded as an automatic one would be
        double wide_lo = lo, wide_hi = hi;
        axis_ticks(wide_lo, wide_hi, a.log);
        lo = a.min ? lo : std::min(wide_lo, lo), hi = a.max ? hi : std::max(wide_hi, hi);
        std::vector<std::pair<double, std::string>> out;
        for (size_t k = 0; k < a.ticks.size(); ++k)
            out.push_back({a.ticks[k], k < a.tick_labels.size() ? a.tick_labels[k] : short_number(a.ticks[k])});
        return out;
    }
    double wide_lo = lo, wide_hi = hi;
    auto ticks = axis_ticks(wide_lo, wide_hi, a.log);
    lo = a.min ? lo : wide_lo, hi = a.max ? hi : wide_hi;
    const double eps = (a.log ? 1e-9 * hi : 1e-9 * (hi - lo));
    ticks.erase(std::remove_if(ticks.begin(), ticks.end(), [&](const auto& t) { return t.first < lo - eps || t.first > hi + eps; }), ticks.end());
    return ticks;
}

float tick_label_width(const std::vector<std::pair<double, std::string>>& ticks) {
    float w = 0;
    for (const auto& t : ticks) w = std::max(w, Font::get().width(t.second, kTickSize));
    return w;
}

/// The x axis' ticks with grid lines and labels; `upright`: named ticks (tokens) reading upward, thinned to one per
/// line height, without grid lines.
void draw_x_ticks(Canvas& canvas, const std::vector<std::pair<double, std::string>>& ticks, const AxisMap& X,
                  const AxisMap& Y, bool upright, const Colours& c) {
    const float spacing = ticks.size() > 1 ? std::fabs(X(ticks[1].first) - X(ticks[0].first)) : 1e9f;
    const size_t every = upright ? size_t(std::max(1.0f, std::ceil(kTickSize * 1.15f / std::max(1e-3f, spacing)))) : 1;
    for (size_t k = 0; k < ticks.size(); ++k) {
        const auto& [v, label] = ticks[k];
        const float x = X(v);
        if (upright) {
            canvas.rects.push_back({x - 0.5f, Y.p0, 1, 3, c.frame});
            if (k % every == 0)
                canvas.texts.push_back({x + kTickSize * 0.35f, Y.p0 + 5, kTickSize, fit_text(label, kTickSize, 90), c.text,
                                        TextCmd::Anchor::End, true});
            continue;
        }
        if (!label.empty()) canvas.rects.push_back({x - 0.5f, Y.p1 + 1, 1, Y.p0 - Y.p1 - 2, c.grid});
        canvas.rects.push_back({x - 0.5f, Y.p0, 1, label.empty() ? 3.0f : 5.0f, c.frame});
        if (!label.empty()) canvas.texts.push_back({x, Y.p0 + 7 + kTickSize, kTickSize, label, c.text, TextCmd::Anchor::Middle});
    }
}

/// The y axis' ticks with grid lines and labels (minor ticks unlabelled, without grid lines).
void draw_y_ticks(Canvas& canvas, const std::vector<std::pair<double, std::string>>& ticks, const AxisMap& X,
                  const AxisMap& Y, const Colours& c) {
    for (const auto& [v, label] : ticks) {
        const float y = Y(v), len = label.empty() ? 3.0f : 5.0f;
        if (!label.empty()) canvas.rects.push_back({X.p0 + 1, y - 0.5f, X.p1 - X.p0 - 2, 1, c.grid});
        canvas.rects.push_back({X.p0 - len, y - 0.5f, len, 1, c.frame});
        if (!label.empty()) canvas.texts.push_back({X.p0 - 7, y + kTickSize * 0.35f, kTickSize, label, c.text, TextCmd::Anchor::End});
    }
}

/// A chart panel: frame, grid lines, ticks, axis labels and the series; data area inside `box`.
void draw_chart(Canvas& canvas, const PlotPanel& p, const Box& box, const Colours& c, const std::map<std::string, Rgb>& colour_of) {
    auto [xlo, xhi] = data_range(p, true);
    auto [ylo, yhi] = data_range(p, false);
    if (!p.x.log && !p.x.min && !p.x.max && xlo == xhi) xlo -= 0.5, xhi += 0.5;
    if (!p.y.log && !p.y.min && !p.y.max && ylo == yhi) ylo -= 0.5, yhi += 0.5;
    const auto xticks = ticks_of(p.x, xlo, xhi);
    const auto yticks = ticks_of(p.y, ylo, yhi);
    const float left = box.x + kAxisLabelSize * 1.6f + tick_label_width(yticks) + 8;
    // Named x ticks (tokens) read upward below the axis, as the matrices' key labels do.
    const bool upright = !p.x.tick_labels.empty();
    const float below = upright ? std::min(90.0f, tick_label_width(xticks)) + 8 + kAxisLabelSize * 1.8f
                                : kTickSize * 1.6f + kAxisLabelSize * 1.8f;
    const float bottom = box.y + box.h - below;
    const AxisMap X{xlo, xhi, p.x.log, left, box.x + box.w - 8};
    const AxisMap Y{ylo, yhi, p.y.log, bottom, box.y + 6};
    canvas.rects.push_back({X.p0, Y.p1, X.p1 - X.p0, Y.p0 - Y.p1, c.frame});
    canvas.rects.push_back({X.p0 + 1, Y.p1 + 1, X.p1 - X.p0 - 2, Y.p0 - Y.p1 - 2, c.background});
    draw_x_ticks(canvas, xticks, X, Y, upright, c);
    draw_y_ticks(canvas, yticks, X, Y, c);
    canvas.texts.push_back({(X.p0 + X.p1) / 2, bottom + below - kAxisLabelSize * 0.3f, kAxisLabelSize,
                            fit_text(p.x.label, kAxisLabelSize, X.p1 - X.p0), c.text, TextCmd::Anchor::Middle});
    canvas.texts.push_back({box.x + kAxisLabelSize, (Y.p0 + Y.p1) / 2, kAxisLabelSize,
                            fit_text(p.y.label, kAxisLabelSize, Y.p0 - Y.p1), c.text, TextCmd::Anchor::Middle, true});
    // Instances first, then baselines and guides on top (dashed where they coincide with an instance, e.g. exact P
    // under full softmax's P_eff).
    for (const PlotSeries& s : p.series)
        if (s.ink == PlotSeries::Ink::Palette) draw_series(canvas, s, X, Y, colour_of.at(s.name), c);
    for (const PlotSeries& s : p.series)
        if (s.ink != PlotSeries::Ink::Palette) draw_series(canvas, s, X, Y, colour_of.at(s.name), c);
    draw_point_labels(canvas, p, X, Y, c);
}

/// A grid panel: cells coloured on viridis with their value printed where it fits, names on both sides, and a
/// small colour bar at the right.
constexpr float kGridBar = 60, kMaxGridCell = 72;  // the colour bar's room; cells larger than this read no better

/// Room left of a grid's cells: the row label and the widest row name.
float grid_left(const PlotGrid& g) {
    float name_w = 0;
    for (const std::string& s : g.row_names) name_w = std::max(name_w, Font::get().width(s, kTickSize));
    return kAxisLabelSize * 1.6f + name_w + 8;
}

/// Room below a grid's cells: column names and the column label.
constexpr float kGridBelow = kTickSize * 1.6f + kAxisLabelSize * 1.8f;

/// The side of a grid's cells in a box of w × h.
float grid_cell(const PlotGrid& g, float w, float h) {
    const float across = (w - grid_left(g) - kGridBar) / float(std::max(1, g.cols));
    const float down = (h - kGridBelow - 4) / float(std::max(1, g.rows));
    return std::clamp(std::min(across, down), 4.0f, kMaxGridCell);
}

void draw_grid(Canvas& canvas, const PlotPanel& p, const Box& box, const Colours& c, const std::string& bar_label) {
    const PlotGrid& g = *p.grid;
    const float left = box.x + grid_left(g), top = box.y + 4;
    const float cell = grid_cell(g, box.w, box.h);
    const bool print = cell >= 26;
    for (int r = 0; r < g.rows; ++r)
        for (int q = 0; q < g.cols; ++q) {
            const double v = g.values[size_t(r) * g.cols + q];
            const float x = left + float(q) * cell, y = top + float(r) * cell;
            if (!std::isfinite(v)) {
                canvas.rects.push_back({x, y, cell - 1, cell - 1, c.forbidden});
                continue;
            }
            const float t = float(std::clamp((v - g.vmin) / std::max(1e-30, g.vmax - g.vmin), 0.0, 1.0));
            const auto rgb = colormap_rgb(Colormap::Viridis, t);
            canvas.rects.push_back({x, y, cell - 1, cell - 1, {rgb[0], rgb[1], rgb[2]}});
            if (print) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "%.*f", g.decimals, v);
                const Rgb ink = t > 0.55f ? Rgb{20, 20, 24} : Rgb{245, 245, 245};
                canvas.texts.push_back({x + cell / 2, y + cell / 2 + 4, std::min(12.0f, cell * 0.36f), buf, ink, TextCmd::Anchor::Middle});
            }
        }
    for (int r = 0; r < g.rows && r < int(g.row_names.size()); ++r)
        canvas.texts.push_back({left - 6, top + (float(r) + 0.5f) * cell + 4, kTickSize, g.row_names[size_t(r)], c.text, TextCmd::Anchor::End});
    const float grid_bottom = top + float(g.rows) * cell;
    for (int q = 0; q < g.cols && q < int(g.col_names.size()); ++q)
        canvas.texts.push_back({left + (float(q) + 0.5f) * cell, grid_bottom + 4 + kTickSize, kTickSize, g.col_names[size_t(q)], c.text, TextCmd::Anchor::Middle});
    canvas.texts.push_back({left + float(g.cols) * cell / 2, grid_bottom + kTickSize * 1.6f + kAxisLabelSize * 1.5f,
                            kAxisLabelSize, g.col_label, c.text, TextCmd::Anchor::Middle});
    canvas.texts.push_back({box.x + kAxisLabelSize, top + float(g.rows) * cell / 2, kAxisLabelSize, g.row_label, c.text, TextCmd::Anchor::Middle, true});
    // The colour bar: vmax at the top.
    const float bx = left + float(g.cols) * cell + 12, bh = float(g.rows) * cell;
    ImageCmd img;
    img.width = 1, img.height = 128, img.rgb.resize(128 * 3);
    for (int k = 0; k < 128; ++k) {
        const auto rgb = colormap_rgb(Colormap::Viridis, 1.0f - float(k) / 127.0f);
        std::copy(rgb.begin(), rgb.end(), &img.rgb[size_t(k) * 3]);
    }
    img.x = bx, img.y = top, img.w = 10, img.h = bh;
    canvas.images.push_back(std::move(img));
    canvas.texts.push_back({bx + 14, top + 10, 11, short_number(g.vmax), c.text});
    canvas.texts.push_back({bx + 14, top + bh, 11, short_number(g.vmin), c.text});
    if (!bar_label.empty()) canvas.texts.push_back({bx + 48, top + bh / 2, 11, fit_text(bar_label, 11, bh), c.muted, TextCmd::Anchor::Middle, true});
}

/// Title and subtitle above a panel; returns the height they take.
float draw_heading(Canvas& canvas, const PlotPanel& p, float x, float y, float w, const Colours& c) {
    canvas.texts.push_back({x, y + kPanelTitleSize, kPanelTitleSize, fit_text(p.title, kPanelTitleSize, w), c.text});
    float h = kPanelTitleSize * 1.45f;
    if (!p.subtitle.empty()) canvas.texts.push_back({x, y + h + kSubtitleSize, kSubtitleSize, fit_text(p.subtitle, kSubtitleSize, w), c.muted});
    return h + kSubtitleSize * 1.8f;
}

/// The notes under a panel from y; returns the height they take.
float draw_notes(Canvas& canvas, const PlotPanel& p, float x, float y, float w, const Colours& c, bool measure_only) {
    float h = 0;
    for (const std::string& text : p.lines)
        for (const std::string& line : wrap(text, kLineSize, w)) {
            if (!measure_only) canvas.texts.push_back({x, y + h + kLineSize, kLineSize, line, c.text});
            h += kLineSize * 1.45f;
        }
    return h > 0 ? h + 6 : 0;
}

/// The shared legend from y across the width: a line-and-marker chip per series name, then the notes.
float draw_legend(Canvas& canvas, const PlotFigure& f, const std::map<std::string, Rgb>& colour_of, const Colours& c, float y) {
    std::vector<std::pair<std::string, const PlotSeries*>> entries;
    for (const PlotPanel& p : f.panels)
        for (const PlotSeries& s : p.series)
            if (!s.name.empty() && std::none_of(entries.begin(), entries.end(), [&](const auto& e) { return e.first == s.name; }))
                entries.push_back({s.name, &s});
    if (entries.empty() && f.legend_notes.empty()) return y;
    float lx = kMargin, ly = y + 10;
    for (const auto& [name, s] : entries) {
        const float w = 30 + Font::get().width(name, kLegendSize) + 22;
        if (lx + w > f.width - kMargin && lx > kMargin) lx = kMargin, ly += 22;
        const Rgb col = colour_of.at(name);
        if (s->bars) canvas.rects.push_back({lx + 5, ly + 1, 14, 14, col});
        else if (s->line || !s->markers) canvas.lines.push_back({{{lx, ly + 8}, {lx + 24, ly + 8}}, 2.2f, col, s->dashed});
        if (s->markers) canvas.markers.push_back({lx + 12, ly + 8, 7.5f, col});
        canvas.texts.push_back({lx + 30, ly + 13, kLegendSize, name, c.text});
        lx += w;
    }
    if (!entries.empty()) ly += 22;
    for (const std::string& note : f.legend_notes)
        for (const std::string& line : wrap(note, 12, f.width - 2 * kMargin)) {
            canvas.texts.push_back({kMargin, ly + 12, 12, line, c.muted});
            ly += 18;
        }
    return ly + 4;
}

/// The height of every chart: what a fixed figure height leaves per row, else 0.62 of the panel's width within a
/// 16:9 slide; a figure of grids alone as tall as its largest grid needs. The rows start at `top` and each adds
/// `per_row` (heading and notes) to its chart.
float chart_height(const PlotFigure& f, float pw, int rows, float top, float per_row, const std::map<std::string, Rgb>& colour_of,
                   const Colours& c) {
    Canvas probe;
    const float legend_h = draw_legend(probe, f, colour_of, c, 0);
    const float slide_h = f.height > 0 ? f.height : f.width * 9.0f / 16.0f;
    const float fits = (slide_h - top - kMargin - legend_h) / float(rows) - per_row - kGap * 0.5f;
    float h = f.height > 0 ? std::max(140.0f, fits) : std::max(220.0f, std::min(pw * 0.62f, fits));
    if (f.height <= 0 && std::all_of(f.panels.begin(), f.panels.end(), [](const PlotPanel& p) { return p.grid.has_value(); })) {
        float need = 0;
        for (const PlotPanel& p : f.panels) need = std::max(need, grid_cell(*p.grid, pw, h) * float(p.grid->rows) + kGridBelow + 8);
        h = std::min(h, need);
    }
    return h;
}

}  // namespace

std::vector<std::pair<double, std::string>> axis_ticks(double& lo, double& hi, bool log) {
    std::vector<std::pair<double, std::string>> ticks;
    if (log) {
        lo /= 1.15, hi *= 1.15;
        if (hi / lo < 10) {  // less than a decade: widen symmetrically to one
            const double mid = std::sqrt(lo * hi);
            lo = mid / std::sqrt(10.0), hi = mid * std::sqrt(10.0);
        }
        const int e0 = int(std::floor(std::log10(lo))), e1 = int(std::ceil(std::log10(hi)));
        int labelled = 0;
        for (int e = e0; e <= e1; ++e) labelled += std::pow(10.0, e) >= lo && std::pow(10.0, e) <= hi;
        const int every = std::max(1, (labelled + 7) / 8);  // at most ~8 labelled decades
        for (int e = e0; e <= e1; ++e) {
            const double decade = std::pow(10.0, e);
            if (decade >= lo && decade <= hi) ticks.push_back({decade, (e - e0) % every == 0 ? power_of_ten(e) : std::string()});
            if (e1 - e0 > 6) continue;
            for (int m = 2; m <= 9; ++m) {
                const double v = m * decade;
                if (v < lo || v > hi) continue;
                const bool label = labelled < 2 && (m == 2 || m == 5);  // a short range reads off its mantissas
                ticks.push_back({v, label ? (e >= -3 && e <= 3 ? short_number(v) : std::to_string(m) + "·" + power_of_ten(e)) : ""});
            }
        }
        return ticks;
    }
    const double span = hi - lo, raw = span / 5;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    lo = std::floor(lo / step + 1e-9) * step, hi = std::ceil(hi / step - 1e-9) * step;
    for (double v = lo; v <= hi + step * 1e-6; v += step) ticks.push_back({v, short_number(std::fabs(v) < step * 1e-6 ? 0.0 : v)});
    return ticks;
}

Canvas layout_plots(const PlotFigure& f) {
    check_figure(f);
    const Colours c = colours(f.theme);
    const auto colour_of = series_colours(f, c);
    const int k = int(f.panels.size());
    const int cols = f.columns > 0 ? std::min(f.columns, k)
                                   : std::clamp(int((f.width - 2 * kMargin + kGap) / (kMinPanelWidth + kGap)), 1, k);
    const int rows = (k + cols - 1) / cols;
    const float pw = (f.width - 2 * kMargin - float(cols - 1) * kGap) / float(cols);
    Canvas canvas;
    canvas.background = c.background, canvas.width = f.width;
    float y = kMargin;
    if (!f.title.empty()) {
        canvas.texts.push_back({kMargin, y + kTitleSize, kTitleSize, fit_text(f.title, kTitleSize, f.width - 2 * kMargin), c.text});
        y += kTitleSize * 1.8f;
    }
    const float heading_h = kPanelTitleSize * 1.45f + kSubtitleSize * 1.8f;
    float notes_h = 0;
    for (const PlotPanel& p : f.panels) notes_h = std::max(notes_h, draw_notes(canvas, p, 0, 0, pw, c, true));
    const float chart_h = chart_height(f, pw, rows, y, heading_h + notes_h, colour_of, c);
    for (int r = 0; r < rows; ++r) {
        for (int q = 0; q < cols && r * cols + q < k; ++q) {
            const PlotPanel& p = f.panels[size_t(r * cols + q)];
            const float x = kMargin + float(q) * (pw + kGap);
            const float top = y + draw_heading(canvas, p, x, y, pw, c);
            const Box box{x, top, pw, chart_h};
            if (p.grid) draw_grid(canvas, p, box, c, f.grid_label);
            else draw_chart(canvas, p, box, c, colour_of);
            draw_notes(canvas, p, x, top + chart_h + 4, pw, c, false);
        }
        y += heading_h + chart_h + 4 + notes_h + kGap * 0.5f;
    }
    const float bottom = draw_legend(canvas, f, colour_of, c, y - kGap * 0.5f);
    canvas.height = f.height > 0 ? f.height : bottom + kMargin;
    if (const float spare = canvas.height - (bottom + kMargin); f.height > 0 && spare > 1) shift_down(canvas, spare / 2);
    return canvas;
}

}  // namespace attnscope::figure

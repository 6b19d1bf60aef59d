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

namespace attnscope::figure {

namespace {

constexpr int kMaxImageSide = 1024;  // larger matrices are pooled to this many cells per side
constexpr float kMargin = 24, kGap = 36, kTitleSize = 22, kPanelTitleSize = 18, kSubtitleSize = 13, kLineSize = 12.5f;
constexpr float kBarWidth = 16, kMaxTokenSize = 13, kMinTokenSize = 6.5f;

struct Colours {
    Rgb background, text, muted, frame, forbidden;
};

Colours colours(Theme t) {
    if (t == Theme::Dark) return {{22, 22, 26}, {235, 235, 240}, {165, 168, 178}, {120, 120, 130}, {26, 26, 31}};
    return {{255, 255, 255}, {25, 25, 30}, {95, 98, 108}, {150, 150, 158}, {236, 236, 240}};
}

Rgb mix(const Rgb& a, const std::array<float, 3>& b, float t) {
    Rgb out;
    for (int k = 0; k < 3; ++k) out[k] = uint8_t(std::lround(float(a[k]) * (1 - t) + b[k] * 255.0f * t));
    return out;
}

/// Shortens `text` with "…" until it fits `max_width` at `size`.
std::string fit_text(const std::string& text, float size, float max_width) {
    const Font& font = Font::get();
    if (font.width(text, size) <= max_width) return text;
    std::string s = text;
    while (!s.empty() && font.width(s + "…", size) > max_width) {
        s.pop_back();
        while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();  // whole code points
        if (!s.empty() && (static_cast<unsigned char>(s.back()) & 0x80)) s.pop_back();
    }
    return s + "…";
}

/// Greedy word wrap of `text` into lines no wider than `width`.
std::vector<std::string> wrap(const std::string& text, float size, float width) {
    std::vector<std::string> lines;
    std::string line, word;
    auto flush_word = [&] {
        if (word.empty()) return;
        const std::string candidate = line.empty() ? word : line + " " + word;
        if (!line.empty() && Font::get().width(candidate, size) > width) lines.push_back(line), line = word;
        else line = candidate;
        word.clear();
    };
    for (char c : text) {
        if (c == ' ') flush_word();
        else word += c;
    }
    flush_word();
    if (!line.empty()) lines.push_back(line);
    return lines;
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

}  // namespace

Rgb cell_colour(float value, const ValueScale& scale, Colormap map, bool mask, uint8_t reason, const Rgb& forbidden) {
    const auto base = colormap_rgb(map, scale.position(value));
    Rgb c{base[0], base[1], base[2]};
    if (!mask || reason == uint8_t(Reason::Dense)) return c;
    if (reason == uint8_t(Reason::None)) return forbidden;  // never scored: one flat colour, whatever P_eff holds
    return mix(c, reason_rgb(static_cast<Reason>(std::min<int>(reason, int(Reason::Count) - 1))), 0.55f);
}

Canvas layout_figure(const FigureSpec& spec) {
    if (spec.panels.empty()) throw Error("a figure needs at least one panel");
    const int n = spec.panels.front().n;
    for (const FigurePanel& p : spec.panels) {
        if (p.n != n || p.n <= 0 || p.values.size() != size_t(n) * n || (!p.reasons.empty() && p.reasons.size() != p.values.size()))
            throw Error("figure panel '" + p.title + "' does not hold an n×n matrix of the figure's n = " + std::to_string(n));
    }
    if (!spec.tokens.empty() && int(spec.tokens.size()) != n)
        throw Error("the figure has " + std::to_string(spec.tokens.size()) + " token labels for n = " + std::to_string(n));
    const Font& font = Font::get();
    const Colours col = colours(spec.theme);
    const int k = int(spec.panels.size());

    // Axis labels: tokens (or every position) at a size that fits the cell, thinned when cells are small.
    auto label_of = [&](int t) { return spec.tokens.empty() ? std::to_string(t) : spec.tokens[t]; };
    auto layout_for = [&](float side, float& token_size, int& step, float& label_extent) {
        const float cell = side / float(n);
        token_size = std::clamp(cell * 0.8f, kMinTokenSize, kMaxTokenSize);
        step = std::max(1, int(std::ceil(token_size * 1.2f / cell)));
        if (spec.tokens.empty()) {  // positions: legible numbers at a round step (1, 2, 5, 10, 20, 50, …)
            token_size = 11;
            const double want = std::max(1.0, std::ceil(token_size * 2.2 / cell));
            const double decade = std::pow(10.0, std::floor(std::log10(want)));
            step = int(want <= decade ? decade : want <= 2 * decade ? 2 * decade : want <= 5 * decade ? 5 * decade : 10 * decade);
        }
        label_extent = 0;
        for (int t = 0; t < n; t += step) label_extent = std::max(label_extent, font.width(label_of(t), token_size));
        label_extent = std::min(label_extent, 110.0f) + 6;
    };

    // Columns: the count that gives the largest matrices within the width (and the height when given).
    const float bar_block = kBarWidth + 120;  // the bar, its tick labels and its rotated caption
    int best_cols = 1;
    float best_side = -1;
    for (int cols = 1; cols <= k; ++cols) {
        const int rows = (k + cols - 1) / cols;
        float side = (spec.width - 2 * kMargin - bar_block - (cols - 1) * kGap - 110 * cols) / float(cols);
        // Without a height, aim for a slide's shape (16:9) when choosing how many panels share a row.
        const float target_height = spec.height > 0 ? spec.height : spec.width * 9.0f / 16.0f;
        const float chrome = (spec.title.empty() ? 0 : kTitleSize * 1.8f) + (spec.show_mask ? 40 : 0) + 2 * kMargin;
        side = std::min(side, (target_height - chrome) / float(rows) - 230);
        if (side > best_side + 1) best_side = side, best_cols = cols;
    }
    float side = std::max(60.0f, best_side);
    float token_size = 0, label_extent = 0;
    int step = 1;
    layout_for(side, token_size, step, label_extent);
    // The first guess reserved 110 px of labels per panel; give back what the real labels do not use.
    side = std::max(60.0f, (spec.width - 2 * kMargin - bar_block - (best_cols - 1) * kGap - label_extent * best_cols) / float(best_cols));
    if (spec.height > 0) {
        const int rows = (k + best_cols - 1) / best_cols;
        const float chrome = (spec.title.empty() ? 0 : kTitleSize * 1.8f) + (spec.show_mask ? 40 : 0) + 2 * kMargin;
        side = std::min(side, (spec.height - chrome) / float(rows) - (2.6f * kPanelTitleSize + label_extent + 4 * kLineSize * 1.5f));
        side = std::max(60.0f, side);
    }
    layout_for(side, token_size, step, label_extent);
    const float cell = side / float(n);

    Canvas canvas;
    canvas.background = col.background;
    canvas.width = spec.width;
    float y = kMargin;
    if (!spec.title.empty()) {
        canvas.texts.push_back({kMargin, y + kTitleSize, kTitleSize, fit_text(spec.title, kTitleSize, spec.width - 2 * kMargin), col.text});
        y += kTitleSize * 1.8f;
    }
    const float panel_w = label_extent + side;
    const int rows = (k + best_cols - 1) / best_cols;
    float bottom = y;
    for (int r = 0; r < rows; ++r) {
        float row_bottom = y;
        for (int c = 0; c < best_cols && r * best_cols + c < k; ++c) {
            const FigurePanel& p = spec.panels[size_t(r * best_cols + c)];
            const float x0 = kMargin + float(c) * (panel_w + kGap);
            const float mx = x0 + label_extent;  // matrix left edge
            float py = y;
            canvas.texts.push_back({mx, py + kPanelTitleSize, kPanelTitleSize, fit_text(p.title, kPanelTitleSize, side + label_extent * 0.5f), col.text});
            py += kPanelTitleSize * 1.45f;
            if (!p.subtitle.empty())
                canvas.texts.push_back({mx, py + kSubtitleSize, kSubtitleSize, fit_text(p.subtitle, kSubtitleSize, side), col.muted});
            py += kSubtitleSize * 1.7f;
            const float my = py;  // matrix top edge
            canvas.rects.push_back({mx - 1, my - 1, side + 2, side + 2, col.frame});
            ImageCmd img = panel_image(p, p.scale.kind == ValueScale::Kind::Signed ? Colormap::Diverging : Colormap::Viridis,
                                       spec.show_mask, col);
            img.x = mx, img.y = my, img.w = side, img.h = side;
            canvas.images.push_back(std::move(img));
            // Row labels (queries) on the left, column labels (keys) below, reading upward.
            for (int t = 0; t < n; t += step) {
                const std::string label = fit_text(label_of(t), token_size, label_extent - 6);
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
            row_bottom = std::max(row_bottom, py);
            // Colour bar beside the last panel of the first row (every panel shares the scale of the first one
            // of its kind; a figure mixing kinds labels the bar by the first panel).
            if (r == 0 && (c == best_cols - 1 || r * best_cols + c == k - 1)) {
                const FigurePanel& ref = spec.panels.front();
                const float bx = mx + side + 14;
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
                std::vector<std::pair<float, std::string>> ticks;  // position 0 (bottom) … 1 (top), label
                const ValueScale& s = ref.scale;
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
                for (const auto& [pos, text] : ticks) {
                    const float ty = my + side * (1 - pos);
                    canvas.rects.push_back({bx + kBarWidth, ty - 0.5f, 4, 1, col.text});
                    canvas.texts.push_back({bx + kBarWidth + 7, ty + 4, 11, text, col.text});
                }
                if (!spec.colour_label.empty())
                    canvas.texts.push_back({bx + kBarWidth + 52, my + side / 2, 12, spec.colour_label, col.muted,
                                            TextCmd::Anchor::Middle, true});
            }
        }
        y = row_bottom + kGap * 0.6f;
        bottom = row_bottom;
    }
    // Reason legend: every reason present in any panel, and "not allowed".
    if (spec.show_mask) {
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
        bottom = ly + 22;
    }
    canvas.height = spec.height > 0 ? spec.height : bottom + kMargin;
    // A fixed slide size taller than the content: centre it vertically rather than leave a blank bottom.
    if (const float spare = canvas.height - (bottom + kMargin); spec.height > 0 && spare > 1) {
        const float dy = spare / 2;
        for (RectCmd& r : canvas.rects) r.y += dy;
        for (ImageCmd& i : canvas.images) i.y += dy;
        for (TextCmd& t : canvas.texts) t.y += dy;
    }
    return canvas;
}

}  // namespace attnscope::figure

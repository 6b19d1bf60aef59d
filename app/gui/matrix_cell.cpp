// attnscope — one cell of the Matrices panel (see matrix_view.h): its title, progress or error, badges, the heatmap
// with linked zoom, hover and crosshair, the lesson's outlined features, its own colour bar when its scale is not
// the panel's, a one-line caption, and its entry in the layout record.
#include <imgui.h>
#include <imgui_internal.h>  // RenderTextEllipsis
#include <implot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/lessons/lessons.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"
#include "app/gui/matrix_view.h"
#include "app/gui/panels.h"
#include "app/gui/view_progress.h"

namespace attnscope::gui {

namespace {

/// "head 3", or "one matrix for every head" when the view holds a single plane for H > 1 heads.
std::string head_label(const VariantView& v, int head, int heads) {
    return heads > 1 && v.plane(head) != head ? "one matrix for every head" : "head " + std::to_string(head);
}

std::string instance_of(const VariantView& v) {
    if (v.auxiliary) return v.title;
    if (v.result) return instance_label(find_variant(v.id).info(), v.result->params);
    return v.name.empty() ? v.id : v.name;
}

/// What the heatmap shows, for its subtitle and the layout record.
std::string matrix_title(const VariantView& v, bool diff) {
    if (diff) return "P_eff − P: difference to exact softmax";
    if (v.auxiliary) return v.title;
    if (v.result && !v.result->structure.matrix_title.empty()) return v.result->structure.matrix_title;
    return "effective attention P_eff";
}

/// `text` on one line at the cursor, at most `width` pixels wide and cut with "…" beyond; `tooltip` on hover.
void one_line(const std::string& text, float width, bool grey, const std::string& tooltip) {
    const ImVec2 pos = ImGui::GetCursorScreenPos();
    const ImVec2 end(pos.x + std::min(width, ImGui::CalcTextSize(text.c_str()).x), pos.y + ImGui::GetTextLineHeight());
    if (grey) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::RenderTextEllipsis(ImGui::GetWindowDrawList(), pos, end, end.x, text.c_str(), nullptr, nullptr);
    if (grey) ImGui::PopStyleColor();
    ImGui::Dummy(ImVec2(end.x - pos.x, ImGui::GetTextLineHeight()));
    ImGui::SetItemTooltip("%s", tooltip.c_str());
}

/// The title line: the instance in full when it fits, else cut with "…" (the tooltip has it all), the head and what
/// the matrix is in grey, and the view's menu at the right end.
void title_line(App& app, const VariantView& v, const std::string& title, const std::string& subtitle, int head,
                ImVec4 cell_rect) {
    const float menu_w = ImGui::CalcTextSize("⋯").x + ImGui::GetStyle().FramePadding.x * 2 + 4;
    const ImVec2 pos = ImGui::GetCursorScreenPos();
    const float right = pos.x + ImGui::GetContentRegionAvail().x - menu_w;
    one_line(title, right - pos.x, false, title + " — " + subtitle);
    if (right - ImGui::GetItemRectMax().x > 40) {
        ImGui::SameLine();
        one_line(subtitle, right - 4 - ImGui::GetCursorScreenPos().x, true, subtitle);
    }
    ImGui::SameLine();
    ImGui::SetCursorScreenPos(ImVec2(right, pos.y));
    view_menu(app, v, head, cell_rect);
}

/// Token names as ticks when few enough cells are visible to read them (thinned so they never overlap), else
/// positions at a 1-2-5 step; both axes.
struct Ticks {
    std::vector<double> x, y;
    std::vector<std::string> x_labels, y_labels;
    std::vector<const char*> x_ptrs, y_ptrs;
};

void setup_ticks(const App& app, const RunSnapshot& snap, int head, float side, Ticks& t) {
    const MatrixViewState& vw = app.view;
    const Heads* heads = snap.heads.get();
    const int n = heads->n();
    const bool text = !heads->tokens.empty();
    const double x_span = std::max(1e-9, vw.x_max - vw.x_min), y_span = std::max(1e-9, vw.y_max - vw.y_min);
    const double px_x = side / x_span, px_y = side / y_span;  // pixels per cell
    const float line = ImGui::GetTextLineHeight();
    if (text && x_span <= 64) {
        auto token_at = [&](int c) -> const std::string& { return heads->tokens[size_t(position_of(snap, head, c))]; };
        const int c0 = std::max(0, int(vw.x_min)), c1 = std::min(n, int(vw.x_max) + 1);
        float widest = 1;
        for (int c = c0; c < c1; ++c) widest = std::max(widest, ImGui::CalcTextSize(token_at(c).c_str()).x + 6);
        const int step = std::max(1, int(std::ceil(widest / px_x)));
        for (int c = c0; c < c1; c += step) t.x.push_back(c + 0.5), t.x_labels.push_back(token_at(c));
    } else {
        const float digits = ImGui::CalcTextSize(std::to_string(n).c_str()).x;
        for (double c : cell_ticks(vw.x_min, std::min<double>(n, vw.x_max), side, digits))
            t.x.push_back(c), t.x_labels.push_back(std::to_string(int(c)));
    }
    if (text && y_span <= 64) {
        auto token_at = [&](int c) -> const std::string& { return heads->tokens[size_t(position_of(snap, head, c))]; };
        const int c0 = std::max(0, int(vw.y_min)), c1 = std::min(n, int(vw.y_max) + 1);
        const int step = std::max(1, int(std::ceil(line / px_y)));
        for (int c = c0; c < c1; c += step) t.y.push_back(c + 0.5), t.y_labels.push_back(token_at(c));
    } else {
        for (double c : cell_ticks(vw.y_min, std::min<double>(n, vw.y_max), side, line))
            t.y.push_back(c), t.y_labels.push_back(std::to_string(int(c)));
    }
    for (const auto& l : t.x_labels) t.x_ptrs.push_back(l.c_str());
    for (const auto& l : t.y_labels) t.y_ptrs.push_back(l.c_str());
    if (!t.x.empty()) ImPlot::SetupAxisTicks(ImAxis_X1, t.x.data(), int(t.x.size()), t.x_ptrs.data());
    if (!t.y.empty()) ImPlot::SetupAxisTicks(ImAxis_Y1, t.y.data(), int(t.y.size()), t.y_ptrs.data());
}

/// The open lesson's features in this view (its "what to look at" points), outlined just outside their cells so
/// the outline never covers them; recorded for the layout test.
void draw_outlines(const App& app, const RunSnapshot& snap, const VariantView& v, HeatmapRecord& record) {
    if (!app.view.show_points || !app.lesson.open || app.lesson.id.empty() || !snap.display_perm.empty() || v.auxiliary)
        return;
    const Lesson* lesson = nullptr;
    try {
        lesson = &find_lesson(app.lesson.id);
    } catch (const Error&) {
        return;
    }
    const int n = snap.heads->n();
    ImDrawList* dl = ImPlot::GetPlotDrawList();
    ImPlot::PushPlotClipRect();
    const ImU32 colour = IM_COL32(255, 255, 255, 230);  // no colormap or reason colour is white
    for (const LookAtPoint& p : lesson->points) {
        if (p.kind == LookAtPoint::Kind::Head || (p.on_head >= 0 && p.on_head != record.head)) continue;
        if (!p.views.empty() && std::find(p.views.begin(), p.views.end(), v.id) == p.views.end()) continue;
        OutlineRecord o{p.label, "", p.first, p.last, p.rows_first, p.rows_last};
        auto box = [&](double x0, double y0, double x1, double y1) {
            ImVec2 a = ImPlot::PlotToPixels(x0, y0), b = ImPlot::PlotToPixels(x1, y1);
            if (a.x > b.x) std::swap(a.x, b.x);
            if (a.y > b.y) std::swap(a.y, b.y);
            dl->AddRect(ImVec2(a.x - 2.5f, a.y - 2.5f), ImVec2(b.x + 2.5f, b.y + 2.5f), colour, 0, 0, 1.5f);
        };
        if (p.kind == LookAtPoint::Kind::Keys) o.kind = "keys", box(p.first, 0, p.last + 1, n);
        else if (p.kind == LookAtPoint::Kind::Rows) o.kind = "rows", box(0, p.first, n, p.last + 1);
        else if (p.kind == LookAtPoint::Kind::Block) o.kind = "block", box(p.first, p.rows_first, p.last + 1, p.rows_last + 1);
        else {  // cells with i − j in [first, last]: two lines a cell outside the band
            o.kind = "diagonal";
            for (const double x_at_row0 : {double(-p.last) - 1, double(-p.first) + 2}) {
                const ImVec2 a = ImPlot::PlotToPixels(x_at_row0, 0), b = ImPlot::PlotToPixels(x_at_row0 + n, n);
                dl->AddLine(a, b, colour, 1.5f);
            }
        }
        record.outlines.push_back(o);
    }
    ImPlot::PopPlotClipRect();
}

/// The crosshair of the hovered cell (its row and column in every panel) and, over this plot, the tooltip.
void crosshair_and_hover(App& app, const RunSnapshot& snap, int head) {
    const int n = snap.heads->n();
    const int hi = app.view.shown_i, hj = app.view.shown_j;
    ImPlot::PushPlotClipRect();
    ImDrawList* dl = ImPlot::GetPlotDrawList();
    const ImU32 band = IM_COL32(255, 255, 255, 28);
    if (hi >= 0 && hi < n) dl->AddRectFilled(ImPlot::PlotToPixels(0, hi), ImPlot::PlotToPixels(n, hi + 1), band);
    if (hj >= 0 && hj < n) dl->AddRectFilled(ImPlot::PlotToPixels(hj, 0), ImPlot::PlotToPixels(hj + 1, n), band);
    if (hi >= 0 && hj >= 0 && hi < n && hj < n)
        dl->AddRect(ImPlot::PlotToPixels(hj, hi), ImPlot::PlotToPixels(hj + 1, hi + 1), IM_COL32(255, 80, 80, 255), 0.0f, 0,
                    2.0f);
    ImPlot::PopPlotClipRect();
    if (ImPlot::IsPlotHovered()) {
        const ImPlotPoint mp = ImPlot::GetPlotMousePos();
        const int i = int(std::floor(mp.y)), j = int(std::floor(mp.x));
        if (i >= 0 && j >= 0 && i < n && j < n) {
            app.view.hover_i = i, app.view.hover_j = j;
            cell_tooltip(app, snap, head, i, j);
        }
    }
}

/// The cell's grey caption: what the picture cannot say by itself (negative entries, this panel's largest |Δ|, a
/// zoom that shows bins or true cells, why block tiles are missing).
std::string caption(const App& app, const RunSnapshot& snap, size_t k, int plane, bool diff, const ViewScale& scale,
                    const std::string& block_note) {
    const VariantView& v = snap.variants[k];
    const int n = snap.heads->n();
    const int s = v.pooled ? v.pooled->rows() : n;
    std::vector<std::string> parts;
    char buf[200];
    if (!diff && !v.is_signed(plane) && plane < int(v.head_min.size()) && v.head_min[size_t(plane)] < 0) {
        std::snprintf(buf, sizeof buf, "negative entries (min %.1e) drawn as the lowest colour", v.head_min[size_t(plane)]);
        parts.push_back(buf);
    }
    if (diff && plane < int(v.diff_max.size())) {
        const float own = v.diff_max[size_t(plane)];
        if (own <= 1e-12f) parts.push_back("P_eff equals the exact P here (max |Δ| = 0)");
        else {
            std::snprintf(buf, sizeof buf, "max |Δ| %.2e%s; blue: less weight than exact, red: more", own,
                          own > scale.vmax * 1.0001f ? " (saturates)" : "");
            parts.push_back(buf);
        }
    }
    if (s < n && app.textures[k][1].key) parts.push_back("zoomed in: true cells at full resolution");
    else if (s < n && !v.matrix) parts.push_back("drawn from Q and K row by row: zooming shows bins, not cells");
    if (!block_note.empty()) parts.push_back(block_note);
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : " · ") + p;
    return out;
}

/// Opens the cell's child window (its ImGui id is the view index k); returns its screen rectangle (x0, y0, x1, y1).
ImVec4 begin_cell(size_t k, const CellLayout& layout) {
    ImGui::PushID(int(k));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, kCellPadding);
    ImGui::BeginChild("cell", layout.size, ImGuiChildFlags_Borders | ImGuiChildFlags_AlwaysUseWindowPadding,
                      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    ImGui::PopStyleVar();
    const ImVec2 cell_pos = ImGui::GetWindowPos(), cell_size = ImGui::GetWindowSize();
    return ImVec4(cell_pos.x, cell_pos.y, cell_pos.x + cell_size.x, cell_pos.y + cell_size.y);
}

/// Closes what begin_cell opened.
void end_cell() {
    ImGui::EndChild();
    ImGui::PopID();
}

/// The view's error in red, and "Run on CPU" when the GPU could not hold the run (the CPU backend can).
void error_text(App& app, const VariantView& v) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.4f, 1));
    ImGui::TextWrapped("%s", v.error.c_str());
    ImGui::PopStyleColor();
    if (v.device_memory && ImGui::Button("Run on CPU")) app.run_on_cpu = true, app.dirty = true;
    if (v.device_memory) ImGui::SetItemTooltip("run this batch (and the next ones) on the CPU backend");
}

/// The layout record of view k before its heatmap is drawn: panel, view, instance, slot, head and what it shows.
HeatmapRecord start_record(const App& app, const RunSnapshot& snap, size_t k, const CellLayout& layout,
                           const std::string& title, const std::string& what, int head, ImVec4 cell_rect) {
    const VariantView& v = snap.variants[k];
    HeatmapRecord record;
    record.panel = layout.window, record.view = int(k), record.variant = v.id, record.instance = title;
    record.slot = int(std::count_if(snap.variants.begin(), snap.variants.begin() + long(k) + 1,
                                    [](const VariantView& w) { return !w.auxiliary; })) - 1;
    record.title = what, record.head = head, record.cell = cell_rect;
    record.shows = app.view.show_diff ? "difference" : app.view.show_mask ? "mask" : "weights";
    return record;
}

/// The Variants slot a (non-auxiliary) view shows: the views are in slot order, auxiliary ones interleaved.
int slot_of_view(const RunSnapshot& snap, const VariantView& v) {
    int slot = 0;
    for (const VariantView& other : snap.variants) {
        if (&other == &v) return slot;
        slot += other.auxiliary ? 0 : 1;
    }
    return -1;
}

/// The cell's badges (recorded with their values) and, with the blocks toggle, its block density; then the badge
/// rows of the fullest cell, so the heatmaps of a row line up.
void cell_badges(App& app, const RunSnapshot& snap, const VariantView& v, const CellLayout& layout, int head,
                 HeatmapRecord& record) {
    std::vector<Badge> badges;
    const float badges_top = ImGui::GetCursorPosY();
    if (v.auxiliary) {
        hint_text("The second mixing matrix of the same run: Y = C_n·Re(X·F_d) + S_n·Im(X·F_d).");
    } else if (v.result) {
        record.badges_head = badge_head(app, snap);
        badges = run_badges(*v.result, record.badges_head, std::clamp(app.view.head, 0, std::max(0, snap.heads->heads() - 1)));
        if (!v.auxiliary)  // the decoder's perplexity with this instance, once the Perplexity panel has it
            if (const std::optional<Badge> b = perplexity_badge(app, slot_of_view(snap, v))) badges.push_back(*b);
        const std::vector<const Badge*> shown = shown_badges(
            badges, layout.compact, layout.lesson ? layout.lesson->badges_for(v.id) : std::vector<std::string>{});
        draw_badges(shown, badges, layout.compact);
        for (const Badge* b : shown)
            if (b->number) record.badges.emplace_back(b->id, *b->number);
    }
    if (app.view.show_blocks && !v.auxiliary) block_density_badges(app, v, head);
    const float reserved = badges_top + float(layout.badge_rows) * (ImGui::GetTextLineHeight() + ImGui::GetStyle().ItemSpacing.y);
    if (ImGui::GetCursorPosY() < reserved) ImGui::SetCursorPosY(reserved);
}

/// Why a cell shows no heatmap: the run's own note, else what the difference view lacks.
const char* no_matrix_hint(const VariantView& v, bool diff) {
    return !v.matrix_note.empty() ? v.matrix_note.c_str()
           : diff && v.auxiliary  ? "No difference view: this matrix is not an attention matrix."
           : diff                 ? "No exact reference P for this n (raise 'materialise up to n' in Input)."
                                  : "No matrix to show.";
}

/// View k's plot frame minus its data area as ImPlot drew it last frame (axes, ticks): the frame is the data area
/// plus this, so the heatmap itself is side × side.
ImVec2 plot_decoration(App& app, const RunSnapshot& snap, size_t k) {
    std::vector<ImVec2>& decorations = app.view.plot_decoration;
    if (decorations.size() < snap.variants.size()) decorations.resize(snap.variants.size(), ImVec2(0, 0));
    return decorations[k];
}

/// The heatmap's axes: named by input kind and order (a compact cell keeps the room: no axis names, no key tick
/// labels — the strip names the axes and the hover every cell), linked across cells, bounded to the matrix, ticked.
void setup_matrix_axes(App& app, const RunSnapshot& snap, const CellLayout& layout, int head, Ticks& ticks) {
    const int n = snap.heads->n();
    const bool text = !snap.heads->tokens.empty();
    const bool ordered = !snap.display_perm.empty();
    const ImPlotAxisFlags label_flags = layout.compact ? ImPlotAxisFlags_NoLabel : 0;
    const ImPlotAxisFlags x_flags = label_flags | (layout.compact ? ImPlotAxisFlags_NoTickLabels : 0);
    ImPlot::SetupAxes(ordered ? (text ? "key token j (reordered)" : "key j (reordered)") : (text ? "key token j" : "key position j"),
                      ordered ? (text ? "query token i (reordered)" : "query i (reordered)")
                              : (text ? "query token i" : "query position i"),
                      x_flags, ImPlotAxisFlags_Invert | label_flags);
    ImPlot::SetupAxisLinks(ImAxis_X1, &app.view.x_min, &app.view.x_max);
    ImPlot::SetupAxisLinks(ImAxis_Y1, &app.view.y_min, &app.view.y_max);
    ImPlot::SetupAxisLimitsConstraints(ImAxis_X1, -0.05 * n, 1.05 * n);
    ImPlot::SetupAxisLimitsConstraints(ImAxis_Y1, -0.05 * n, 1.05 * n);
    setup_ticks(app, snap, head, layout.side, ticks);
    ImPlot::SetupFinish();
}

/// View k's textures (pooled base, then the zoomed detail) through the heatmap shader, clipped to what the window
/// shows of the plot.
void draw_textures(App& app, size_t k, const VariantView& v, const ViewScale& scale, bool diff) {
    HeatmapDraw d;
    d.colormap = scale.map;
    d.mode = scale.mode, d.vmax = scale.vmax, d.decades = app.view.decades;
    d.show_mask = app.view.show_mask;
    d.tint = !diff;  // differences keep their colours; only forbidden cells are dimmed
    d.causal = v.result && v.result->causal;
    // A cell scrolled partly out of view must not be drawn over the windows around it (the shader's scissor is all
    // that clips it).
    ImPlot::PushPlotClipRect();
    const ImVec2 clip_min = ImPlot::GetPlotDrawList()->GetClipRectMin(), clip_max = ImPlot::GetPlotDrawList()->GetClipRectMax();
    ImPlot::PopPlotClipRect();
    d.clip = ImVec4(clip_min.x, clip_min.y, clip_max.x, clip_max.y);
    for (const MatrixTexture& t : app.textures[k]) {
        if (!t.key) continue;
        d.texture = &t;
        d.top_left = ImPlot::PlotToPixels(t.cells.x, t.cells.y);
        d.bottom_right = ImPlot::PlotToPixels(t.cells.z, t.cells.w);
        app.renderer.draw(ImPlot::GetPlotDrawList(), d);
    }
}

/// What the layout record says about the data area: where it is, which cells it shows and how its pixels reduce
/// them.
void record_data_area(const App& app, const VariantView& v, int plane, bool diff, HeatmapRecord& record) {
    const ImVec2 pp = ImPlot::GetPlotPos(), ps = ImPlot::GetPlotSize();
    const ImPlotRect limits = ImPlot::GetPlotLimits();
    record.plot = ImVec4(pp.x, pp.y, pp.x + ps.x, pp.y + ps.y);
    record.x_min = limits.X.Min, record.x_max = limits.X.Max, record.y_min = limits.Y.Min, record.y_max = limits.Y.Max;
    record.pixels_per_cell_x = ps.x / std::max(1e-9, limits.X.Max - limits.X.Min);
    record.pixels_per_cell_y = ps.y / std::max(1e-9, limits.Y.Max - limits.Y.Min);
    const bool several = record.pixels_per_cell_x < 1 || record.pixels_per_cell_y < 1;
    record.reduction = !several ? "one cell per pixel or more"
                       : !app.renderer.reduces_cells() ? "nearest: one cell per pixel (cells skipped)"
                       : diff || v.is_signed(plane) ? "largest |value| with its sign; most salient reason"
                                                    : "max; most salient reason";
}

/// View k's heatmap plot, framed by `deco` (plot_decoration) around a side × side data area: textures, block tiles
/// (or in `block_note` why not), the lesson's outlines, crosshair and hover; records the data area and keeps this
/// frame's decoration for the next.
void heatmap_plot(App& app, const RunSnapshot& snap, size_t k, const CellLayout& layout, const ViewScale& scale,
                  int head, ImVec2 deco, HeatmapRecord& record, std::string& block_note) {
    const VariantView& v = snap.variants[k];
    const bool diff = app.view.show_diff;
    const int plane = v.plane(head);
    const float side = layout.side;
    ImPlot::PushStyleVar(ImPlotStyleVar_PlotPadding, ImVec2(4, 4));
    if (ImPlot::BeginPlot("##matrix", ImVec2(side + deco.x, side + deco.y),
                          ImPlotFlags_NoLegend | ImPlotFlags_NoTitle | ImPlotFlags_NoMouseText)) {
        Ticks ticks;
        setup_matrix_axes(app, snap, layout, head, ticks);
        draw_textures(app, k, v, scale, diff);
        if (app.view.show_blocks && !v.auxiliary) draw_block_tiles(app, snap, v, head, block_note);
        draw_outlines(app, snap, v, record);
        crosshair_and_hover(app, snap, head);
        record_data_area(app, v, plane, diff, record);
        const ImVec2 ps = ImPlot::GetPlotSize();
        app.view.plot_decoration[k] = ImVec2(std::max(0.0f, side + deco.x - ps.x), std::max(0.0f, side + deco.y - ps.y));
        ImPlot::EndPlot();
    }
    ImPlot::PopStyleVar();  // after EndPlot: the padding is read when the plot lays itself out
}

/// The cell's own colour bar beside the heatmap, `height` pixels tall (for a scale that is not the panel's: signed
/// matrices, or the shared scale is off).
void own_colour_bar(const App& app, const ViewScale& scale, float height) {
    ImGui::SameLine();
    const float bar_w = ImGui::CalcTextSize("-0.00e+00").x + ImGui::GetTextLineHeight() * 2.2f;
    const double lo = scale.diverging ? -scale.vmax : scale.mode == ScaleMode::Log ? std::log10(scale.vmax) - app.view.decades : 0;
    const double hi = scale.mode == ScaleMode::Log ? std::log10(scale.vmax) : scale.vmax;
    ImPlot::ColormapScale(scale.mode == ScaleMode::Log ? "log10 P_eff" : scale.label.c_str(), lo, hi,
                          ImVec2(bar_w, height), scale.diverging ? "%.1e" : "%.2g", 0, plot_colormap(scale.map));
}

}  // namespace

int badge_head(const App& app, const RunSnapshot& snap) {
    return app.view.mean_badges ? -1 : std::clamp(app.view.head, 0, std::max(0, snap.heads->heads() - 1));
}

void draw_cell(App& app, const RunSnapshot& snap, size_t k, const CellLayout& layout, const ViewScale& scale) {
    const VariantView& v = snap.variants[k];
    const ImVec4 cell_rect = begin_cell(k, layout);
    const int head = std::clamp(app.view.head, 0, snap.heads->heads() - 1);
    const int plane = v.plane(head);  // this view's plane for `head` (one plane may serve every head)
    const bool diff = app.view.show_diff;
    const std::string title = instance_of(v);
    const std::string what = matrix_title(v, diff);
    title_line(app, v, title, "(" + v.id + ") " + head_label(v, head, snap.heads->heads()) + kv_head_note(snap, head, true) + " — " + what,
               plane, cell_rect);
    // A batch still computing: this view's place in it (the other views already show their new results).
    if (view_progress(v, views_ahead(snap, k)) && v.state != ViewState::Done) return end_cell();
    if (!v.error.empty()) {
        error_text(app, v);
        return end_cell();
    }
    HeatmapRecord record = start_record(app, snap, k, layout, title, what, head, cell_rect);
    cell_badges(app, snap, v, layout, head, record);
    const Tensor3* pooled = diff ? (v.pooled_diff ? &*v.pooled_diff : nullptr) : (v.pooled ? &*v.pooled : nullptr);
    if (!pooled) {
        hint_text(no_matrix_hint(v, diff));
        app.layout_record.heatmaps.push_back(std::move(record));
        return end_cell();
    }
    update_textures(app, k, snap, v, plane, diff);
    const ImVec2 deco = plot_decoration(app, snap, k);
    std::string block_note;
    heatmap_plot(app, snap, k, layout, scale, head, deco, record, block_note);
    if (!scale.shared) own_colour_bar(app, scale, layout.side + deco.y);
    if (!layout.compact) {
        // One line (the grid reserved one), cut with "…" when longer; the whole caption on hover.
        const std::string line = caption(app, snap, k, plane, diff, scale, block_note);
        if (!line.empty()) one_line(line, ImGui::GetContentRegionAvail().x, true, line);
    }
    app.layout_record.heatmaps.push_back(std::move(record));
    end_cell();
}

}  // namespace attnscope::gui

// attnscope — the Matrices panel: one heatmap per view side by side in the grid that gives them the most room,
// linked zoom/pan and hover, one toolbar and one strip (colour scale, legend, what a pixel shows) for every cell.
// The cells, textures, tooltip and exports are the matrix_*.cpp files (matrix_view.h).
#include <imgui.h>
#include <imgui_internal.h>  // FindWindowByName (Save the Matrices window)
#include <implot.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/backend/interface/lsh_rules.h"
#include "core/json_fields.h"
#include "core/lessons/lessons.h"
#include "core/session/panel_csv.h"
#include "core/session/session_file.h"
#include "app/gui/matrix_view.h"
#include "app/gui/panels.h"

namespace attnscope::gui {

namespace {
int g_plot_viridis = -1, g_plot_diverging = -1;
}

void add_plot_colormaps() {
    for (Colormap map : {Colormap::Viridis, Colormap::Diverging}) {
        const auto& table = colormap_table(map);
        std::vector<ImVec4> cols;
        for (const auto& c : table) cols.push_back(ImVec4(c[0], c[1], c[2], 1));
        const int id = ImPlot::AddColormap(map == Colormap::Viridis ? "attnscope-viridis" : "attnscope-diverging",
                                           cols.data(), int(cols.size()), false);
        (map == Colormap::Viridis ? g_plot_viridis : g_plot_diverging) = id;
    }
}

int plot_colormap(Colormap map) { return map == Colormap::Viridis ? g_plot_viridis : g_plot_diverging; }

namespace {

/// The metrics table of every run shown, as `run --metrics-csv` writes it (core/session/panel_csv.h); an auxiliary
/// view shares its run's result, so each run is one set of rows.
std::string snapshot_metrics_csv(const RunSnapshot& snap) {
    std::vector<const RunResult*> results;
    for (const VariantView& v : snap.variants)
        if (v.result && !v.auxiliary) results.push_back(v.result.get());
    return metrics_csv(results);
}

/// Puts the next toolbar item on this line when `width` pixels still fit, else on the next.
void next_item(float width) {
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < width) ImGui::NewLine();
}

float checkbox_width(const char* label) {
    return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
}

/// The toggles that apply to every cell, on one line when the window is wide enough (they wrap otherwise); the rarer
/// ones sit in the "View ▾" popup; `window` is the panel's title (its PNG export captures that window).
void toolbar(App& app, const RunSnapshot* snap, const char* window) {
    MatrixViewState& vw = app.view;
    const int H = snap && snap->heads ? snap->heads->heads() : 1;
    const float slider = ImGui::GetFontSize() * 6;
    ImGui::SetNextItemWidth(slider);
    if (ImGui::SliderInt("head", &vw.head, 0, std::max(0, H - 1))) app.dirty = app.dirty || (app.spectrum.enabled && app.spectrum.visible);
    if (snap && snap->heads) vw.head = std::clamp(vw.head, 0, std::max(0, H - 1));
    if (snap && snap->heads) {
        const std::string kv = kv_head_note(*snap, vw.head);
        if (!kv.empty()) ImGui::SetItemTooltip("head %d%s (grouped-query attention: its K and V are shared)", vw.head, kv.c_str());
    }
    next_item(checkbox_width("mask by reason"));
    ImGui::Checkbox("mask by reason", &vw.show_mask);
    ImGui::SetItemTooltip("tint allowed cells by why they are allowed; dim cells the variant never scores");
    next_item(checkbox_width("difference to exact"));
    ImGui::Checkbox("difference to exact", &vw.show_diff);
    ImGui::SetItemTooltip("show P_eff − P on a diverging map (blue: less weight than exact, red: more)");
    next_item(checkbox_width("log scale"));
    ImGui::Checkbox("log scale", &vw.log_scale);
    next_item(slider * 0.7f + ImGui::CalcTextSize("decades").x);
    ImGui::SetNextItemWidth(slider * 0.7f);
    ImGui::SliderFloat("decades", &vw.decades, 1, 12, "%.0f");
    next_item(checkbox_width("shared scale"));
    ImGui::Checkbox("shared scale", &vw.shared_scale);
    ImGui::SetItemTooltip("one colour scale for every panel (equal colours = equal weights); off: each panel to its own max");
    next_item(ImGui::CalcTextSize("Fit").x + 16);
    if (ImGui::Button("Fit")) vw.fit_next = true;
    ImGui::SetItemTooltip("show the whole matrix again after zooming");
    next_item(ImGui::CalcTextSize("View ▾").x + 16);
    if (ImGui::Button("View ▾")) ImGui::OpenPopup("view-options");
    if (ImGui::BeginPopup("view-options")) {
        ImGui::Checkbox("blocks", &vw.show_blocks);
        ImGui::SetItemTooltip("block-sparse kernels: draw their b×b tiles over the mask (outlined: full, amber: partial, "
                              "shaded: skipped) with the block density the kernel pays and the token density it uses");
        ImGui::Checkbox("difference scale at a percentile of |Δ|", &vw.robust_diff_scale);
        ImGui::SetItemTooltip("on: ±%.0fth percentile of |Δ| (a few large differences saturate instead of whitening the "
                              "rest); off: ±max |Δ|", 100 * kDiffScaleQuantile);
        ImGui::Checkbox("badges: mean over heads", &vw.mean_badges);
        ImGui::SetItemTooltip("on: every badge is the mean over heads of each head's own value (what `attnscope run` "
                              "prints; a lesson opens with it, since its checks compare means); off: the drawn head's "
                              "own values. The first badge says which.");
        ImGui::Checkbox("outline the lesson's features", &vw.show_points);
        ImGui::SetItemTooltip("draw the open lesson's \"what to look at\" columns, rows, diagonals and blocks");
        static const char* const kOrders[] = {"positions", "LSH buckets", "clusters"};
        int order = static_cast<int>(vw.order);
        ImGui::SetNextItemWidth(slider);
        if (ImGui::Combo("order", &order, kOrders, 3)) vw.order = static_cast<DisplayOrder>(order), app.dirty = true;
        ImGui::SetItemTooltip("order both axes: by position; by an lsh run's sorted order (bucket, then position) — "
                              "Reformer's block-diagonal picture; or by the clustered scenario's clusters");
        if (vw.order == DisplayOrder::LshBuckets) {
            ImGui::SetNextItemWidth(slider);
            if (ImGui::SliderInt("round", &vw.order_round, 0, kMaxLshRounds - 1)) app.dirty = true;
        }
        ImGui::SetNextItemWidth(slider);
        ImGui::SliderInt("columns", &vw.columns, 0, 8, vw.columns == 0 ? "automatic" : "%d");
        ImGui::SetItemTooltip("0: the count that gives the largest matrices");
        ImGui::Separator();
        if (ImGui::MenuItem("Copy metrics CSV", nullptr, false, snap != nullptr)) {
            ImGui::SetClipboardText(snapshot_metrics_csv(*snap).c_str());
            app.exports.message = "metrics copied to the clipboard as CSV", app.exports.message_is_error = false;
        }
        if (ImGui::MenuItem("Save the Matrices window as PNG")) {
            try {
                const ImGuiWindow* w = ImGui::FindWindowByName(window);
                if (w) app.captures.push_back({export_path(app, "matrices.png"), ImVec4(w->Pos.x, w->Pos.y, w->Pos.x + w->Size.x, w->Pos.y + w->Size.y)});
            } catch (const Error& e) {
                app.exports.message = e.what(), app.exports.message_is_error = true;
            }
        }
        ImGui::EndPopup();
    }
    if (app.runs.state() == WorkerState::Running) {
        next_item(ImGui::CalcTextSize("computing… 10 of 10 views ready").x);
        if (snap && !snap->complete && snap->generation == app.runs.posted_generation())
            ImGui::TextColored(ImVec4(0.95f, 0.8f, 0.35f, 1), "computing… %d of %zu views ready", snap->views_shown(),
                               snap->variants.size());
        else
            ImGui::TextColored(ImVec4(0.95f, 0.8f, 0.35f, 1), "computing…");
    }
}

/// What choose_grid needs to know of the cells: their badges, the plot decorations, the bars.
struct ChromeContext {
    const App* app = nullptr;
    std::vector<std::vector<Badge>> badges;       // per view
    std::vector<std::vector<std::string>> lesson_metrics;  // per view: what the open lesson compares
    bool any_own_bar = false;                     // some view draws its own colour bar
};

/// Rows of badges the fullest cell needs at this width.
int badge_rows_at(const ChromeContext& c, float width, bool compact) {
    int rows = 0;
    for (size_t k = 0; k < c.badges.size(); ++k)
        rows = std::max(rows, badge_lines(shown_badges(c.badges[k], compact, c.lesson_metrics[k]), compact,
                                          width - 2 * kCellPadding.x));
    return rows;
}

/// Room beside a cell's heatmap (see CellChrome).
ImVec2 cell_chrome(float width, bool compact, const void* context) {
    const auto& c = *static_cast<const ChromeContext*>(context);
    const ImGuiStyle& style = ImGui::GetStyle();
    const float line = ImGui::GetTextLineHeight();
    // Plot decorations: last frame's measurement, or a guess before the first plot.
    ImVec2 deco(0, 0);
    for (const ImVec2& d : c.app->view.plot_decoration) deco = ImVec2(std::max(deco.x, d.x), std::max(deco.y, d.y));
    if (deco.x <= 0 || deco.y <= 0)
        deco = compact ? ImVec2(line * 3.2f, line * 0.8f) : ImVec2(line * 4.5f, line * 3.0f);
    const int badge_rows = badge_rows_at(c, width, compact);
    const float bar = c.any_own_bar ? ImGui::CalcTextSize("-0.00e+00").x + line * 2.2f + style.ItemSpacing.x : 0;
    const float x = 2 * kCellPadding.x + deco.x + bar + 2;
    const float y = 2 * kCellPadding.y + line + style.ItemSpacing.y +                              // title
                    badge_rows * (line + style.ItemSpacing.y) +                                    // badges
                    deco.y + style.ItemSpacing.y +                                                 // plot axes
                    (compact ? 0 : line + style.ItemSpacing.y) + 2;                               // caption
    return ImVec2(x, y);
}

}  // namespace

void draw_matrices_panel(App& app, const PanelEntry& self) {
    const bool open = ImGui::Begin(self.window);
    const auto snap = app.snap;
    // Errors first, in a banner: they are what the user must act on.
    if (snap) {
        if (!snap->input_error.empty())
            app.banner.push_back("Input: " + snap->input_error +
                                 (snap->input_info.too_long ? " (Input panel: 'Truncate to " +
                                                                  std::to_string(snap->input_info.max_tokens) + " tokens')"
                                                            : std::string()));
        for (const auto& v : snap->variants)
            if (!v.error.empty()) app.banner.push_back(v.id + ": " + v.error);
    }
    if (!open) {
        ImGui::End();
        return;
    }
    if (!app.banner.empty()) {
        ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.45f, 0.08f, 0.08f, 1));
        const float h = ImGui::GetTextLineHeightWithSpacing() * (float(app.banner.size()) + 0.6f);
        ImGui::BeginChild("banner", ImVec2(0, h), ImGuiChildFlags_Borders);
        for (const auto& b : app.banner) ImGui::TextWrapped("%s", b.c_str());
        ImGui::EndChild();
        ImGui::PopStyleColor();
    }
    MatrixViewState& vw = app.view;
    toolbar(app, snap.get(), self.window);
    if (!snap || !snap->heads) {
        hint_text(snap ? "The input could not be built: see the message above." : "Computing the first result…");
        ImGui::End();
        return;
    }
    if (vw.order != DisplayOrder::Positions && snap->display_perm.empty())
        hint_text(vw.order == DisplayOrder::LshBuckets
                      ? "Order by LSH buckets needs an lsh variant (with at least that many rounds): shown by position."
                      : "Order by clusters needs the clustered scenario: shown by position.");
    const int n = snap->heads->n();
    if (vw.fit_next || vw.fitted_n != n)  // a new length invalidates the old zoom
        vw.x_min = 0, vw.x_max = n, vw.y_min = 0, vw.y_max = n, vw.fit_next = false, vw.fitted_n = n;
    if (snap->variants.empty()) {
        hint_text("Add a variant in the Variants panel to see its attention matrix here.");
        ImGui::End();
        return;
    }
    if (app.textures.size() != snap->variants.size()) {
        for (auto& pair : app.textures)
            for (auto& t : pair) t.release();
        app.textures.assign(snap->variants.size(), {});
    }
    // One colour scale for every panel (when shared) so equal colours mean equal weights across variants.
    const int head = std::clamp(vw.head, 0, snap->heads->heads() - 1);
    vw.shared_max = vw.shared_diff_max = 0;
    for (const auto& v : snap->variants) {
        const int plane = v.plane(head);
        if (plane < int(v.head_max.size()) && !v.is_signed(plane)) vw.shared_max = std::max(vw.shared_max, v.head_max[size_t(plane)]);
        const std::vector<float>& diff_top = vw.robust_diff_scale && plane < int(v.diff_robust.size()) ? v.diff_robust : v.diff_max;
        if (plane < int(diff_top.size())) vw.shared_diff_max = std::max(vw.shared_diff_max, diff_top[size_t(plane)]);
    }
    std::vector<ViewScale> scales;
    ChromeContext chrome;
    chrome.app = &app;
    const Lesson* lesson = nullptr;
    if (app.lesson.open && !app.lesson.id.empty()) {
        try {
            lesson = &find_lesson(app.lesson.id);
        } catch (const Error&) {
        }
    }
    int slot_index = 0;  // the Variants slot of the next non-auxiliary view
    for (const auto& v : snap->variants) {
        scales.push_back(view_scale(app, v, v.plane(head), vw.show_diff));
        const bool drawn = vw.show_diff ? bool(v.pooled_diff) : bool(v.pooled);
        chrome.any_own_bar = chrome.any_own_bar || (drawn && !scales.back().shared);
        chrome.badges.push_back(v.result && !v.auxiliary ? run_badges(*v.result, badge_head(app, *snap), app.view.head) : std::vector<Badge>{});
        if (!v.auxiliary) {  // the decoder's perplexity with this instance, once the Perplexity panel has it
            if (const std::optional<Badge> b = perplexity_badge(app, slot_index)) chrome.badges.back().push_back(*b);
            ++slot_index;
        }
        chrome.lesson_metrics.push_back(lesson ? lesson->badges_for(v.id) : std::vector<std::string>{});
    }
    // The strip first (its height is known once drawn), then the grid in what is left.
    const double visible = std::max(1e-9, std::min<double>(n, vw.x_max) - std::max(0.0, vw.x_min));
    draw_shared_strip(app, *snap, scales, vw.last_side > 0 ? float(visible / vw.last_side) : 0.0f);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const GridChoice grid =
        choose_grid(int(snap->variants.size()), avail, spacing, vw.columns, false, cell_chrome, &chrome);
    vw.last_side = grid.side;
    CellLayout layout;
    layout.size = grid.cell, layout.side = grid.side, layout.compact = grid.compact;
    layout.badge_rows = badge_rows_at(chrome, grid.cell.x, grid.compact);
    layout.lesson = lesson;
    layout.window = self.window;
    // On a projector the grid sits in the middle of the height it leaves free.
    const float used = float(grid.rows) * grid.cell.y + spacing * float(grid.rows - 1);
    if (vw.presentation && avail.y > used + 8) ImGui::SetCursorPosY(ImGui::GetCursorPosY() + (avail.y - used) / 2);
    for (size_t k = 0; k < snap->variants.size(); ++k) {
        if (k % size_t(grid.cols)) ImGui::SameLine();
        draw_cell(app, *snap, k, layout, scales[k]);
    }
    ImGui::End();
}

void save_matrices_session(const App& app, nlohmann::json& j) {
    const MatrixViewState& v = app.view;
    session_view_to_json({v.head, v.show_mask, v.show_diff, v.log_scale, v.decades, v.order, v.order_round}, j);
    nlohmann::json& view = j["view"];  // the GUI's own view keys beside the session's
    view["shared_scale"] = v.shared_scale;
    view["blocks"] = v.show_blocks;
    view["mean_badges"] = v.mean_badges;
    view["zoom"] = {v.x_min, v.x_max, v.y_min, v.y_max};
    view["zoom_n"] = v.fitted_n;  // the length the zoom belongs to: kept on load when the input has it again
    view["presentation"] = v.presentation, view["font_scale"] = std::round(double(v.font_scale) * 100) / 100;
}

void load_matrices_session(App& app, const nlohmann::json& j) {
    MatrixViewState view;
    const SessionView shown = session_view_from_json(j);
    view.head = shown.head, view.show_mask = shown.show_mask, view.show_diff = shown.show_diff;
    view.log_scale = shown.log_scale, view.decades = shown.decades;
    view.order = shown.order, view.order_round = shown.order_round;
    if (j.contains("view")) {
        const auto& v = j["view"];
        view.shared_scale = json_bool(v, "shared_scale", true, "the session's view");
        view.show_blocks = json_bool(v, "blocks", false, "the session's view");
        view.mean_badges = json_bool(v, "mean_badges", false, "the session's view");
        view.presentation = json_bool(v, "presentation", false, "the session's view");
        view.font_scale = float(json_number(v, "font_scale", 1.0, kMinFontScale, kMaxFontScale, "the session's view"));
        if (v.contains("zoom")) {  // keys x_min, x_max; queries y_min, y_max
            const nlohmann::json& z = v["zoom"];
            if (!z.is_array() || z.size() != 4 || !std::all_of(z.begin(), z.end(), [](const nlohmann::json& x) { return x.is_number(); }))
                throw Error("the session's view: 'zoom' is " + z.dump() + "; it must be [x_min, x_max, y_min, y_max] (numbers)");
            view.x_min = z[0], view.x_max = z[1], view.y_min = z[2], view.y_max = z[3];
            view.fit_next = false;
            // Kept when the input comes back with the n it was saved for (any input kind: text, tensors,
            // synthetic); a different n refits. Older sessions without zoom_n: a synthetic scenario's own n.
            view.fitted_n = json_int(v, "zoom_n", app.input.spec.mode == InputMode::Synthetic ? app.input.spec.scenario.n : 0,
                                     0, 1 << 24, "the session's view");
        }
    }
    app.view = view;
}

}  // namespace attnscope::gui

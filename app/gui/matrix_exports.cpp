// attnscope — the Matrices panel's exports (see matrix_view.h and app.h): a view's matrix as CSV or NPY, the slide
// figures of the Matrices and LSH panels (File → Export figure of this panel), and a cell as PNG (the metrics table's CSV is core/session/panel_csv.h).
#include <imgui.h>

#include <functional>

#include "core/figure/render.h"
#include "core/figure/run_figure.h"
#include "core/session/export.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"
#include "app/gui/matrix_view.h"
#include "app/gui/panel_figures.h"

namespace attnscope::gui {


void export_matrix(App& app, const VariantView& v, int head, const std::string& format) {
    if (!v.matrix || !v.result) return;
    // Exports are in position order whatever the view's order: P̃ itself, or the display matrix of the structure.
    std::shared_ptr<const Tensor3> matrix;
    if (!v.auxiliary && v.result->P_eff) matrix = std::shared_ptr<const Tensor3>(v.result, &*v.result->P_eff);
    for (const DisplayMatrix& shown : v.result->structure.display_matrices)
        if (v.auxiliary && shown.title == v.title) matrix = std::shared_ptr<const Tensor3>(v.result, &shown.matrix);
    if (!matrix) return;
    // Named by instance (svd-r8-head3.csv), so two panels of one variant never overwrite each other.
    const std::string stem = instance_slug(find_variant(v.id).info(), v.result->params) + (v.auxiliary ? "-aux" : "");
    std::vector<std::string> tokens = app.snap && app.snap->heads ? app.snap->heads->tokens : std::vector<std::string>{};
    if (format == "csv") {
        const std::string path = export_path(app, stem + "-head" + std::to_string(head) + ".csv");
        post_export(app, [matrix, path, head, tokens] { write_matrix_csv(path, *matrix, head, tokens); }, path);
    } else {
        const std::string path = export_path(app, stem + ".npy");
        const std::string tokens_path = export_path(app, stem + ".tokens.txt");
        post_export(app, [matrix, path, tokens, tokens_path] {
            write_npy(path, *matrix);
            if (tokens.empty()) return;
            std::string lines;  // row i of every head is token i
            for (const std::string& t : tokens) lines += t + "\n";
            write_file_atomically(tokens_path, lines);
        }, path);
    }
}

namespace {

/// The matrix figure of the newest batch: the Matrices panels as toggled, or (`buckets`) the LSH panel's head in
/// an lsh round's bucket order.
PanelFigure run_figure(const App& app, bool buckets) {
    const auto snap = app.snap;
    if (!snap || !snap->heads) return {{}, "no result to draw yet"};
    figure::RunFigureOptions f;
    f.view = buckets ? figure::View::Buckets
             : app.view.show_diff ? figure::View::Difference
             : app.view.show_mask ? figure::View::Mask
                                  : figure::View::Weights;
    f.head = std::clamp(buckets ? app.lsh.head : app.view.head, 0, snap->heads->heads() - 1);
    f.log_scale = app.view.log_scale, f.decades = app.view.decades;
    f.order = app.view.order, f.order_round = app.view.order_round;
    f.title = gui_figure_title(app);
    if (buckets && std::none_of(snap->variants.begin(), snap->variants.end(), [](const VariantView& v) { return v.result && v.result->structure.lsh; }))
        return {{}, "no lsh instance among the variants: add one to see its buckets"};
    return {[snap, f](figure::Theme theme) {
                figure::RunFigureOptions g = f;
                g.theme = theme;
                std::vector<RunResult> results;  // the figure reads P_eff in position order from each run
                for (const VariantView& v : snap->variants)
                    if (v.result && !v.auxiliary) results.push_back(*v.result);
                // The snapshot's exact P is in display order; the figure wants it by position and orders it itself.
                std::optional<Tensor3> by_position;
                const figure::ExactMatrix exact = [snap, &by_position](bool causal) -> const Tensor3* {
                    const auto it = snap->exact_P.find(causal);
                    if (it == snap->exact_P.end() || !it->second) return nullptr;
                    if (snap->display_perm.empty()) return it->second.get();
                    const Tensor3& shown = *it->second;
                    const int H = shown.heads(), n = shown.rows();
                    by_position.emplace(H, n, n);
                    for (int h = 0; h < H; ++h) {
                        const int* p = snap->display_perm.data() + size_t(h % int(snap->display_perm.size() / size_t(n))) * n;
                        for (int s = 0; s < n; ++s)
                            for (int t = 0; t < n; ++t) by_position->at(h, p[s], p[t]) = shown.at(h, s, t);
                    }
                    return &*by_position;
                };
                return figure::layout_figure(figure::figure_of_runs(*snap->heads, results, g, exact));
            },
            ""};
}

}  // namespace

PanelFigure matrices_panel_figure(const App& app) { return run_figure(app, false); }

PanelFigure lsh_panel_figure(const App& app) { return run_figure(app, true); }

void view_menu(App& app, const VariantView& v, int head, ImVec4 cell_rect) {
    ImGui::PushID("view-menu");
    if (ImGui::SmallButton("⋯")) ImGui::OpenPopup("menu");
    ImGui::SetItemTooltip("export this view (PNG, CSV, NPY)%s", v.result && !v.result->structure.notes.empty() ? " and its notes" : "");
    if (ImGui::BeginPopup("menu")) {
        try {
            if (ImGui::MenuItem("Save this panel as PNG")) app.captures.push_back({export_path(app, v.id + "_panel.png"), cell_rect});
            ImGui::SetItemTooltip("the cell as it looks now");
            if (v.matrix) {
                if (ImGui::MenuItem("Save matrix as CSV")) export_matrix(app, v, head, "csv");
                ImGui::SetItemTooltip("P_eff of head %d at full resolution, one row per query; token headers for text", head);
                if (ImGui::MenuItem("Save matrix as NPY")) export_matrix(app, v, head, "npy");
                ImGui::SetItemTooltip("P_eff of every head as float32 .npy, shape (H, n, n), with the tokens beside it");
            }
        } catch (const Error& e) {
            app.exports.message = e.what(), app.exports.message_is_error = true;
        }
        if (v.result && !v.result->structure.notes.empty()) {
            ImGui::SeparatorText("notes");
            ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
            for (const auto& note : v.result->structure.notes) ImGui::BulletText("%s", note.c_str());
            ImGui::PopTextWrapPos();
        }
        ImGui::EndPopup();
    }
    ImGui::PopID();
}

}  // namespace attnscope::gui

// attnscope — Matrices panel: one heatmap per variant side by side, linked zoom/pan and hover, reason
// overlay, difference to exact, log scale, metric badges, colour bars, legends and exports.
// Index: [SECTION] Colormaps  [SECTION] Formatting  [SECTION] Textures  [SECTION] Tooltip
//        [SECTION] One cell  [SECTION] Panel
#include <imgui.h>
#include <implot.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "app.h"
#include "view_progress.h"
#include "core/session/metrics.h"
#include "core/backend/lsh_rules.h"
#include "core/session/export.h"
#include "core/figure/render.h"
#include "core/figure/run_figure.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"
#include "core/format.h"

namespace attnscope::gui {

// [SECTION] Colormaps

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

// [SECTION] Formatting

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

/// A sentence for a reason code: why cell (i, j) is allowed.
const char* reason_sentence(Reason r) {
    switch (r) {
        case Reason::None: return "not allowed: outside the pattern";
        case Reason::Dense: return "dense: every key is scored";
        case Reason::Local: return "local: inside the local window / same block";
        case Reason::Stride: return "stride: (i − j) mod l = 0";
        case Reason::Summary: return "summary: one of the last c columns of a block";
        case Reason::Window: return "window: inside the sliding window";
        case Reason::Dilated: return "dilated: on the dilated window";
        case Reason::Global: return "global: row or column of a global token";
        case Reason::Random: return "random: a random key block of this query block";
        case Reason::Segment: return "segment: inside the current segment";
        case Reason::Memory: return "memory: cached memory of the previous segment";
        case Reason::Bucket: return "bucket: same LSH chunk or its look-back chunk";
        case Reason::Sink: return "sink: one of the first s positions every query keeps (StreamingLLM)";
        case Reason::TopK: return "top-k: one of this query's k largest exact scores (the oracle)";
        case Reason::Selected: return "selected: a key block the gate q̄·k̄ chose for this query block";
        case Reason::Vertical: return "vertical: a key column the last queries' probabilities chose";
        case Reason::Slash: return "slash: a diagonal i − j the last queries' probabilities chose";
        case Reason::Count: break;
    }
    return "?";
}

/// The position shown at display slot `slot` of head `head` (the snapshot may order the axes by LSH bucket or
/// by cluster).
int position_of(const RunSnapshot& snap, int head, int slot) {
    const int n = snap.heads ? snap.heads->n() : 0;
    if (snap.display_perm.empty() || n == 0) return slot;
    const int layout_head = head % std::max(1, int(snap.display_perm.size()) / n);
    return snap.display_perm[size_t(layout_head) * n + slot];
}

/// Why (i, j) is allowed for one run (i, j are positions).
std::string why_allowed(const RunResult& r, int h, int i, int j) {
    if (r.structure.mask && h < r.structure.mask->heads && i < r.structure.mask->n && j < r.structure.mask->n)
        return reason_sentence(r.structure.mask->at(h, i, j));
    if (r.causal && j > i) return "not allowed: causal (j > i)";
    return "dense: every key is scored";
}

void badge(const char* name, const std::string& value, ImVec4 color, const char* help) {
    const std::string text = value.empty() ? std::string(name) : std::string(name) + " " + value;
    const float w = ImGui::CalcTextSize(text.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
    if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();  // wrap instead of clipping
    ImGui::PushStyleColor(ImGuiCol_Button, color);
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, color);
    ImGui::PushStyleColor(ImGuiCol_ButtonActive, color);
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.05f, 0.05f, 0.07f, 1));
    ImGui::SmallButton(text.c_str());
    ImGui::PopStyleColor(4);
    ImGui::SetItemTooltip("%s", help);
    ImGui::SameLine(0, 4);
}

ImVec4 quality(double err) {
    if (err < 1e-3) return {0.45f, 0.85f, 0.50f, 1};
    if (err < 1e-1) return {0.95f, 0.80f, 0.35f, 1};
    return {0.95f, 0.50f, 0.40f, 1};
}

/// The metric badges of a run; `compact` (presentation mode) keeps the error, the mass kept and the dense warning.
/// Every metric of r as lines "name value", for the tooltip of the compact badges' "more" badge.
std::string all_metrics_text(const RunResult& r) {
    const Metrics& m = r.metrics;
    std::string t;
    auto line = [&](const char* name, const std::optional<double>& v, const char* f) {
        if (v) t += std::string(name) + " " + (std::isfinite(*v) ? fmt(f, *v) : std::string("inf")) + "\n";
    };
    line("rel_err_out", m.rel_err_out, "%.3e");
    line("rel_err_model", m.rel_err_model, "%.3e");
    line("rel_err_attn", m.rel_err_attn, "%.3e");
    line("KL(P‖P_eff)", m.row_kl, "%.3e");
    line("KL(P_eff‖P)", m.row_kl_rev, "%.3e");
    line("mass_recall", m.mass_recall, "%.4f");
    line("ceiling", m.mass_ceiling, "%.4f");
    line("density", m.density, "%.4f");
    line("keys for 90%", m.keys_for_90, "%.1f");
    line("entropy (nats)", m.row_entropy, "%.3f");
    t += "time " + fmt("%.2f ms", r.cost.time_ms) + "\nmemory " + format_bytes(double(r.cost.peak_bytes));
    return t;
}

/// Cells narrower than this (pixels) show the compact badges.
constexpr float kCompactCellWidth = 200.0f;

void metric_badges(const RunResult& r, bool compact) {
    const Metrics& m = r.metrics;
    const ImVec4 neutral(0.70f, 0.75f, 0.85f, 1);
    if (r.model == ExactModel::Different) {
        badge("different model", "", neutral, exact_model_sentence(r.model));
        if (m.rel_err_out)
            badge("Δ vs softmax", fmt("%.2e", *m.rel_err_out), neutral,
                  "‖O − O_full‖_F / ‖O_full‖_F: how far this model's output is from softmax attention's (not an "
                  "approximation error: the model is a different one)");
    } else if (m.rel_err_out) {
        badge("rel_err_out", fmt("%.2e", *m.rel_err_out), quality(*m.rel_err_out),
              r.model == ExactModel::Softmax
                  ? "‖O − O_full‖_F / ‖O_full‖_F: relative error of the output against exact softmax attention"
                  : "‖O − O_full‖_F / ‖O_full‖_F against exact softmax attention: the change of model (shared QK, "
                    "self masked) plus the approximation; rel_err_model separates the approximation");
    }
    if (!compact && m.rel_err_model)
        badge("rel_err_model", fmt("%.2e", *m.rel_err_model), quality(*m.rel_err_model), exact_model_sentence(r.model));
    if (m.rel_err_attn && r.model != ExactModel::Different)
        badge("rel_err_attn", fmt("%.2e", *m.rel_err_attn), quality(*m.rel_err_attn),
              "‖P_eff − P‖_F / ‖P‖_F: how far the effective attention matrix is from exact softmax attention's "
              "(the svd oracle is the closest any rank-r matrix gets)");
    if (!compact && m.row_kl)
        badge("KL(P‖P_eff)", std::isfinite(*m.row_kl) ? fmt("%.2e", *m.row_kl) : std::string("inf"),
              std::isfinite(*m.row_kl) ? quality(*m.row_kl) : neutral,
              "mean_i KL(P_i ‖ P_eff_i), P = exact softmax: infinite as soon as P_eff gives zero weight to a cell "
              "where P has mass — every mask does; see KL(P_eff‖P) for a finite measure");
    if (!compact && m.row_kl_rev)
        badge("KL(P_eff‖P)", fmt("%.2e", *m.row_kl_rev), quality(*m.row_kl_rev),
              "mean_i KL(P_eff_i ‖ P_i), P = exact softmax: finite for a mask; for a mask renormalised over its "
              "allowed cells it equals the mean of −log(mass kept by row i)");
    if (m.mass_recall)
        badge("mass_recall", fmt("%.3f", *m.mass_recall), quality(1 - *m.mass_recall),
              "mean_i Σ_{j allowed} P_ij: share of the exact attention mass the pattern keeps");
    if (m.mass_ceiling && m.mass_recall) {
        const std::string help =
            "the most exact mass any pattern with the same number of keys in each row keeps (the topk oracle, row by "
            "row): this pattern reaches " + fmt("%.0f%%", 100 * *m.mass_recall / std::max(1e-12, *m.mass_ceiling)) +
            " of it";
        badge("ceiling", fmt("%.3f", *m.mass_ceiling), neutral, help.c_str());
    }
    if (!m.dense_warning.empty()) badge("dense at this n", "", {0.95f, 0.65f, 0.30f, 1}, m.dense_warning.c_str());
    if (compact) {  // the key numbers only; the rest in one tooltip
        badge("more", "", neutral, all_metrics_text(r).c_str());
        ImGui::NewLine();
        return;
    }
    if (m.density)
        badge("density", fmt("%.3f", *m.density), neutral, "allowed cells / (n² or n(n+1)/2 when causal)");
    if (m.keys_for_90)
        badge("90% in", fmt("%.1f keys", *m.keys_for_90), neutral,
              "how concentrated this matrix's rows are: the fewest keys that hold 90% of a row's weight, averaged over "
              "rows and heads (of full attention: how sparse attention could be on this input)");
    if (m.row_entropy)
        badge("entropy", fmt("%.2f nats", *m.row_entropy), neutral,
              "mean row entropy −Σ_j P_ij ln P_ij; exp(entropy) is the number of equally weighted keys with the same "
              "spread (0: one key; ln n: uniform)");
    badge("time", fmt("%.2f ms", r.cost.time_ms), neutral, "measured wall time of the compute part (noisy)");
    badge("memory", format_bytes(double(r.cost.peak_bytes)), neutral, "peak tracked bytes held during the run");
    ImGui::NewLine();
}

std::string metrics_csv(const RunSnapshot& s) {
    std::ostringstream o;
    o << "variant,instance,model,rel_err_out,rel_err_model,rel_err_attn,row_kl,row_kl_rev,mass_recall,density,time_ms,"
         "peak_bytes,flops\n";
    auto opt = [&](const std::optional<double>& v) {
        if (v) o << *v;
        o << ",";
    };
    for (const auto& v : s.variants) {
        if (!v.result) continue;
        const Metrics& m = v.result->metrics;
        o << v.id << ",\"" << instance_label(find_variant(v.id).info(), v.result->params) << "\","
          << exact_model_id(v.result->model) << ",";
        opt(m.rel_err_out), opt(m.rel_err_model), opt(m.rel_err_attn), opt(m.row_kl), opt(m.row_kl_rev);
        opt(m.mass_recall), opt(m.density);
        o << v.result->cost.time_ms << "," << v.result->cost.peak_bytes << "," << v.result->cost.flops << "\n";
    }
    return o.str();
}

// [SECTION] Textures

uint64_t key_of(std::initializer_list<uint64_t> parts) {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t p : parts) h = (h ^ (p + 0x9e3779b97f4a7c15ull)) * 1099511628211ull;
    return h | 1;  // never 0 (= nothing uploaded)
}

/// Uploads the pooled view (base) and, when zoomed into a large matrix, a full-resolution crop (detail).
void update_textures(App& app, size_t k, const RunSnapshot& snap, const VariantView& v, int head, bool diff) {
    auto& tex = app.textures[k];
    const Tensor3* pooled = diff ? (v.pooled_diff ? &*v.pooled_diff : nullptr) : (v.pooled ? &*v.pooled : nullptr);
    if (!pooled) return;
    const int n = snap.heads->n(), s = pooled->rows();
    const uint64_t base_key = key_of({snap.generation, k, uint64_t(head), diff, 0});
    if (tex[0].key != base_key) {
        const size_t plane = size_t(s) * s;
        const uint8_t* mask = v.pooled_mask && v.pooled_mask->size() >= plane * (head + 1) ? v.pooled_mask->data() + plane * head
                                                                                          : nullptr;
        tex[0].upload(pooled->head_data(head), s, s, mask, ImVec4(0, 0, float(n), float(n)), base_key);
    }
    // Detail: when the visible window is smaller than the texture side, show true cells instead of bins.
    const RunResult& r = *v.result;
    const MatrixViewState& vw = app.view;
    const double x0 = std::max(0.0, vw.x_min), x1 = std::min(double(n), vw.x_max);
    const double y0 = std::max(0.0, vw.y_min), y1 = std::min(double(n), vw.y_max);
    if (s >= n || !v.matrix || x1 - x0 > 0.9 * s || y1 - y0 > 0.9 * s) {
        tex[1].key = 0;
        return;
    }
    const int q = std::max(1, s / 32);
    auto start = [&](double a0, double a1) {
        const double centred = a0 - (s - (a1 - a0)) / 2;
        return std::clamp(int(std::floor(centred / q)) * q, 0, n - s);
    };
    const int c0 = start(x0, x1), r0 = start(y0, y1);
    const uint64_t key = key_of({snap.generation, k, uint64_t(head), diff, uint64_t(c0) + 1, uint64_t(r0) + 1});
    if (tex[1].key == key) return;
    const Tensor3* exact = nullptr;
    if (diff) {
        auto it = snap.exact_P.find(r.causal);
        if (it == snap.exact_P.end()) return;
        exact = it->second.get();
    }
    std::vector<float> block(size_t(s) * s);
    std::vector<uint8_t> mask;
    const bool has_mask = r.structure.mask.has_value() && !v.auxiliary;
    if (has_mask) mask.resize(block.size());
    for (int i = 0; i < s; ++i)
        for (int j = 0; j < s; ++j) {
            float val = v.matrix->at(head, r0 + i, c0 + j);
            if (exact) val -= exact->at(head, r0 + i, c0 + j);
            block[size_t(i) * s + j] = val;
            if (has_mask)
                mask[size_t(i) * s + j] = static_cast<uint8_t>(
                    r.structure.mask->at(head, position_of(snap, head, r0 + i), position_of(snap, head, c0 + j)));
        }
    tex[1].upload(block.data(), s, s, has_mask ? mask.data() : nullptr,
                  ImVec4(float(c0), float(r0), float(c0 + s), float(r0 + s)), key);
}

// [SECTION] Tooltip

void cell_tooltip(const App& app, const RunSnapshot& snap, int head, int i, int j) {
    const Heads* heads = snap.heads.get();
    const int pi = position_of(snap, head, i), pj = position_of(snap, head, j);  // the cell's positions
    ImGui::BeginTooltip();
    ImGui::Text("query i = %s  →  key j = %s   (head %d)", position_label(heads, pi).c_str(),
                position_label(heads, pj).c_str(), head);
    if (!snap.display_perm.empty()) ImGui::TextDisabled("shown at row %d, column %d of the reordered view", i, j);
    if (ImGui::BeginTable("weights", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn("variant");
        ImGui::TableSetupColumn("weight P_eff_ij");
        ImGui::TableSetupColumn("why this cell is allowed");
        ImGui::TableHeadersRow();
        for (const auto& [causal, P] : snap.exact_P) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("exact softmax%s", causal ? " (causal)" : "");
            ImGui::TableNextColumn();
            ImGui::Text("%.4g", P->at(head, i, j));
            ImGui::TableNextColumn();
            ImGui::TextDisabled("reference P");
        }
        for (const auto& v : snap.variants) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(v.result ? instance_label(find_variant(v.id).info(), v.result->params).c_str()
                                   : v.name.empty() ? v.id.c_str() : v.name.c_str());
            if (v.auxiliary) {
                ImGui::TableNextColumn();
                if (v.matrix && v.plane(head) < v.matrix->heads()) ImGui::Text("%.4g", v.matrix->at(v.plane(head), i, j));
                ImGui::TableNextColumn();
                ImGui::TextDisabled("%s", v.title.c_str());
                continue;
            }
            ImGui::TableNextColumn();
            if (v.matrix && v.plane(head) < v.matrix->heads()) {
                const float w = v.matrix->at(v.plane(head), i, j);
                ImGui::Text("%.4g", w);
                if (app.view.show_diff) {
                    auto it = snap.exact_P.find(v.result->causal);
                    if (it != snap.exact_P.end()) {
                        ImGui::SameLine();
                        ImGui::TextDisabled("(Δ %+.2e)", w - it->second->at(head, i, j));
                    }
                }
            } else {
                ImGui::TextDisabled("—");
            }
            ImGui::TableNextColumn();
            if (v.result) {
                const std::string why = why_allowed(*v.result, head, pi, pj);
                Reason r = v.result->structure.mask ? v.result->structure.mask->at(head, pi, pj)
                                                    : (why[0] == 'n' ? Reason::None : Reason::Dense);
                ImGui::ColorButton("##r", reason_color(r), ImGuiColorEditFlags_NoTooltip, ImVec2(10, 10));
                ImGui::SameLine();
                ImGui::TextUnformatted(why.c_str());
                const auto& recall = v.result->metrics.row_mass_recall;  // averaged over heads
                if (pi < int(recall.size())) {
                    ImGui::SameLine();
                    ImGui::TextDisabled("(row %d keeps %.1f%% of the exact mass)", pi, 100.0 * recall[size_t(pi)]);
                }
            } else {
                ImGui::TextDisabled("%s", v.error.empty() ? "—" : "failed");
            }
        }
        ImGui::EndTable();
    }
    ImGui::EndTooltip();
}

// [SECTION] One cell

void reason_legend(const VariantView& v, int head, int s) {
    std::vector<bool> present(static_cast<size_t>(Reason::Count), false);
    const size_t plane = size_t(s) * s;
    if (v.pooled_mask && v.pooled_mask->size() >= plane * (head + 1)) {
        for (size_t c = 0; c < plane; ++c) present[(*v.pooled_mask)[plane * head + c]] = true;
    } else {
        present[static_cast<size_t>(Reason::Dense)] = true;
        present[0] = v.result && v.result->causal;
    }
    ImGui::TextDisabled("mask:");
    for (size_t r = 0; r < present.size(); ++r) {
        if (!present[r]) continue;
        ImGui::SameLine(0, 8);
        ImGui::ColorButton(("##legend" + std::to_string(r)).c_str(), reason_color(static_cast<Reason>(r)),
                           ImGuiColorEditFlags_NoTooltip, ImVec2(12, 12));
        ImGui::SameLine(0, 3);
        ImGui::TextUnformatted(r == 0 ? "not allowed" : reason_name(static_cast<Reason>(r)));
        ImGui::SetItemTooltip("%s", reason_sentence(static_cast<Reason>(r)));
    }
}

void start_export(App& app, std::function<void()> write, std::string what) {
    auto job = std::make_shared<ExportJob>("export", [write = std::move(write), what](JobContext&) -> ExportMessage {
        try {
            write();
            return {"saved " + what, true};
        } catch (const std::exception& e) {
            return {std::string("export failed: ") + e.what(), false};
        }
    }, true);
    app.export_jobs.push_back(job);
    app.runs.post_job(std::move(job));
}

}  // namespace

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
        start_export(app, [matrix, path, head, tokens] { write_matrix_csv(path, *matrix, head, tokens); }, path);
    } else {
        const std::string path = export_path(app, stem + ".npy");
        const std::string tokens_path = export_path(app, stem + ".tokens.txt");
        start_export(app, [matrix, path, tokens, tokens_path] {
            write_npy(path, *matrix);
            if (tokens.empty()) return;
            std::string lines;  // row i of every head is token i
            for (const std::string& t : tokens) lines += t + "\n";
            write_file_atomically(tokens_path, lines);
        }, path);
    }
}

void export_figure(App& app, figure::Theme theme) {
    const auto snap = app.snap;
    if (!snap || !snap->heads) {
        app.exports.message = "no result to draw yet", app.exports.message_is_error = true;
        return;
    }
    figure::RunFigureOptions f;
    f.view = app.view.show_diff ? figure::View::Difference : app.view.show_mask ? figure::View::Mask : figure::View::Weights;
    f.head = std::clamp(app.view.head, 0, snap->heads->heads() - 1);
    f.log_scale = app.view.log_scale, f.decades = app.view.decades, f.theme = theme;
    const InputSpec& in = app.input.spec;
    f.title = in.mode == InputMode::Text ? "text, " + std::to_string(snap->heads->n()) + " tokens, encoder layer " + std::to_string(in.layer)
                                         : snap->heads->source + ", n = " + std::to_string(snap->heads->n());
    const std::string stem = std::string("figure-") + (theme == figure::Theme::Dark ? "dark" : "light") + "-head" + std::to_string(f.head);
    const std::string png = export_path(app, stem + ".png"), svg = export_path(app, stem + ".svg");
    start_export(app, [snap, f, png, svg] {
        std::vector<RunResult> results;  // the figure reads P_eff in position order from each run
        for (const VariantView& v : snap->variants)
            if (v.result && !v.auxiliary) results.push_back(*v.result);
        // The snapshot's exact P is in display order; a difference figure needs it by position.
        const figure::ExactMatrix exact = [snap](bool causal) -> const Tensor3* {
            const auto it = snap->exact_P.find(causal);
            return it != snap->exact_P.end() && snap->display_perm.empty() ? it->second.get() : nullptr;
        };
        const figure::Canvas canvas = figure::layout_figure(figure::figure_of_runs(*snap->heads, results, f, exact));
        figure::write_canvas(png, canvas, 1.5f);
        figure::write_canvas(svg, canvas, 1.0f);
    }, png + " and .svg");
}

namespace {

void export_row(App& app, const VariantView& v, int head, ImVec4 cell_rect) {
    ImGui::PushID("export");
    try {
        if (ImGui::SmallButton("PNG")) app.captures.push_back({export_path(app, v.id + "_panel.png"), cell_rect});
        ImGui::SetItemTooltip("save this panel as it looks now (PNG)");
        if (v.matrix) {
            ImGui::SameLine();
            if (ImGui::SmallButton("CSV")) export_matrix(app, v, head, "csv");
            ImGui::SetItemTooltip("save P_eff of head %d as CSV (full resolution, one row per query; token headers for text)", head);
            ImGui::SameLine();
            if (ImGui::SmallButton("NPY")) export_matrix(app, v, head, "npy");
            ImGui::SetItemTooltip("save P_eff of every head as float32 .npy, shape (H, n, n), with the tokens beside it (.tokens.txt)");
        }
    } catch (const Error& e) {
        app.exports.message = e.what(), app.exports.message_is_error = true;
    }
    ImGui::PopID();
}

/// "head 3", or "one matrix for every head" when the view holds a single plane for H > 1 heads.
std::string head_label(const VariantView& v, int head, int heads) {
    return heads > 1 && v.plane(head) != head ? "one matrix for every head" : "head " + std::to_string(head);
}

void draw_cell(App& app, const RunSnapshot& snap, size_t k, ImVec2 size) {
    const VariantView& v = snap.variants[k];
    ImGui::PushID(int(k));
    ImGui::BeginChild("cell", size, ImGuiChildFlags_Borders, ImGuiWindowFlags_NoScrollbar);
    const ImVec2 cell_pos = ImGui::GetWindowPos(), cell_size = ImGui::GetWindowSize();
    const ImVec4 cell_rect(cell_pos.x, cell_pos.y, cell_pos.x + cell_size.x, cell_pos.y + cell_size.y);
    const int n = snap.heads->n();
    const int head = std::clamp(app.view.head, 0, snap.heads->heads() - 1);
    const int plane = v.plane(head);  // this view's plane for `head` (one plane may serve every head)
    const bool diff = app.view.show_diff;
    // The instance names itself ("SVD r = 8"), so two panels of one variant are told apart.
    ImGui::Text("%s", v.auxiliary ? v.title.c_str() : v.result ? instance_label(find_variant(v.id).info(), v.result->params).c_str()
                                                  : v.name.empty() ? v.id.c_str() : v.name.c_str());
    ImGui::SameLine();
    if (v.auxiliary)
        ImGui::TextDisabled("(%s) %s", v.id.c_str(), head_label(v, head, snap.heads->heads()).c_str());
    else
        ImGui::TextDisabled("(%s) %s — %s", v.id.c_str(), head_label(v, head, snap.heads->heads()).c_str(),
                            diff ? "P_eff − P: difference to exact softmax"
                                 : !v.result || v.result->structure.matrix_title.empty()
                                       ? "effective attention P_eff"
                                       : v.result->structure.matrix_title.c_str());
    // A batch still computing: this view's place in it (the other views already show their new results).
    if (view_progress(v, views_ahead(snap, k)) && v.state != ViewState::Done) {
        ImGui::EndChild();
        ImGui::PopID();
        return;
    }
    if (!v.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.4f, 1));
        ImGui::TextWrapped("%s", v.error.c_str());
        ImGui::PopStyleColor();
        // [SECTION] device memory: the GPU could not hold this run; the CPU backend can
        if (v.device_memory && ImGui::Button("Run on CPU")) app.run_on_cpu = true, app.dirty = true;
        if (v.device_memory) ImGui::SetItemTooltip("run this batch (and the next ones) on the CPU backend");
        ImGui::EndChild();
        ImGui::PopID();
        return;
    }
    if (v.auxiliary)
        hint_text("The second mixing matrix of the same run: Y = C_n·Re(X·F_d) + S_n·Im(X·F_d).");
    else if (v.result)
        // A narrow cell (many panels, as in the ceiling lesson) shows the key numbers and a "more" tooltip, so the
        // matrix keeps its room.
        metric_badges(*v.result, app.view.presentation || ImGui::GetContentRegionAvail().x < kCompactCellWidth);
    if (app.view.show_blocks && !v.auxiliary) block_density_badges(app, v, head);
    const Tensor3* pooled = diff ? (v.pooled_diff ? &*v.pooled_diff : nullptr) : (v.pooled ? &*v.pooled : nullptr);
    if (!pooled) {
        hint_text(!v.matrix_note.empty() ? v.matrix_note.c_str()
                  : diff && v.auxiliary ? "No difference view: this matrix is not an attention matrix."
                  : diff ? "No exact reference P for this n (raise 'materialise up to n' in Input)."
                         : "No matrix to show.");
        if (v.result) export_row(app, v, plane, cell_rect);
        ImGui::EndChild();
        ImGui::PopID();
        return;
    }
    update_textures(app, k, snap, v, plane, diff);
    const int s = pooled->rows();
    // Signed matrices (kernel feature maps, FFT mixing) are shown like differences: diverging and linear.
    const bool signed_head = v.is_signed(plane);
    const bool signed_view = diff || signed_head;
    float vmax = signed_view ? pooled->head(plane).cwiseAbs().maxCoeff() : pooled->head(plane).maxCoeff();
    if (!diff && plane < int(v.head_max.size()))
        vmax = signed_head ? std::max(std::abs(v.head_min[plane]), std::abs(v.head_max[plane])) : v.head_max[plane];
    if (app.view.shared_scale && !signed_head) vmax = std::max(vmax, diff ? app.view.shared_diff_max : app.view.shared_max);
    if (!(vmax > 0)) vmax = 1e-12f;
    const bool log = app.view.log_scale && !signed_head;
    const float decades = app.view.decades;
    // Differences stay linear: a symmetric-log bar has no tick labels a reader can use.
    const ScaleMode mode = signed_view ? ScaleMode::Diverging : (log ? ScaleMode::Log : ScaleMode::Linear);

    // Plot area: square, leaving room for the colour bar, legend, notes and export row.
    const float bar_w = 78;
    // Presentation mode drops the export row and notes: the room sees the matrix, the legend and the key numbers.
    const float footer = ImGui::GetTextLineHeightWithSpacing() * (app.view.presentation ? 1.6f : 3.6f);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float side = std::max(120.0f, std::min(avail.x - bar_w - 8, avail.y - footer));
    const bool text = !snap.heads->tokens.empty();
    const Heads* heads = snap.heads.get();
    std::string block_note;  // why the block tiles are not drawn, when they are not
    if (ImPlot::BeginPlot("##matrix", ImVec2(side, side), ImPlotFlags_NoLegend | ImPlotFlags_NoTitle | ImPlotFlags_NoMouseText)) {
        const bool ordered = !snap.display_perm.empty();
        ImPlot::SetupAxes(ordered ? (text ? "key token j (reordered)" : "key j (reordered)")
                                  : (text ? "key token j" : "key position j"),
                          ordered ? (text ? "query token i (reordered)" : "query i (reordered)")
                                  : (text ? "query token i" : "query position i"),
                          0, ImPlotAxisFlags_Invert);
        ImPlot::SetupAxisLinks(ImAxis_X1, &app.view.x_min, &app.view.x_max);
        ImPlot::SetupAxisLinks(ImAxis_Y1, &app.view.y_min, &app.view.y_max);
        ImPlot::SetupAxisLimitsConstraints(ImAxis_X1, -0.05 * n, 1.05 * n);
        ImPlot::SetupAxisLimitsConstraints(ImAxis_Y1, -0.05 * n, 1.05 * n);
        std::vector<double> ticks;
        std::vector<std::string> labels;
        std::vector<const char*> label_ptrs;
        std::vector<std::string> xlabels;
        std::vector<const char*> xlabel_ptrs;
        if (text && app.view.x_max - app.view.x_min <= 64) {
            // Token names as ticks; on x, only every step-th name when they would overlap (the tooltip names all).
            const int t0 = std::max(0, int(app.view.x_min)), t1 = std::min(n, int(app.view.x_max) + 1);
            float widest = 1;
            auto token_at = [&](int t) -> const std::string& { return heads->tokens[position_of(snap, head, t)]; };
            for (int t = t0; t < t1; ++t) widest = std::max(widest, ImGui::CalcTextSize(token_at(t).c_str()).x + 6);
            const float px_per_cell = side * 0.8f / float(std::max(1.0, app.view.x_max - app.view.x_min));
            const int xstep = std::max(1, int(std::ceil(widest / px_per_cell)));
            const int ystep = std::max(1, int(std::ceil(ImGui::GetTextLineHeight() / px_per_cell)));
            for (int t = t0; t < t1; ++t) {
                ticks.push_back(t + 0.5);
                labels.push_back(t % ystep == 0 ? token_at(t) : std::string());
                xlabels.push_back(t % xstep == 0 ? token_at(t) : std::string());
            }
            for (const auto& l : labels) label_ptrs.push_back(l.c_str());
            for (const auto& l : xlabels) xlabel_ptrs.push_back(l.c_str());
            ImPlot::SetupAxisTicks(ImAxis_X1, ticks.data(), int(ticks.size()), xlabel_ptrs.data());
            ImPlot::SetupAxisTicks(ImAxis_Y1, ticks.data(), int(ticks.size()), label_ptrs.data());
        }
        ImPlot::SetupFinish();
        HeatmapDraw d;
        d.colormap = signed_view ? Colormap::Diverging : Colormap::Viridis;
        d.mode = mode, d.vmax = vmax, d.decades = decades;
        d.show_mask = app.view.show_mask;
        d.tint = !diff;  // differences keep their colours; only forbidden cells are dimmed
        d.causal = v.result->causal;
        const ImVec2 pp = ImPlot::GetPlotPos(), ps = ImPlot::GetPlotSize();
        d.clip = ImVec4(pp.x, pp.y, pp.x + ps.x, pp.y + ps.y);
        for (const MatrixTexture& t : app.textures[k]) {
            if (!t.key) continue;
            d.texture = &t;
            d.top_left = ImPlot::PlotToPixels(t.cells.x, t.cells.y);
            d.bottom_right = ImPlot::PlotToPixels(t.cells.z, t.cells.w);
            app.renderer.draw(ImPlot::GetPlotDrawList(), d);
        }
        if (app.view.show_blocks && !v.auxiliary) draw_block_tiles(app, snap, v, head, block_note);
        // Linked crosshair: the hovered cell, its row and its column in every panel.
        const int hi = app.view.shown_i, hj = app.view.shown_j;
        ImPlot::PushPlotClipRect();
        ImDrawList* dl = ImPlot::GetPlotDrawList();
        if (hi >= 0 && hi < n) {
            const ImVec2 a = ImPlot::PlotToPixels(0, hi), b = ImPlot::PlotToPixels(n, hi + 1);
            dl->AddRectFilled(a, b, IM_COL32(255, 255, 255, 28));
        }
        if (hj >= 0 && hj < n) {
            const ImVec2 a = ImPlot::PlotToPixels(hj, 0), b = ImPlot::PlotToPixels(hj + 1, n);
            dl->AddRectFilled(a, b, IM_COL32(255, 255, 255, 28));
        }
        if (hi >= 0 && hj >= 0 && hi < n && hj < n)
            dl->AddRect(ImPlot::PlotToPixels(hj, hi), ImPlot::PlotToPixels(hj + 1, hi + 1), IM_COL32(255, 80, 80, 255), 0.0f, 0, 2.0f);
        ImPlot::PopPlotClipRect();
        if (ImPlot::IsPlotHovered()) {
            const ImPlotPoint mp = ImPlot::GetPlotMousePos();
            const int i = int(std::floor(mp.y)), j = int(std::floor(mp.x));
            if (i >= 0 && j >= 0 && i < n && j < n) {
                app.view.hover_i = i, app.view.hover_j = j;
                cell_tooltip(app, snap, head, i, j);
            }
        }
        ImPlot::EndPlot();
    }
    ImGui::SameLine();
    const int cmap = plot_colormap(signed_view ? Colormap::Diverging : Colormap::Viridis);
    std::string bar_label;
    double lo = 0, hi = vmax;
    if (!signed_view && log) bar_label = "log10 P_eff", lo = std::log10(vmax) - decades, hi = std::log10(vmax);
    else if (!signed_view) bar_label = "P_eff";
    else bar_label = diff ? "P_eff − P" : v.auxiliary || !v.result->structure.matrix_title.empty() ? "value" : "P_eff (signed)",
         lo = -vmax;
    ImPlot::ColormapScale(bar_label.c_str(), lo, hi, ImVec2(bar_w, side), diff ? "%.1e" : "%.2g", 0, cmap);
    if (!signed_head && !diff && plane < int(v.head_min.size()) && v.head_min[plane] < 0)
        ImGui::TextDisabled("P_eff has negative entries (min %.1e): an approximation of weights; drawn as the lowest "
                            "colour (see difference to exact)", v.head_min[plane]);
    if (signed_head && !diff)
        ImGui::TextDisabled("%s has negative entries (min %.2g): diverging colours, linear scale",
                            v.auxiliary || !v.result->structure.matrix_title.empty() ? "the matrix" : "P_eff",
                            plane < int(v.head_min.size()) ? v.head_min[plane] : 0.0f);
    if (diff) {  // this panel's own maximum; the shared scale may reach further (another panel's)
        const float own = pooled->head(plane).cwiseAbs().maxCoeff();
        if (own <= 1e-12f) ImGui::TextDisabled("P_eff equals the exact P here (max |Δ| = 0)");
        else ImGui::TextDisabled("max |P_eff − P| = %.2e in this panel%s (blue: less weight than exact, red: more)", own,
                                 app.view.shared_scale && vmax > own * 1.0001f ? " (scale shared with the other panels)" : "");
    }
    if (s < n && app.textures[k][1].key)
        ImGui::TextDisabled("zoomed in: true cells at full resolution (n = %d)", n);
    else if (s < n && v.matrix)
        ImGui::TextDisabled("n = %d shown as %d×%d bins (%s); zoom in for true cells", n, s, s,
                            diff ? "mean of Δ" : v.signed_matrix ? "mean of P_eff" : "max of P_eff");
    else if (s < n)  // drawn from Q and K above the materialise limit: the bins are all there is
        hint_text(("n = " + std::to_string(n) + " shown as " + std::to_string(s) + "×" + std::to_string(s) +
                   " bins (max of P_eff, drawn from Q and K row by row: P_eff was not built, so zooming in shows bins, "
                   "not cells)").c_str());
    if (app.view.show_mask && !v.auxiliary) reason_legend(v, plane, s);
    if (!block_note.empty()) ImGui::TextDisabled("%s", block_note.c_str());
    if (app.view.presentation) {
        ImGui::EndChild();
        ImGui::PopID();
        return;
    }
    export_row(app, v, plane, cell_rect);
    if (!v.result->structure.notes.empty()) {  // one line; the full notes on hover (space goes to the matrix)
        ImGui::SameLine();
        ImGui::TextDisabled("notes (%zu): %s", v.result->structure.notes.size(), v.result->structure.notes[0].c_str());
        if (ImGui::BeginItemTooltip()) {
            ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
            for (const auto& note : v.result->structure.notes) ImGui::BulletText("%s", note.c_str());
            ImGui::PopTextWrapPos();
            ImGui::EndTooltip();
        }
    }
    ImGui::EndChild();
    ImGui::PopID();
}

}  // namespace

// [SECTION] Panel

void draw_matrices_panel(App& app) {
    const bool open = ImGui::Begin(kMatricesWindow);
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
    // Toolbar: the toggles apply to every panel so they stay comparable.
    MatrixViewState& vw = app.view;
    const int H = snap && snap->heads ? snap->heads->heads() : 1;
    ImGui::SetNextItemWidth(120);
    if (ImGui::SliderInt("head", &vw.head, 0, std::max(0, H - 1))) app.dirty = app.dirty || (app.spectrum.enabled && app.spectrum.visible);
    if (snap && snap->heads) vw.head = std::clamp(vw.head, 0, std::max(0, H - 1));
    ImGui::SameLine();
    ImGui::Checkbox("mask by reason", &vw.show_mask);
    ImGui::SetItemTooltip("tint allowed cells by why they are allowed; dim cells the variant never scores");
    ImGui::SameLine();
    ImGui::Checkbox("blocks", &vw.show_blocks);
    ImGui::SetItemTooltip("block-sparse kernels: draw their b×b tiles over the mask (outlined: full, amber: partial, "
                          "shaded: skipped) with the block density the kernel pays and the token density it uses");
    ImGui::SameLine();
    ImGui::Checkbox("difference to exact", &vw.show_diff);
    ImGui::SetItemTooltip("show P_eff − P on a diverging map (blue: less weight than exact, red: more)");
    ImGui::SameLine();
    ImGui::Checkbox("log scale", &vw.log_scale);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(90);
    ImGui::SliderFloat("decades", &vw.decades, 1, 12, "%.0f");
    ImGui::SameLine();
    ImGui::Checkbox("shared scale", &vw.shared_scale);
    ImGui::SetItemTooltip("one colour scale for every panel (equal colours = equal weights); off: each panel to its own max");
    ImGui::SameLine();
    static const char* const kOrders[] = {"positions", "LSH buckets", "clusters"};
    int order = static_cast<int>(vw.order);
    ImGui::SetNextItemWidth(120);
    if (ImGui::Combo("order", &order, kOrders, 3)) vw.order = static_cast<DisplayOrder>(order), app.dirty = true;
    ImGui::SetItemTooltip("order both axes: by position; by an lsh run's sorted order (bucket, then position) — "
                          "Reformer's block-diagonal picture; or by the clustered scenario's clusters");
    if (vw.order == DisplayOrder::LshBuckets) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(80);
        if (ImGui::SliderInt("round", &vw.order_round, 0, kMaxLshRounds - 1)) app.dirty = true;
    }
    ImGui::SameLine();
    if (ImGui::Button("Fit")) vw.fit_next = true;
    ImGui::SameLine();
    if (ImGui::Button("Copy metrics CSV") && snap) {
        ImGui::SetClipboardText(metrics_csv(*snap).c_str());
        app.exports.message = "metrics copied to the clipboard as CSV", app.exports.message_is_error = false;
    }
    ImGui::SameLine();
    if (ImGui::Button("Save PNG")) {
        try {
            const ImVec2 p = ImGui::GetWindowPos(), sz = ImGui::GetWindowSize();
            app.captures.push_back({export_path(app, "matrices.png"), ImVec4(p.x, p.y, p.x + sz.x, p.y + sz.y)});
        } catch (const Error& e) {
            app.exports.message = e.what(), app.exports.message_is_error = true;
        }
    }
    if (app.runs.state() == WorkerState::Running) {
        ImGui::SameLine();
        if (snap && !snap->complete && snap->generation == app.runs.posted_generation())
            ImGui::TextColored(ImVec4(0.95f, 0.8f, 0.35f, 1), "computing… %d of %zu views ready", snap->views_shown(),
                               snap->variants.size());
        else
            ImGui::TextColored(ImVec4(0.95f, 0.8f, 0.35f, 1), "computing…");
    }
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
    vw.shared_max = vw.shared_diff_max = 0;
    for (const auto& v : snap->variants) {
        if (vw.head < int(v.head_max.size()) && !v.is_signed(vw.head)) vw.shared_max = std::max(vw.shared_max, v.head_max[vw.head]);
        if (v.pooled_diff && vw.head < v.pooled_diff->heads())
            vw.shared_diff_max = std::max(vw.shared_diff_max, v.pooled_diff->head(vw.head).cwiseAbs().maxCoeff());
    }
    const size_t k_count = snap->variants.size();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // Pick the column count that gives the largest square plot (title, badges, legend and buttons around it).
    const float line = ImGui::GetTextLineHeightWithSpacing();
    int cols = 1;
    float best = -1;
    for (int c = 1; c <= int(k_count); ++c) {
        const int r = int((k_count + c - 1) / c);
        const float chrome = app.view.presentation ? 4.5f : 7.5f;  // lines of title, badges, legend, buttons
        const float side = std::min(avail.x / float(c) - 110.0f, avail.y / float(r) - chrome * line - 24.0f);
        if (side > best + 1) best = side, cols = c;
    }
    if (vw.columns > 0) cols = vw.columns;
    const int rows = int((k_count + cols - 1) / cols);
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const ImVec2 cell((avail.x - spacing * float(cols - 1)) / float(cols), std::max(260.0f, avail.y / float(rows) - 4));
    for (size_t k = 0; k < k_count; ++k) {
        if (k % cols) ImGui::SameLine();
        draw_cell(app, *snap, k, cell);
    }
    ImGui::End();
}

void save_matrices_session(const App& app, nlohmann::json& j) {
    const MatrixViewState& v = app.view;
    nlohmann::json& view = j["view"];
    view["head"] = v.head, view["mask"] = v.show_mask, view["diff"] = v.show_diff, view["log"] = v.log_scale;
    view["decades"] = v.decades, view["shared_scale"] = v.shared_scale;
    view["order"] = v.order == DisplayOrder::LshBuckets ? "lsh" : v.order == DisplayOrder::Groups ? "clusters" : "positions";
    view["order_round"] = v.order_round;
    view["blocks"] = v.show_blocks;
    view["zoom"] = {v.x_min, v.x_max, v.y_min, v.y_max};
    view["zoom_n"] = v.fitted_n;  // the length the zoom belongs to: kept on load when the input has it again
    view["presentation"] = v.presentation, view["font_scale"] = std::round(double(v.font_scale) * 100) / 100;
}

void load_matrices_session(App& app, const nlohmann::json& j) {
    MatrixViewState view;
    if (j.contains("view")) {
        const auto& v = j["view"];
        view.head = json_int(v, "head", 0, 0, 1 << 20, "the session's view");
        view.show_mask = json_bool(v, "mask", true, "the session's view");
        view.show_diff = json_bool(v, "diff", false, "the session's view");
        view.log_scale = json_bool(v, "log", true, "the session's view");
        view.decades = float(json_number(v, "decades", 4.0, 0, 1000, "the session's view"));
        view.shared_scale = json_bool(v, "shared_scale", true, "the session's view");
        const std::string order = json_string(v, "order", "positions", "the session's view");
        if (order != "positions" && order != "lsh" && order != "clusters")
            throw Error("view.order '" + order + "' is not positions, lsh or clusters: fix the session file");
        view.order = order == "lsh" ? DisplayOrder::LshBuckets : order == "clusters" ? DisplayOrder::Groups
                                                                                  : DisplayOrder::Positions;
        view.order_round = json_int(v, "order_round", 0, 0, 1 << 20, "the session's view");
        view.show_blocks = json_bool(v, "blocks", false, "the session's view");
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

// attnscope — Spectrum panel: singular values of the exact P and of each variant's P_eff, with the
// normalised cumulative sum of σ (Linformer Fig. 1 left) and its value at a chosen rank k; for text input,
// a layers × heads heatmap of the cumulative share at a chosen index (Linformer Fig. 1 right), computed on a
// background thread for every layer and head of the encoder. Clicking a cell shows that layer and head.
// Index: [SECTION] Layer grid job  [SECTION] Layer grid view  [SECTION] Spectra plots  [SECTION] Panel
#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "app/gui/app.h"
#include "app/gui/panel_figures.h"
#include "core/figure/chart_figures.h"
#include "app/gui/panels.h"
#include "app/gui/plot_legend.h"
#include "app/gui/plot_room.h"
#include "app/gui/layer_head_grid.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"

namespace attnscope::gui {

// [SECTION] Layer grid job

void update_layer_grid(App& app) {
    LayerGridJob& g = app.layer_grid;
    if (g.job && g.job->finished()) {
        if (g.job->state() == JobState::Failed) g.error = g.job->error(), g.key = g.job_key, g.result.reset();
        else if (auto r = g.job->result(); r && *r) g.result = std::move(*r), g.key = g.job_key, g.error.clear();
        g.job.reset();  // cancelled: the next frame starts the current one
    }
    g.pending = g.job != nullptr;
    const InputSpec in = app.effective_input();
    if (in.mode != InputMode::Text) return;
    const std::string key = in.text + '\x1f' + in.model_dir + '\x1f' + (in.truncate ? "truncate" : "");
    const double now = ImGui::GetTime();
    if (key != g.seen_key) g.seen_key = key, g.seen_since = now;
    if (g.job) {  // an outdated job stops at its next head; the next frame after it starts the new one
        if (g.job_key != key) g.job->cancel();
        return;
    }
    if (g.key == key || !app.spectrum.visible) return;
    g.pending = true;
    // 72 spectra take a while for long texts: wait until typing pauses and the views are done, so this job
    // never delays the matrices (it shares the cores with the run worker).
    if (now - g.seen_since < 0.25 || app.runs.state() == WorkerState::Running || app.dirty) return;
    g.job_key = key;
    TextInputSpec t;
    t.text = in.text, t.model_dir = in.model_dir, t.truncate = in.truncate;
    g.job = std::make_shared<LayerGridJob::Job>("layer spectra", [t](JobContext& ctx) -> std::shared_ptr<const LayerHeadSpectra> {
        auto r = text_layer_spectra(t, [&ctx] {
            ctx.between_steps();  // an edit's views go first, between two heads
            return ctx.cancelled();
        });
        if (!r) return nullptr;
        return std::make_shared<const LayerHeadSpectra>(std::move(*r));
    });
    app.runs.post_job(g.job);
}

namespace {

// [SECTION] Layer grid view

/// The text's layers × heads map of captured energy at index k; `window` is the panel's title (the layout record
/// names it).
void draw_layer_grid(App& app, const char* window) {
    SpectrumState& st = app.spectrum;
    const InputSpec in = app.effective_input();
    if (in.mode != InputMode::Text) {
        hint_text("This heatmap needs text input: it shows, for every layer and head of the encoder, how much of the "
                  "exact attention matrix's singular-value sum the first k values hold (Linformer Fig. 1 right). "
                  "Switch Input to Text to see it.");
        return;
    }
    const LayerGridJob& g = app.layer_grid;
    const bool stale = g.key != g.seen_key;
    if (!g.result) {
        if (!g.error.empty() && !stale) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.5f, 0.45f, 1));
            ImGui::TextWrapped("No layer spectra: %s", g.error.c_str());
            ImGui::PopStyleColor();
        } else {
            hint_text(g.job ? "Computing the spectra of every layer and head…"
                                    : "The spectra of every layer and head are computed when typing pauses.");
        }
        return;
    }
    const LayerHeadSpectra& s = *g.result;
    const int by_fraction = std::max(1, int(std::lround(st.grid_fraction * s.n)));
    const int k = std::clamp(st.grid_index > 0 ? st.grid_index : by_fraction, 1, std::max(1, s.n));
    int slider = k;
    ImGui::SetNextItemWidth(std::max(80.0f, ImGui::GetContentRegionAvail().x - 230));
    if (ImGui::SliderInt("index k##grid", &slider, 1, std::max(1, s.n))) st.grid_index = slider;
    ImGui::SetItemTooltip("the heatmap shows Σ_{i≤k} σ_i / Σ σ of each head's exact P at this index");
    for (const auto& [label, fraction] : {std::pair<const char*, double>{"n/8", 0.125}, {"n/4", 0.25}}) {
        ImGui::SameLine();
        if (ImGui::SmallButton(label)) st.grid_index = 0, st.grid_fraction = fraction;
        ImGui::SetItemTooltip("index k = %s = %d", label, std::max(1, int(std::lround(fraction * s.n))));
    }
    ImGui::SameLine();
    ImGui::TextDisabled("n = %d%s", s.n, stale ? " (updating…)" : "");
    std::vector<double> values(size_t(s.layers) * s.heads);
    double lo = 1, hi = 0;
    for (int l = 0; l < s.layers; ++l)
        for (int h = 0; h < s.heads; ++h) {
            const double v = s.at(l, h, k);
            values[size_t(l) * s.heads + h] = v;
            lo = std::min(lo, v), hi = std::max(hi, v);
        }
    lo = std::floor(lo * 20) / 20, hi = std::max(lo + 0.05, std::ceil(hi * 20) / 20);
    const float bar_w = 84;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // Each layer's mean over its heads: what the low-rank lesson's check holds every layer to (recorded for its test).
    HeatmapRecord record;
    record.panel = window, record.instance = "layers × heads at k = " + std::to_string(k);
    record.title = "Σ_{i≤k} σ_i / Σ σ of the exact P";
    std::string means;
    for (int l = 0; l < s.layers; ++l) {
        double mean = 0;
        for (int h = 0; h < s.heads; ++h) mean += values[size_t(l) * s.heads + h] / s.heads;
        record.badges.emplace_back("c_mean/layer " + std::to_string(l), mean);
        char one[32];
        std::snprintf(one, sizeof one, "%s%d: %.3f", l ? ", " : "", l, mean);
        means += one;
    }
    app.layout_record.heatmaps.push_back(std::move(record));
    char text[512];
    std::snprintf(text, sizeof text,
                  "Exact softmax P of every layer (rows) and head (columns) at k = %d%s: higher = closer to low rank. "
                  "Mean over the heads by layer — %s. Click a cell to show it; red frame = shown now.", k,
                  s.truncated ? " (text truncated)" : "", means.c_str());
    const float caption = ImGui::CalcTextSize(text, nullptr, false, avail.x).y + ImGui::GetStyle().ItemSpacing.y * 2;
    const ImVec2 size(std::max(120.0f, avail.x - bar_w - 8), std::max(100.0f, avail.y - caption));
    const int cmap = plot_colormap(Colormap::Viridis);
    if (!plot_fits(size)) return;
    if (ImPlot::BeginPlot("##layer_grid", size, ImPlotFlags_NoLegend | ImPlotFlags_NoMouseText | ImPlotFlags_NoMenus)) {
        const bool labels = setup_layer_head_grid(s.layers, s.heads, "layer");
        ImPlot::PushColormap(cmap);
        ImPlot::PlotHeatmap("##c", values.data(), s.layers, s.heads, lo, hi, labels ? "%.2f" : nullptr, ImPlotPoint(0, 0),
                            ImPlotPoint(s.heads, s.layers));
        ImPlot::PopColormap();
        // The layer and head the other panels show.
        const int cur_l = in.layer, cur_h = app.view.head;
        if (cur_l >= 0 && cur_l < s.layers && cur_h >= 0 && cur_h < s.heads)
            ImPlot::GetPlotDrawList()->AddRect(ImPlot::PlotToPixels(cur_h, s.layers - cur_l),
                                               ImPlot::PlotToPixels(cur_h + 1, s.layers - cur_l - 1),
                                               IM_COL32(255, 80, 80, 255), 0.0f, 0, 2.5f);
        if (ImPlot::IsPlotHovered()) {
            const ImPlotPoint mp = ImPlot::GetPlotMousePos();
            const int h = int(std::floor(mp.x)), l = s.layers - 1 - int(std::floor(mp.y));
            if (h >= 0 && h < s.heads && l >= 0 && l < s.layers) {
                ImGui::SetTooltip("layer %d, head %d: Σ_{i≤%d} σ_i / Σ σ = %.3f\nclick to show this layer and head", l, h, k,
                                  s.at(l, h, k));
                if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
                    app.input.spec.layer = l;
                    app.view.head = h;
                    app.dirty = true;
                }
            }
        }
        ImPlot::EndPlot();
    }
    ImGui::SameLine();
    ImPlot::ColormapScale("share at k", lo, hi, ImVec2(bar_w, size.y), "%.2f", 0, cmap);
    ImGui::TextWrapped("%s", text);
}

// [SECTION] Spectra plots

struct Series {
    std::string name;
    const SpectrumView* s;
};

void spectra_plots(const App& app, const std::vector<Series>& series, int n, ImVec2 plot) {
    const SpectrumState& st = app.spectrum;
    const double kline = st.k;
    ImGui::Text("head %d (the Matrices head), n = %d", std::clamp(app.view.head, 0, app.snap->heads->heads() - 1), n);
    // One legend above both plots (they draw the same series): inside, 13 entries would cover the curves.
    std::vector<LegendEntry> legend;
    for (size_t k = 0; k < series.size(); ++k) legend.push_back({series[k].name, ImPlot::GetColormapColor(int(k))});
    legend.push_back({"k = " + std::to_string(st.k), ImVec4(1, 1, 1, 0.5f)});
    plot.y -= ImGui::GetTextLineHeightWithSpacing() + legend_row_height(legend, plot.x * 2);
    legend_row(legend);
    const ImPlotFlags flags = ImPlotFlags_NoLegend;
    if (!plot_fits(plot)) return;
    if (ImPlot::BeginPlot("singular values σ_i", plot, flags)) {
        ImPlot::SetupAxes("index i", "σ_i", ImPlotAxisFlags_AutoFit, ImPlotAxisFlags_AutoFit);
        ImPlot::SetupAxisScale(ImAxis_X1, ImPlotScale_Log10);
        if (st.log_y) ImPlot::SetupAxisScale(ImAxis_Y1, ImPlotScale_Log10);
        for (size_t k = 0; k < series.size(); ++k) {
            const Series& s = series[k];
            std::vector<double> x(s.s->singular_values.size()), y;
            for (size_t i = 0; i < x.size(); ++i) x[i] = double(i + 1);
            for (double v : s.s->singular_values) y.push_back(std::max(v, 1e-12));
            ImPlotSpec line;
            line.LineColor = legend[k].colour;
            ImPlot::PlotLine(s.name.c_str(), x.data(), y.data(), int(x.size()), line);
        }
        ImPlotSpec guide;
        guide.LineColor = ImVec4(1, 1, 1, 0.5f);
        ImPlot::PlotInfLines("k", &kline, 1, guide);
        ImPlot::EndPlot();
    }
    ImGui::SameLine();
    if (ImPlot::BeginPlot("cumulative share Σ_{j≤i} σ_j / Σ σ", plot, flags)) {
        ImPlot::SetupAxes("index i", "cumulative share", ImPlotAxisFlags_AutoFit, 0);
        ImPlot::SetupAxisScale(ImAxis_X1, ImPlotScale_Log10);
        ImPlot::SetupAxisLimits(ImAxis_Y1, 0, 1.02, ImPlotCond_Always);
        for (size_t k = 0; k < series.size(); ++k) {
            const Series& s = series[k];
            std::vector<double> x(s.s->cumulative.size());
            for (size_t i = 0; i < x.size(); ++i) x[i] = double(i + 1);
            ImPlotSpec line;
            line.LineColor = legend[k].colour;
            ImPlot::PlotLine(s.name.c_str(), x.data(), s.s->cumulative.data(), int(x.size()), line);
        }
        ImPlotSpec guide;
        guide.LineColor = ImVec4(1, 1, 1, 0.5f);
        ImPlot::PlotInfLines("k", &kline, 1, guide);
        ImPlot::EndPlot();
    }
}

void at_k_table(const App& app, const std::vector<Series>& series) {
    const int k = app.spectrum.k;
    if (series.empty()) {
        hint_text("The table fills when the spectra above are computed.");
        return;
    }
    ImGui::Text("cumulative share at k = %d", k);
    // The name column gives way (its text is cut, the full name on hover) so the values always show.
    if (ImGui::BeginTable("at_k", 2, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("matrix", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableSetupColumn("Σ_{i≤k} σ_i / Σ σ", ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableHeadersRow();
        for (const auto& s : series) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(s.name.c_str());
            if (ImGui::IsItemHovered() && ImGui::CalcTextSize(s.name.c_str()).x > ImGui::GetColumnWidth())
                ImGui::SetTooltip("%s", s.name.c_str());
            ImGui::TableNextColumn();
            const auto& c = s.s->cumulative;
            ImGui::Text("%.4f", c.empty() ? 0.0 : c[std::min<size_t>(c.size(), size_t(k)) - 1]);
        }
        ImGui::EndTable();
    }
    ImGui::TextWrapped("A matrix whose cumulative share is high at small k is close to low rank: Linformer's k×n "
                       "projection loses little there.");
}

}  // namespace

// [SECTION] Panel

void draw_spectrum_panel(App& app, const PanelEntry& self) {
    SpectrumState& st = app.spectrum;
    update_layer_grid(app);
    const bool visible = ImGui::Begin(self.window);
    // Spectra cost O(n³): ask the worker for them only while this tab is visible.
    if (visible && !st.visible && st.enabled && (!app.snap || !app.snap->exact_spectrum)) app.dirty = true;
    st.visible = visible;
    if (!visible) {
        ImGui::End();
        return;
    }
    if (ImGui::Checkbox("compute spectra", &st.enabled)) app.dirty = true;
    ImGui::SetItemTooltip("singular values of every n×n matrix (exact SVD: O(n³), a second or more for n ≥ 1024)");
    ImGui::SameLine();
    ImGui::Checkbox("log σ axis", &st.log_y);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(160);
    const int n = app.snap && app.snap->heads ? app.snap->heads->n() : 1;
    ImGui::SliderInt("rank k", &st.k, 1, std::max(1, n), "%d", ImGuiSliderFlags_Logarithmic);
    if (app.snap && app.snap->heads) st.k = std::clamp(st.k, 1, std::max(1, n));
    ImGui::SetItemTooltip("where the normalised cumulative sum Σ_{i≤k} σ_i / Σ σ is read (the Linformer projection size k)");
    const auto snap = app.snap;
    std::vector<Series> series;
    std::vector<std::string> notes;
    if (snap && snap->exact_spectrum) {
        if (snap->exact_spectrum->singular_values.empty()) notes.push_back("exact P: " + snap->exact_spectrum->note);
        else series.push_back({"exact softmax P", &*snap->exact_spectrum});
    }
    if (snap)
        for (const auto& v : snap->variants) {
            if (!v.spectrum) continue;
            if (v.spectrum->singular_values.empty()) notes.push_back(v.id + ": " + v.spectrum->note);
            else series.push_back({(v.result ? instance_label(find_variant(v.id).info(), v.result->params) : v.name) + " P_eff",
                                   &*v.spectrum});  // two instances of one variant are two named curves
        }
    const bool text = app.effective_input().mode == InputMode::Text;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float right_w = avail.x * (text ? 0.40f : 0.26f);
    const float h = std::max(180.0f, avail.y - ImGui::GetTextLineHeightWithSpacing() * float(notes.size()));
    const ImVec2 plot((avail.x - right_w - spacing * 2) * 0.5f, h);
    ImGui::BeginChild("plots", ImVec2(plot.x * 2 + spacing, h));
    if (!st.enabled) {
        hint_text("Spectra are off. Turn on 'compute spectra' to see the singular values of P and of every P_eff.");
    } else if (series.empty()) {
        hint_text(app.runs.state() == WorkerState::Running
                      ? "Computing singular values…"
                      : "No spectrum yet: it needs a materialised matrix (n up to 'materialise up to n' in Input). "
                        "Low-rank variants (linformer, svd) show their rank limit here.");
    } else {
        spectra_plots(app, series, n, plot);
    }
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("right", ImVec2(right_w, h));
    if (ImGui::BeginTabBar("spectrum_tabs")) {
        // Text input puts the layers × heads view first (a first tab is the one selected).
        if (text && ImGui::BeginTabItem("layers × heads")) draw_layer_grid(app, self.window), ImGui::EndTabItem();
        if (ImGui::BeginTabItem("at rank k")) at_k_table(app, series), ImGui::EndTabItem();
        if (!text && ImGui::BeginTabItem("layers × heads")) draw_layer_grid(app, self.window), ImGui::EndTabItem();
        ImGui::EndTabBar();
    }
    ImGui::EndChild();
    for (const auto& note : notes) ImGui::TextDisabled("%s", note.c_str());
    ImGui::End();
}

void save_spectrum_session(const App& app, nlohmann::json& j) {
    j["view"]["spectrum"] = app.spectrum.enabled;
    j["view"]["grid_index"] = app.spectrum.grid_index;
    j["view"]["grid_fraction"] = app.spectrum.grid_fraction;
}

void load_spectrum_session(App& app, const nlohmann::json& j) {
    if (!j.contains("view")) return;
    const bool enabled = json_bool(j["view"], "spectrum", true, "the session's view");
    const int grid_index = json_int(j["view"], "grid_index", 0, 0, 1 << 20, "the session's view");
    const double fraction = json_number(j["view"], "grid_fraction", 0.125, 1e-6, 1, "the session's view");
    app.spectrum.enabled = enabled, app.spectrum.grid_index = grid_index, app.spectrum.grid_fraction = fraction;
}

bool spectrum_busy(const App& app) { return app.layer_grid.pending; }

}  // namespace attnscope::gui

namespace attnscope::gui {

PanelFigure spectrum_panel_figure(const App& app) {
    const auto snap = app.snap;
    if (!snap || !snap->heads || !snap->exact_spectrum || snap->exact_spectrum->singular_values.empty())
        return {{}, "no spectra yet: show the Spectrum tab (with spectra on) so they are computed"};
    auto to_spectrum = [](const SpectrumView& v) { return Spectrum{v.singular_values, v.cumulative, v.exact}; };
    figure::SpectrumFigureInput in;
    in.head_text = "head " + std::to_string(std::clamp(app.view.head, 0, snap->heads->heads() - 1));
    in.spectra.push_back({"exact softmax P", to_spectrum(*snap->exact_spectrum), true});
    for (const auto& v : snap->variants)
        if (v.spectrum && !v.spectrum->singular_values.empty())
            in.spectra.push_back({(v.result ? instance_label(find_variant(v.id).info(), v.result->params) : v.name) + " P_eff",
                                  to_spectrum(*v.spectrum), false});
    const auto layers = app.effective_input().mode == InputMode::Text ? app.layer_grid.result : nullptr;
    in.layers = layers.get();
    if (layers) {
        const int by_fraction = std::max(1, int(std::lround(app.spectrum.grid_fraction * layers->n)));
        in.grid_index = app.spectrum.grid_index > 0 ? app.spectrum.grid_index : by_fraction;
    }
    figure::PlotFigure plot = figure::spectrum_figure(in);
    auto build = chart_builder(std::move(plot), gui_figure_title(app));
    return {[build, layers](figure::Theme theme) { return build(theme); }, ""};  // holds the grid the figure points to
}

}  // namespace attnscope::gui

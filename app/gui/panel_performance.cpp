// attnscope — Performance panel: a sweep of the benchmark engine (BenchJob → run_bench, the engine behind
// `attnscope bench`: warm-up, median of timed runs, peak tracked bytes, memory and time guards) over n for the
// selected variants. Time and peak memory against n on log–log axes, each variant's cost model drawn beside
// its measurements (analytic FLOPs for time, the variant's peak-bytes estimate for memory) with O(n) and
// O(n²) guides, a progress bar with Cancel, and a table of speed-up vs flash and memory saving vs full.
// Index: [SECTION] Series  [SECTION] Plots  [SECTION] Table  [SECTION] Panel
#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "app/gui/app.h"
#include "app/gui/panel_figures.h"
#include "core/figure/chart_figures.h"
#include "app/gui/panels.h"
#include "app/gui/plot_room.h"
#include "app/gui/plot_legend.h"
#include "core/variants/registry.h"
#include "core/format.h"

namespace attnscope::gui {

namespace {

// [SECTION] Series

/// One label's measured points, ascending n.
struct Series {
    std::string label;
    std::vector<const BenchPoint*> points;
};

std::vector<Series> measured_series(const BenchReport& r) {
    std::vector<Series> out;
    for (const BenchPoint& p : r.points) {
        auto it = std::find_if(out.begin(), out.end(), [&](const Series& s) { return s.label == p.label; });
        if (it == out.end()) out.push_back({p.label, {}}), it = out.end() - 1;
        if (p.measured()) it->points.push_back(&p);
    }
    for (auto& s : out)
        std::sort(s.points.begin(), s.points.end(), [](const BenchPoint* a, const BenchPoint* b) { return a->n < b->n; });
    return out;
}

double time_of(const BenchPoint& p) { return p.time.median_ms; }

/// (max − min) / median of a point's runs above which its slope is flagged as unreliable.
constexpr double kNoisySpread = 0.25;
double memory_of(const BenchPoint& p) { return double(p.peak_bytes) / (1 << 20); }
double time_model(const BenchPoint& p) { return p.flops; }                    // analytic FLOPs
double memory_model(const BenchPoint& p) { return double(p.estimate_bytes); }  // the variant's estimate

/// Log–log slope of the cost model between a label's first and last measured n (0 when undefined).
double model_slope(const Series& s, double (*model)(const BenchPoint&)) {
    if (s.points.size() < 2) return 0;
    const BenchPoint &a = *s.points.front(), &b = *s.points.back();
    if (model(a) <= 0 || model(b) <= 0 || b.n == a.n) return 0;
    return std::log(model(b) / model(a)) / std::log(double(b.n) / a.n);
}

// [SECTION] Plots

/// c·n^slope through (n0, y0) over [n_lo, n_hi], grey.
void slope_guide(const char* label, double slope, double n0, double y0, double n_lo, double n_hi) {
    const double xs[2] = {n_lo, n_hi};
    const double ys[2] = {y0 * std::pow(n_lo / n0, slope), y0 * std::pow(n_hi / n0, slope)};
    ImPlotSpec spec;
    spec.LineColor = ImVec4(0.8f, 0.8f, 0.8f, slope > 1.5 ? 0.6f : 0.35f);
    spec.LineWeight = 1.0f;
    ImPlot::PlotLine(label, xs, ys, 2, spec);
}

void sweep_plot(const char* title, const char* y_label, const std::vector<Series>& series, double (*y_of)(const BenchPoint&),
                double (*model_of)(const BenchPoint&), bool guides, ImVec2 size) {
    if (!plot_fits(size) || !ImPlot::BeginPlot(title, size, ImPlotFlags_NoLegend)) return;  // the legend is above
    ImPlot::SetupAxes("sequence length n", y_label, ImPlotAxisFlags_AutoFit, ImPlotAxisFlags_AutoFit);
    ImPlot::SetupAxisScale(ImAxis_X1, ImPlotScale_Log10);
    ImPlot::SetupAxisScale(ImAxis_Y1, ImPlotScale_Log10);
    double n_lo = 1e30, n_hi = 0, n0 = 0, y0 = 0;
    for (size_t k = 0; k < series.size(); ++k) {
        const Series& s = series[k];
        std::vector<double> x, y, ym;
        const BenchPoint* first = nullptr;
        for (const BenchPoint* p : s.points) {
            if (y_of(*p) <= 0) continue;
            if (!first) first = p;
            x.push_back(p->n), y.push_back(y_of(*p));
            // The cost model scaled through the first measured point: where the measurement bends away from
            // it, the implementation (caches, threads, fixed costs) and not the algorithm decides.
            ym.push_back(model_of(*first) > 0 ? y_of(*first) * model_of(*p) / model_of(*first) : 0);
            n_lo = std::min(n_lo, double(p->n)), n_hi = std::max(n_hi, double(p->n));
        }
        if (x.empty()) continue;
        if (n0 == 0) n0 = x.front(), y0 = y.front();
        const ImVec4 colour = ImPlot::GetColormapColor(int(k));
        ImPlotSpec measured;
        measured.LineColor = colour;
        measured.Marker = ImPlotMarker_Circle;
        ImPlot::PlotLine(s.label.c_str(), x.data(), y.data(), int(x.size()), measured);
        if (guides && ym.front() > 0) {
            ImPlotSpec model;
            model.LineColor = ImVec4(colour.x, colour.y, colour.z, 0.45f);
            model.LineWeight = 3.0f;
            model.Flags = ImPlotItemFlags_NoLegend;
            ImPlot::PlotLine(("##model " + s.label).c_str(), x.data(), ym.data(), int(x.size()), model);
        }
    }
    if (guides && n_hi > n_lo) {
        slope_guide("O(n)", 1, n0, y0, n_lo, n_hi);
        slope_guide("O(n²)", 2, n0, y0, n_lo, n_hi);
    }
    ImPlot::EndPlot();
}

// [SECTION] Table

/// Speed-up vs flash and memory saving vs full at one n, with measured and cost-model slopes.
void comparison_table(PerfState& ps, const BenchReport& r, const std::vector<Series>& series) {
    std::set<int> ns;
    std::map<int, int> measured_at;
    for (const BenchPoint& p : r.points) {
        ns.insert(p.n);
        if (p.measured()) ++measured_at[p.n];
    }
    if (ns.empty()) return;
    int auto_n = *ns.begin();
    for (const auto& [n, count] : measured_at)
        if (count >= 2 || measured_at.size() == 1) auto_n = std::max(auto_n, n);
    const int n_cmp = ps.table_n > 0 && ns.count(ps.table_n) ? ps.table_n : auto_n;
    ImGui::SetNextItemWidth(110);
    if (ImGui::BeginCombo("table at n", std::to_string(n_cmp).c_str())) {
        for (int n : ns)
            if (ImGui::Selectable(std::to_string(n).c_str(), n == n_cmp)) ps.table_n = n;
        ImGui::EndCombo();
    }
    // Fitted over the upper n of the sweep, where the algorithm rather than fixed costs decides the time.
    int n_top = 0;
    for (const BenchPoint& q : r.points) n_top = std::max(n_top, q.n);
    const auto fits = fit_slopes(r, n_top / 8);
    // Scrolls sideways in a narrow dock instead of cutting columns off.
    const ImGuiTableFlags flags =
        ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollX;
    const float rows_h = (float(series.size()) + 1) * ImGui::GetTextLineHeightWithSpacing() + ImGui::GetStyle().ScrollbarSize + 8;
    if (!ImGui::BeginTable("cmp", 7, flags, ImVec2(0, rows_h))) return;
    ImGui::TableSetupColumn("variant");
    ImGui::TableSetupColumn("ms");
    ImGui::TableSetupColumn("speed-up");
    ImGui::TableSetupColumn("peak");
    ImGui::TableSetupColumn("saving");
    ImGui::TableSetupColumn("slope");
    ImGui::TableSetupColumn("model");
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    static const char* const tips[] = {"variant (label in the sweep)", "median time of the timed runs [ms]",
                                       "speed-up vs flash: flash's median / this median (same n)",
                                       "peak tracked memory of one run (outputs included, inputs not)",
                                       "memory saving vs materialised full: full's peak / this peak (same n)",
                                       "measured slope: log–log least-squares fit of time against n",
                                       "cost-model slope: log–log slope of the analytic FLOPs over the same n"};
    for (int c = 0; c < 7; ++c) {
        ImGui::TableSetColumnIndex(c);
        ImGui::TableHeader(ImGui::TableGetColumnName(c));
        ImGui::SetItemTooltip("%s", tips[c]);
    }
    for (const Series& s : series) {
        const BenchPoint* p = nullptr;
        for (const BenchPoint& q : r.points)
            if (q.label == s.label && q.n == n_cmp) p = &q;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(s.label.c_str());
        ImGui::TableNextColumn();
        if (!p || !p->measured()) {
            ImGui::TextDisabled("%s", p ? point_status_name(p->status) : "—");
            if (p && !p->reason.empty()) ImGui::SetItemTooltip("%s", p->reason.c_str());
            for (int c = 0; c < 2; ++c) ImGui::TableNextColumn();
        } else {
            const double spread = p->time.median_ms > 0 ? 50 * (p->time.max_ms - p->time.min_ms) / p->time.median_ms : 0;
            ImGui::Text("%.3g ±%.0f%%", p->time.median_ms, spread);
            ImGui::SetItemTooltip("median of %zu runs: min %.3g, max %.3g ms (± half the range, in %% of the median); measured "
                                  "while the window redrew at most 4 times a second", p->time.samples_ms.size(), p->time.min_ms,
                                  p->time.max_ms);
            ImGui::TableNextColumn();
            if (p->speedup_vs_flash) ImGui::Text("%.2f×", *p->speedup_vs_flash);
            else ImGui::TextDisabled("—");
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(format_bytes(double(p->peak_bytes)).c_str());
        }
        ImGui::TableNextColumn();
        if (p && p->measured() && p->memory_saving_vs_full) {
            ImGui::Text("%.2f×%s", *p->memory_saving_vs_full, p->memory_ref_estimated ? "*" : "");
            if (p->memory_ref_estimated) ImGui::SetItemTooltip("* full was not measured at this n: its exact estimate (O + P) is used");
        } else {
            ImGui::TextDisabled("—");
        }
        ImGui::TableNextColumn();
        const auto fit = std::find_if(fits.begin(), fits.end(), [&](const SlopeFit& f) { return f.label == s.label; });
        if (fit != fits.end()) {
            const bool noisy = fit->max_spread > kNoisySpread;
            if (noisy) ImGui::TextColored(ImVec4(0.95f, 0.65f, 0.30f, 1), "%.2f ?", fit->time_slope);
            else ImGui::Text("%.2f", fit->time_slope);
            ImGui::SetItemTooltip("log–log fit of the median times over n = %d…%d (%d points)%s", fit->n_lo, fit->n_hi, fit->points,
                                  noisy ? "; unreliable: a point's runs spread beyond 25% of its median — add runs, or "
                                          "measure again with nothing else running"
                                        : "");
        } else {
            ImGui::TextDisabled("—");
        }
        ImGui::TableNextColumn();
        const double m = model_slope(s, time_model);
        if (m > 0) ImGui::Text("%.2f", m);
        else ImGui::TextDisabled("—");
    }
    ImGui::EndTable();
}

// [SECTION] Panel

/// Unique table labels: the id, with the changed parameters when an id is selected twice.
std::vector<BenchVariantSpec> bench_variants(const App& app) {
    std::vector<BenchVariantSpec> out;
    std::map<std::string, int> count;
    for (const auto& s : app.variants.slots) ++count[s.id];
    std::set<std::string> used;
    for (const auto& s : app.variants.slots) {
        std::string label = s.id;
        if (count[s.id] > 1) {
            const std::string p = params_summary(s.id, s.params);
            if (!p.empty()) label += "[" + p + "]";
        }
        for (int k = 2; used.count(label); ++k) label = s.id + "#" + std::to_string(k);
        used.insert(label);
        out.push_back({s.id, s.params, label});
    }
    if (app.perf.references)
        for (const char* id : {"flash", "full"})
            if (!count.count(id) && !used.count(id)) {
                Params p = default_params(find_variant(id).info().params);
                out.push_back({id, p, id});
                used.insert(id);
            }
    return out;
}

/// The panel's sweep over its n range, or the quick first look: n = 128 … 1024 (within the range), 2 timed runs,
/// a short budget, no machine roofs — a few seconds that show measured points beside the cost model at once.
BenchConfig sweep_config(const App& app, bool quick) {
    const PerfState& ps = app.perf;
    BenchConfig c;
    c.variants = bench_variants(app);
    const int hi = quick ? std::min(ps.n_max_log2, std::max(ps.n_min_log2, 10)) : ps.n_max_log2;
    for (int e = ps.n_min_log2; e <= hi; ++e) c.ns.push_back(1 << e);
    c.heads = ps.heads, c.dim = ps.dim;
    c.data = app.input.spec.mode == InputMode::Synthetic ? app.input.spec.scenario.kind : ScenarioKind::Gaussian;
    c.plan = {1, quick ? 2 : std::max(1, ps.runs)};
    c.budget_s = quick ? std::min(ps.budget_s, 0.5) : ps.budget_s;
    c.measure_machine = !quick && ps.measure_machine;
    return c;
}

/// Keeps ps.model the cost model of the panel's current variants, n range and shape (computed off the UI thread:
/// the sparse family builds its layout to count allowed cells).
void update_cost_model(App& app) {
    PerfState& ps = app.perf;
    if (ps.model_job && ps.model_job->finished()) {
        if (ps.model_job->state() == JobState::Failed)
            app.exports.message = "cost model: " + ps.model_job->error(), app.exports.message_is_error = true;
        else if (auto model = ps.model_job->result()) ps.model = std::move(*model);
        ps.model_job.reset();
    }
    BenchConfig c = sweep_config(app, false);
    std::string key = std::to_string(c.heads) + "/" + std::to_string(c.dim);
    for (int n : c.ns) key += "," + std::to_string(n);
    for (const auto& v : c.variants) key += ";" + v.label + ":" + params_summary(v.id, v.params);
    if (key == ps.model_key || ps.model_job) return;
    ps.model_key = key;
    using ModelJob = ResultJob<std::shared_ptr<const std::vector<ModelPoint>>>;
    ps.model_job = std::make_shared<ModelJob>("cost model", [c = std::move(c)](JobContext&) {
        return std::make_shared<const std::vector<ModelPoint>>(cost_model_points(c));
    }, true);
    app.runs.post_job(ps.model_job);
}

/// The variants of the cost model, in the order their curves are drawn (and coloured).
std::vector<std::string> model_labels(const std::vector<ModelPoint>& model) {
    std::vector<std::string> labels;
    for (const ModelPoint& p : model)
        if (std::find(labels.begin(), labels.end(), p.label) == labels.end()) labels.push_back(p.label);
    return labels;
}

/// The guides' legend entries (the slope lines, and the cost model's thick faint curves when measured beside it).
void add_guides(std::vector<LegendEntry>& legend, bool model_curves) {
    if (model_curves) legend.push_back({"thick, faint: cost model", ImVec4(0.7f, 0.7f, 0.7f, 1), true});
    legend.push_back({"O(n)", ImVec4(0.8f, 0.8f, 0.8f, 0.35f)});
    legend.push_back({"O(n²)", ImVec4(0.8f, 0.8f, 0.8f, 0.6f)});
}

/// The cost model alone, before anything is measured: analytic GFLOP and estimated peak memory against n.
void model_plots(const std::vector<ModelPoint>& model, bool guides, ImVec2 size) {
    for (int plot = 0; plot < 2; ++plot) {
        if (plot == 1) ImGui::SameLine();
        const char* title = plot == 0 ? "cost model: analytic work vs n" : "cost model: estimated peak memory vs n";
        if (!plot_fits(size) || !ImPlot::BeginPlot(title, size, ImPlotFlags_NoLegend)) continue;  // legend above both
        ImPlot::SetupAxes("sequence length n", plot == 0 ? "analytic GFLOP per run" : "estimated peak [MiB]",
                          ImPlotAxisFlags_AutoFit, ImPlotAxisFlags_AutoFit);
        ImPlot::SetupAxisScale(ImAxis_X1, ImPlotScale_Log10);
        ImPlot::SetupAxisScale(ImAxis_Y1, ImPlotScale_Log10);
        const std::vector<std::string> labels = model_labels(model);
        double n0 = 0, y0 = 0, n_lo = 1e30, n_hi = 0;
        for (size_t k = 0; k < labels.size(); ++k) {
            std::vector<double> x, y;
            for (const ModelPoint& p : model) {
                const double v = plot == 0 ? p.flops / 1e9 : double(p.peak_bytes) / (1 << 20);
                if (p.label != labels[k] || !p.error.empty() || v <= 0) continue;
                x.push_back(p.n), y.push_back(v);
            }
            if (x.empty()) continue;
            if (n0 == 0) n0 = x.front(), y0 = y.front();
            n_lo = std::min(n_lo, x.front()), n_hi = std::max(n_hi, x.back());
            ImPlotSpec spec;
            spec.LineColor = ImPlot::GetColormapColor(int(k));
            spec.LineWeight = 2.0f;
            ImPlot::PlotLine(labels[k].c_str(), x.data(), y.data(), int(x.size()), spec);
        }
        if (guides && n_hi > n_lo) {
            slope_guide("O(n)", 1, n0, y0, n_lo, n_hi);
            slope_guide("O(n²)", 2, n0, y0, n_lo, n_hi);
        }
        ImPlot::EndPlot();
    }
}

void start_sweep(App& app, bool quick) {
    PerfState& ps = app.perf;
    BenchConfig c = sweep_config(app, quick);
    ps.table_n = 0;
    ps.quick = quick;
    try {
        validate_bench_config(c);
        if (app.bench) app.bench->cancel();
        app.bench = std::make_shared<BenchJob>(std::move(c));
        app.runs.post_job(app.bench);
    } catch (const std::exception& e) {
        app.exports.message = std::string("sweep not started: ") + e.what(), app.exports.message_is_error = true;
    }
}

/// The sweep's range and shape (disabled while a sweep runs) and the cost-model toggle.
void draw_sweep_form(PerfState& ps, bool running) {
    ImGui::BeginDisabled(running);
    ImGui::SetNextItemWidth(100);
    ImGui::SliderInt("n from 2^", &ps.n_min_log2, 4, 16);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(100);
    ImGui::SliderInt("to 2^", &ps.n_max_log2, 4, 17);
    ps.n_max_log2 = std::max(ps.n_max_log2, ps.n_min_log2);
    ImGui::SameLine();
    ImGui::TextDisabled("(n = %d … %d)", 1 << ps.n_min_log2, 1 << ps.n_max_log2);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(80);
    ImGui::SliderInt("heads", &ps.heads, 1, 16);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(80);
    ImGui::SliderInt("d", &ps.dim, 8, 256);
    ImGui::SetNextItemWidth(80);
    ImGui::SliderInt("runs", &ps.runs, 1, 15);
    ImGui::SetItemTooltip("timed runs per point after one warm-up; the plots show their median");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(80);
    float budget = float(ps.budget_s);
    if (ImGui::SliderFloat("budget s", &budget, 0.1f, 60.0f, "%.1f", ImGuiSliderFlags_Logarithmic)) ps.budget_s = budget;
    ImGui::SetItemTooltip("per point: once a variant's point takes (or would take) longer, its larger n are skipped");
    ImGui::SameLine();
    ImGui::Checkbox("flash + full as references", &ps.references);
    ImGui::SetItemTooltip("add flash (speed-up) and full (memory saving) to the sweep when they are not selected");
    ImGui::SameLine();
    ImGui::Checkbox("machine roofs", &ps.measure_machine);
    ImGui::SetItemTooltip("also measure the GEMM rate and memory bandwidth first (a few seconds), like attnscope bench");
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::Checkbox("cost-model curves", &ps.show_slopes);
    ImGui::SetItemTooltip("thick faint line per variant: its analytic FLOPs (time) or memory estimate scaled through its "
                          "first point; grey: O(n) and O(n²)");
}

/// Run / Cancel, and the running sweep's progress or how the last one ended.
void draw_sweep_controls(App& app, bool running, JobState state) {
    PerfState& ps = app.perf;
    if (running) {
        if (ImGui::Button("Cancel")) app.bench->cancel();
        ImGui::SetItemTooltip("stop after the current run; the points measured so far stay");
    } else if (ImGui::Button("Run sweep")) {
        ps.start_pending = true;
        ps.quick_pending = false;
    }
    if (!running) ImGui::SetItemTooltip("time every selected variant over n with the benchmark engine (attnscope bench)");
    if (running) {
        const BenchProgress p = app.bench->sweep_progress();
        ImGui::SameLine();
        char overlay[160];
        if (state == JobState::Queued)
            std::snprintf(overlay, sizeof overlay, "waiting for the job before it");
        else
            std::snprintf(overlay, sizeof overlay, "%d / %d points  %s", p.points_done, p.points_total, p.stage.c_str());
        ImGui::ProgressBar(float(p.fraction), ImVec2(-1, 0), overlay);
        ImGui::TextDisabled("%s; the views of an edit are computed between two runs, never beside one",
                            ps.quick ? "quick first look: n ≤ 1024, 2 runs per point (Cancel stops it)"
                                     : "sweeping the chosen range");
    } else if (state == JobState::Failed) {
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(1, 0.5f, 0.45f, 1), "sweep failed: %s", app.bench->error().c_str());
    } else if (state == JobState::Cancelled) {
        ImGui::SameLine();
        ImGui::TextDisabled("cancelled: the points measured before are shown");
    }
}

/// Before anything is measured: each selected variant's cost model alone.
void draw_cost_model_only(const PerfState& ps) {
    hint_text("The cost model of each selected variant (its analytic FLOPs and peak-memory estimate, nothing "
              "measured yet). Measured points appear as a sweep runs: Run sweep times the selected variants over n "
              "with the benchmark engine behind `attnscope bench` (one warm-up, the median of the timed runs, peak "
              "tracked memory).");
    if (ps.model) {
        std::vector<LegendEntry> legend;
        for (const std::string& label : model_labels(*ps.model))
            legend.push_back({label, ImPlot::GetColormapColor(int(legend.size()))});
        if (ps.show_slopes) add_guides(legend, false);
        legend_row(legend);
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        const ImVec2 size((avail.x - ImGui::GetStyle().ItemSpacing.x) * 0.5f, std::max(200.0f, avail.y));
        model_plots(*ps.model, ps.show_slopes, size);
    } else {
        ImGui::TextDisabled("computing the cost model…");
    }
}

/// The measured sweep: legend, time and memory plots, the comparison table and the report's notes.
void draw_measured_sweep(PerfState& ps, const std::shared_ptr<const BenchReport>& report) {
    if (ps.derived_from != report.get()) {  // speed-ups and savings need the whole snapshot: fill them on a copy
        auto copy = std::make_shared<BenchReport>(*report);
        fill_derived_figures(*copy);
        ps.derived = copy, ps.derived_from = report.get();
    }
    const BenchReport& r = *ps.derived;
    const std::vector<Series> series = measured_series(r);
    std::vector<std::string> notes = r.notes;
    for (const BenchPoint& p : r.points)
        if (!p.measured()) notes.push_back(p.label + " at n = " + std::to_string(p.n) + ": " + point_status_name(p.status) +
                                           (p.reason.empty() ? "" : " — " + p.reason));
    std::vector<LegendEntry> legend;
    for (size_t k = 0; k < series.size(); ++k) legend.push_back({series[k].label, ImPlot::GetColormapColor(int(k))});
    if (ps.show_slopes) add_guides(legend, true);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float table_w = std::min(520.0f, avail.x * 0.38f);
    const float w = (avail.x - table_w - ImGui::GetStyle().ItemSpacing.x * 2) * 0.5f;
    const float legend_h = legend_row_height(legend, 2 * w);
    const float h = std::max(200.0f, avail.y - legend_h -
                                         ImGui::GetTextLineHeightWithSpacing() * float(std::min<size_t>(notes.size(), 4) + 0.5));
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 2 * w);
    ImGui::BeginChild("legend", ImVec2(2 * w + ImGui::GetStyle().ItemSpacing.x, legend_h), ImGuiChildFlags_None,
                      ImGuiWindowFlags_NoScrollbar);
    legend_row(legend);
    ImGui::EndChild();
    ImGui::PopTextWrapPos();
    sweep_plot("median time vs n (log–log)", "time [ms]", series, time_of, time_model, ps.show_slopes, ImVec2(w, h));
    ImGui::SameLine();
    sweep_plot("peak tracked memory vs n (log–log)", "memory [MiB]", series, memory_of, memory_model, ps.show_slopes,
               ImVec2(w, h));
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginChild("table", ImVec2(table_w, h + legend_h));
    comparison_table(ps, r, series);
    ImGui::TextWrapped("speed-up = flash's median / this median; saving = full's peak / this peak (same n). Slopes: "
                       "log–log fit of the measured times, and of the analytic FLOPs (cost model): ≈1 linear, ≈2 quadratic.");
    ImGui::TextDisabled("%s, H = %d, d = %d, %d runs/point; shared machine: noisy", r.backend.c_str(), r.heads, r.dim,
                        r.plan.runs);
    ImGui::EndChild();
    for (size_t k = 0; k < notes.size() && k < 4; ++k) ImGui::TextDisabled("%s", notes[k].c_str());
    if (notes.size() > 4) {
        ImGui::TextDisabled("… %zu more notes", notes.size() - 4);
        if (ImGui::BeginItemTooltip()) {
            for (const auto& n : notes) ImGui::BulletText("%s", n.c_str());
            ImGui::EndTooltip();
        }
    }
}

}  // namespace

void draw_performance_panel(App& app, const PanelEntry& self) {
    PerfState& ps = app.perf;
    const bool running = app.bench && !app.bench->finished();
    const JobState state = app.bench ? app.bench->state() : JobState::Queued;
    if (ps.run_on_start) ps.run_on_start = false, ps.start_pending = true;
    if (ps.start_pending) {
        ps.start_pending = false;
        start_sweep(app, ps.quick_pending);
        ps.quick_pending = false;
    }
    if (!ImGui::Begin(self.window)) {
        ImGui::End();
        return;
    }
    update_cost_model(app);
    if (!ps.opened) {  // the first look at the tab measures a little at once instead of showing empty plots
        ps.opened = true;
        if (!app.bench && !ps.start_pending) ps.start_pending = ps.quick_pending = true;
    }
    draw_sweep_form(ps, running);
    draw_sweep_controls(app, running, state);
    const auto report = app.bench_report;
    const bool any_measured =
        report && std::any_of(report->points.begin(), report->points.end(), [](const BenchPoint& p) { return p.measured(); });
    if (any_measured) draw_measured_sweep(ps, report);
    else draw_cost_model_only(ps);
    ImGui::End();
}

void save_performance_session(const App& app, nlohmann::json& j) {
    j["performance"] = {{"n_min_log2", app.perf.n_min_log2}, {"n_max_log2", app.perf.n_max_log2},
                        {"heads", app.perf.heads}, {"dim", app.perf.dim}, {"runs", app.perf.runs},
                        {"budget_s", app.perf.budget_s}, {"references", app.perf.references}};
}

void load_performance_session(App& app, const nlohmann::json& j) {
    if (!j.contains("performance")) return;  // sweep range; "run": true starts a sweep on load (screenshots)
    const auto& p = j["performance"];
    PerfState perf = app.perf;
    perf.n_min_log2 = json_int(p, "n_min_log2", perf.n_min_log2, 0, 30, "the session's performance panel");
    perf.n_max_log2 = json_int(p, "n_max_log2", perf.n_max_log2, 0, 30, "the session's performance panel");
    perf.heads = json_int(p, "heads", perf.heads, 1, 64, "the session's performance panel");
    perf.dim = json_int(p, "dim", perf.dim, 1, 1024, "the session's performance panel");
    perf.runs = json_int(p, "runs", perf.runs, 1, 1000, "the session's performance panel");
    perf.budget_s = json_number(p, "budget_s", perf.budget_s, 0, 1e6, "the session's performance panel");
    perf.references = json_bool(p, "references", perf.references, "the session's performance panel");
    perf.run_on_start = json_bool(p, "run", false, "the session's performance panel");
    app.perf = perf;
}

bool performance_busy(const App& app) {
    return (app.bench && !app.bench->finished()) || app.perf.start_pending;
}

}  // namespace attnscope::gui

namespace attnscope::gui {

PanelFigure performance_panel_figure(const App& app) {
    const auto report = app.bench_report;
    if (!report || std::none_of(report->points.begin(), report->points.end(), [](const BenchPoint& p) { return p.measured(); }))
        return {{}, "nothing measured yet: run a sweep in the Performance panel"};
    return {chart_builder(figure::performance_figure(*report),
                          "Benchmark: gaussian input, H = " + std::to_string(report->heads) + ", d = " + std::to_string(report->dim)),
            ""};
}

}  // namespace attnscope::gui

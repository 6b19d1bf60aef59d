// attnscope — Sweep panel: the GUI form of `attnscope sweep`. One or more variants, a parameter of the first
// (or n), START:STOP with ×FACTOR or +STEP, a metric, seeds; the core sweep (core/session/metric_sweep.h) runs as a job on
// the worker point by point, and the plot shows the seed mean as a line inside its min–max band.
// Index: [SECTION] Job  [SECTION] Form  [SECTION] Plot  [SECTION] Panel
#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cmath>
#include <mutex>

#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "app/gui/app.h"
#include "app/gui/panel_figures.h"
#include "core/figure/chart_figures.h"
#include "app/gui/panels.h"
#include "app/gui/plot_room.h"
#include "core/session/variant_json.h"
#include "core/variants/instance_label.h"
#include "app/gui/log_ticks.h"
#include "core/session/metric_sweep.h"
#include "core/session/sweep_curves.h"
#include "core/data/scenarios.h"
#include "core/variants/registry.h"

#if __has_include("core/session/text_metric_measure.h")
#include "core/data/text_input.h"
#include "core/data/text_model.h"
#include "core/session/text_metric_measure.h"
#define ATTNSCOPE_SWEEP_HAS_TEXT 1
#else
#define ATTNSCOPE_SWEEP_HAS_TEXT 0
#endif

namespace attnscope::gui {

// [SECTION] Job

/// What one sweep runs, fixed when Run is pressed.
struct SweepPlan {
    std::vector<SweepSpec> specs;  // one per plotted instance (the range holds every value)
    std::vector<std::string> labels;  // per spec: the instance's legend label
    std::vector<double> values;    // parameter values, shared by every variant
    InputSpec input;               // the Input panel's input; n is replaced when n is swept
    std::string param, metric;     // labels
};

/// A metric sweep as a worker job: every (variant, value) point is published as soon as its seeds ran.
struct MetricSweepJob final : Job {
    struct Curve {
        std::string variant;                   // variant id (status lines)
        std::string label;                     // the instance, without the swept parameter (legend)
        std::vector<MetricSweepPoint> points;  // ascending parameter values, points that ran
        std::vector<std::string> errors;       // why some values gave no point (first few)
    };
    const SweepPlan plan;
    std::atomic<int> done{0}, total{1};
    std::mutex mutex;            // guards curves
    std::vector<Curve> curves;   // per plan.specs entry

    explicit MetricSweepJob(SweepPlan p) : plan(std::move(p)) {
        for (size_t k = 0; k < plan.specs.size(); ++k) curves.push_back({plan.specs[k].variant, plan.labels[k], {}, {}});
        total = int(plan.values.size() * plan.specs.size()) * std::max(1, plan.specs.empty() ? 1 : plan.specs[0].seeds);
    }
    std::string kind() const override { return "metric sweep"; }
    bool uses_all_cores() const override { return true; }

protected:
    void run(JobContext& ctx) override {
        const InputSpec input = plan.input;
        // Text input is encoded once: the seeds then vary only the variants' own randomness.
        std::shared_ptr<const Heads> text_heads;
        SweepEvaluator evaluate;
        if (input.mode == InputMode::Text) {
            text_heads = std::make_shared<const Heads>(build_input(input));
#if ATTNSCOPE_SWEEP_HAS_TEXT
            if (measured_outside_run(*plan.specs[0].metric)) {
                evaluate = text_metric_measure(plan.specs[0].metric->id, input.model_dir,
                                               tokenize_text(input.text, input.model_dir), input.layer);
            }
#endif
        }
        auto make_input = [&input, &text_heads](uint64_t seed, int n_override) {
            if (text_heads) return *text_heads;
            ScenarioSpec sc = input.scenario;
            sc.seed += seed;
            if (n_override > 0) sc.n = n_override;
            return make_scenario(sc);
        };
        for (size_t k = 0; k < plan.specs.size(); ++k)
            for (double value : plan.values) {
                if (ctx.cancelled()) return;
                SweepSpec spec = plan.specs[k];
                spec.range = SweepRange{value, value, 0, 1};  // one point: published and cancellable on its own
                spec.evaluate = evaluate;
                try {
                    const auto points = run_sweep(spec, make_input, ctx.backend(), [this, &ctx](int, int) {
                        set_progress(float(++done) / float(std::max(1, total.load())));
                        ctx.between_steps();
                        return !ctx.cancelled();
                    });
                    std::lock_guard<std::mutex> lock(mutex);
                    if (!points.empty() && points[0].samples > 0) curves[k].points.push_back(points[0]);
                    else if (!points.empty() && curves[k].errors.size() < 3)
                        curves[k].errors.push_back(format_value(value) + ": the metric does not apply to this run");
                } catch (const std::bad_alloc&) {
                    std::lock_guard<std::mutex> lock(mutex);
                    curves[k].errors.push_back(format_value(value) + ": out of memory; stopped this variant");
                    break;
                } catch (const std::exception& e) {
                    std::lock_guard<std::mutex> lock(mutex);
                    if (curves[k].errors.size() < 3) curves[k].errors.push_back(format_value(value) + ": " + e.what());
                }
            }
    }

private:
    std::string format_value(double v) const {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s = %g", plan.param.c_str(), v);
        return buf;
    }
};

bool sweep_busy(const App& app) {
    return (app.metric_sweep.job && !app.metric_sweep.job->finished()) || app.metric_sweep.run_on_start;
}

void cancel_metric_sweep(App& app) {
    if (app.metric_sweep.job) app.metric_sweep.job->cancel();
}

std::string sweep_status(const App& app) {
    if (!app.metric_sweep.job) return "";
    MetricSweepJob& job = *app.metric_sweep.job;
    std::lock_guard<std::mutex> lock(job.mutex);
    std::string s = "sweep " + job.plan.metric + " vs " + job.plan.param + ":";
    for (const auto& c : job.curves) {
        int banded = 0;  // points whose seeds disagree: a visible band
        for (const auto& p : c.points) banded += p.max > p.min;
        s += " " + c.variant + " " + std::to_string(c.points.size()) + " points (" + std::to_string(banded) + " with a band)";
    }
    if (const std::string error = job.error(); !error.empty()) s += "; error: " + error;
    return s;
}

namespace {

// [SECTION] Form

/// Builds the plan from the form, or says what is wrong (shown under the form; Run stays disabled).
SweepPlan make_plan(const App& app, std::string& error) {
    const MetricSweepState& s = app.metric_sweep;
    SweepPlan plan;
    plan.input = app.input.spec;
    plan.param = s.param;
    plan.metric = s.metric;
    try {
        if (s.variants.empty()) throw Error("choose at least one variant");
        SweepRange range;
        range.start = s.start, range.stop = s.stop;
        range.factor = s.geometric ? s.factor : 0;
        range.step = s.step;
        plan.values = range.values();
        if (s.seeds < 1 || s.seeds > 50) throw Error("seeds must be between 1 and 50");
        const MetricSpec& metric = parse_sweep_metric(s.metric);
        const bool text = app.input.spec.mode == InputMode::Text;
        if (measured_outside_run(metric) && !text)
            throw Error(std::string(metric.id) + " re-runs the text model: switch the Input panel to text");
        if (measured_outside_run(metric) && !ATTNSCOPE_SWEEP_HAS_TEXT)
            throw Error(std::string(metric.id) + " needs the text models, which this build lacks");
        const bool sweeps_n = s.param == "n";
        if (sweeps_n && text) throw Error("the text fixes n: sweep a parameter of " + s.variants[0] + " instead");
        for (double v : plan.values) {
            if (sweeps_n && (v != std::floor(v) || v < 1 || v > 1 << 20))
                throw Error("n = " + std::to_string(v) + " must be a whole number between 1 and 1048576");
        }
        // One curve per instance of each chosen variant in the Variants panel (orthogonal and i.i.d. Performer side
        // by side), each keeping its other parameters; the defaults when the panel has none. Planned and checked as
        // the CLI's sweep plans them: a variant without the parameter (or a budget) is an error that names it.
        std::vector<VariantRequest> instances;
        for (const std::string& id : s.variants) {
            const size_t before = instances.size();
            for (const VariantSlot& slot : app.variants.slots)
                if (slot.id == id) instances.push_back({id, slot.params});
            if (instances.size() == before) instances.push_back({id, default_params(find_variant(id).info().params)});
        }
        // The job gives a metric measured outside a run its evaluator (the encoder, loaded on the worker).
        const SweepEvaluator later = [](const VariantRequest&, Backend&) -> std::optional<double> {
            throw Error("the sweep's evaluator is made by its job");
        };
        for (SweepCurveRun& c : plan_sweep_curves(instances, s.param, range, metric, s.seeds,
                                                  measured_outside_run(metric) ? later : SweepEvaluator{})) {
            plan.labels.push_back(c.label + (s.param == "budget" ? " (" + c.swept + ")" : ""));
            plan.specs.push_back(std::move(c.spec));
        }
        error.clear();
    } catch (const std::exception& e) {
        error = e.what();
    }
    return plan;
}

/// The variant checklist, the parameter combo, range, metric and seeds.
void draw_form(App& app) {
    MetricSweepState& s = app.metric_sweep;
    const auto& all = all_variants();
    ImGui::BeginGroup();
    ImGui::TextUnformatted("variants");
    ImGui::SetItemTooltip("every chosen variant is swept over the parameter (budget: each its own), one curve per "
                          "instance in the Variants panel; a variant without it is named under the form");
    if (ImGui::BeginChild("##sweep_variants", ImVec2(170, ImGui::GetFrameHeightWithSpacing() * 9.5f),
                          ImGuiChildFlags_Borders)) {
        for (const auto& v : all) {
            const std::string& id = v->info().id;
            const auto it = std::find(s.variants.begin(), s.variants.end(), id);
            bool on = it != s.variants.end();
            std::string label = id;
            if (on && it == s.variants.begin()) label += " (first)";
            label += "##" + id;  // a stable id while the label changes
            if (ImGui::Checkbox(label.c_str(), &on)) {
                if (on) s.variants.push_back(id);
                else s.variants.erase(it);
            }
            ImGui::SetItemTooltip("%s", v->info().summary.c_str());
        }
    }
    ImGui::EndChild();
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    // Parameter of the first variant (numeric ones), or n.
    const Variant* first = nullptr;
    if (!s.variants.empty())
        for (const auto& v : all)
            if (v->info().id == s.variants[0]) first = v.get();
    ImGui::SetNextItemWidth(140);
    if (ImGui::BeginCombo("parameter", s.param.c_str())) {
        if (ImGui::Selectable("n", s.param == "n")) s.param = "n";
        ImGui::SetItemTooltip("sequence length (synthetic input)");
        if (ImGui::Selectable("budget", s.param == "budget"))
            s.param = "budget", s.geometric = true, s.factor = 2, s.start = 4, s.stop = 64;
        ImGui::SetItemTooltip("one axis across variants: each plots against its own budget parameter — svd rank, linformer "
                              "k, performer features, longformer window, bigbird block, …");
        if (first)
            for (const ParamSpec& p : first->info().params) {
                if (p.kind == ParamKind::IntList || p.name == "seed") continue;
                if (ImGui::Selectable(p.name.c_str(), s.param == p.name)) {
                    s.param = p.name;
                    // A useful default range: the parameter's default up to 8× (bounded by its range).
                    const double lo = std::max(p.lo, p.kind == ParamKind::Real ? p.lo : 1.0);
                    const double def = p.auto_default ? std::max(lo, std::min(p.hi, 16.0)) : std::max(lo, p.def);
                    if (p.kind == ParamKind::Int && def >= 1 && p.hi >= 2 * def) {
                        s.geometric = true, s.factor = 2, s.start = std::max(1.0, def / 4), s.stop = std::min(p.hi, def * 4);
                    } else {
                        s.geometric = false, s.start = p.lo, s.stop = p.hi;
                        s.step = p.kind == ParamKind::Real ? (p.hi - p.lo) / 8 : 1;
                    }
                }
                ImGui::SetItemTooltip("%s (%s): %s", p.symbol.c_str(), describe_range(p).c_str(), p.help.c_str());
            }
        ImGui::EndCombo();
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    if (s.param == "n") {
        ImGui::TextWrapped("n: range [1, 1048576] on the Input panel's scenario (its heads and d)");
    } else if (first) {
        if (const ParamSpec* p = find_param(first->info().params, s.param)) {
            char def[64];
            std::snprintf(def, sizeof def, "%g", p->def);
            const std::string shown = p->auto_default ? "auto, " + p->auto_help : def;
            ImGui::TextWrapped("%s: range %s, default %s", p->symbol.c_str(), describe_range(*p).c_str(), shown.c_str());
        }
    }
    ImGui::PopStyleColor();
    ImGui::SetNextItemWidth(90);
    ImGui::InputDouble("start", &s.start, 0, 0, "%g");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(90);
    ImGui::InputDouble("stop", &s.stop, 0, 0, "%g");
    if (ImGui::RadioButton("×factor", s.geometric)) s.geometric = true;
    ImGui::SameLine();
    if (ImGui::RadioButton("+step", !s.geometric)) s.geometric = false;
    ImGui::SameLine();
    ImGui::SetNextItemWidth(80);
    if (s.geometric) ImGui::InputDouble("##factor", &s.factor, 0, 0, "×%g");
    else ImGui::InputDouble("##step", &s.step, 0, 0, "+%g");
    ImGui::SetNextItemWidth(165);
    if (ImGui::BeginCombo("metric", s.metric.c_str())) {
        const bool text = app.input.spec.mode == InputMode::Text;
        for (const MetricSpec* m : sweep_metrics()) {
            const std::string name = m->id;
            const bool needs_text = measured_outside_run(*m);
            ImGui::BeginDisabled(needs_text && !text);
            if (ImGui::Selectable(name.c_str(), s.metric == name)) s.metric = name;
            ImGui::EndDisabled();
            if (needs_text)
                ImGui::SetItemTooltip("cosine of the sentence embedding with this variant in place of the Input layer's "
                                      "attention (text input only)");
        }
        ImGui::EndCombo();
    }
    ImGui::SetItemTooltip("each point: the mean over seeds of the run's metric, itself the mean over heads of each "
                          "head's own value (time and memory: the whole run)");
    ImGui::SetNextItemWidth(90);
    ImGui::InputInt("seeds", &s.seeds);
    s.seeds = std::clamp(s.seeds, 1, 50);
    ImGui::SameLine();
    ImGui::Checkbox("log x", &s.log_x);
    ImGui::SameLine();
    ImGui::Checkbox("log y", &s.log_y);
    ImGui::EndGroup();
}

// [SECTION] Plot

void draw_plot(App& app, const MetricSweepJob& job, const std::vector<MetricSweepJob::Curve>& curves) {
    MetricSweepState& s = app.metric_sweep;
    bool nonpositive_y = false, nonpositive_x = false;
    for (const auto& c : curves)
        for (const auto& p : c.points) {
            nonpositive_y = nonpositive_y || p.min <= 0;
            nonpositive_x = nonpositive_x || p.value <= 0;
        }
    const bool log_x = s.log_x && !nonpositive_x, log_y = s.log_y && !nonpositive_y;
    if ((s.log_x && nonpositive_x) || (s.log_y && nonpositive_y))
        hint_text("Some values are ≤ 0, so that axis is shown linear.");
    const std::string title = job.plan.metric + " vs " + job.plan.param + " (line: mean over seeds, band: min–max)";
    if (!plot_fits(ImGui::GetContentRegionAvail()) || !ImPlot::BeginPlot(title.c_str(), ImVec2(-1, -1))) return;
    ImPlot::SetupAxes(job.plan.param.c_str(), job.plan.metric.c_str(), ImPlotAxisFlags_AutoFit, ImPlotAxisFlags_AutoFit);
    ImPlot::SetupLegend(ImPlotLocation_NorthEast, ImPlotLegendFlags_Outside);  // beside the curves, never over them
    if (log_x) ImPlot::SetupAxisScale(ImAxis_X1, ImPlotScale_Log10);
    if (log_y) ImPlot::SetupAxisScale(ImAxis_Y1, ImPlotScale_Log10);
    double x_lo = INFINITY, x_hi = 0, y_lo = INFINITY, y_hi = 0;
    for (const auto& c : curves)
        for (const auto& p : c.points)
            x_lo = std::min(x_lo, p.value), x_hi = std::max(x_hi, p.value), y_lo = std::min(y_lo, p.min), y_hi = std::max(y_hi, p.max);
    if (log_x) setup_log_ticks(ImAxis_X1, x_lo, x_hi);
    if (log_y) setup_log_ticks(ImAxis_Y1, y_lo, y_hi);
    for (size_t k = 0; k < curves.size(); ++k) {
        const auto& c = curves[k];
        if (c.points.empty()) continue;
        std::vector<double> x, mean, lo, hi;
        for (const auto& p : c.points) x.push_back(p.value), mean.push_back(p.mean), lo.push_back(p.min), hi.push_back(p.max);
        const ImVec4 colour = ImPlot::GetColormapColor(int(k));
        ImPlotSpec band;
        band.FillColor = colour;
        band.FillAlpha = 0.35f;
        ImPlot::PlotShaded(c.label.c_str(), x.data(), lo.data(), hi.data(), int(x.size()), band);
        ImPlotSpec line;
        line.LineColor = colour;
        line.LineWeight = 2;
        line.Marker = ImPlotMarker_Circle;
        line.MarkerSize = 3;
        ImPlot::PlotLine(c.label.c_str(), x.data(), mean.data(), int(x.size()), line);
    }
    ImPlot::EndPlot();
}

}  // namespace

// [SECTION] Panel

namespace {

/// Replaces the panel's sweep with a new one on the worker's queue.
void start_metric_sweep(App& app, SweepPlan plan) {
    cancel_metric_sweep(app);
    app.metric_sweep.job = std::make_shared<MetricSweepJob>(std::move(plan));
    app.runs.post_job(app.metric_sweep.job);
}

}  // namespace

void draw_sweep_panel(App& app, const PanelEntry& self) {
    MetricSweepState& s = app.metric_sweep;
    if (!ImGui::Begin(self.window)) {
        // Not visible: a session-requested sweep still starts (screenshots of another tab wait for it).
        if (s.run_on_start) {
            std::string error;
            SweepPlan plan = make_plan(app, error);
            if (error.empty()) start_metric_sweep(app, std::move(plan));
            s.run_on_start = false;
        }
        ImGui::End();
        return;
    }
    // Left: the form and the job's state; right: the plot at full height.
    const float form_w = std::min(470.0f, ImGui::GetContentRegionAvail().x * 0.5f);
    ImGui::BeginChild("##sweep_form", ImVec2(form_w, 0));
    draw_form(app);
    std::string error;
    SweepPlan plan = make_plan(app, error);
    const bool running = s.job && !s.job->finished();
    ImGui::BeginDisabled(!error.empty() || running);
    const bool run = ImGui::Button("Run");
    ImGui::EndDisabled();
    ImGui::SetItemTooltip("run the sweep in the background (each point: every seed once)");
    if ((run || s.run_on_start) && error.empty() && !running) {
        start_metric_sweep(app, std::move(plan));
        plan = s.job->plan;  // notes below come from the running plan
    }
    s.run_on_start = false;
    ImGui::SameLine();
    ImGui::BeginDisabled(!running);
    if (ImGui::Button("Cancel")) cancel_metric_sweep(app);
    ImGui::EndDisabled();
    const int points = int(plan.values.size()), runs = points * s.seeds * int(plan.specs.size());
    if (error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%d values × %d seeds × %zu variants = %d runs on %s", points, s.seeds, plan.specs.size(),
                           runs, app.input.spec.mode == InputMode::Text ? "the Input panel's text" : "the Input panel's scenario");
        ImGui::PopStyleColor();
    }
    if (!error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.4f, 1));
        ImGui::TextWrapped("%s", error.c_str());
        ImGui::PopStyleColor();
    }
    if (!s.job) {
        ImGui::EndChild();
        ImGui::SameLine();
        ImGui::BeginGroup();
        hint_text("Choose variants, a parameter and a metric, then Run: the plot shows the metric against the "
                  "parameter, the seed mean as a line inside its min–max band (same as `attnscope sweep`).");
        ImGui::EndGroup();
        ImGui::End();
        return;
    }
    MetricSweepJob& job = *s.job;
    if (!job.finished()) {
        const int done = job.done.load(), total = std::max(1, job.total.load());
        char label[64];
        if (job.state() == JobState::Queued) std::snprintf(label, sizeof label, "waiting for the job before it");
        else std::snprintf(label, sizeof label, "%d / %d runs", done, total);
        ImGui::ProgressBar(float(done) / float(total), ImVec2(-1, 0), label);
    } else if (job.state() == JobState::Cancelled) {
        hint_text("Cancelled: the points finished so far are shown.");
    }
    std::vector<MetricSweepJob::Curve> curves;
    std::string job_error;
    {
        std::lock_guard<std::mutex> lock(job.mutex);
        curves = job.curves;
    }
    job_error = job.error();
    if (!job_error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.4f, 1));
        ImGui::TextWrapped("The sweep could not run: %s", job_error.c_str());
        ImGui::PopStyleColor();
    }
    for (const auto& c : curves)
        for (const std::string& e : c.errors) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.6f, 0.4f, 1));
            ImGui::TextWrapped("%s at %s", c.variant.c_str(), e.c_str());
            ImGui::PopStyleColor();
        }
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("##sweep_plot");
    draw_plot(app, job, curves);
    ImGui::EndChild();
    ImGui::End();
}

void save_sweep_session(const App& app, nlohmann::json& j) {
    const MetricSweepState& s = app.metric_sweep;
    j["sweep"] = {{"variants", s.variants}, {"param", s.param},   {"start", s.start}, {"stop", s.stop},
                  {"geometric", s.geometric}, {"factor", s.factor}, {"step", s.step},   {"metric", s.metric},
                  {"seeds", s.seeds},         {"log_x", s.log_x},   {"log_y", s.log_y}};
}

void load_sweep_session(App& app, const nlohmann::json& j) {
    if (j.contains("sweep")) {
        const auto& p = j.at("sweep");
        MetricSweepState s;
        s.variants = p.value("variants", s.variants);
        s.param = json_string(p, "param", s.param, "the session's sweep panel");
        s.start = json_number(p, "start", s.start, -1e300, 1e300, "the session's sweep"), s.stop = json_number(p, "stop", s.stop, -1e300, 1e300, "the session's sweep");
        s.geometric = json_bool(p, "geometric", s.geometric, "the session's sweep panel");
        s.factor = json_number(p, "factor", s.factor, -1e300, 1e300, "the session's sweep"), s.step = json_number(p, "step", s.step, -1e300, 1e300, "the session's sweep");
        s.metric = json_string(p, "metric", s.metric, "the session's sweep panel");
        parse_sweep_metric(s.metric);  // throws listing the metrics
        s.seeds = json_int(p, "seeds", s.seeds, 1, 1000, "the session's sweep");
        s.log_x = json_bool(p, "log_x", s.log_x, "the session's sweep panel"), s.log_y = json_bool(p, "log_y", s.log_y, "the session's sweep panel");
        s.run_on_start = json_bool(p, "run", false, "the session's sweep panel");
        app.metric_sweep = std::move(s);
    }
}

}  // namespace attnscope::gui

namespace attnscope::gui {

PanelFigure sweep_panel_figure(const App& app) {
    const auto job = app.metric_sweep.job;
    if (!job) return {{}, "no sweep yet: press Run in the Sweep panel"};
    std::vector<figure::SweepCurve> curves;
    {
        std::lock_guard<std::mutex> lock(job->mutex);
        for (const MetricSweepJob::Curve& c : job->curves) curves.push_back({c.label, c.points});
    }
    if (std::all_of(curves.begin(), curves.end(), [](const figure::SweepCurve& c) { return c.points.empty(); }))
        return {{}, "the sweep has no point yet"};
    const SweepPlan& plan = job->plan;
    const bool geometric = plan.values.size() > 2 && plan.values[0] > 0 && plan.values[1] / plan.values[0] == plan.values[2] / plan.values[1];
    const int seeds = plan.specs.empty() ? 1 : plan.specs.front().seeds;
    return {chart_builder(figure::sweep_figure(curves, plan.param, parse_sweep_metric(plan.metric), geometric, seeds), gui_figure_title(app)), ""};
}

}  // namespace attnscope::gui

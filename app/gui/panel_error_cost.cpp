// attnscope — Error–cost panel: every chosen instance (and, for a swept parameter, every value of it) as a point of
// cost (measured time, analytic FLOPs, peak memory) against error (rel_err_out, 1 − mass_recall, on text
// 1 − embedding cosine), one curve per swept instance, the Pareto front highlighted (core/session/error_cost.h).
// Hover names the instance and its parameters; a click applies the point's swept value to its Variants slot.
// Index: [SECTION] Job  [SECTION] Form  [SECTION] Plot  [SECTION] Panel  [SECTION] Session
#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "app/gui/app.h"
#include "app/gui/panel_figures.h"
#include "core/figure/chart_figures.h"
#include "app/gui/panels.h"
#include "app/gui/plot_room.h"
#include "app/gui/log_ticks.h"
#include "core/data/text_input.h"
#include "core/data/text_model.h"
#include "core/json_fields.h"
#include "core/session/error_cost.h"
#include "core/session/metric_sweep.h"
#include "core/data/model_paths.h"
#include "core/session/text_metric_measure.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"

namespace attnscope::gui {

/// A computed map: the points, what made each of them, and what the input was.
struct ErrorCostMap {
    std::vector<ErrorCostPoint> points;
    std::vector<ErrorCostRequest> requests;  // parallel to points
    std::vector<int> slot_uids;              // VariantSlot::uid of each instance (a click finds its slot by it)
    std::vector<std::string> notes;          // instances that stay one point, and why
    std::string source;                      // the input, e.g. "text" or "synthetic:local"
    int n = 0, heads = 0;
    bool embedding = false;                  // embedding_loss was measured
    bool perplexity = false;                 // the decoder's perplexity was measured
};

namespace {

// [SECTION] Job

const char* const kCostAxes[] = {"time", "flops", "memory"};
constexpr int kMaxRepeats = 99;  // a bound on the form's box: more runs than this is a benchmark, not a map
const char* const kErrorAxes[] = {"rel_err_out", "mass_loss", "embedding_loss", "perplexity"};

/// The cost axis' label; on time it names the clock the points were timed on and how (error_cost.h).
std::string cost_axis_label(CostAxis a, const std::vector<ErrorCostPoint>& pts) {
    if (a == CostAxis::Flops) return "FLOPs (analytic count of the run)";
    if (a == CostAxis::Memory) return "peak memory [bytes] (tracked during the run)";
    const ErrorCostPoint* p = pts.empty() ? nullptr : &pts.front();
    const std::string clock = !p || p->time_clock == "cpu" ? "CPU time [ms] (worker thread + its OpenMP team)"
                                                           : "time [ms] (" + p->time_clock + ")";
    return clock + ", median of " + std::to_string(p ? p->repeats : 0) + " interleaved runs; bars: min..max";
}

const char* error_axis_label(ErrorAxis a) {
    return a == ErrorAxis::RelErrOut ? "rel_err_out vs exact (mean over heads)"
           : a == ErrorAxis::MassLoss ? "1 − mass_recall (mean over heads)"
           : a == ErrorAxis::Perplexity ? "decoder perplexity (every head of the Input layer replaced)"
                                        : "1 − embedding cosine";
}

std::vector<double> swept_values(const ErrorCostState& st) {
    SweepRange r;
    r.start = st.start, r.stop = st.stop, r.factor = st.factor;
    return r.values();
}

std::shared_ptr<ViewJob<ErrorCostMap>::Job> make_job(const App& app) {
    const ErrorCostState& st = app.error_cost;
    const InputSpec input = app.effective_input();
    std::vector<VariantRequest> instances;
    std::vector<int> uids;
    for (const VariantSlot& s : app.variants.slots) instances.push_back({s.id, s.params}), uids.push_back(s.uid);
    const ErrorAxis y = parse_error_axis(st.y);
    const std::string param = st.param;
    const std::vector<double> values = param.empty() ? std::vector<double>{} : swept_values(st);
    const int repeats = st.repeats;
    return std::make_shared<ViewJob<ErrorCostMap>::Job>(
        "error–cost map", [=](JobContext& ctx) -> std::shared_ptr<const ErrorCostMap> {
            auto map = std::make_shared<ErrorCostMap>();
            map->requests = expand_error_cost_requests(instances, param, values, &map->notes);
            map->slot_uids = uids;
            const Heads heads = build_input(input);
            map->source = heads.source, map->n = heads.n(), map->heads = heads.heads();
            ErrorCostOptions options;
            options.repeats = repeats;
            // Between any two runs an edit's views may go first; the rounds keep the points' timings paired anyway.
            options.proceed = [&ctx] {
                if (ctx.cancelled()) return false;
                ctx.between_steps();
                return true;
            };
            if (y == ErrorAxis::EmbeddingLoss || y == ErrorAxis::Perplexity) {
                const bool embedding = y == ErrorAxis::EmbeddingLoss;
                if (input.mode != InputMode::Text)
                    throw Error(std::string(embedding ? "1 − embedding cosine" : "perplexity") +
                                " re-runs the text model: switch the Input panel to text, or choose another error axis");
                (embedding ? options.embedding : options.perplexity) =
                    text_metric_measure(embedding ? "embedding_cosine" : "perplexity", input.model_dir,
                                        tokenize_text(input.text, input.model_dir), input.layer);
                (embedding ? map->embedding : map->perplexity) = true;
            }
            std::vector<VariantRequest> requests;
            for (const ErrorCostRequest& r : map->requests) requests.push_back(r.request);
            map->points = error_cost_points(heads, requests, ctx.backend(), options);
            if (map->points.size() != requests.size()) return nullptr;  // cancelled
            return map;
        });
}

// [SECTION] Form

void draw_form(App& app) {
    ErrorCostState& st = app.error_cost;
    const InputSpec& input = app.effective_input();
    const bool text = input.mode == InputMode::Text;
    const bool decoder = text && resolve_model(input.model_dir).decoder;
    // The model's own measure follows the two cheap ones: an encoder's embedding_loss, a decoder's perplexity.
    const char* axes[] = {kErrorAxes[0], kErrorAxes[1], decoder ? kErrorAxes[3] : kErrorAxes[2]};
    auto combo = [](const char* label, std::string& value, const char* const* items, int count, float width) {
        ImGui::SetNextItemWidth(width);
        if (ImGui::BeginCombo(label, value.c_str())) {
            for (int k = 0; k < count; ++k)
                if (ImGui::Selectable(items[k], value == items[k])) value = items[k];
            ImGui::EndCombo();
        }
    };
    combo("cost (x)", st.x, kCostAxes, 3, 100);
    ImGui::SameLine();
    combo("error (y)", st.y, axes, text ? 3 : 2, 140);
    ImGui::SetItemTooltip("rel_err_out: output error vs exact softmax; mass_loss: 1 − mass_recall (masked variants); "
                          "embedding_loss (an encoder's text): 1 − cosine of the sentence embedding with the variant in "
                          "the Input layer, vs the exact encoder; perplexity (a decoder's text): the decoder's perplexity "
                          "with the variant in every head of the Input layer (the exact model's is the floor)");
    if ((!text || decoder) && st.y == "embedding_loss") st.y = "rel_err_out";
    if (!decoder && st.y == "perplexity") st.y = "rel_err_out";
    ImGui::SameLine();
    // The swept parameter: none, each card's budget, or a numeric parameter some chosen variant has.
    std::set<std::string> names;
    for (const VariantSlot& s : app.variants.slots)
        for (const ParamSpec& p : find_variant(s.id).info().params)
            if (p.kind == ParamKind::Int || p.kind == ParamKind::Real) names.insert(p.name);
    ImGui::SetNextItemWidth(120);
    if (ImGui::BeginCombo("sweep", st.param.empty() ? "none" : st.param.c_str())) {
        if (ImGui::Selectable("none", st.param.empty())) st.param.clear();
        if (ImGui::Selectable("budget", st.param == "budget")) st.param = "budget";
        ImGui::SetItemTooltip("each variant's own budget: keys per query, rank, features or projected length");
        for (const std::string& name : names)
            if (ImGui::Selectable(name.c_str(), st.param == name)) st.param = name;
        ImGui::EndCombo();
    }
    ImGui::SetItemTooltip("also run every instance at every value of this parameter: each becomes a curve");
    if (!st.param.empty()) {
        ImGui::SameLine();
        for (auto [label, value] : {std::pair<const char*, double*>{"from", &st.start}, {"to", &st.stop}, {"×", &st.factor}}) {
            ImGui::SameLine();
            ImGui::TextUnformatted(label);  // the label before its box: "from 4 to 64 × 2" reads as the range
            ImGui::SameLine();
            ImGui::SetNextItemWidth(60);
            ImGui::InputDouble((std::string("##") + label).c_str(), value, 0, 0, "%g");
        }
        ImGui::SetItemTooltip("geometric steps: from, from·×, from·×², … up to to");
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(90);
    ImGui::InputInt("repeats", &st.repeats);
    st.repeats = std::clamp(st.repeats, 1, kMaxRepeats);
    ImGui::SetItemTooltip("timed runs per point, in rounds that time every point once each: the median is drawn, "
                          "min..max as a bar; the front on time drops a point only where the bars separate");
    ImGui::SameLine();
    ImGui::Checkbox("log x", &st.log_x);
    ImGui::SameLine();
    ImGui::Checkbox("log y", &st.log_y);
}

// [SECTION] Plot

/// Where an error of 0 sits on a log axis: a decade below the smallest positive error on the map (full's error is
/// 0 or ~1e-7), so one exact point does not stretch the axis over many empty decades.
double log_floor(const std::vector<ErrorCostPoint>& pts, ErrorAxis y) {
    double smallest = 0;
    for (const ErrorCostPoint& p : pts)
        if (const auto e = error_of(p, y); e && *e > 0) smallest = smallest > 0 ? std::min(smallest, *e) : *e;
    return smallest > 0 ? smallest / 10 : 1e-9;
}

/// [lo, hi] widened so markers at the ends stay whole: by a share of the range, measured in decades on a log axis
/// (ImPlot's fit padding is linear, so a log axis kept clipping its top marker).
std::pair<double, double> padded_range(double lo, double hi, bool log) {
    constexpr double kShare = 0.1;
    if (log) {
        const double pad = std::max(0.05, kShare * std::log10(hi / lo));  // decades
        return {lo / std::pow(10.0, pad), hi * std::pow(10.0, pad)};
    }
    const double pad = hi > lo ? kShare * (hi - lo) : std::max(std::abs(hi) * 0.1, 1e-12);
    return {lo - pad, hi + pad};
}

/// A point's value on the error axis; on a log axis, values below `floor` are drawn at it.
double plotted_error(double e, bool log_y, double floor) { return log_y ? std::max(e, floor) : e; }

/// Where the map's points are drawn: the cost, and the error clamped to `floor` on a log axis.
struct MapScales {
    CostAxis x;
    ErrorAxis y;
    bool log_x, log_y;
    double floor;
    double cost(const ErrorCostPoint& p) const { return cost_of(p, x); }
    double error(double e) const { return plotted_error(e, log_y, floor); }
};

/// Axis limits that follow the drawn points every frame (as an auto-fit would), padded in the axis' own scale.
void setup_map_limits(const std::vector<ErrorCostPoint>& pts, const MapScales& s) {
    // Short log ranges (a few variants within one decade of time) get labelled 1-2-5 ticks.
    double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
    for (const ErrorCostPoint& p : pts) {  // only points that are drawn (they have this error measure)
        const auto e = error_of(p, s.y);
        const double c = s.cost(p);
        if (!e || (s.log_x && c <= 0)) continue;
        const double v = s.error(*e);
        const bool timed = s.x == CostAxis::Time && p.time_min_ms > 0;  // the bars must fit too
        x_lo = std::min(x_lo, timed ? p.time_min_ms : c), x_hi = std::max(x_hi, timed ? p.time_max_ms : c);
        y_lo = std::min(y_lo, v), y_hi = std::max(y_hi, v);
    }
    if (x_lo <= x_hi) {
        const auto [lo, hi] = padded_range(x_lo, x_hi, s.log_x);
        ImPlot::SetupAxisLimits(ImAxis_X1, lo, hi, ImPlotCond_Always);
        if (s.log_x) setup_log_ticks(ImAxis_X1, lo, hi);
    }
    if (y_lo <= y_hi) {
        const auto [lo, hi] = padded_range(y_lo, y_hi, s.log_y);
        ImPlot::SetupAxisLimits(ImAxis_Y1, lo, hi, ImPlotCond_Always);
        if (s.log_y) setup_log_ticks(ImAxis_Y1, lo, hi);
    }
}

/// How far a point's cost spreads below and above its drawn cost: min..max of its timed runs on time, nothing on
/// the exact axes.
std::pair<double, double> cost_spread(const ErrorCostPoint& p, CostAxis x) {
    if (x != CostAxis::Time) return {0, 0};
    return {std::max(0.0, p.time_ms - p.time_min_ms), std::max(0.0, p.time_max_ms - p.time_ms)};
}

/// The timed runs' min..max as horizontal bars under the series `id` just plotted (its colour, its legend entry).
void plot_time_spread(const std::string& id, const std::vector<double>& xs, const std::vector<double>& ys,
                      const std::vector<double>& neg, const std::vector<double>& pos) {
    ImPlotSpec spec;
    spec.LineColor = ImPlot::GetLastItemColor();  // error bars default to the text colour, which reads as the front's
    spec.Flags = ImPlotErrorBarsFlags_Horizontal;
    spec.LineWeight = 1.5f;
    spec.Size = 6;
    ImPlot::PlotErrorBars(id.c_str(), xs.data(), ys.data(), neg.data(), pos.data(), int(xs.size()), spec);
}

/// One series per instance: a curve over its swept values, or one marker; instances without this error measure
/// are added to `missing`.
void plot_map_instances(const ErrorCostMap& map, const std::vector<ErrorCostPoint>& pts, const MapScales& s,
                        std::vector<std::string>& missing) {
    const int instances = int(map.slot_uids.size());
    for (int k = 0; k < instances; ++k) {
        std::vector<std::array<double, 4>> xy;  // cost, error, and the cost's spread below and above it
        std::string label;
        for (size_t p = 0; p < pts.size(); ++p) {
            if (map.requests[p].instance != k) continue;
            const auto e = error_of(pts[p], s.y);
            if (label.empty())
                label = map.requests[p].swept.empty()
                            ? pts[p].instance
                            : curve_label(find_variant(pts[p].variant).info(), pts[p].params, map.requests[p].swept) +
                                  " (" + map.requests[p].swept + " swept)";
            if (!e) {
                if (std::find(missing.begin(), missing.end(), pts[p].instance) == missing.end())
                    missing.push_back(pts[p].instance);
                continue;
            }
            const auto [below, above] = cost_spread(pts[p], s.x);
            xy.push_back({s.cost(pts[p]), s.error(*e), below, above});
        }
        if (xy.empty()) continue;
        std::sort(xy.begin(), xy.end());
        std::vector<double> xs, ys, neg, pos;
        for (const auto& [a, b, lo, hi] : xy) xs.push_back(a), ys.push_back(b), neg.push_back(lo), pos.push_back(hi);
        ImPlotSpec spec;
        spec.Marker = ImPlotMarker_Circle;
        spec.MarkerSize = 5;
        const std::string id = label + "##" + std::to_string(k);  // the bars share it: one legend entry, one colour
        if (xs.size() > 1) ImPlot::PlotLine(id.c_str(), xs.data(), ys.data(), int(xs.size()), spec);
        else ImPlot::PlotScatter(id.c_str(), xs.data(), ys.data(), 1, spec);
        if (s.x == CostAxis::Time) plot_time_spread(id, xs, ys, neg, pos);
    }
}

/// The Pareto front: a white staircase through its points, each ringed.
void plot_pareto_front(const std::vector<ErrorCostPoint>& pts, const MapScales& s) {
    std::vector<std::pair<double, double>> front;
    for (const ErrorCostPoint& p : pts)
        if (p.pareto) front.push_back({s.cost(p), s.error(*error_of(p, s.y))});
    std::sort(front.begin(), front.end());
    if (!front.empty()) {
        std::vector<double> fx, fy;
        for (size_t k = 0; k < front.size(); ++k) {
            if (k > 0) fx.push_back(front[k].first), fy.push_back(front[k - 1].second);  // staircase: cost first
            fx.push_back(front[k].first), fy.push_back(front[k].second);
        }
        ImPlotSpec spec;
        spec.LineColor = ImVec4(1, 1, 1, 0.8f);
        spec.LineWeight = 2;
        ImPlot::PlotLine("Pareto front", fx.data(), fy.data(), int(fx.size()), spec);
        ImDrawList* dl = ImPlot::GetPlotDrawList();
        ImPlot::PushPlotClipRect();
        for (const auto& [a, b] : front) dl->AddCircle(ImPlot::PlotToPixels(a, b), 9, IM_COL32(255, 255, 255, 230), 0, 2);
        ImPlot::PopPlotClipRect();
    }
}

/// The point nearest the mouse (within 12 px) names itself in a tooltip; a click sets its swept value on its slot.
void hover_map_point(App& app, const ErrorCostMap& map, const std::vector<ErrorCostPoint>& pts, const MapScales& s) {
    const ImVec2 mouse = ImGui::GetMousePos();
    int best = -1;
    float best_d = 12 * 12;
    for (size_t p = 0; p < pts.size(); ++p) {
        const auto e = error_of(pts[p], s.y);
        if (!e) continue;
        const ImVec2 q = ImPlot::PlotToPixels(s.cost(pts[p]), s.error(*e));
        const float d = (q.x - mouse.x) * (q.x - mouse.x) + (q.y - mouse.y) * (q.y - mouse.y);
        if (d < best_d) best_d = d, best = int(p);
    }
    if (best >= 0) {
        const ErrorCostPoint& p = pts[size_t(best)];
        const ErrorCostRequest& r = map.requests[size_t(best)];
        const VariantInfo& info = find_variant(p.variant).info();
        std::string params;
        for (const ParamSpec& spec : info.params)
            if (p.params.has(spec.name)) params += (params.empty() ? "" : ", ") + p.params.value_text(spec);
        const int uid = map.slot_uids[size_t(r.instance)];
        auto slot = std::find_if(app.variants.slots.begin(), app.variants.slots.end(),
                                 [uid](const VariantSlot& slot_) { return slot_.uid == uid; });
        ImGui::BeginTooltip();
        ImGui::Text("%s%s", p.instance.c_str(), p.pareto ? "  (on the Pareto front)" : "");
        ImGui::TextDisabled("%s", params.c_str());
        ImGui::Text("time %.3f ms median, %.3f..%.3f ms over %d runs (%s) · %.3g FLOPs · peak %.3g MiB", p.time_ms,
                    p.time_min_ms, p.time_max_ms, p.repeats, p.time_clock == "cpu" ? "CPU time" : p.time_clock.c_str(),
                    p.flops, p.peak_bytes / 1048576.0);
        if (p.rel_err_out) ImGui::Text("rel_err_out %.3e (vs exact softmax, mean over heads)", *p.rel_err_out);
        if (p.mass_loss) ImGui::Text("1 − mass_recall %.4f (mean over heads)", *p.mass_loss);
        if (p.embedding_loss) ImGui::Text("1 − embedding cosine %.3e", *p.embedding_loss);
        if (p.perplexity) ImGui::Text("perplexity %.3f with the variant in the Input layer", *p.perplexity);
        if (slot == app.variants.slots.end()) ImGui::TextDisabled("its Variants slot was removed");
        else if (r.swept.empty()) ImGui::TextDisabled("this is the slot's current setting");
        else ImGui::TextDisabled("click: set %s = %g on this Variants slot", r.swept.c_str(), p.params.get(r.swept));
        ImGui::EndTooltip();
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && slot != app.variants.slots.end() && !r.swept.empty()) {
            slot->params.set(r.swept, p.params.get(r.swept));
            slot->edit_error.clear();
            app.dirty = true;
        }
    }
}

void draw_map(App& app, const ErrorCostMap& map, ImVec2 size) {
    ErrorCostState& st = app.error_cost;
    const CostAxis x = parse_cost_axis(st.x);
    const ErrorAxis y = parse_error_axis(st.y);
    std::vector<ErrorCostPoint> pts = map.points;
    mark_pareto_front(pts, x, y);  // the axes change without a re-run: the front follows them
    std::vector<std::string> missing;
    const MapScales scales{x, y, st.log_x, st.log_y, log_floor(pts, y)};
    if (plot_fits(size) && ImPlot::BeginPlot("##errmap", size, ImPlotFlags_NoMouseText)) {
        ImPlot::SetupAxes(cost_axis_label(x, pts).c_str(), error_axis_label(y));
        if (st.log_x) ImPlot::SetupAxisScale(ImAxis_X1, ImPlotScale_Log10);
        if (st.log_y) ImPlot::SetupAxisScale(ImAxis_Y1, ImPlotScale_Log10);
        setup_map_limits(pts, scales);
        ImPlot::SetupLegend(ImPlotLocation_NorthEast, ImPlotLegendFlags_Outside);
        plot_map_instances(map, pts, scales, missing);
        plot_pareto_front(pts, scales);
        if (ImPlot::IsPlotHovered()) hover_map_point(app, map, pts, scales);
        ImPlot::EndPlot();
    }
    for (const std::string& m : missing)
        ImGui::TextDisabled("%s: no %s (it has no mask, or the measure does not apply)", m.c_str(), st.y.c_str());
}

}  // namespace

// [SECTION] Panel

void draw_error_cost_panel(App& app, const PanelEntry& self) {
    ErrorCostState& st = app.error_cost;
    const bool visible = ImGui::Begin(self.window);
    st.visible = visible;
    const std::string key = "generation " + std::to_string(app.runs.posted_generation()) + '\n' + slots_key(app) +
                            st.y + '\n' + st.param + '\n' + std::to_string(st.start) + ':' + std::to_string(st.stop) +
                            ':' + std::to_string(st.factor) + '\n' + std::to_string(st.repeats);
    std::string form_error;
    try {
        if (!st.param.empty()) swept_values(st);  // a bad range is said here, not thrown from the worker
        parse_cost_axis(st.x), parse_error_axis(st.y);
    } catch (const Error& e) {
        form_error = e.what();
    }
    st.map.update(app.runs, key, visible && form_error.empty() && !app.variants.slots.empty(), worker_free_for_views(app),
                  [&app] { return make_job(app); });
    if (!visible) {
        ImGui::End();
        return;
    }
    draw_form(app);
    if (!form_error.empty()) {
        ImGui::TextColored(ImVec4(1, 0.5f, 0.45f, 1), "%s: fix the sweep range", form_error.c_str());
    } else if (app.variants.slots.empty()) {
        hint_text("Add variants in the Variants panel: each instance becomes a point here.");
    } else if (!st.map.error.empty() && !st.map.stale(key)) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.5f, 0.45f, 1));
        ImGui::TextWrapped("No map: %s", st.map.error.c_str());
        ImGui::PopStyleColor();
    } else if (!st.map.result) {
        hint_text("Running every instance on the input (and every swept value), then timing them all in rounds…");
    } else {
        const ErrorCostMap& map = *st.map.result;
        ImGui::TextDisabled("%zu points on %s (n = %d, H = %d)%s; y: %s — lower left is better; ringed = Pareto front "
                            "(no other point is as good and, on time, cheaper beyond the bars)",
                            map.points.size(), map.source.c_str(), map.n, map.heads,
                            st.map.stale(key) ? " (updating…)" : "",
                            st.y == "rel_err_out" ? "‖O_h − O_exact,h‖ / ‖O_exact,h‖ against exact softmax, mean over heads h"
                            : st.y == "mass_loss" ? "share of the exact softmax mass outside the pattern, mean over heads"
                            : st.y == "perplexity" ? "the decoder's perplexity with the variant in every head of the Input layer"
                                                   : "1 − cosine of the sentence embedding to the exact encoder's");
        for (const std::string& note : map.notes) ImGui::TextDisabled("%s", note.c_str());
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        draw_map(app, map, ImVec2(avail.x, std::max(160.0f, avail.y - ImGui::GetTextLineHeightWithSpacing() * 2)));
    }
    ImGui::End();
}

// [SECTION] Session

void save_error_cost_session(const App& app, nlohmann::json& j) {
    const ErrorCostState& st = app.error_cost;
    j["error_cost"] = {{"x", st.x}, {"y", st.y}, {"param", st.param}, {"start", st.start}, {"stop", st.stop},
                       {"factor", st.factor}, {"repeats", st.repeats}, {"log_x", st.log_x}, {"log_y", st.log_y}};
}

void load_error_cost_session(App& app, const nlohmann::json& j) {
    ErrorCostState st;
    if (j.contains("error_cost")) {
        const nlohmann::json& e = j["error_cost"];
        const std::string where = "the session's error_cost";
        st.x = json_string(e, "x", st.x, where), st.y = json_string(e, "y", st.y, where);
        try {
            parse_cost_axis(st.x), parse_error_axis(st.y);
        } catch (const Error& err) {
            throw Error(where + ": " + err.what() + ": fix the session file");
        }
        st.param = json_string(e, "param", "", where);
        st.start = json_number(e, "start", st.start, 1e-9, 1e9, where);
        st.stop = json_number(e, "stop", st.stop, 1e-9, 1e9, where);
        st.factor = json_number(e, "factor", st.factor, 1.0001, 1e6, where);
        st.repeats = json_int(e, "repeats", st.repeats, 1, kMaxRepeats, where);
        st.log_x = json_bool(e, "log_x", true, where), st.log_y = json_bool(e, "log_y", true, where);
    }
    app.error_cost = st;
}

bool error_cost_busy(const App& app) { return app.error_cost.map.pending; }

}  // namespace attnscope::gui

namespace attnscope::gui {

PanelFigure error_cost_panel_figure(const App& app) {
    const ErrorCostState& st = app.error_cost;
    const auto map = st.map.result;
    if (!map || map->points.empty()) return {{}, "the map is not computed yet: show the Error–cost tab"};
    const CostAxis x = parse_cost_axis(st.x);
    const ErrorAxis y = parse_error_axis(st.y);
    std::vector<ErrorCostPoint> points = map->points;
    mark_pareto_front(points, x, y);  // the front of the axes shown, as the panel marks it
    return {chart_builder(figure::errmap_figure(points, x, y), gui_figure_title(app)), ""};
}

}  // namespace attnscope::gui

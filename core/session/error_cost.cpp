// attnscope — the error–cost map (see error_cost.h).
#include "core/session/error_cost.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "core/variants/instance_label.h"
#include "core/variants/registry.h"
#include "core/session/metric_sweep.h"
#include "core/session/variant_json.h"

namespace attnscope {

CostAxis parse_cost_axis(const std::string& text) {
    if (text == "time") return CostAxis::Time;
    if (text == "flops") return CostAxis::Flops;
    if (text == "memory") return CostAxis::Memory;
    throw Error("cost axis '" + text + "' is not time, flops or memory");
}

ErrorAxis parse_error_axis(const std::string& text) {
    if (text == "rel_err_out") return ErrorAxis::RelErrOut;
    if (text == "mass_loss") return ErrorAxis::MassLoss;
    if (text == "embedding_loss") return ErrorAxis::EmbeddingLoss;
    throw Error("error axis '" + text + "' is not rel_err_out, mass_loss (1 − mass_recall) or embedding_loss "
                "(1 − embedding cosine, text input)");
}

double cost_of(const ErrorCostPoint& p, CostAxis axis) {
    return axis == CostAxis::Time ? p.time_ms : axis == CostAxis::Flops ? p.flops : p.peak_bytes;
}

std::optional<double> error_of(const ErrorCostPoint& p, ErrorAxis axis) {
    return axis == ErrorAxis::RelErrOut ? p.rel_err_out : axis == ErrorAxis::MassLoss ? p.mass_loss : p.embedding_loss;
}

namespace {

/// Timed runs per point: the median of three keeps one slow first run (cold caches, a busy core) off the map.
constexpr int kTimedRuns = 3;

/// The median wall time of `first_ms` and kTimedRuns − 1 more timed executions of the same request.
double median_time_ms(const Heads& heads, const VariantRequest& request, double first_ms, Backend& backend) {
    std::vector<double> times = {first_ms};
    const Variant& variant = find_variant(request.id);
    for (int k = 1; k < kTimedRuns; ++k) times.push_back(run_variant_timed(heads, variant, request.params, backend).cost.time_ms);
    std::nth_element(times.begin(), times.begin() + kTimedRuns / 2, times.end());
    return times[kTimedRuns / 2];
}

}  // namespace

std::vector<ErrorCostPoint> error_cost_points(const Heads& heads, const std::vector<VariantRequest>& requests,
                                              Backend& backend, const EmbeddingCosine& embedding) {
    ReferenceCache refs(heads, false);
    std::vector<ErrorCostPoint> out;
    for (const VariantRequest& request : requests) {
        const RunResult r = run_variant(heads, request, RunOptions{}, backend, &refs);
        ErrorCostPoint p;
        p.variant = r.variant;
        p.instance = instance_label(find_variant(r.variant).info(), r.params);
        p.params = r.params;
        p.time_ms = median_time_ms(heads, request, r.cost.time_ms, backend), p.flops = r.cost.flops, p.peak_bytes = double(r.cost.peak_bytes);
        p.rel_err_out = r.metrics.rel_err_out;
        if (r.metrics.mass_recall) p.mass_loss = std::max(0.0, 1.0 - *r.metrics.mass_recall);  // recall may round past 1
        if (embedding)
            if (const auto cosine = embedding(request, backend)) p.embedding_loss = std::max(0.0, 1.0 - *cosine);
        out.push_back(std::move(p));
    }
    return out;
}

std::vector<ErrorCostRequest> expand_error_cost_requests(const std::vector<VariantRequest>& instances,
                                                         const std::string& name, const std::vector<double>& values,
                                                         std::vector<std::string>* notes) {
    std::vector<ErrorCostRequest> out;
    for (size_t k = 0; k < instances.size(); ++k) {
        const VariantRequest& instance = instances[k];
        if (name.empty()) {
            out.push_back({instance, int(k), ""});
            continue;
        }
        std::string swept;
        try {
            swept = swept_parameter(find_variant(instance.id).info(), name);
        } catch (const Error& e) {  // e.g. full has no budget: it stays on the map as one reference point
            if (notes) notes->push_back(std::string(e.what()) + " — shown as one point");
            out.push_back({instance, int(k), ""});
            continue;
        }
        if (swept == "n") throw Error("the error–cost map compares variants on one input: sweep a parameter or budget, not n");
        for (double v : values) {
            std::vector<std::pair<std::string, std::string>> assignments = assignments_of(instance, swept);
            std::ostringstream text;
            text << std::setprecision(17) << v;
            assignments.emplace_back(swept, text.str());
            out.push_back({parse_variant_request(instance.id, assignments), int(k), swept});
        }
    }
    return out;
}

void mark_pareto_front(std::vector<ErrorCostPoint>& points, CostAxis cost, ErrorAxis error) {
    for (ErrorCostPoint& p : points) {
        const std::optional<double> e = error_of(p, error);
        p.pareto = false;
        if (!e) continue;
        const double c = cost_of(p, cost);
        bool dominated = false;
        for (const ErrorCostPoint& q : points) {
            const std::optional<double> f = error_of(q, error);
            if (&q == &p || !f) continue;
            const double d = cost_of(q, cost);
            if (d <= c && *f <= *e && (d < c || *f < *e)) dominated = true;
        }
        p.pareto = !dominated;
    }
}

}  // namespace attnscope

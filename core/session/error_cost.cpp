// attnscope — the error–cost map (see error_cost.h).
#include "core/session/error_cost.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "core/variants/instance_label.h"
#include "core/variants/registry.h"
#include "core/session/metric_sweep.h"
#include "core/session/variant_json.h"
#include "core/error.h"

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
    if (text == "perplexity") return ErrorAxis::Perplexity;
    throw Error("error axis '" + text + "' is not rel_err_out, mass_loss (1 − mass_recall), embedding_loss "
                "(1 − embedding cosine, an encoder's text) or perplexity (a decoder's text)");
}

double cost_of(const ErrorCostPoint& p, CostAxis axis) {
    return axis == CostAxis::Time ? p.time_ms : axis == CostAxis::Flops ? p.flops : p.peak_bytes;
}

std::optional<double> error_of(const ErrorCostPoint& p, ErrorAxis axis) {
    switch (axis) {
        case ErrorAxis::RelErrOut: return p.rel_err_out;
        case ErrorAxis::MassLoss: return p.mass_loss;
        case ErrorAxis::EmbeddingLoss: return p.embedding_loss;
        case ErrorAxis::Perplexity: return p.perplexity;
    }
    return std::nullopt;
}

namespace {

/// A point's metrics from one full run (analyse included) against the shared reference; it also warms the point up.
ErrorCostPoint measure_point(const Heads& heads, const VariantRequest& request, Backend& backend, ReferenceCache& refs,
                             const ErrorCostOptions& options) {
    const RunResult r = run_variant(heads, request, RunOptions{}, backend, &refs);
    ErrorCostPoint p;
    p.variant = r.variant;
    p.instance = instance_label(find_variant(r.variant).info(), r.params);
    p.params = r.params;
    p.flops = r.cost.flops, p.peak_bytes = double(r.cost.peak_bytes);
    p.rel_err_out = r.metrics.rel_err_out;
    if (r.metrics.mass_recall) p.mass_loss = std::max(0.0, 1.0 - *r.metrics.mass_recall);  // recall may round past 1
    if (options.embedding)
        if (const auto cosine = options.embedding(request, backend)) p.embedding_loss = std::max(0.0, 1.0 - *cosine);
    if (options.perplexity) p.perplexity = options.perplexity(request, backend);
    return p;
}

/// One point's timed run: execute() of a plan made beforehand (plan is untimed host work, as in the bench). On the
/// CPU the sample is CPU time of the work's threads, which another process cannot inflate; on a device, CPU time
/// says nothing (the host waits), so the backend's own clock.
struct TimedPoint {
    const Variant* variant = nullptr;
    std::unique_ptr<Plan> plan;
    std::vector<double> wall_ms;  // every run's wall time, beside the samples
    std::string clock;            // what the samples measure
    double run(const Heads& heads, Backend& backend) {
        const double cpu0 = work_cpu_ms();
        const TimedExecution t = execute_timed(*variant, *plan, heads, backend);
        const double cpu_ms = work_cpu_ms() - cpu0;
        wall_ms.push_back(t.cost.wall_ms);
        const bool host = t.cost.clock == "wall";
        clock = host ? "cpu" : t.cost.clock;
        return host ? cpu_ms : t.cost.time_ms;
    }
};

}  // namespace

std::vector<ErrorCostPoint> error_cost_points(const Heads& heads, const std::vector<VariantRequest>& requests,
                                              Backend& backend, const ErrorCostOptions& options) {
    if (options.repeats < 1)
        throw Error("repeats = " + std::to_string(options.repeats) + ": each point needs at least 1 timed run");
    ReferenceCache refs(heads, false);
    std::vector<ErrorCostPoint> out;
    std::vector<TimedPoint> timed(requests.size());
    std::vector<std::function<double()>> runs;
    for (size_t k = 0; k < requests.size(); ++k) {
        if (options.proceed && !options.proceed()) return {};
        out.push_back(measure_point(heads, requests[k], backend, refs, options));
        timed[k].variant = &find_variant(requests[k].id);
        timed[k].plan = timed[k].variant->plan(heads, timed[k].variant->resolve(requests[k].params, heads.shape()), nullptr);
        runs.push_back([&heads, &backend, &t = timed[k]] { return t.run(heads, backend); });
    }
    const std::vector<TimingStats> stats = time_in_rounds(runs, options.repeats, options.proceed);
    if (stats.size() != out.size()) return {};
    for (size_t k = 0; k < out.size(); ++k) {
        ErrorCostPoint& p = out[k];
        p.time_ms = stats[k].median_ms, p.time_min_ms = stats[k].min_ms, p.time_max_ms = stats[k].max_ms;
        p.repeats = int(stats[k].samples_ms.size());
        p.wall_ms = summarize_times(timed[k].wall_ms).median_ms;
        p.time_clock = timed[k].clock;
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

bool dominates(const ErrorCostPoint& q, const ErrorCostPoint& p, CostAxis cost, ErrorAxis error) {
    const std::optional<double> eq = error_of(q, error), ep = error_of(p, error);
    if (!eq || !ep || *eq > *ep) return false;
    // Measured time: only a separation of the spreads says q is cheaper; anything less is the machine's noise.
    if (cost == CostAxis::Time) return q.time_max_ms < p.time_min_ms;
    const double cq = cost_of(q, cost), cp = cost_of(p, cost);
    return cq <= cp && (cq < cp || *eq < *ep);
}

void mark_pareto_front(std::vector<ErrorCostPoint>& points, CostAxis cost, ErrorAxis error) {
    for (ErrorCostPoint& p : points) {
        p.pareto = false;
        if (!error_of(p, error)) continue;
        p.pareto = std::none_of(points.begin(), points.end(),
                                [&](const ErrorCostPoint& q) { return &q != &p && dominates(q, p, cost, error); });
    }
}

}  // namespace attnscope

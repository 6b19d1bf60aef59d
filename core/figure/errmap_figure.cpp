// attnscope — the error–cost figure (see chart_figures.h).
#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.h"
#include "core/figure/chart_figures.h"
#include "core/variants/registry.h"

namespace attnscope::figure {

namespace {

std::string cost_label(CostAxis axis, const ErrorCostPoint& any) {
    switch (axis) {
        case CostAxis::Time:
            return "time per run (ms, " + std::string(any.time_clock == "cpu" ? "CPU time" : any.time_clock) + "): median of " +
                   std::to_string(any.repeats) + " interleaved runs, bars min–max";
        case CostAxis::Flops: return "analytic FLOPs per run";
        case CostAxis::Memory: return "peak tracked memory (bytes)";
    }
    return "";
}

std::string error_label(ErrorAxis axis) {
    switch (axis) {
        case ErrorAxis::RelErrOut: return "rel_err_out: output error vs exact softmax";
        case ErrorAxis::MassLoss: return "1 − exact softmax mass kept";
        case ErrorAxis::EmbeddingLoss: return "1 − sentence-embedding cosine vs the exact encoder";
        case ErrorAxis::Perplexity: return "the decoder's perplexity with the variant (the exact model's is the floor)";
    }
    return "";
}

}  // namespace

PlotFigure errmap_figure(const std::vector<ErrorCostPoint>& points, CostAxis cost, ErrorAxis error) {
    // One series per variant, its instances in the order they were asked for (a swept parameter reads as a curve).
    std::vector<std::string> order;
    std::map<std::string, std::vector<const ErrorCostPoint*>> by_variant;
    for (const ErrorCostPoint& p : points) {
        if (!error_of(p, error)) continue;  // the error does not apply (e.g. mass of a kernel method)
        if (!by_variant.count(p.variant)) order.push_back(p.variant);
        by_variant[p.variant].push_back(&p);
    }
    if (order.empty()) throw Error("no point of the error–cost map has this error axis: choose another --y");
    PlotPanel panel;
    panel.title = "Error against cost";
    panel.subtitle = "every instance on one input, mean over heads; ringed: on the Pareto front";
    panel.x.label = cost_label(cost, points.front());
    panel.y.label = error_label(error);
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    bool zero_error = false;
    for (const std::string& id : order) {
        const auto& list = by_variant[id];
        PlotSeries s;
        s.name = find_variant(id).info().name;
        s.line = list.size() > 1;
        for (const ErrorCostPoint* p : list) {
            const double x = cost_of(*p, cost), y = *error_of(*p, error);
            s.x.push_back(x), s.y.push_back(y), s.labels.push_back(p->instance), s.highlight.push_back(p->pareto);
            if (cost == CostAxis::Time) s.x_lo.push_back(p->time_min_ms), s.x_hi.push_back(p->time_max_ms);
            xlo = std::min(xlo, x), xhi = std::max(xhi, x);
            if (y > 0) ylo = std::min(ylo, y), yhi = std::max(yhi, y);
            zero_error = zero_error || y <= 0;
        }
        panel.series.push_back(std::move(s));
    }
    panel.x.log = xlo > 0 && xhi / xlo > 10;
    panel.y.log = !zero_error && ylo > 0 && yhi / ylo > 100;
    PlotFigure f;
    f.panels.push_back(std::move(panel));
    f.legend_notes.push_back(cost == CostAxis::Time
                                 ? "ring: on the Pareto front — no other point is at most as wrong with its whole time spread below"
                                 : "ring: on the Pareto front — no other point is at most as costly and at most as wrong");
    return f;
}

}  // namespace attnscope::figure

// attnscope — the timing and memory figure (see chart_figures.h).
#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.h"
#include "core/figure/chart_figures.h"

namespace attnscope::figure {

namespace {

/// A dashed guide ∝ n^power through (n0, v0) over [n0, n1].
PlotSeries guide(const std::string& name, double n0, double n1, double v0, double power) {
    PlotSeries g;
    g.name = name, g.dashed = true, g.markers = false;
    g.ink = power > 1 ? PlotSeries::Ink::Text : PlotSeries::Ink::Muted;
    g.x = {n0, n1};
    g.y = {v0, v0 * std::pow(n1 / n0, power)};
    return g;
}

}  // namespace

PlotFigure performance_figure(const BenchReport& report) {
    std::vector<std::string> labels;
    std::map<std::string, std::vector<const BenchPoint*>> by_label;
    for (const BenchPoint& p : report.points) {
        if (!p.measured()) continue;
        if (!by_label.count(p.label)) labels.push_back(p.label);
        by_label[p.label].push_back(&p);
    }
    if (labels.empty()) throw Error("no point of the benchmark was measured: nothing to draw (see the bench's reasons)");
    PlotPanel time, memory;
    time.title = "Time against n";
    memory.title = "Peak tracked memory against n";
    const std::string shape = "H = " + std::to_string(report.heads) + ", d = " + std::to_string(report.dim) + ", backend " + report.backend;
    time.subtitle = "median of " + std::to_string(report.plan.runs) + " timed runs (band: min–max), " + shape;
    memory.subtitle = "peak bytes tracked during one run (outputs included), " + shape;
    time.x.label = memory.x.label = "sequence length n";
    time.x.log = memory.x.log = time.y.log = memory.y.log = true;
    time.y.label = "time per run (ms)";
    memory.y.label = "peak tracked memory (MiB)";
    for (const std::string& label : labels) {
        PlotSeries t, m;
        t.name = m.name = label;
        for (const BenchPoint* p : by_label[label]) {
            t.x.push_back(p->n), t.y.push_back(p->time.median_ms), t.y_lo.push_back(p->time.min_ms), t.y_hi.push_back(p->time.max_ms);
            m.x.push_back(p->n), m.y.push_back(double(p->peak_bytes) / 1048576.0);
            if (std::find(time.x.ticks.begin(), time.x.ticks.end(), double(p->n)) == time.x.ticks.end())
                time.x.ticks.push_back(p->n), memory.x.ticks.push_back(p->n);
        }
        time.series.push_back(std::move(t));
        memory.series.push_back(std::move(m));
    }
    // Slope guides through the first curve's first point, so a curve's slope reads as O(n) or O(n²).
    const auto& first = by_label[labels.front()];
    const double n0 = first.front()->n, n1 = first.back()->n;
    if (n1 > n0) {
        time.series.push_back(guide("O(n) guide", n0, n1, first.front()->time.median_ms, 1));
        time.series.push_back(guide("O(n²) guide", n0, n1, first.front()->time.median_ms, 2));
        memory.series.push_back(guide("O(n) guide", n0, n1, double(first.front()->peak_bytes) / 1048576.0, 1));
        memory.series.push_back(guide("O(n²) guide", n0, n1, double(first.front()->peak_bytes) / 1048576.0, 2));
    }
    PlotFigure f;
    f.panels = {std::move(time), std::move(memory)};
    f.legend_notes.push_back("measured " + report.date_utc + " on " + report.data + " input; skipped or failed points are left out");
    return f;
}

}  // namespace attnscope::figure

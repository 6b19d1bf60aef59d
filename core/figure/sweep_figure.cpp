// attnscope — the sweep figure (see chart_figures.h).
#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/figure/chart_figures.h"

namespace attnscope::figure {

PlotFigure sweep_figure(const std::vector<SweepCurve>& curves, const std::string& param, const MetricSpec& metric,
                        bool geometric, int seeds) {
    if (curves.empty()) throw Error("a sweep figure needs at least one curve");
    PlotPanel p;
    p.title = std::string(metric.id) + " against " + param;
    p.subtitle = "mean over " + std::to_string(seeds) + " seed" + (seeds == 1 ? "" : "s") + " (line), min–max (band), all heads";
    p.x.label = param;
    p.x.log = geometric;
    p.y.label = metric.axis_label;
    double lo = INFINITY, hi = 0;
    for (const SweepCurve& c : curves) {
        PlotSeries s;
        s.name = c.name;
        for (const MetricSweepPoint& q : c.points) {
            if (q.samples == 0) continue;  // the metric did not apply at this value
            s.x.push_back(q.value), s.y.push_back(q.mean), s.y_lo.push_back(q.min), s.y_hi.push_back(q.max);
            if (std::find(p.x.ticks.begin(), p.x.ticks.end(), q.value) == p.x.ticks.end()) p.x.ticks.push_back(q.value);
            if (q.min > 0) lo = std::min(lo, q.min);
            hi = std::max(hi, q.max);
        }
        p.series.push_back(std::move(s));
    }
    // An error spanning decades reads on a log axis; shares and ratios near 1 on a linear one.
    p.y.log = lo > 0 && hi / lo > 100;
    PlotFigure f;
    f.panels.push_back(std::move(p));
    return f;
}

}  // namespace attnscope::figure

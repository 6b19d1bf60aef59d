#include "core/figure/perplexity_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace attnscope::figure {

namespace {

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::vector<double> positions(size_t count) {
    std::vector<double> x(count);
    for (size_t t = 0; t < count; ++t) x[t] = double(t);
    return x;
}

}  // namespace

std::vector<double> running_mean(const std::vector<double>& values, int width) {
    const int n = int(values.size()), half = std::max(0, width / 2);
    std::vector<double> prefix(static_cast<size_t>(n) + 1, 0.0), out(static_cast<size_t>(n));
    for (int t = 0; t < n; ++t) prefix[size_t(t) + 1] = prefix[size_t(t)] + values[size_t(t)];
    for (int t = 0; t < n; ++t) {
        const int a = std::max(0, t - half), b = std::min(n, t + half + 1);
        out[size_t(t)] = (prefix[size_t(b)] - prefix[size_t(a)]) / (b - a);
    }
    return out;
}

PlotFigure perplexity_figure(const std::vector<double>& exact_nll, double exact_perplexity,
                             const std::vector<PerplexityCurve>& curves, const std::string& layers) {
    if (curves.empty()) throw Error("a perplexity figure needs at least one what-if");
    PlotPanel p;
    p.title = "Next-token loss with the attention of " + layers + " replaced";
    p.subtitle = "per position t: −log p(token t+1 | tokens ≤ t), running mean over " + std::to_string(kNllSmoothing) +
                 " positions; every head";
    p.x.label = "position t (predicting token t + 1)";
    p.y.label = "NLL (nats)";
    PlotSeries exact;
    exact.name = "exact model";
    exact.x = positions(exact_nll.size());
    exact.y = running_mean(exact_nll, kNllSmoothing);
    exact.markers = false;
    exact.ink = PlotSeries::Ink::Text;
    p.series.push_back(std::move(exact));
    p.lines.push_back("exact model: perplexity " + fixed(exact_perplexity, 3) + " over " +
                      std::to_string(exact_nll.size()) + " positions");
    for (const PerplexityCurve& c : curves) {
        if (c.result.nll.size() != exact_nll.size())
            throw Error("the what-if of " + c.name + " has " + std::to_string(c.result.nll.size()) +
                        " positions, the exact model " + std::to_string(exact_nll.size()));
        PlotSeries s;
        s.name = c.name;
        s.x = positions(c.result.nll.size());
        s.y = running_mean(c.result.nll, kNllSmoothing);
        s.markers = false;
        p.series.push_back(std::move(s));
        p.lines.push_back(c.name + ": perplexity " + fixed(c.result.perplexity, 3) + " (Δ " +
                          (c.result.delta_perplexity >= 0 ? "+" : "") + fixed(c.result.delta_perplexity, 3) +
                          " vs exact), KL(exact ‖ it) " + fixed(c.result.mean_kl, 4) + " nats, top-1 agreement " +
                          fixed(c.result.top1_agreement, 3));
    }
    PlotFigure f;
    f.panels.push_back(std::move(p));
    return f;
}

PlotFigure streaming_figure(const StreamingTable& t) {
    if (t.rows.empty()) throw Error("a StreamingLLM figure needs at least one window");
    const std::string s = std::to_string(t.sinks);
    PlotPanel curve;
    curve.title = "StreamingLLM: perplexity against the cache's window (" + std::to_string(t.tokens) + " tokens)";
    curve.subtitle = "every layer and head; positions 0 … n − 2";
    curve.x.label = "recent tokens w in the cache";
    curve.x.log = true;
    curve.y.label = "perplexity";
    curve.y.log = true;
    PlotSeries window, cache, text, full;
    window.name = "window alone (w recent tokens)";
    cache.name = s + " sinks + window, cache positions (the paper's rule)";
    text.name = s + " sinks + window, text positions (mask only)";
    full.name = "full attention";
    full.ink = PlotSeries::Ink::Text;
    full.dashed = true, full.markers = false;
    PlotPanel ratio;
    ratio.title = "Each method ÷ full attention on the same positions";
    ratio.subtitle = "1 = no loss; recompute: over its sampled positions only";
    ratio.x = curve.x;
    ratio.y.label = "perplexity ÷ full attention's";
    ratio.y.log = true;
    PlotSeries window_r = window, cache_r = cache, text_r = text, recompute_r;
    recompute_r.name = "recompute each window (" + std::to_string(t.recompute_positions.size()) + " sampled positions)";
    recompute_r.ink = PlotSeries::Ink::Muted;
    for (const StreamingRow& r : t.rows) {
        const double w = r.window;
        for (auto [series, value] : {std::pair{&window, r.window_only}, std::pair{&cache, r.sinks_cache},
                                     std::pair{&text, r.sinks_text}}) {
            series->x.push_back(w), series->y.push_back(value);
        }
        full.x.push_back(w), full.y.push_back(t.full);
        for (auto [series, value] : {std::pair{&window_r, r.window_only}, std::pair{&cache_r, r.sinks_cache},
                                     std::pair{&text_r, r.sinks_text}})
            series->x.push_back(w), series->y.push_back(value / t.full);
        if (!t.recompute_positions.empty()) recompute_r.x.push_back(w), recompute_r.y.push_back(r.recompute / r.full_at_sampled);
        curve.x.ticks.push_back(w);
        ratio.x.ticks.push_back(w);
        curve.lines.push_back("w = " + std::to_string(r.window) + ": window " + fixed(r.window_only, 2) + ", sinks (cache) " +
                              fixed(r.sinks_cache, 2) + ", sinks (text) " + fixed(r.sinks_text, 2) + ", full " +
                              fixed(t.full, 2));
    }
    curve.series = {window, cache, text, full};
    ratio.series = {window_r, cache_r, text_r};
    if (!recompute_r.x.empty()) ratio.series.push_back(recompute_r);
    PlotPanel mass;
    mass.title = "Exact attention on the first " + s + " tokens, per layer";
    mass.subtitle = "mean over heads and query rows of the causal softmax weight on keys 0 … " + std::to_string(t.sinks - 1);
    mass.x.label = "layer";
    mass.y.label = "share of each row's attention";
    mass.y.min = 0, mass.y.max = 1;
    PlotSeries bars;
    bars.name = "attention on the sinks";
    bars.bars = true, bars.line = false, bars.markers = false;
    for (size_t l = 0; l < t.sink_mass.size(); ++l) bars.x.push_back(double(l)), bars.y.push_back(t.sink_mass[l]);
    mass.series = {bars};
    PlotFigure f;
    f.panels = {std::move(curve), std::move(ratio), std::move(mass)};
    return f;
}

}  // namespace attnscope::figure

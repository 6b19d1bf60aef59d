// attnscope — the chart figures of the panels beside the matrices, built from the same data the panels draw:
// spectra (σ_i, the cumulative share, the layers × heads map), sweep curves, the error–cost map, heads at a
// glance, attention sinks and the timing/memory curves. Each returns a PlotFigure (plot.h) whose titles name the instances and
// whose notes say what every number is measured against. Used by `attnscope figure --view …` and the GUI's
// File → Export figure of this panel.
#pragma once
#include <string>
#include <vector>

#include "core/analysis/layer_spectra.h"
#include "core/analysis/spectrum.h"
#include "core/bench/engine.h"
#include "core/figure/plot.h"
#include "core/session/error_cost.h"
#include "core/session/head_mass.h"
#include "core/session/metric_sweep.h"

namespace attnscope::figure {

/// The spectrum of one matrix, named as the legend shows it.
struct NamedSpectrum {
    std::string name;       // "exact P" or an instance label
    Spectrum spectrum;
    bool reference = false;  // the exact P: drawn in the text colour
};

/// What a spectrum figure shows besides the spectra.
struct SpectrumFigureInput {
    std::vector<NamedSpectrum> spectra;
    std::string head_text;               // e.g. "head 0": whose matrices the spectra are
    const LayerHeadSpectra* layers = nullptr;  // text: every layer and head of the encoder (the map), or null
    int grid_index = 0;                  // the map's index k (1-based, clamped to 1…n)
};

/// σ_i on a log axis and the normalised cumulative share Σ_{l≤i} σ_l / Σ σ_l per matrix (Linformer Fig. 1 left),
/// and with `layers` the layers × heads map of the share at k (Fig. 1 right). Throws Error without spectra.
PlotFigure spectrum_figure(const SpectrumFigureInput& input);

/// One curve of a sweep: an instance swept over the parameter.
struct SweepCurve {
    std::string name;                        // the instance label without the swept parameter
    std::vector<MetricSweepPoint> points;
};

/// A sweep's curves: the seed mean as a line inside its min–max band, the parameter on a log axis when its values
/// grow geometrically, the metric on a log axis when it spans more than two decades.
PlotFigure sweep_figure(const std::vector<SweepCurve>& curves, const std::string& param, const MetricSpec& metric,
                        bool geometric, int seeds);

/// The error–cost map: a point per instance, joined per variant in the points' order (a swept parameter's values), the timing spread (min–max of the
/// interleaved runs) as horizontal bars, each point labelled by its instance and the Pareto front (as marked) ringed.
PlotFigure errmap_figure(const std::vector<ErrorCostPoint>& points, CostAxis cost, ErrorAxis error);

/// Heads at a glance: per instance a layers × heads grid of the exact mass each head keeps.
PlotFigure heads_figure(const LayerHeadMass& mass);

/// Attention sinks: a bar per key position of the mean exact attention it receives (over `over`, e.g. "6 layers ×
/// 12 heads × 24 query rows"), coloured by what its token is, against `uniform_share` (uniform_received_share: 1/n, or
/// for causal rows the share under uniform weights over keys j ≤ i); tokens label the keys (positions when `tokens` is
/// empty). Throws Error when there is no key or the tokens or shares do not number the keys.
PlotFigure sinks_figure(const std::vector<std::string>& tokens, const std::vector<double>& received,
                        const std::vector<double>& uniform_share, bool causal, const std::string& over);

/// Time and peak tracked memory against n on log–log axes, one curve per bench label with its min–max band,
/// and O(n) and O(n²) guides through the first curve's first point.
PlotFigure performance_figure(const BenchReport& report);

}  // namespace attnscope::figure

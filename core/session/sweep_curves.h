// attnscope — a sweep of several instances over one parameter: one curve per instance, every curve's spec built and
// validated before the first point runs (so a parameter the second instance lacks fails before any output). Used by
// `attnscope sweep`, `attnscope figure --view sweep` and the GUI's Sweep panel.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/session/metric_sweep.h"

namespace attnscope {

/// One instance's curve: what runs and, once run, its points.
struct SweepCurveRun {
    VariantRequest instance;                 // the instance as given
    std::string swept;                       // the parameter swept on it (its own for "budget")
    std::string label;                       // the instance label without the swept parameter
    SweepSpec spec;                          // validated
    std::vector<MetricSweepPoint> points;    // filled by run_sweep_curves
};

/// The curves of `instances` swept over `param` = `range` (START:STOP[:xF|:+S]) measuring `metric` over `seeds`
/// seeds; `evaluate` is required by embedding_cosine. Throws Error for a parameter an instance lacks or a bad range.
std::vector<SweepCurveRun> plan_sweep_curves(const std::vector<VariantRequest>& instances, const std::string& param,
                                             const std::string& range, const MetricSpec& metric, int seeds,
                                             const SweepEvaluator& evaluate = {});
/// The same over a range already parsed.
std::vector<SweepCurveRun> plan_sweep_curves(const std::vector<VariantRequest>& instances, const std::string& param,
                                             const SweepRange& range, const MetricSpec& metric, int seeds,
                                             const SweepEvaluator& evaluate = {});

/// Runs every curve's points (run_sweep) on inputs from `make_input`; `progress(curve, done, total)` (may be empty)
/// after each point.
void run_sweep_curves(std::vector<SweepCurveRun>& curves, const SweepInputFactory& make_input, Backend& backend,
                      const std::function<void(size_t, int, int)>& progress = {});

}  // namespace attnscope

// attnscope — what-if sweeps: a metric of a variant against one parameter, averaged over seeds with a
// min–max band. Used by `attnscope sweep`, the GUI's sweep panel and the lessons.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/session/experiment.h"
#include "core/session/metric_table.h"

namespace attnscope {

/// Values of a swept parameter: START:STOP[:xFACTOR|:+STEP] (default step +1).
struct SweepRange {
    double start = 0, stop = 0;
    double factor = 0;  // > 1: geometric (start, start·f, ...); 0: arithmetic
    double step = 1;    // arithmetic step when factor == 0
    /// The values from start to stop inclusive (at most 1000); throws Error when the range is empty or endless.
    std::vector<double> values() const;
};

/// Parses "START:STOP", "START:STOP:xF" or "START:STOP:+S"; throws Error saying the accepted forms.
SweepRange parse_sweep_range(const std::string& text);

/// The metrics a sweep can plot: metric_table()'s rows marked kSweepable, in its order (menus list them so).
std::vector<const MetricSpec*> sweep_metrics();
/// The sweepable metrics' ids for a help text: "rel_err_out, …, memory or embedding_cosine (text input)".
std::string sweep_metric_choices();
/// The sweepable metric called `name`; throws Error listing them.
const MetricSpec& parse_sweep_metric(const std::string& name);
/// The metric's value in a result on a sweep's axis (× axis_scale: memory in MiB); empty when it does not apply, is
/// infinite or is measured outside a run.
std::optional<double> sweep_metric_value(const MetricSpec& metric, const RunResult& result);

/// One point of a metric sweep: the parameter value and the metric over seeds.
struct MetricSweepPoint {
    double value = 0;                 // parameter value
    double mean = 0, min = 0, max = 0;  // over the seeds where the metric applied
    int samples = 0;                  // seeds that gave a value
};

/// Measures a metric a RunResult does not hold (embedding_cosine: see embedding_cosine_measure in
/// core/session/text_whatif.h) for one request; nullopt when it does not apply.
using SweepEvaluator = std::function<std::optional<double>(const VariantRequest& request, Backend& backend)>;

/// A sweep request.
struct SweepSpec {
    std::string variant;                                           // variant id
    std::vector<std::pair<std::string, std::string>> fixed;        // other NAME=VALUE assignments
    std::string param;                                             // swept parameter (a variant param, "n" or "budget")
    SweepRange range;                                              // its values
    const MetricSpec* metric = &parse_sweep_metric("rel_err_out");  // what is measured (a sweepable row)
    int seeds = 3;                                                 // seeds 0..seeds-1 (input and variant seed)
    SweepEvaluator evaluate;  // required by a metric measured outside a run (embedding_cosine: then no input is
                              // made), unused otherwise
};

/// The parameter a sweep of `name` changes for this variant: "n", a parameter of its card, or "budget" — the
/// common axis across variants (VariantInfo::budget_param: keys per query, rank, features, projected length).
/// Throws Error naming what the variant has instead.
std::string swept_parameter(const VariantInfo& info, const std::string& name);

/// Checks what run_sweep would reject before its first run (seeds, the swept parameter, the metric's input, every
/// value of the range as a parameter value); throws Error saying what is wrong. A front end running several sweeps
/// checks them all first, so a bad one fails before any result is shown.
void validate_sweep(const SweepSpec& spec);

/// Makes the input for a seed and (when the swept parameter is "n") a sequence length.
using SweepInputFactory = std::function<Heads(uint64_t seed, int n_override)>;

/// Runs the sweep; `progress(done, total)` is called after each run and may return false to cancel
/// (the points finished so far are returned). Throws Error on bad parameters (validate_sweep) or a failed run.
std::vector<MetricSweepPoint> run_sweep(const SweepSpec& spec, const SweepInputFactory& make_input, Backend& backend,
                                  const std::function<bool(int, int)>& progress = {});

}  // namespace attnscope

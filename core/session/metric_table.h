// attnscope — the one table of metrics. Every list of metrics reads its rows: metric_by_id (lessons, badges), the
// run table, the metrics CSV, the JSON, the sweeps and their figure axes, the GUI's badges; docs/VARIANTS.md's
// Metrics section repeats it and a test holds the two together. Adding a metric is a row here plus its computation.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/variants/variant.h"

namespace attnscope {

/// The lists a metric belongs to besides metric_by_id, which knows every row.
enum MetricList : unsigned {
    kInRunTable = 1u << 0,  // a column of `attnscope run`'s table
    kInCsv = 1u << 1,       // a column of metrics_csv (per head: only rows with a field)
    kSweepable = 1u << 2,   // `attnscope sweep`, the Sweep panel and sweep figures
    kKeyBadge = 1u << 3,    // one of the key numbers compact badges keep
    kGraded = 1u << 4,      // its badge is coloured green / amber / red by quality, not grey
    kAllHeadsOnly = 1u << 5,  // reported over every head's cells only: a head's own row repeats the run's value
    kNeedsMatrices = 1u << 6, // needs the n×n matrices P̃ and P materialised (a sweep asks for them up to n = 4096)
    kRelativeError = 1u << 7, // a norm relative to the reference's: above 1, zeros would be closer (badges say so)
};

/// Which way a metric gets better, or that it describes the input or the pattern instead.
enum class MetricDirection { LowerIsBetter, HigherIsBetter, Describes };

/// One metric: its names, its words, how it is written, and where a run's value of it lives.
struct MetricSpec {
    const char* id;            // metric_by_id, lessons, sweeps, badges, the run table's and the CSV's column
    const char* json_key;      // its key in a result's JSON metrics, nullptr when not there (costs, outside ones)
    const char* label;         // the badge's label
    const char* short_label;   // the badge's label in compact badges
    const char* axis_label;    // a sweep figure's y axis
    const char* sentence;      // what it is and what it is measured against, in one line (docs/VARIANTS.md)
    const char* help;          // the badge's tooltip; "{scope}" stands for the heads the value is over
    const char* format;        // printf format of its value on screen
    MetricDirection direction; // for the quality colour and readers of the docs
    std::optional<double> MetricValues::*field;        // its field per head and as means, or nullptr
    std::optional<double> (*run_value)(const RunResult&);  // where a metric without a field lives in a run, or nullptr
                                                           // when a sweep's evaluator measures it outside the run
    double axis_scale;         // a sweep's axis shows value × axis_scale (memory: bytes → MiB)
    unsigned lists;            // MetricList bits
};

/// Every metric, in the order the run table, the CSV, the sweep menus and the docs list them.
std::span<const MetricSpec> metric_table();

/// The row of `id`, or nullptr.
const MetricSpec* find_metric(std::string_view id);

/// The value of `spec` in a run, as the mean over heads (density: over all heads' cells; time in ms, memory in peak
/// bytes); empty when the run has none or the metric is measured outside a run (embedding_cosine).
std::optional<double> metric_value(const MetricSpec& spec, const RunResult& r);

/// Whether the metric is measured outside a RunResult (by a sweep's evaluator: embedding_cosine).
bool measured_outside_run(const MetricSpec& spec);

/// `spec.help` with "{scope}" replaced by `scope` ("head 2", "mean over heads") and "{model}" by `model` (the
/// sentence of the run's own exact model).
std::string metric_help(const MetricSpec& spec, const std::string& scope, const std::string& model = "");

/// "lower is better", "higher is better" or "describes".
const char* direction_text(MetricDirection d);

/// `value` written with `spec.format` ("inf" for an infinite one).
std::string format_metric_value(const MetricSpec& spec, double value);

}  // namespace attnscope

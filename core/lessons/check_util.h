// attnscope — small helpers shared by the lesson checks: inputs (the lesson's own, or a synthetic one for a
// scaling claim), variant runs through the check's context, and parameters.
#pragma once
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/data/scenarios.h"
#include "core/session/experiment.h"
#include "core/lessons/checks.h"

namespace attnscope {

/// Assignments NAME=VALUE for a variant request.
using Assignments = std::vector<std::pair<std::string, std::string>>;

/// A synthetic input for a check.
Heads check_input(ScenarioKind kind, int n, int heads, int dim, uint64_t seed, double temperature = 1.0);

/// The lesson's preset input, built exactly as the GUI builds it; writes its description into out.input.
Heads lesson_heads(const Lesson& lesson, CheckOutcome& out);

/// One input a check measures, with the label its lines use ("layer 3", "synthetic local").
struct LabelledHeads {
    std::string label;
    Heads heads;
};

/// The lesson's text input at each of `layers` (each encoded as the GUI encodes the preset's layer), or, when the
/// preset input is not text, that input once; writes the description into out.input.
std::vector<LabelledHeads> lesson_layers(const Lesson& lesson, const std::vector<int>& layers, CheckOutcome& out);

/// Keys per query of a masked run, counted on its reason mask (materialised when the run had `with_matrix`).
struct KeysPerQuery {
    int most = 0;      // the most keys any row of any head keeps
    double mean = 0;   // mean over heads and rows
};
/// Keys row i of head h keeps in a reason mask.
int keys_in_row(const ReasonMask& mask, int h, int i);
/// Counts them; throws Error when the run has no reason mask.
KeysPerQuery keys_per_query(const RunResult& run);

/// The preset's request for variant `id` (its parameters as the lesson screen sets them); throws Error when the
/// preset does not show that variant.
VariantRequest preset_request(const Lesson& lesson, const std::string& id);

/// Index of the first view of variant `id` in the preset (what ScreenValue::view names); throws Error when the preset
/// does not show it.
int preset_view(const Lesson& lesson, const std::string& id);

/// Runs every preset view of the variants `ids` on `heads` exactly as the lesson's panels run it and records its
/// `metric` (a badge id, metric_by_id) as a screen value; throws Error when a run lacks that metric.
void record_screen(const Lesson& lesson, CheckContext& context, const Heads& heads, const std::vector<std::string>& ids,
                   const std::string& metric, CheckOutcome& out);

/// Runs `id` as the context provides it, with `assignments` on top of its defaults and metrics against the exact
/// reference(s); P̃ and exact P are materialised when `with_matrix`.
RunResult check_run(CheckContext& context, const Heads& heads, const std::string& id, const Assignments& assignments,
                    bool with_matrix);
/// The same for an already parsed request.
RunResult check_run(CheckContext& context, const Heads& heads, const VariantRequest& request, bool with_matrix);

/// Runs `request` as a benchmark does (no matrices, no analysis, no metrics) and returns its result: what a
/// timing or memory claim measures.
RunResult run_for_cost(CheckContext& context, const Heads& heads, const VariantRequest& request);
/// Q, K and V of each input, for a DeviceInputsScope around a speed comparison: on a GPU the inputs then stay on the
/// device across the timed runs, as a framework's tensors would, so the comparison is of the algorithms, not of
/// uploading the same inputs again (nothing is kept on the CPU).
std::vector<const Tensor3*> inputs_of(std::initializer_list<const Heads*> inputs);

/// `request` with NAME=VALUE set on top (validated against the variant's card).
VariantRequest with_params(VariantRequest request, const Assignments& assignments);

/// Reads a number from the lesson's check parameters, or `fallback` when absent.
double check_param(const nlohmann::json& params, const char* key, double fallback);

}  // namespace attnscope

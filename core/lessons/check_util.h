// attnscope — small helpers shared by the lesson checks: inputs (the lesson's own, or a synthetic one for a
// scaling claim), variant runs through the check's context, and parameters.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "../data/scenarios.h"
#include "../session/experiment.h"
#include "checks.h"

namespace attnscope {

/// Assignments NAME=VALUE for a variant request.
using Assignments = std::vector<std::pair<std::string, std::string>>;

/// A synthetic input for a check.
Heads check_input(ScenarioKind kind, int n, int heads, int dim, uint64_t seed, double temperature = 1.0);

/// The lesson's preset input, built exactly as the GUI builds it; writes its description into out.input.
Heads lesson_heads(const Lesson& lesson, CheckOutcome& out);

/// The preset's request for variant `id` (its parameters as the lesson screen sets them); throws Error when the
/// preset does not show that variant.
VariantRequest preset_request(const Lesson& lesson, const std::string& id);

/// Runs `id` as the context provides it, with `assignments` on top of its defaults and metrics against the exact
/// reference(s); P̃ and exact P are materialised when `with_matrix`.
RunResult check_run(CheckContext& context, const Heads& heads, const std::string& id, const Assignments& assignments,
                    bool with_matrix);
/// The same for an already parsed request.
RunResult check_run(CheckContext& context, const Heads& heads, const VariantRequest& request, bool with_matrix);

/// Runs `request` as a benchmark does (no matrices, no analysis, no metrics) and returns its result: what a
/// timing or memory claim measures.
RunResult run_for_cost(CheckContext& context, const Heads& heads, const VariantRequest& request);

/// `request` with NAME=VALUE set on top (validated against the variant's card).
VariantRequest with_params(VariantRequest request, const Assignments& assignments);

/// Reads a number from the lesson's check parameters, or `fallback` when absent.
double check_param(const nlohmann::json& params, const char* key, double fallback);

}  // namespace attnscope

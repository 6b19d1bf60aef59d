// attnscope — small helpers shared by the lesson checks.
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

/// Runs one variant with metrics against the exact reference (P materialised when `with_matrix`).
RunResult check_run(const Heads& heads, const std::string& id, const Assignments& assignments, Backend& backend,
                    bool with_matrix);

/// Reads an integer or real value from the lesson's check parameters with a default.
double check_param(const nlohmann::json& params, const char* key, double fallback);

}  // namespace attnscope

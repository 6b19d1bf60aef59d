// attnscope — JSON of inputs and results, the schema of `attnscope run --json` and of GUI exports.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "core/variants/variant.h"

namespace attnscope {

/// {"variant","instance","params":{},"metrics":{...},"cost":{...},"notes":[...]}; "instance" is instance_label
/// ("SVD r = 8"); non-applicable or infinite metrics are null. Each metric is the mean over heads; metrics.per_head
/// holds every head's own value, one array per metric.
nlohmann::json result_to_json(const RunResult& result);

/// {"source","n","heads","dim","value_dim"} (+ "tokens" when the input is text).
nlohmann::json input_to_json(const Heads& heads);

}  // namespace attnscope

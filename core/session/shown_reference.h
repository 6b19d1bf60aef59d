// attnscope — which exact P the views of the whole input draw (the Sinks bars, the exact spectrum, their CSV files
// and figures), decided once: the GUI, the CLI's tables and its figures of one session show the same matrix.
#pragma once
#include <vector>

#include "core/session/experiment.h"

namespace attnscope {

/// The causality of the one exact P a whole-input view shows: the causal P only when every instance runs causal
/// (then it is the P all of them are compared with), else the full P; no instance: the full P.
bool shown_reference_causal(const std::vector<bool>& instances_causal);

/// The same over the instances' requests (a variant causal by construction, or with `causal` on, runs causal).
bool shown_reference_causal(const std::vector<VariantRequest>& instances);

/// The same over finished runs.
bool shown_reference_causal(const std::vector<RunResult>& results);

}  // namespace attnscope

// attnscope — a lesson's preset read into core types: its input (what the check measures and the GUI shows) and
// its variants with their parameters. One reader for both, so a lesson screen runs exactly what its check runs.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/session/experiment.h"
#include "core/session/worker.h"

namespace attnscope {

/// The preset's input: {"mode": "synthetic", "scenario", "n", "heads", "dim", "temperature", "seed"} or
/// {"mode": "text", "sample": "default" | a sample id, or "text": literal, "layer", "truncate"} or
/// {"mode": "tensors", "path": a .safetensors file or a folder of q/k/v.npy}. Throws Error
/// naming the bad key.
InputSpec preset_input_spec(const nlohmann::json& preset);

/// The preset's variants in order, validated against their cards; throws Error naming the bad variant or key.
std::vector<VariantRequest> preset_variants(const nlohmann::json& preset);

/// One line describing an input for a lesson window or a check report, e.g. "synthetic lowrank, n = 512, H = 4,
/// d = 64, T = 1, seed 0" or "text 'attention' (layer 5, truncated to 512 tokens)".
std::string describe_input(const InputSpec& spec);

}  // namespace attnscope

// attnscope — a lesson's preset read into core types: its input (what the check measures and the GUI shows) and
// its variants with their parameters. One reader for both, so a lesson screen runs exactly what its check runs.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/session/experiment.h"
#include "core/session/session_file.h"
#include "core/session/worker.h"

namespace attnscope {

/// The preset's "input" in the session's input format (core/session/input_json.h: absent keys take its defaults),
/// e.g. {"mode": "text", "sample": "harbour", "layer": 3}. Throws Error naming the bad key, or when a tensors input
/// has no "tensors_path".
InputSpec preset_input_spec(const nlohmann::json& preset);

/// The preset's variants in order, validated against their cards; throws Error naming the bad variant or key.
std::vector<VariantRequest> preset_variants(const nlohmann::json& preset);

/// The lesson's own setup as a session file means it: its preset's input and variants (a fresh session's where it
/// gives none), and the head and toggles of its "view" — what a session that names only the lesson opens
/// (core/session/session_file.h). Throws Error naming an unknown lesson or a bad key.
SessionFile lesson_setup(const std::string& lesson_id);

/// One line describing an input for a lesson window or a check report, e.g. "synthetic lowrank, n = 512, H = 4,
/// d = 64, T = 1, seed 0" or "text 'attention' (layer 5, truncated to 512 tokens)".
std::string describe_input(const InputSpec& spec);

}  // namespace attnscope

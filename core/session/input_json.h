// attnscope — the input of a run as JSON: a session file's "input" and a lesson preset's "input" are one format,
// read and written here with one set of ranges and defaults, so a key means the same in a session and a lesson.
//   {"mode": "synthetic" | "text" | "tensors",
//    "scenario", "n", "heads", "dim", "temperature", "seed", and the scenario's own parameter by its name
//    ("band", "period", "clusters", "rank", "hubs"; absent = the scenario's default),
//    "text" (literal) or "sample" ("default" or a sample id; "text" wins), "model_dir", "layer", "truncate",
//    "tensors_path"}
// Every key may be absent (input_json_defaults() says what it then is); keys of other modes are read too, so a
// text session keeps the scenario shown while the encoder is missing.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "core/data/scenarios.h"
#include "core/session/worker.h"

namespace attnscope {

/// The accepted range of each input key; a value outside is an Error naming the key.
/// The shape's bounds are the generator's own (core/data/scenarios.h), so a file and the generator agree.
namespace input_range {
inline constexpr int kMinN = scenario_range::kMinN, kMaxN = scenario_range::kMaxN;
inline constexpr int kMinHeads = scenario_range::kMinHeads, kMaxHeads = scenario_range::kMaxHeads;
inline constexpr int kMinDim = scenario_range::kMinDim, kMaxDim = scenario_range::kMaxDim;
inline constexpr double kMinTemperature = 0, kMaxTemperature = scenario_range::kMaxTemperature;
inline constexpr int kMaxStructure = 1 << 20;  // the scenario's own parameter; its own range is checked on the run
inline constexpr int kMaxLayer = 1000;         // the model's layer count is checked when the text is encoded
}  // namespace input_range

/// What each absent key reads as: synthetic mode, scenario local (n = 256, H = 4, d = 64, T = 1, seed 0, its own
/// structure default), the default sample text, layer 0 of the default model, no truncation, no tensors path.
InputSpec input_json_defaults();

/// The input of an "input" object; `where` names it in messages ("the session's input"). Throws Error naming the
/// key, its value and what it must be.
InputSpec input_spec_from_json(const nlohmann::json& input, const std::string& where);

/// Every key of `spec` (the scenario's own parameter only when set), so input_spec_from_json reads it back equal.
nlohmann::json input_spec_to_json(const InputSpec& spec);

}  // namespace attnscope

// attnscope — a run's numbers as files numpy can read: the input's Q, K, V (and tokens) and each variant's O and
// P̃, as .npy beside an index.json that says what every file holds. The folder is also a valid `--tensors` input,
// so a bundle can be fed back to attnscope after editing it in numpy.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/variants/variant.h"

namespace attnscope {

/// Writes q.npy, k.npy, v.npy (H, n, d|dv), tokens.txt (text input), and per result O-<label>.npy and, when P̃
/// was materialised, P_eff-<label>.npy into `dir` (created when missing), then index.json describing them and
/// `extra_input` (merged into its "input" object). Labels are variant ids, "-2", "-3"… appended to repeats.
/// Files are written atomically; throws Error naming the path that could not be written. Returns the index.
nlohmann::json write_npy_bundle(const std::string& dir, const Heads& heads, const std::vector<RunResult>& results,
                                const nlohmann::json& extra_input = nlohmann::json::object());

}  // namespace attnscope

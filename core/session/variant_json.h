// attnscope — variant instances in JSON (sessions and lesson presets): one format, the one the CLI takes. Each
// value is what a user types after --set (numbers as numbers, choices by name, switches as true/false, lists as
// "0,5"), read back through the same parser as the CLI, so a bad value names its variant, key and range.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/session/experiment.h"

namespace attnscope {

/// {"id", "params"} of one instance; only values that are set are written (auto defaults stay absent).
nlohmann::json variant_to_json(const VariantRequest& request);

/// An instance's set values as the NAME=VALUE text the CLI's parser takes (what a sweep re-parses with one value
/// changed); `except` (may be empty) is left out.
std::vector<std::pair<std::string, std::string>> assignments_of(const VariantRequest& request, const std::string& except = "");

/// The instances of a JSON list of {"id", "params"}. `where` names the file in messages ("the session file");
/// with `skip_unknown`, ids this build does not have are left out (a session from a build with more variants).
/// Throws Error naming the entry, the key and what was expected. Older files' arrays of positions ([0, 5]) and
/// choice indices are accepted too.
std::vector<VariantRequest> variants_from_json(const nlohmann::json& list, const std::string& where, bool skip_unknown);

}  // namespace attnscope

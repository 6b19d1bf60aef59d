// attnscope — what the Streaming panel and the streaming-llm lesson share: the measurement's settings as a session
// (and a lesson preset) writes them, and the numbers the panel draws, by name, so a lesson check reports the very
// values its screen shows.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/session/streaming_llm.h"

namespace attnscope {

/// The StreamingLLM measurement's settings.
struct StreamingSettings {
    std::string windows = "64,512";  // recent-token windows w, comma-separated (parse_window_list)
    int sinks = 4;                   // sink tokens s
    int recompute_samples = 4;       // positions per window the recompute baseline samples (0: none)
};

/// Reads {"windows", "sinks", "recompute_samples"} (absent keys keep the defaults); throws Error naming `where` and
/// the bad key.
StreamingSettings streaming_settings_from_json(const nlohmann::json& j, const std::string& where);
/// The same object back.
nlohmann::json streaming_settings_to_json(const StreamingSettings& s);

/// Every number the panel shows of a table, named as its layout record and a lesson's screen values name them:
/// "ppl full", "ppl window w=64", "ppl sinks cache w=64", "ppl sinks text w=64", "ppl recompute w=64" and
/// "ppl full sampled w=64" (with a recompute sample), "sink mass layer 12", ….
std::vector<std::pair<std::string, double>> streaming_named_values(const StreamingTable& table);

}  // namespace attnscope

#include "core/session/streaming_view.h"

#include "core/json_fields.h"

namespace attnscope {

StreamingSettings streaming_settings_from_json(const nlohmann::json& j, const std::string& where) {
    StreamingSettings s;
    if (!j.is_object()) throw Error(where + " must be an object with windows, sinks and recompute_samples");
    s.windows = json_string(j, "windows", s.windows, where);
    parse_window_list(s.windows, where + " 'windows'");
    s.sinks = json_int(j, "sinks", s.sinks, 0, 65536, where);
    s.recompute_samples = json_int(j, "recompute_samples", s.recompute_samples, 0, 256, where);
    return s;
}

nlohmann::json streaming_settings_to_json(const StreamingSettings& s) {
    return {{"windows", s.windows}, {"sinks", s.sinks}, {"recompute_samples", s.recompute_samples}};
}

std::vector<std::pair<std::string, double>> streaming_named_values(const StreamingTable& t) {
    std::vector<std::pair<std::string, double>> out = {{"ppl full", t.full}};
    for (const StreamingRow& r : t.rows) {
        const std::string w = " w=" + std::to_string(r.window);
        out.push_back({"ppl window" + w, r.window_only});
        out.push_back({"ppl sinks cache" + w, r.sinks_cache});
        out.push_back({"ppl sinks text" + w, r.sinks_text});
        if (!t.recompute_positions.empty()) {
            out.push_back({"ppl recompute" + w, r.recompute});
            out.push_back({"ppl full sampled" + w, r.full_at_sampled});
        }
    }
    for (size_t l = 0; l < t.sink_mass.size(); ++l) out.push_back({"sink mass layer " + std::to_string(l), t.sink_mass[l]});
    return out;
}

}  // namespace attnscope

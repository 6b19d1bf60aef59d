#include "core/session/input_json.h"

#include <array>
#include <utility>

#include "core/data/samples.h"
#include "core/json_fields.h"

namespace attnscope {

namespace {

constexpr std::array<std::pair<InputMode, const char*>, 3> kModes = {
    {{InputMode::Synthetic, "synthetic"}, {InputMode::Text, "text"}, {InputMode::Tensors, "tensors"}}};

const char* mode_id(InputMode mode) {
    for (const auto& [m, id] : kModes)
        if (m == mode) return id;
    return "synthetic";
}

InputMode parse_mode(const std::string& id, const std::string& where) {
    for (const auto& [m, name] : kModes)
        if (id == name) return m;
    throw Error(where + ": 'mode' is \"" + id + "\"; it must be synthetic, text or tensors");
}

ScenarioKind scenario_key(const nlohmann::json& in, ScenarioKind fallback, const std::string& where) {
    const std::string id = json_string(in, "scenario", scenario_id(fallback), where);
    try {
        return parse_scenario(id);
    } catch (const Error& e) {
        throw Error(where + ": 'scenario' is \"" + id + "\": " + e.what());
    }
}

/// "text" (literal) or else "sample": "default" or a sample id.
std::string text_key(const nlohmann::json& in, const std::string& fallback, const std::string& where) {
    if (in.contains("text")) return json_string(in, "text", fallback, where);
    if (!in.contains("sample")) return fallback;
    const std::string sample = json_string(in, "sample", "default", where);
    if (sample == "default") return default_sample_text();
    std::string known = "default";
    for (const SampleText& s : sample_texts()) {
        if (s.id == sample) return s.text;
        known += ", " + s.id;
    }
    throw Error(where + ": 'sample' is \"" + sample + "\"; it must be one of " + known);
}

}  // namespace

InputSpec input_json_defaults() {
    InputSpec spec;
    spec.mode = InputMode::Synthetic;
    spec.scenario = ScenarioSpec{};
    spec.scenario.kind = ScenarioKind::Local;  // a band plus noise: every sparse pattern has something to show
    spec.text = default_sample_text();
    return spec;
}

InputSpec input_spec_from_json(const nlohmann::json& in, const std::string& where) {
    namespace r = input_range;
    if (!in.is_object())
        throw Error(where + " is " + in.dump() + "; it must be an object such as {\"mode\": \"synthetic\"}");
    const InputSpec d = input_json_defaults();
    InputSpec spec;
    spec.mode = parse_mode(json_string(in, "mode", mode_id(d.mode), where), where);
    ScenarioSpec& sc = spec.scenario;
    sc.kind = scenario_key(in, d.scenario.kind, where);
    sc.n = json_int(in, "n", d.scenario.n, r::kMinN, r::kMaxN, where);
    sc.heads = json_int(in, "heads", d.scenario.heads, r::kMinHeads, r::kMaxHeads, where);
    sc.dim = json_int(in, "dim", d.scenario.dim, r::kMinDim, r::kMaxDim, where);
    sc.temperature =
        json_number(in, "temperature", d.scenario.temperature, r::kMinTemperature, r::kMaxTemperature, where);
    sc.seed = uint64_t(json_integer(in, "seed", int64_t(d.scenario.seed), 0, INT64_MAX, where));
    if (const std::string& name = scenario_info(sc.kind).param.name; !name.empty())
        sc.structure = json_int(in, name.c_str(), d.scenario.structure, 0, r::kMaxStructure, where);  // e.g. "band": 16
    spec.text = text_key(in, d.text, where);
    spec.model_dir = json_string(in, "model_dir", d.model_dir, where);
    spec.layer = json_int(in, "layer", d.layer, 0, r::kMaxLayer, where);
    spec.truncate = json_bool(in, "truncate", d.truncate, where);
    spec.tensors_path = json_string(in, "tensors_path", d.tensors_path, where);
    return spec;
}

nlohmann::json input_spec_to_json(const InputSpec& in) {
    const ScenarioSpec& sc = in.scenario;
    nlohmann::json j = {{"mode", mode_id(in.mode)},
                        {"scenario", scenario_id(sc.kind)},
                        {"n", sc.n},
                        {"heads", sc.heads},
                        {"dim", sc.dim},
                        {"temperature", sc.temperature},
                        {"seed", sc.seed},
                        {"text", in.text},
                        {"model_dir", in.model_dir},
                        {"layer", in.layer},
                        {"truncate", in.truncate},
                        {"tensors_path", in.tensors_path}};
    if (const std::string& name = scenario_info(sc.kind).param.name; !name.empty() && sc.structure != 0)
        j[name] = sc.structure;  // the scenario's own parameter under its own name (absent: its default)
    return j;
}

}  // namespace attnscope

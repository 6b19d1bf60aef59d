#include "core/lessons/preset.h"

#include <algorithm>

#include "core/json_fields.h"
#include "core/data/samples.h"
#include "core/format.h"
#include "core/session/variant_json.h"
#include "core/variants/registry.h"

namespace attnscope {

namespace {

/// The text of a preset's "sample": "default", a sample id, or literal text under "text".
std::string preset_text(const nlohmann::json& in) {
    if (in.contains("text")) return in.at("text").get<std::string>();
    const std::string sample = json_string(in, "sample", "default", "the lesson preset's input");
    if (sample == "default") return default_sample_text();
    for (const SampleText& s : sample_texts())
        if (s.id == sample) return s.text;
    throw Error("the lesson preset names an unknown sample text '" + sample + "'");
}

}  // namespace

InputSpec preset_input_spec(const nlohmann::json& preset) {
    InputSpec spec;
    if (!preset.contains("input")) return spec;
    const nlohmann::json& in = preset.at("input");
    try {
        const std::string mode = json_string(in, "mode", "synthetic", "the lesson preset's input");
        if (mode == "text") {
            spec.mode = InputMode::Text;
            spec.text = preset_text(in);
            spec.layer = json_int(in, "layer", 0, 0, 1000, "the lesson preset's input");
            spec.truncate = json_bool(in, "truncate", false, "the lesson preset's input");
        } else if (mode == "synthetic") {
            spec.mode = InputMode::Synthetic;
            ScenarioSpec& sc = spec.scenario;
            sc.kind = parse_scenario(json_string(in, "scenario", "gaussian", "the lesson preset's input"));
            sc.n = json_int(in, "n", 256, 1, 1 << 20, "the lesson preset's input");
            sc.heads = json_int(in, "heads", 4, 1, 64, "the lesson preset's input");
            sc.dim = json_int(in, "dim", 64, 1, 1024, "the lesson preset's input");
            sc.temperature = json_number(in, "temperature", 1.0, 0, 100, "the lesson preset's input");
            sc.seed = uint64_t(json_integer(in, "seed", 0, 0, INT64_MAX, "the lesson preset's input"));
            if (const std::string& name = scenario_info(sc.kind).param.name; !name.empty())
                sc.structure = json_int(in, name.c_str(), 0, 0, 1 << 20, "the lesson preset's input");  // e.g. "band": 16; absent = the scenario's default
        } else if (mode == "tensors") {  // Q, K, V from files: an input a lesson's text cannot express
            spec.mode = InputMode::Tensors;
            spec.tensors_path = json_string(in, "path", "", "the lesson preset's input");
            if (spec.tensors_path.empty())
                throw Error("the lesson preset's tensors input has no \"path\": give a .safetensors file or a folder "
                            "of q.npy, k.npy, v.npy");
        } else {
            throw Error("the lesson preset's input mode '" + mode + "' is not synthetic, text or tensors");
        }
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string("the lesson preset's input has a value of the wrong type: ") + e.what());
    }
    return spec;
}

std::vector<VariantRequest> preset_variants(const nlohmann::json& preset) {
    return variants_from_json(preset.contains("variants") ? preset.at("variants") : nlohmann::json::array(),
                              "the lesson preset", false);
}

std::string describe_input(const InputSpec& spec) {
    if (spec.mode == InputMode::Text) {
        const size_t words = std::count(spec.text.begin(), spec.text.end(), ' ') + 1;
        return "text of about " + std::to_string(words) + " words through the encoder, layer " +
               std::to_string(spec.layer) + (spec.truncate ? " (cut to the model's 512 positions)" : "");
    }
    if (spec.mode == InputMode::Tensors) return "tensors from " + spec.tensors_path;
    const ScenarioSpec& s = spec.scenario;
    const std::string& name = scenario_info(s.kind).param.name;
    std::string structure;
    if (!name.empty()) {
        try {
            structure = ", " + name + " = " + std::to_string(scenario_structure(s));
        } catch (const Error&) {  // out of range: the run itself says so
            structure = ", " + name + " = " + std::to_string(s.structure) + " (out of range)";
        }
    }
    return "synthetic " + scenario_id(s.kind) + ", n = " + std::to_string(s.n) + ", H = " + std::to_string(s.heads) +
           ", d = " + std::to_string(s.dim) + structure + ", T = " + format_significant(s.temperature, 3) + ", seed " +
           std::to_string(s.seed);
}

}  // namespace attnscope

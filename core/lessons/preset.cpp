#include "core/lessons/preset.h"

#include <algorithm>

#include "core/data/model_paths.h"
#include "core/format.h"
#include "core/lessons/lessons.h"
#include "core/session/input_json.h"
#include "core/session/variant_json.h"
#include "core/variants/registry.h"

namespace attnscope {

InputSpec preset_input_spec(const nlohmann::json& preset) {
    const std::string where = "the lesson preset's input";
    const nlohmann::json input = preset.contains("input") ? preset.at("input") : nlohmann::json::object();
    InputSpec spec = input_spec_from_json(input, where);
    // A session may leave the path for the user to type; a lesson's check needs its files.
    if (spec.mode == InputMode::Tensors && spec.tensors_path.empty())
        throw Error(where + " of mode tensors has no \"tensors_path\": give a .safetensors file or a folder of q.npy, "
                    "k.npy, v.npy");
    return spec;
}

std::vector<VariantRequest> preset_variants(const nlohmann::json& preset) {
    return variants_from_json(preset.contains("variants") ? preset.at("variants") : nlohmann::json::array(),
                              "the lesson preset", false);
}

SessionFile lesson_setup(const std::string& lesson_id) {
    const nlohmann::json& preset = find_lesson(lesson_id).preset;
    SessionFile setup;  // what the preset leaves out stays as a fresh session has it
    setup.input = preset.contains("input") ? preset_input_spec(preset) : default_session_input();
    setup.variants = preset.contains("variants") ? preset_variants(preset) : default_session_variants();
    setup.view = session_view_from_json(preset, "the lesson preset");
    return setup;
}

std::string describe_input(const InputSpec& spec) {
    if (spec.mode == InputMode::Text) {
        const size_t words = std::count(spec.text.begin(), spec.text.end(), ' ') + 1;
        const bool decoder = resolve_model(spec.model_dir).decoder;
        return "text of about " + std::to_string(words) + " words through the " + (decoder ? "decoder" : "encoder") +
               ", layer " + std::to_string(spec.layer) +
               (spec.truncate ? decoder ? " (cut to the decoder's context)" : " (cut to the model's 512 positions)" : "");
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

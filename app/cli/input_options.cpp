#include "app/cli/input_options.h"

#include "core/session/text_metric_measure.h"

#include "core/backend/factory/make_backend.h"
#include "core/session/variant_spec.h"
#include "core/variants/modifiers.h"
#include "core/variants/registry.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/data/scenarios.h"
#include "core/data/tensor_import.h"
#include "core/data/text_input.h"
#include "core/data/text_model.h"

namespace attnscope::cli {

void add_input_options(CLI::App& sub, InputOptions& o) {
    std::string scenarios;
    for (const ScenarioInfo& s : scenario_list()) scenarios += "\n  " + s.id + ": " + s.description;
    sub.add_option("--data", o.data, "Synthetic scenario:" + scenarios)->capture_default_str();
    sub.add_option("--n", o.n, "Sequence length n")->capture_default_str();
    sub.add_option("--heads", o.heads, "Number of heads H")->capture_default_str();
    sub.add_option("--dim", o.dim, "Head dimension d of Q and K")->capture_default_str();
    sub.add_option("--value-dim", o.value_dim, "Value dimension dv (0: same as d)")->capture_default_str();
    sub.add_option("--temperature", o.temperature, "Temperature T: logits are divided by T (small T: peaked rows)")
        ->capture_default_str();
    sub.add_option("--seed", o.seed, "Seed of the scenario (same seed, same tensors)")->capture_default_str();
    for (const ScenarioInfo& s : scenario_list()) {
        if (s.param.name.empty()) continue;
        const std::string name = s.param.name;
        sub.add_option_function<int>(
            "--" + name, [&o, name](int value) { o.structure[name] = value; },
            "--data " + s.id + ": " + s.param.help + " (" + std::to_string(s.param.lo) + ".." +
                std::to_string(s.param.hi) + "; default " + s.param.auto_help + ")");
    }
    sub.add_option_function<std::string>(
        "--text", [&o](const std::string& text) { o.text = text, o.has_text = true; },
        "Text to run through the encoder; variants then run on its real Q, K, V");
    sub.add_option("--text-file", o.text_file, "Read the text from this UTF-8 file");
    sub.add_option("--model", o.model,
                   "Text model: minilm (the encoder all-MiniLM-L6-v2, default), smollm2 (the decoder SmolLM2-135M-Instruct; "
                   "variants run causal by default), a BERT-family folder (config.json, model.safetensors, vocab.txt) or a "
                   "llama-architecture .gguf file");
    sub.add_option("--layer", o.layer, "Model layer whose Q, K, V the variants get (text input)")->capture_default_str();
    sub.add_option("--head", o.head, "Model head (-1: all heads; a decoder's query heads)")->capture_default_str();
    sub.add_flag("--truncate", o.truncate,
                 "Cut text longer than the model takes (the encoder's 512 positions, the decoder's context) instead of failing");
    sub.add_option("--tensors", o.tensors,
                   "Your own Q, K, V: a .safetensors file with tensors q, k, v (optional metadata \"tokens\": JSON "
                   "list) or a folder with q.npy, k.npy, v.npy (optional tokens.txt); shapes (n, d) or (H, n, d)");
}

CLI::Option* add_run_selection_options(CLI::App& sub, RunSelection& s, const std::string& variant_note,
                                       const char* causal_help) {
    CLI::Option* variants =
        sub.add_option("--variant", s.variants, std::string("Variant instance(s): ") + kVariantSpecRule + variant_note);
    sub.add_option("--set", s.sets, "Parameter NAME=VALUE (all chosen variants that have it) or VARIANT.NAME=VALUE");
    add_input_options(sub, s.input);
    sub.add_flag("--causal", s.causal, causal_help);
    sub.add_option("--backend", s.backend, kBackendChoices)->capture_default_str();
    return variants;
}

InputKind input_kind(const InputOptions& o) {
    const bool has_text = o.has_text || !o.text.empty();
    if (has_text && !o.text_file.empty()) throw Error("--text and --text-file both given: choose one");
    const bool text = has_text || !o.text_file.empty();
    if (text && !o.tensors.empty()) throw Error("--tensors and text input both given: choose one input");
    if (text) return InputKind::Text;
    if (!o.tensors.empty()) return InputKind::Tensors;
    return InputKind::Synthetic;
}

std::string input_text(const InputOptions& o) {
    if (o.text_file.empty()) return o.text;
    std::ifstream in(o.text_file, std::ios::binary);
    if (!in) throw Error("cannot read --text-file '" + o.text_file + "': " + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string model_dir_of(const InputOptions& o) { return resolve_model(o.model).path; }

SweepInputFactory seeded_inputs(const InputOptions& options) {
    return [options](uint64_t seed, int n) {
        InputOptions in = options;
        in.seed = options.seed + seed;
        if (n > 0) in.n = n;
        return load_input(in);
    };
}

SweepEvaluator sweep_evaluator(const MetricSpec& metric, const LoadedInput& input) {
    if (!measured_outside_run(metric)) return {};
    if (input.kind != InputKind::Text)
        throw Error(std::string("--metric ") + metric.id + " runs a text model: add --text or --text-file (and --layer; "
                    "for perplexity, --model smollm2)");
    return text_metric_measure(metric.id, input.model_dir, input.token_ids, input.layer);
}

TextInputSpec text_input_spec(const InputOptions& o) {
    TextInputSpec spec;
    spec.text = input_text(o);
    spec.model_dir = model_dir_of(o);
    spec.layer = o.layer;
    spec.head = o.head;
    spec.truncate = o.truncate;
    return spec;
}

LoadedInput load_input_full(const InputOptions& o) {
    LoadedInput out;
    out.kind = input_kind(o);
    if (out.kind != InputKind::Synthetic && !o.structure.empty())
        throw Error("--" + o.structure.begin()->first + " shapes a synthetic scenario (--data); it does not apply to " +
                    (out.kind == InputKind::Text ? std::string("text") : "--tensors") + " input");
    if (out.kind == InputKind::Text) {
        const TextInputSpec spec = text_input_spec(o);
        using Clock = std::chrono::steady_clock;
        const auto start = Clock::now();
        // Cached: the timing below is tokenizer + forward pass only.
        if (const ModelChoice model = resolve_model(spec.model_dir); model.decoder) load_decoder_model(model.path);
        else load_text_model(model.path);
        const auto loaded = Clock::now();
        TextInput text = load_text_input(spec);
        out.load_ms = std::chrono::duration<double, std::milli>(loaded - start).count();
        out.encode_ms = std::chrono::duration<double, std::milli>(Clock::now() - loaded).count();
        out.heads = std::move(text.heads);
        out.token_ids = std::move(text.token_ids);
        out.model_dir = spec.model_dir;
        out.layer = o.layer;
        out.head = o.head;
        out.truncated = text.truncated;
        return out;
    }
    if (o.layer != 0 || o.head != -1 || o.truncate || !o.model.empty())
        throw Error("--layer, --head, --model and --truncate apply to text input: add --text or --text-file");
    if (out.kind == InputKind::Tensors) {
        out.heads = load_tensor_input(o.tensors);
        return out;
    }
    ScenarioSpec spec;
    spec.kind = parse_scenario(o.data);
    spec.n = o.n;
    spec.heads = o.heads;
    spec.dim = o.dim;
    spec.value_dim = o.value_dim;
    spec.temperature = o.temperature;
    spec.seed = o.seed;
    const ScenarioParam& param = scenario_info(spec.kind).param;
    for (const auto& [name, value] : o.structure) {
        if (name != param.name) {
            std::string owner;
            for (const ScenarioInfo& s : scenario_list())
                if (s.param.name == name) owner = s.id;
            throw Error("--" + name + " applies to --data " + owner + ", not --data " + o.data +
                        (param.name.empty() ? "" : " (whose parameter is --" + param.name + ")"));
        }
        if (value < param.lo || value > param.hi)
            throw Error("--" + name + " " + std::to_string(value) + " is out of range: choose " + std::to_string(param.lo) +
                        " ≤ " + name + " ≤ " + std::to_string(param.hi) + " (default " + param.auto_help + ")");
        spec.structure = value;
    }
    out.heads = make_scenario(spec);
    return out;
}

Heads load_input(const InputOptions& o) { return load_input_full(o).heads; }

std::pair<std::string, std::string> split_assignment(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw Error("--set '" + text + "' is not NAME=VALUE (e.g. --set window=128 or --set longformer.window=128)");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

void require_writable(const std::string& path) {
    const std::string probe = path + ".tmp-attnscope";
    std::ofstream out(probe);
    if (!out) throw Error("cannot write '" + path + "': " + std::strerror(errno) + "; choose a writable path");
    out.close();
    std::remove(probe.c_str());
}

bool causal_input(const InputOptions& o) {
    return input_kind(o) == InputKind::Text && resolve_model(o.model).decoder;
}

std::vector<VariantRequest> build_variant_requests(const std::vector<std::string>& variant_lists,
                                                   const std::vector<std::string>& sets, bool causal,
                                                   bool causal_by_default) {
    std::vector<std::string> ids;
    std::vector<std::vector<std::pair<std::string, std::string>>> assigned;
    for (VariantSpec& spec : parse_variant_specs(variant_lists)) {
        ids.push_back(std::move(spec.id));
        assigned.push_back(std::move(spec.assignments));
    }
    if (ids.empty()) throw Error("no variant given: pass --variant ID[,ID...] (see `attnscope variants`)");
    for (const std::string& text : sets) {
        auto [name, value] = split_assignment(text);
        std::string only;
        if (const auto dot = name.find('.'); dot != std::string::npos) only = name.substr(0, dot), name = name.substr(dot + 1);
        bool used = false;
        for (size_t k = 0; k < ids.size(); ++k) {
            if (!only.empty() && ids[k] != only) continue;
            const VariantInfo& info = find_variant(ids[k]).info();
            // An instance's own values (ID:NAME=VALUE) come last so they win over a --set for every instance.
            if (find_param(info.params, name) || !only.empty()) {
                assigned[k].insert(assigned[k].begin(), {name, value}), used = true;
                // prefix, boundaries and cap matter only under their modifier: setting one switches it on, as
                // inside --variant (variant_spec.h), unless the instance sets the switch itself.
                const std::pair<std::string, std::string> modifier_switch = modifier_switch_for(name);
                const std::string& switch_name = modifier_switch.first;
                const std::string& switch_value = modifier_switch.second;
                const auto sets_switch = [&](const auto& a) { return a.first == switch_name; };
                if (!switch_name.empty() && find_param(info.params, switch_name) &&
                    std::none_of(assigned[k].begin(), assigned[k].end(), sets_switch))
                    assigned[k].insert(assigned[k].begin(), {switch_name, switch_value});
            }
        }
        if (!used)
            throw Error("--set " + text + ": none of the chosen variants has a parameter '" + name +
                        "' (see `attnscope variants`)");
    }
    // A decoder's text: the causal form is the default, set before the user's values so that causal=0 still wins.
    if (causal_by_default && !causal)
        for (size_t k = 0; k < ids.size(); ++k) {
            const VariantInfo& info = find_variant(ids[k]).info();
            if (find_param(info.params, "causal")) assigned[k].insert(assigned[k].begin(), {"causal", "1"});
            else if (find_param(info.params, "bidirectional"))
                assigned[k].insert(assigned[k].begin(), {"bidirectional", "0"});
        }
    if (causal)
        for (size_t k = 0; k < ids.size(); ++k) {
            const VariantInfo& info = find_variant(ids[k]).info();
            if (find_param(info.params, "causal")) assigned[k].emplace_back("causal", "1");
            else if (find_param(info.params, "bidirectional")) assigned[k].emplace_back("bidirectional", "0");
            else if (!info.always_causal)
                throw Error("--causal: " + ids[k] + " has no causal form (" + info.summary + "); drop --causal or the variant");
        }
    std::vector<VariantRequest> out;
    for (size_t k = 0; k < ids.size(); ++k) out.push_back(parse_variant_request(ids[k], assigned[k]));
    return out;
}

}  // namespace attnscope::cli

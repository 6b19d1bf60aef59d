#include "core/lessons/check_util.h"

#include "core/lessons/preset.h"

#include <algorithm>

#include "core/session/worker.h"

#include "core/variants/registry.h"

namespace attnscope {

Heads check_input(ScenarioKind kind, int n, int heads, int dim, uint64_t seed, double temperature) {
    ScenarioSpec spec;
    spec.kind = kind, spec.n = n, spec.heads = heads, spec.dim = dim, spec.seed = seed, spec.temperature = temperature;
    return make_scenario(spec);
}

Heads lesson_heads(const Lesson& lesson, CheckOutcome& out) {
    const InputSpec spec = preset_input_spec(lesson.preset);
    out.input = describe_input(spec);
    return build_input(spec);
}

std::vector<LabelledHeads> lesson_layers(const Lesson& lesson, const std::vector<int>& layers, CheckOutcome& out) {
    InputSpec spec = preset_input_spec(lesson.preset);
    if (spec.mode != InputMode::Text || layers.empty()) return {{describe_input(spec), lesson_heads(lesson, out)}};
    std::vector<LabelledHeads> inputs;
    std::string listed;
    for (int layer : layers) {
        spec.layer = layer;
        inputs.push_back({"layer " + std::to_string(layer), build_input(spec)});
        listed += (listed.empty() ? "" : ", ") + std::to_string(layer);
    }
    spec.layer = preset_input_spec(lesson.preset).layer;
    out.input = describe_input(spec) + " on screen; the check measures layer(s) " + listed;
    return inputs;
}

int keys_in_row(const ReasonMask& mask, int h, int i) {
    int row = 0;
    for (int j = 0; j < mask.n; ++j) row += mask.at(h, i, j) != Reason::None;
    return row;
}

KeysPerQuery keys_per_query(const RunResult& run) {
    if (!run.structure.mask) throw Error(run.variant + " reported no mask: its keys per query cannot be counted");
    const ReasonMask& mask = *run.structure.mask;
    KeysPerQuery k;
    int64_t total = 0;
    for (int h = 0; h < mask.heads; ++h)
        for (int i = 0; i < mask.n; ++i) {
            const int row = keys_in_row(mask, h, i);
            k.most = std::max(k.most, row);
            total += row;
        }
    k.mean = double(total) / std::max<int64_t>(1, int64_t(mask.heads) * mask.n);
    return k;
}

VariantRequest preset_request(const Lesson& lesson, const std::string& id) {
    for (VariantRequest& r : preset_variants(lesson.preset))
        if (r.id == id) return r;
    throw Error("lesson " + lesson.id + ": its preset shows no '" + id + "' panel, which its check measures");
}

int preset_view(const Lesson& lesson, const std::string& id) {
    const std::vector<VariantRequest> views = preset_variants(lesson.preset);
    for (size_t k = 0; k < views.size(); ++k)
        if (views[k].id == id) return int(k);
    throw Error("lesson " + lesson.id + ": its preset shows no " + id + " view");
}

void record_screen(const Lesson& lesson, CheckContext& context, const Heads& heads, const std::vector<std::string>& ids,
                   const std::string& metric, CheckOutcome& out) {
    const std::vector<VariantRequest> views = preset_variants(lesson.preset);
    for (size_t k = 0; k < views.size(); ++k) {
        if (std::find(ids.begin(), ids.end(), views[k].id) == ids.end()) continue;
        const std::optional<double> value = metric_by_id(check_run(context, heads, views[k], true), metric);
        if (!value) throw Error("lesson " + lesson.id + ": view " + std::to_string(k) + " (" + views[k].id + ") has no " + metric);
        out.screen.push_back({int(k), metric, *value});
    }
}

RunResult check_run(CheckContext& context, const Heads& heads, const std::string& id, const Assignments& assignments,
                    bool with_matrix) {
    return check_run(context, heads, parse_variant_request(id, assignments), with_matrix);
}

namespace {

void stop_when_cancelled(const CheckContext& context) {
    if (context.cancelled && context.cancelled()) throw CheckCancelled();
}

}  // namespace

RunResult check_run(CheckContext& context, const Heads& heads, const VariantRequest& request, bool with_matrix) {
    if (context.between_runs) context.between_runs();  // never inside a timed run: run_for_cost only polls
    stop_when_cancelled(context);
    ReferenceCache refs(heads, with_matrix);
    RunOptions options;
    options.explain = with_matrix;
    options.max_matrix_n = std::max(options.max_matrix_n, heads.n());
    return run_variant(heads, context.variant(request.id), request.params, options, context.backend, &refs);
}

RunResult run_for_cost(CheckContext& context, const Heads& heads, const VariantRequest& request) {
    stop_when_cancelled(context);
    return run_variant_timed(heads, context.variant(request.id), request.params, context.backend);
}

std::vector<const Tensor3*> inputs_of(std::initializer_list<const Heads*> inputs) {
    std::vector<const Tensor3*> out;
    for (const Heads* h : inputs) out.insert(out.end(), {&h->Q, &h->K, &h->V});
    return out;
}

VariantRequest with_params(VariantRequest request, const Assignments& assignments) {
    const VariantInfo& info = find_variant(request.id).info();
    for (const auto& [name, value] : assignments) {
        const Params one = parse_params(request.id, info.params, {{name, value}});
        if (const ParamSpec* spec = find_param(info.params, name); spec && spec->kind == ParamKind::IntList)
            request.params.set_list(name, one.get_list(name));
        else
            request.params.set(name, one.get(name));
    }
    return request;
}

double check_param(const nlohmann::json& params, const char* key, double fallback) {
    return params.contains(key) ? params.at(key).get<double>() : fallback;
}

}  // namespace attnscope

#include "check_util.h"

namespace attnscope {

Heads check_input(ScenarioKind kind, int n, int heads, int dim, uint64_t seed, double temperature) {
    ScenarioSpec spec;
    spec.kind = kind, spec.n = n, spec.heads = heads, spec.dim = dim, spec.seed = seed, spec.temperature = temperature;
    return make_scenario(spec);
}

RunResult check_run(const Heads& heads, const std::string& id, const Assignments& assignments, Backend& backend,
                    bool with_matrix) {
    ReferenceCache refs(heads, with_matrix);
    RunOptions options;
    options.want_matrix = with_matrix;
    return run_variant(heads, parse_variant_request(id, assignments), options, backend, &refs);
}

double check_param(const nlohmann::json& params, const char* key, double fallback) {
    return params.contains(key) ? params.at(key).get<double>() : fallback;
}

}  // namespace attnscope

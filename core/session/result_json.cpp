#include "core/session/result_json.h"

#include <cmath>

#include "core/session/metric_table.h"
#include "core/session/metrics.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"

namespace attnscope {

namespace {

nlohmann::json metric(const std::optional<double>& v) {
    if (!v || !std::isfinite(*v)) return nullptr;
    return *v;
}

/// Every metric with a value per head, as {"rel_err_out": [head 0, head 1, …], …} (null where a head's is unset or
/// infinite; a metric no head has is left out).
nlohmann::json per_head_json(const Metrics& m) {
    // A field no head has (density is reported for all heads only) is left out.
    nlohmann::json out = nlohmann::json::object();
    for (const MetricSpec& f : metric_table()) {
        if (!f.field) continue;
        nlohmann::json values = nlohmann::json::array();
        bool any = false;
        for (const MetricValues& h : m.heads) {
            values.push_back(metric(h.*f.field));
            any = any || (h.*f.field).has_value();
        }
        if (any) out[f.json_key] = std::move(values);
    }
    return out;
}

/// The means over heads of every metric (null where unset or infinite), each head's (per_head) and the notes.
nlohmann::json metrics_json(const Metrics& m) {
    nlohmann::json out = nlohmann::json::object();
    for (const MetricSpec& f : metric_table())
        if (f.field) out[f.json_key] = metric(m.*f.field);
    out["row_kl_infinite"] = m.row_kl && std::isinf(*m.row_kl);
    out["aggregate"] = "mean over heads of per_head (density: all heads' cells)";
    out["per_head"] = per_head_json(m);
    out["dense_warning"] = m.dense_warning.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.dense_warning);
    return out;
}

}  // namespace

nlohmann::json result_to_json(const RunResult& r) {
    const VariantInfo& info = find_variant(r.variant).info();
    nlohmann::json params = nlohmann::json::object();
    for (const ParamSpec& spec : info.params) {
        if (spec.kind == ParamKind::IntList) {
            params[spec.name] = r.params.has(spec.name) ? nlohmann::json(r.params.get_list(spec.name)) : nlohmann::json(nullptr);
        } else if (spec.kind == ParamKind::Choice) {
            params[spec.name] = r.params.value_text(spec);
        } else if (r.params.has(spec.name)) {
            params[spec.name] = r.params.get(spec.name);
        }
    }
    const Metrics& m = r.metrics;
    return {{"variant", r.variant},
            {"instance", instance_label(info, r.params)},  // the name every table, title and file of the run uses
            {"params", params},
            {"causal", r.causal},
            {"model", exact_model_id(r.model)},
            {"backend", r.backend},
            {"metrics", metrics_json(m)},
            {"cost",
             {{"flops", r.cost.flops},
              {"bytes", r.cost.bytes},
              {"time_ms", r.cost.time_ms},
              {"peak_bytes", r.cost.peak_bytes},
              // Device figures (CUDA backend; zeros on the CPU): the clock says how time_ms was measured.
              {"clock", r.cost.clock},
              {"wall_ms", r.cost.wall_ms},
              {"device_ms", r.cost.device_ms},
              {"peak_device_bytes", r.cost.peak_device_bytes}}},
            {"notes", r.structure.notes}};
}

nlohmann::json input_to_json(const Heads& h) {
    nlohmann::json j = {{"source", h.source}, {"n", h.n()}, {"heads", h.heads()}, {"dim", h.d()}, {"value_dim", h.dv()}};
    if (!h.tokens.empty()) j["tokens"] = h.tokens;
    return j;
}

}  // namespace attnscope

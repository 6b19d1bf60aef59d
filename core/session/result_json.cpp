#include "core/session/result_json.h"

#include <cmath>

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
    static const std::pair<const char*, std::optional<double> MetricValues::*> kFields[] = {
        {"rel_err_out", &MetricValues::rel_err_out},       {"rel_err_model", &MetricValues::rel_err_model},
        {"rel_err_attn", &MetricValues::rel_err_attn},     {"row_kl", &MetricValues::row_kl},
        {"row_kl_rev", &MetricValues::row_kl_rev},         {"mass_recall", &MetricValues::mass_recall},
        {"mass_ceiling", &MetricValues::mass_ceiling},     {"rank_ceiling", &MetricValues::rank_ceiling},
        {"keys_for_90", &MetricValues::keys_for_90},       {"row_entropy_nats", &MetricValues::row_entropy},
        {"keys_for_90_exact", &MetricValues::keys_for_90_exact},
        {"row_entropy_exact_nats", &MetricValues::row_entropy_exact}};
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, field] : kFields) {
        nlohmann::json values = nlohmann::json::array();
        bool any = false;
        for (const MetricValues& h : m.heads) {
            values.push_back(metric(h.*field));
            any = any || (h.*field).has_value();
        }
        if (any) out[name] = std::move(values);
    }
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
            {"metrics",
             {{"rel_err_out", metric(m.rel_err_out)},
              {"rel_err_model", metric(m.rel_err_model)},
              {"rel_err_attn", metric(m.rel_err_attn)},
              {"row_kl", metric(m.row_kl)},
              {"row_kl_infinite", m.row_kl && std::isinf(*m.row_kl)},
              {"row_kl_rev", metric(m.row_kl_rev)},
              {"mass_recall", metric(m.mass_recall)},
              {"mass_ceiling", metric(m.mass_ceiling)},
              {"rank_ceiling", metric(m.rank_ceiling)},
              {"density", metric(m.density)},
              {"keys_for_90", metric(m.keys_for_90)},
              {"row_entropy_nats", metric(m.row_entropy)},
              {"keys_for_90_exact", metric(m.keys_for_90_exact)},
              {"row_entropy_exact_nats", metric(m.row_entropy_exact)},
              {"aggregate", "mean over heads of per_head (density: all heads' cells)"},
              {"per_head", per_head_json(m)},
              {"dense_warning", m.dense_warning.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.dense_warning)}}},
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

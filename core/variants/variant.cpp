#include "core/variants/variant.h"

#include <cmath>

#include "core/variants/modifiers.h"

namespace attnscope {

double exact_attention_flops(int heads, int n, int d, int dv, bool causal) {
    const double cells = causal ? 0.5 * n * (n + 1.0) : double(n) * n;
    return heads * cells * 2.0 * (d + dv);
}

bool causal_of(const Params& resolved) { return resolved.get_or("causal", 0) != 0; }

bool runs_causal(const VariantInfo& info, const Params& params) { return info.always_causal || causal_of(params); }

ExactModel Variant::exact_model(const Params& resolved) const {
    return has_modifiers(resolved) ? ExactModel::Modified : ExactModel::Softmax;
}

Params Variant::resolve(const Params& params, const Shape& shape) const {
    Params p = params;
    if (find_param(m_info.params, "scale") && !p.has("scale"))
        p.set("scale", 1.0 / std::sqrt(static_cast<double>(shape.d())));
    return p;
}

double Variant::estimate_flops(int heads, int n, int d, int dv, const Params& resolved) const {
    return exact_attention_flops(heads, n, d, dv, causal_of(resolved));
}

int64_t Variant::estimate_peak_bytes(int heads, int n, int d, int dv, const Params&) const {
    // n×n scores + O, plus room for a few (n, d)-sized intermediates (projections, features, sorted copies).
    constexpr int64_t kSlackBytes = 16ll << 20;
    const int64_t floats = int64_t(heads) * n * (int64_t(n) + 2ll * d + 2ll * dv);
    return floats * int64_t(sizeof(float)) + kSlackBytes;
}

std::unique_ptr<Plan> Variant::plan(const Heads&, const Params& resolved,
                                    const std::shared_ptr<const VariantWeights>&) const {
    auto plan = std::make_unique<Plan>();
    plan->params = resolved;
    plan->causal = runs_causal(info(), resolved);
    return plan;
}

TimedExecution execute_timed(const Variant& variant, const Plan& plan, const Heads& heads, Backend& backend) {
    TimedExecution t;
    CostMeter meter(backend);
    t.execution = variant.execute(plan, heads, backend);
    meter.stop(t.cost);
    t.cost.flops = t.execution->flops;
    t.cost.bytes = t.execution->bytes;
    return t;
}

void note_rows_without_keys(Structure& structure) {
    if (!structure.allowed_lse) return;
    const Tensor3& lse = *structure.allowed_lse;
    int64_t empty = 0;
    for (int64_t k = 0; k < lse.size(); ++k) empty += lse.data()[k] == -INFINITY;
    const bool explained = structure.rows_without_keys > 0;  // the variant counted them and said why
    structure.rows_without_keys = empty;
    if (empty > 0 && !explained)
        structure.notes.push_back(std::to_string(empty) + " of " + std::to_string(lse.size()) + " query rows (all heads) "
                                  "keep no key, so their output is 0: the pattern, with its mask modifier if one is "
                                  "on, allows them none");
}

RunResult Variant::run(const Heads& heads, const Params& resolved, const RunOptions& options, Backend& backend) const {
    const std::unique_ptr<Plan> p = plan(heads, resolved, options.weights);
    p->picture_size = options.picture_size;
    return run_plan(*p, heads, options, backend);
}

RunResult Variant::run_plan(const Plan& plan, const Heads& heads, const RunOptions& options, Backend& backend) const {
    TimedExecution timed = execute_timed(*this, plan, heads, backend);
    Execution& e = *timed.execution;
    analyse(plan, e, heads, backend);
    note_rows_without_keys(e.structure);
    if (options.explain) {
        explain(plan, e, heads, options.max_matrix_n, backend);
        if (info().has_matrix && heads.n() > options.max_matrix_n)
            e.structure.notes.push_back("P̃ not materialised: n = " + std::to_string(heads.n()) +
                                        " exceeds the display limit " + std::to_string(options.max_matrix_n));
    }
    return make_result(*this, plan, std::move(timed));
}

RunResult make_result(const Variant& variant, const Plan& plan, TimedExecution&& timed) {
    Execution& e = *timed.execution;
    RunResult r;
    r.variant = variant.info().id;
    r.params = plan.params;
    r.causal = plan.causal;
    r.model = variant.exact_model(plan.params);
    r.O = std::move(e.O);
    r.P_eff = std::move(e.P_eff);
    r.structure = std::move(e.structure);
    r.cost = timed.cost;
    return r;
}

}  // namespace attnscope

#include "core/session/experiment.h"

#include <cmath>

#include "core/bench/memory_guard.h"
#include "core/host_memory.h"
#include "core/variants/modifiers.h"
#include "core/variants/rank_bound.h"
#include "core/variants/registry.h"

namespace attnscope {

VariantRequest parse_variant_request(const std::string& id,
                                     const std::vector<std::pair<std::string, std::string>>& assignments) {
    const Variant& v = find_variant(id);
    return {id, parse_params(id, v.info().params, assignments)};
}

const Reference& ReferenceCache::get(bool causal, Backend& backend) {
    auto it = m_refs.find(causal);
    if (it == m_refs.end()) {
        if (m_want_P)
            require_host_memory(int64_t(sizeof(float)) * m_heads.heads() * m_heads.n() * m_heads.n(),
                                "the exact reference P (for rel_err_attn and row KL) at n = " + std::to_string(m_heads.n()),
                                "lower n or the number of heads");
        StageClock clock;
        it = m_refs.emplace(causal, compute_reference(m_heads, causal, m_want_P, backend)).first;
        // Once per reference: every variant shows the exact P's keys_for_90 and entropy beside its own.
        if (it->second.P) it->second.P_rows = std::make_shared<const RowConcentration>(row_concentration(*it->second.P));
        clock.stop_into(m_time);
    }
    return it->second;
}

namespace {

/// True when flash's run used the kernel compute_reference runs, so its O and L are the reference's bits: kernel own,
/// or best away from CUDA (on CUDA, best runs CUTLASS's kernel wherever it can: another summation).
bool ran_own_kernel(const RunResult& r) {
    const int kernel = r.params.get_int("kernel");  // own, cutlass, best
    return kernel == 0 || (kernel == 2 && r.backend != "cuda");
}

}  // namespace

bool ReferenceCache::adopt(const RunResult& r) {
    if (m_want_P || m_refs.count(r.causal) || r.variant != "flash" || !r.structure.lse || has_modifiers(r.params) ||
        r.params.get_int("precision") != 0 || !ran_own_kernel(r) || r.O.heads() != m_heads.heads() || r.O.rows() != m_heads.n())
        return false;
    // compute_reference's scale, to the bit: another scale is another model (other tile sizes only reorder sums).
    if (static_cast<float>(r.params.get("scale")) != static_cast<float>(1.0 / std::sqrt(static_cast<double>(m_heads.d()))))
        return false;
    Reference ref;
    ref.causal = r.causal;
    ref.O = r.O;
    ref.lse = *r.structure.lse;
    m_refs.emplace(r.causal, std::move(ref));
    return true;
}

const Reference& ReferenceCache::get_model(ExactModel model, bool causal, Backend& backend) {
    const auto key = std::make_pair(model, causal);
    auto it = m_model_refs.find(key);
    if (it == m_model_refs.end()) {
        StageClock clock;
        it = m_model_refs.emplace(key, compute_model_reference(m_heads, model, causal, backend)).first;
        clock.stop_into(m_time);
    }
    return it->second;
}

const Reference& ReferenceCache::get_modified(const Modifiers& modifiers, bool causal, Backend& backend) {
    const auto key = std::make_pair(modifiers.key(), causal);
    auto it = m_modified_refs.find(key);
    if (it == m_modified_refs.end()) {
        StageClock clock;
        it = m_modified_refs.emplace(key, compute_modified_reference(m_heads, modifiers, causal, backend)).first;
        clock.stop_into(m_time);
    }
    return it->second;
}

const Reference* ReferenceCache::own_model(const RunResult& result, Backend& backend) {
    if (result.model == ExactModel::SharedQkSelfMasked) return &get_model(result.model, result.causal, backend);
    if (result.model == ExactModel::Modified)
        return &get_modified(modifiers_of(result.params, m_heads), result.causal, backend);
    return nullptr;
}

const std::vector<double>& ReferenceCache::singular_values(bool causal, Backend& backend) {
    auto it = m_singular_values.find(causal);
    if (it == m_singular_values.end()) {
        std::vector<double> S;
        const Reference& ref = get(causal, backend);
        if (ref.P) {
            StageClock clock;
            SingularValuesArgs a;
            a.M = ref.P.get(), a.S = &S;
            backend.singular_values(a);
            clock.stop_into(m_time);
        }
        it = m_singular_values.emplace(causal, std::move(S)).first;
    }
    return it->second;
}

std::optional<Tensor3> ReferenceCache::take_P(bool causal) {
    auto it = m_refs.find(causal);
    if (it == m_refs.end() || !it->second.P) return std::nullopt;
    std::shared_ptr<Tensor3> shared = std::move(it->second.P);
    if (shared.use_count() > 1) return Tensor3(*shared);  // a snapshot still shows it: leave that copy alone
    return std::move(*shared);
}

std::shared_ptr<const Tensor3> ReferenceCache::shared_P(bool causal) const {
    auto it = m_refs.find(causal);
    return it == m_refs.end() ? nullptr : it->second.P;
}

RunResult run_variant(const Heads& heads, const VariantRequest& request, const RunOptions& options, Backend& backend,
                      ReferenceCache* refs) {
    return run_variant(heads, find_variant(request.id), request.params, options, backend, refs);
}

RunResult run_variant(const Heads& heads, const Variant& variant, const Params& request_params, const RunOptions& options,
                      Backend& backend, ReferenceCache* refs) {
    validate_heads(heads);
    const Params params = variant.resolve(request_params, heads.shape());
    require_fit(variant, heads, params, options, backend);  // estimated before anything is allocated
    RunResult result = variant.run(heads, params, options, backend);
    result.backend = backend.name();
    if (refs) {
        const Reference* model_ref = refs->own_model(result, backend);
        compute_metrics(refs->get(result.causal, backend), model_ref, variant.info(), result);
        const int rank = refs->rank_ceilings() && result.P_eff ? rank_bound(result, heads.d()) : 0;
        if (rank > 0) {
            const std::vector<double>& S = refs->singular_values(result.causal, backend);
            if (!S.empty()) set_rank_ceilings(result.metrics, best_rank_errors(S, heads.heads(), rank));
        }
    }
    return result;
}

RunResult run_variant_timed(const Heads& heads, const Variant& variant, const Params& request_params, Backend& backend) {
    validate_heads(heads);
    const Params params = variant.resolve(request_params, heads.shape());
    require_fit(variant, heads, params, RunOptions{}, backend);
    const std::unique_ptr<Plan> plan = variant.plan(heads, params, nullptr);
    RunResult result = make_result(variant, *plan, execute_timed(variant, *plan, heads, backend));
    result.backend = backend.name();
    return result;
}

}  // namespace attnscope

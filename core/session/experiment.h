// attnscope — running requested variants on one input with shared references and metrics.
// The CLI, the GUI worker and the benchmarks all go through run_variant(), so a number means the same
// thing everywhere.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/session/metrics.h"
#include "core/session/stage_times.h"
#include "core/backend/interface/backend.h"
#include "core/variants/variant.h"

namespace attnscope {

/// One variant to run with user-given assignments (validated by parse_variant_request).
struct VariantRequest {
    std::string id;  // variant id
    Params params;   // validated values (auto defaults may still be unset)
};

/// Parses "NAME=VALUE" assignments for a variant; throws Error on unknown variant or bad values.
VariantRequest parse_variant_request(const std::string& id,
                                     const std::vector<std::pair<std::string, std::string>>& assignments);

/// Exact references of one input, computed lazily once per causality and shared by all variants.
class ReferenceCache {
public:
    /// `heads` must outlive the cache. `want_P`: materialise exact P (needed for rel_err_attn, row_kl).
    ReferenceCache(const Heads& heads, bool want_P) : m_heads(heads), m_want_P(want_P) {}
    /// The softmax reference for this causality, computing it on first use.
    const Reference& get(bool causal, Backend& backend);
    /// The reference of a changed model (compute_model_reference) for this causality, computed on first use.
    const Reference& get_model(ExactModel model, bool causal, Backend& backend);
    /// The reference of softmax attention with these modifiers (compute_modified_reference), computed on first use.
    const Reference& get_modified(const Modifiers& modifiers, bool causal, Backend& backend);
    /// The reference of `result`'s own exact model when the run changes the model (shared-QK LSH, score or mask
    /// modifiers: what rel_err_model and mass_recall are measured against), nullptr when it keeps softmax attention
    /// or has no exact counterpart.
    const Reference* own_model(const RunResult& result, Backend& backend);
    /// Takes `result`'s O and log-sum-exp as the softmax reference of its causality when the run computed exactly the
    /// reference's definition (flash: softmax of 1/√d·q·k, fp32, no modifiers; its pass kept L) and no reference of that
    /// causality exists yet, so no second exact pass runs; only without a materialised P. Returns whether it did.
    bool adopt(const RunResult& result);
    /// Moves the materialised exact P of this causality out (O and lse stay); nothing when it was not computed.
    std::optional<Tensor3> take_P(bool causal);
    /// The materialised exact P of this causality, shared and kept for later metrics (null when not computed).
    std::shared_ptr<const Tensor3> shared_P(bool causal) const;
    /// The input this cache is for.
    const Heads& heads() const { return m_heads; }
    /// From now on, run_variant also fills Metrics::rank_ceiling of low-rank variants (an exact SVD of every head of
    /// P, once per causality): the svd oracle at each variant's rank bound, which a view asks for by name.
    void want_rank_ceilings(bool on) { m_rank_ceilings = on; }
    bool rank_ceilings() const { return m_rank_ceilings; }
    /// Singular values of every head of the materialised exact P of this causality, (H, n) descending per head,
    /// computed on first use; empty when P was not materialised.
    const std::vector<double>& singular_values(bool causal, Backend& backend);
    /// Wall and thread CPU time spent computing references so far (a batch's "reference" stage).
    const StageTime& time_spent() const { return m_time; }

private:
    StageTime m_time{"reference"};
    const Heads& m_heads;
    bool m_want_P;
    bool m_rank_ceilings = false;
    std::map<bool, Reference> m_refs;
    std::map<bool, std::vector<double>> m_singular_values;  // causal → (H, n) σ of exact P
    std::map<std::pair<ExactModel, bool>, Reference> m_model_refs;
    std::map<std::pair<std::string, bool>, Reference> m_modified_refs;  // by Modifiers::key()
};

/// Resolves params against the input, runs the variant and fills its metrics from `refs` (when given).
/// Throws Error for bad parameters or inputs; the message names the variant.
RunResult run_variant(const Heads& heads, const VariantRequest& request, const RunOptions& options, Backend& backend,
                      ReferenceCache* refs);
/// The same with the variant given (a stand-in a test substitutes for the registered one); request.id is ignored.
RunResult run_variant(const Heads& heads, const Variant& variant, const Params& params, const RunOptions& options,
                      Backend& backend, ReferenceCache* refs);
/// plan() and one metered execute() with the same checks as run_variant, but no analyse, explain or metrics: the
/// algorithm alone, as lesson timings compare it (O and cost set; density, allowed_lse and P̃ unset).
RunResult run_variant_timed(const Heads& heads, const Variant& variant, const Params& params, Backend& backend);

}  // namespace attnscope

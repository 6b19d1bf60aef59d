// attnscope — errors of a variant against the exact softmax on the same inputs (docs/VARIANTS.md "Metrics").
// The exact reference is computed once per (input, causality) and shared by every variant.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "core/backend/interface/backend.h"
#include "core/variants/modifiers.h"
#include "core/variants/variant.h"

namespace attnscope {

/// How concentrated the rows of each head of a distribution matrix are, averaged over that head's rows (every row
/// up to 256 per head, else 256 evenly spaced ones).
struct RowConcentration {
    std::vector<double> keys_for_90;  // per head: the fewest keys holding 90% of a row's weight
    std::vector<double> entropy;      // per head: −Σ_j p_j ln p_j of a row, in nats
};

/// The exact softmax attention of an input: what every metric compares against.
struct Reference {
    bool causal = false;           // causality of this reference
    Tensor3 O;                     // (H, n, dv) exact output
    Tensor3 lse;                   // (H, n, 1) log Σ_j exp(s·q_i·k_j), s = 1/√d
    std::shared_ptr<Tensor3> P;    // (H, n, n) exact probabilities, when materialised (shared with the views that
                                   // show it, so a cached reference and a published snapshot hold one copy)
    std::shared_ptr<const RowConcentration> P_rows;  // of P, when ReferenceCache computed it once for every
                                                     // variant's keys_for_90_exact (else compute_metrics does)
};

/// Share of cells above which a sparse pattern is called dense at this n (Metrics::dense_warning).
inline constexpr double kDenseShare = 0.9;

/// Short id of a model for tables and JSON: "softmax", "shared-qk", "modified", "different".
const char* exact_model_id(ExactModel model);
/// One sentence saying what a variant's errors are measured against under this model.
const char* exact_model_sentence(ExactModel model);

/// Computes the exact reference with s = 1/√d; materialises P when want_P (throws Error when P would not fit).
Reference compute_reference(const Heads& heads, bool causal, bool want_P, Backend& backend);

/// The exact output and log-sum-exp of a changed model (ExactModel other than Softmax and Different), s = 1/√d:
/// for SharedQkSelfMasked every key is the L2-normalised query and a query's own cell is used only in rows
/// where nothing else is allowed (the first row when causal), as Reformer does. No P is materialised.
Reference compute_model_reference(const Heads& heads, ExactModel model, bool causal, Backend& backend);

/// The exact output and log-sum-exp of softmax attention with `modifiers` (ExactModel::Modified), s = 1/√d: every
/// cell the mask modifier keeps (and j ≤ i when causal), logits through the score modifier. No P is materialised.
Reference compute_modified_reference(const Heads& heads, const Modifiers& modifiers, bool causal, Backend& backend);

/// Share of head h's exact attention mass (of `total_lse`, (H, n, 1)) inside the allowed cells (`allowed_lse`,
/// (H, n, 1) log Σ_allowed exp(s·q·k)): the mean over query rows of exp(allowed − total).
double head_mass_recall(const Tensor3& allowed_lse, const Tensor3& total_lse, int h);

/// ‖P − P_r‖_F / ‖P‖_F of every head for the best rank-r approximation P_r (Eckart–Young:
/// sqrt(Σ_{i>r} σ_i² / Σ_i σ_i²)), from `S` = (heads, m) singular values, descending per head.
std::vector<double> best_rank_errors(const std::vector<double>& S, int heads, int r);

/// The mean over heads of best_rank_errors.
double best_rank_error(const std::vector<double>& S, int heads, int r);

/// Sets rank_ceiling of every head of `m` from `per_head` (best_rank_errors) and the run's to their mean.
void set_rank_ceilings(Metrics& m, const std::vector<double>& per_head);

/// keys_for_90 and row entropy of every head of P (H, n, n), rows with non-negative entries.
RowConcentration row_concentration(const Tensor3& P);

/// The metric a badge, a CSV column or a lesson names by id (a row of metric_table()) as the mean over heads, or
/// nothing when the run has none, the id is unknown or the metric is measured outside a run.
std::optional<double> metric_by_id(const RunResult& r, const std::string& id);

/// Every id metric_by_id can answer (metric_table()'s rows measured in a run), in the table's order.
const std::vector<std::string>& metric_ids();

/// Fills result.metrics, per head and as the mean over heads of those: rel_err_out against softmax attention (`ref`)
/// when O has O_full's shape; rel_err_model against `model_ref` (the variant's own exact model, nullptr when it has
/// none); rel_err_attn, row_kl and row_kl_rev when P̃ and P exist with the same shape (the KLs only for normalised
/// variants whose P̃ is non-negative); mass_recall from structure.allowed_lse against the own model's log-sum-exp
/// (softmax's when the variant keeps the model); keys_for_90 and row_entropy of P̃ (normalised, non-negative) and
/// their _exact twins of ref.P when materialised; density from structure.density (all heads only).
void compute_metrics(const Reference& ref, const Reference* model_ref, const VariantInfo& info, RunResult& result);

}  // namespace attnscope

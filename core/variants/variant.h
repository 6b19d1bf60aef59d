// attnscope — what a variant is: its card (VariantInfo), its four phases and its output (RunResult); its input is
// Heads (heads.h). plan() decides on the host (structure, seeded draws), execute() calls the Backend's primitives
// and is the only phase timed, analyse() adds what metrics need, explain() what views draw. Backends implement
// primitives, never variants; a variant never measures itself (execute_timed does).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backend/interface/cost_meter.h"
#include "core/heads.h"
#include "core/tensor.h"
#include "core/variants/decoders.h"
#include "core/variants/params.h"
#include "core/variants/structure.h"

namespace attnscope {

class Backend;

/// FLOPs of exact attention: QKᵀ and PV, one multiply-add per (i, j, feature) over n² cells per head, or
/// n(n+1)/2 when causal.
double exact_attention_flops(int heads, int n, int d, int dv, bool causal);

/// The card of a variant: identity, paper and parameter contract.
struct VariantInfo {
    std::string id;                 // short id used on the command line, e.g. "longformer"
    std::string name;               // display name, e.g. "Longformer"
    std::string paper;              // "Beltagy et al. 2020"
    std::string summary;            // one line: what is scored and how it is normalised
    std::vector<ParamSpec> params;  // every parameter with default, range and help
    bool has_mask = false;          // a sparsity mask with reasons exists (masked and hashed families)
    bool normalised = true;         // rows of P̃ are non-negative and sum to 1 (row_kl applies)
    bool has_matrix = true;         // an effective matrix P̃ is defined
    bool always_causal = false;     // causal by construction with no causal parameter (e.g. xl)
    std::string short_name;         // title of an instance, e.g. "SVD" in "SVD r = 8" (instance_label.h)
    std::vector<std::string> key_params;  // parameters every instance label names, budget first (e.g. rank)
    bool signed_matrix = false;     // P̃ is signed by definition (a mixing matrix, not weights): diverging colours
    std::string budget_param;       // the parameter that sets how much each query mixes (keys per query, rank,
                                    // features, projected length): the shared axis of a "budget" sweep; "" = none
};

/// Whether a run with these parameters is causal: the variant is causal by construction or its `causal` is on.
bool runs_causal(const VariantInfo& info, const Params& params);

/// The exact model a variant approximates. Most approximate softmax attention itself; some change the model first
/// (their error against softmax then mixes two effects), and some are a different model altogether.
enum class ExactModel {
    Softmax,             // softmax(s·QKᵀ)·V: errors against softmax attention are approximation errors
    SharedQkSelfMasked,  // softmax(s·Q·Q̂ᵀ)·V, Q̂ = L2-normalised Q, self cell only when nothing else is allowed
                         // (Reformer's shared-QK attention): rel_err_model is measured against it
    Modified,            // softmax attention with the run's score / mask modifiers (ALiBi, soft-cap, prefix-LM,
                         // document; modifiers.h): rel_err_model is measured against exact attention with them
    Different,           // no exact counterpart here (FNet's Fourier mixing, untrained projections): errors against
                         // softmax measure how different the model is, not how well it approximates
};

/// What a trained model holds as weights for one shape and parameter set (Linformer's E and F), made by
/// Variant::make_weights(); only the variant that made it reads it.
struct VariantWeights {
    virtual ~VariantWeights() = default;
};

/// What Variant::run() does beyond the algorithm. Benchmarks do not call run(): they time plan() → execute() alone.
struct RunOptions {
    bool explain = false;      // also run explain(): P̃ (n×n per head), the reason mask and what views draw
    int max_matrix_n = 4096;   // explain() materialises no n×n matrix above this n (memory), and says so in a note
    int picture_size = 0;      // > 0: a variant that can max-pool P̃ inside its own pass (flash on the CPU) returns
                               // that (H, s, s) picture, s = min(n, picture_size), in structure.picture
    std::shared_ptr<const VariantWeights> weights;  // from make_weights() for the same shapes and params; null (or
                                                    // made for others): plan() makes its own, outside the timing
};

/// What plan() decided for one input before any timed work: the resolved params and the variant's host-side draws
/// (LSH rotations, BigBird's random blocks, Performer's ω, Linformer's E and F). Variants with draws derive from it.
struct Plan {
    virtual ~Plan() = default;
    Params params;         // resolved
    bool causal = false;   // whether the run is causal (decides the reference)
    int picture_size = 0;  // RunOptions::picture_size, set by Variant::run
};

/// What execute() computed: O, its analytic cost and the structure it decided; analyse() and explain() add to it.
/// A variant derives from it to keep what those phases read back (L, D, projected keys, features).
struct Execution {
    virtual ~Execution() = default;
    Tensor3 O;                     // (H, n, dv)
    double flops = 0;              // analytic floating-point operations of execute()
    double bytes = 0;              // analytic bytes moved by execute()
    Structure structure;           // what the variant decided (structure.h)
    std::optional<Tensor3> P_eff;  // (H, n, n) effective matrix, from explain()
};

/// The metrics of one head, each over that head's n rows and n×n cells alone (docs/VARIANTS.md "Metrics"); unset
/// when a metric does not apply. Metrics holds one per head and, in the same fields, their means over heads;
/// core/session/metric_table.h gives each its names and words.
struct MetricValues {
    std::optional<double> rel_err_out;   // ‖O − O_full‖_F / ‖O_full‖_F
    std::optional<double> rel_err_model; // ‖O − O_model‖_F / ‖O_model‖_F against the own exact model (ExactModel)
    std::optional<double> rel_err_attn;  // ‖P̃ − P‖_F / ‖P‖_F
    std::optional<double> row_kl;        // mean_i KL(P_i ‖ P̃_i); +inf when P̃ drops mass P has
    std::optional<double> row_kl_rev;    // mean_i KL(P̃_i ‖ P_i): finite for a mask; −log(kept mass) when renormalised
    std::optional<double> mass_recall;   // mean_i Σ_{j allowed} P_ij, P of the own exact model
    std::optional<double> density;       // allowed cells / (n² or n(n+1)/2); the variants report it for all heads
                                         // only, so a head's own is unset
    std::optional<double> mass_ceiling;  // mean_i of the most exact mass any c_i keys of row i hold (c_i = the keys the
                                         // mask keeps in that row): the topk oracle's mass at the same keys per row
    std::optional<double> rank_ceiling;  // low-rank variants, when asked: ‖P − P_r‖_F / ‖P‖_F with P_r the best
                                         // rank-r matrix (truncated SVD), r = the variant's rank bound
    std::optional<double> keys_for_90;   // mean over rows of the fewest keys holding 90% of the row's weight, of P̃
    std::optional<double> row_entropy;   // mean over rows of −Σ_j P̃_ij ln P̃_ij, in nats (exp of it: "effective keys")
    std::optional<double> keys_for_90_exact;  // the same of the exact softmax P the run is compared with
    std::optional<double> row_entropy_exact;  // the same of the exact softmax P, in nats
};

/// Errors against the exact softmax on the same inputs (and against the variant's own exact model where it changes
/// the model). The inherited fields are means over heads of the per-head values in `heads` (every head weighs the
/// same; the lessons' thresholds are calibrated on these means), except density, which is over all heads' cells.
struct Metrics : MetricValues {
    std::vector<MetricValues> heads;     // head h's own values (empty when no metric was computed)
    std::vector<float> row_mass_recall;  // per row, averaged over heads (when mass_recall is set)
    std::vector<float> head_row_mass_recall;  // (H, n) [h · n + i]: row i's mass kept in head h alone
    std::string dense_warning;           // non-empty when a sparse pattern scores (almost) every cell at this n
};

/// Everything one variant produced on one input.
struct RunResult {
    std::string variant;           // VariantInfo::id
    Params params;                 // the values used (auto defaults resolved)
    bool causal = false;           // whether the run was causal (decides the reference)
    ExactModel model = ExactModel::Softmax;  // what the variant approximates (decides rel_err_model, mass_recall)
    Tensor3 O;                     // (H, n, dv)
    std::optional<Tensor3> P_eff;  // (H, n, n) effective matrix, when requested and defined
    Structure structure;           // what it decided: mask, layout, buckets, projections, features (structure.h)
    Cost cost;                     // flops, bytes, time, memory
    Metrics metrics;               // filled by the session against the shared reference
    std::string backend;           // name of the backend that ran it
};

/// One metered execute(): the execution and the time and peak memory of that call alone (flops and bytes copied
/// from the execution). The one place a variant's cost is measured: run(), benchmarks and lesson timings use it.
struct TimedExecution {
    std::unique_ptr<Execution> execution;
    Cost cost;
};

/// A variant: a card and four phases over all heads — plan (untimed host decisions), execute (the algorithm, timed
/// by the caller), analyse (what the metrics need beyond O), explain (what the views draw).
class Variant {
public:
    virtual ~Variant() = default;
    /// The card (id, paper, parameters), set by the variant's constructor.
    const VariantInfo& info() const { return m_info; }
    /// Fills in auto defaults that depend on the input shape and checks cross-parameter constraints
    /// (e.g. window ≤ 2n); throws Error with what to change. The default resolves an auto "scale" to 1/√d.
    virtual Params resolve(const Params& params, const Shape& shape) const;
    /// Host-side decisions for this input with resolved params: structure and random draws, deterministic given the
    /// seed, no hidden cache. `weights` from make_weights() are used when made for these shapes and params. The
    /// default holds the params and their "causal" flag (always causal for VariantInfo::always_causal).
    virtual std::unique_ptr<Plan> plan(const Heads& heads, const Params& resolved,
                                       const std::shared_ptr<const VariantWeights>& weights) const;
    /// The algorithm on the backend's primitives: O, analytic flops and bytes, and the structure it decides while
    /// running. Everything inside is timed and metered by the caller (execute_timed).
    virtual std::unique_ptr<Execution> execute(const Plan& plan, const Heads& heads, Backend& backend) const = 0;
    /// What the metrics read beyond O where it costs extra passes (density, allowed_lse for mass recall, timing
    /// notes). run() calls it after execute; benchmarks and lesson timings do not.
    virtual void analyse(const Plan& plan, Execution& execution, const Heads& heads, Backend& backend) const {
        (void)plan, (void)execution, (void)heads, (void)backend;
    }
    /// What the views draw: P̃ (execution.P_eff, only for n ≤ max_matrix_n), the reason mask, features and
    /// projections. Display only: never timed.
    virtual void explain(const Plan& plan, Execution& execution, const Heads& heads, int max_matrix_n,
                         Backend& backend) const {
        (void)plan, (void)execution, (void)heads, (void)max_matrix_n, (void)backend;
    }
    /// plan → execute (timed) → analyse → explain (when options.explain), with resolved params.
    RunResult run(const Heads& heads, const Params& resolved, const RunOptions& options, Backend& backend) const;
    /// run() from a plan made elsewhere (tests inject rotations, ω or projections through their variant's plan).
    RunResult run_plan(const Plan& plan, const Heads& heads, const RunOptions& options, Backend& backend) const;
    /// Upper bound of the tracked bytes execute() holds at its peak (outputs included, inputs Q/K/V excluded)
    /// for these shapes and resolved params. Benchmarks check it *before*
    /// running so a point that would not fit is skipped, not crashed. The default is conservative: it
    /// assumes one n×n matrix per head is materialised beside O; sub-quadratic variants override it.
    virtual int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params& resolved) const;
    /// Analytic FLOPs of execute() for these shapes and resolved params, without running: the cost model the
    /// Performance panel draws before anything is measured. execute() reports the same figure. The
    /// default counts exact attention (exact_attention_flops with the "causal" parameter, off when absent).
    virtual double estimate_flops(int heads, int n, int d, int dv, const Params& resolved) const;
    /// True when, for these resolved params, the pattern execute() runs depends on the input's values (vslash's
    /// lines may overlap), so estimate_flops() only bounds what execute() reports from above; false (exact) by default.
    virtual bool flops_estimate_is_bound(const Params&) const { return false; }
    /// The weights a trained model would hold for these shapes and resolved params (Linformer's E and F), so that
    /// benchmarks can build them before timing and outside the peak, as they do the inputs, and pass them to
    /// plan(). nullptr when the variant has none (the default).
    virtual std::shared_ptr<const VariantWeights> make_weights(const Heads& heads, const Params& resolved) const {
        (void)heads, (void)resolved;
        return nullptr;
    }
    /// A token-by-token decoder of the causal form of one head (d, dv), or nullptr when the variant has none.
    virtual std::unique_ptr<Decoder> make_decoder(int d, int dv, const Params& resolved) const {
        (void)d, (void)dv, (void)resolved;
        return nullptr;
    }
    /// The exact model this variant approximates with these resolved params: softmax attention by default, Modified
    /// when the params switch on a score or mask modifier.
    virtual ExactModel exact_model(const Params& resolved) const;

protected:
    VariantInfo m_info;  // the card info() returns
};

/// Calls variant.execute() inside one CostMeter on `backend`.
TimedExecution execute_timed(const Variant& variant, const Plan& plan, const Heads& heads, Backend& backend);

/// The RunResult of a timed execution of `plan` (O, structure, P̃ and cost moved out of it).
RunResult make_result(const Variant& variant, const Plan& plan, TimedExecution&& timed);

/// Counts the query rows whose allowed set is empty (allowed_lse = −∞) into structure.rows_without_keys and, when
/// there are any and the variant has not counted (and explained) them itself, says so in a note: a row without a key
/// outputs 0, which no user should have to discover.
void note_rows_without_keys(Structure& structure);

/// The "causal" param of resolved params (off when the variant has none).
bool causal_of(const Params& resolved);

}  // namespace attnscope

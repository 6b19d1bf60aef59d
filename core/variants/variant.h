// attnscope — what a variant is: its card (VariantInfo) and its output (RunResult); its input is Heads (heads.h).
// A variant is a *plan* over a few primitives: it decides structure on the host (deterministic given a
// seed) and calls the Backend's primitives; backends implement primitives, never variants.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../backend/cost_meter.h"
#include "../heads.h"
#include "../tensor.h"
#include "decoders.h"
#include "params.h"
#include "structure.h"

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
};

/// The exact model a variant approximates. Most approximate softmax attention itself; some change the model first
/// (their error against softmax then mixes two effects), and some are a different model altogether.
enum class ExactModel {
    Softmax,             // softmax(s·QKᵀ)·V: errors against softmax attention are approximation errors
    SharedQkSelfMasked,  // softmax(s·Q·Q̂ᵀ)·V, Q̂ = L2-normalised Q, self cell only when nothing else is allowed
                         // (Reformer's shared-QK attention): rel_err_model is measured against it
    Different,           // no exact counterpart here (FNet's Fourier mixing, untrained projections): errors against
                         // softmax measure how different the model is, not how well it approximates
};

/// What a trained model holds as weights for one shape and parameter set (Linformer's E and F), made by
/// Variant::make_weights(); only the variant that made it reads it.
struct VariantWeights {
    virtual ~VariantWeights() = default;
};

/// What the caller wants materialised beside O.
struct RunOptions {
    bool want_matrix = false;  // fill RunResult::P_eff (n×n per head) and the reason mask
    int max_matrix_n = 4096;   // refuse to materialise above this n (memory), with a note
    bool want_analysis = true; // fill Structure::density and allowed_lse (mass recall) where they cost extra passes;
                               // benchmarks turn it off so they time the algorithm, as peers' forward calls are timed
    std::shared_ptr<const VariantWeights> weights;  // from make_weights() for the same shapes and params; null (or
                                                    // made for others): run() makes its own, outside its timing
};

/// Errors against the exact softmax on the same inputs (and against the variant's own exact model where it changes
/// the model); unset when a metric does not apply.
struct Metrics {
    std::optional<double> rel_err_out;   // ‖O − O_full‖_F / ‖O_full‖_F
    std::optional<double> rel_err_model; // ‖O − O_model‖_F / ‖O_model‖_F against the own exact model (ExactModel)
    std::optional<double> rel_err_attn;  // ‖P̃ − P‖_F / ‖P‖_F
    std::optional<double> row_kl;        // mean_i KL(P_i ‖ P̃_i); +inf when P̃ drops mass P has
    std::optional<double> row_kl_rev;    // mean_i KL(P̃_i ‖ P_i): finite for a mask; −log(kept mass) when renormalised
    std::optional<double> mass_recall;   // mean_i Σ_{j allowed} P_ij, P of the own exact model
    std::optional<double> density;       // allowed cells / (n² or n(n+1)/2)
    std::vector<float> row_mass_recall;  // per row, averaged over heads (when mass_recall is set)
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

/// A variant: a card plus a run over all heads.
class Variant {
public:
    virtual ~Variant() = default;
    /// The card (id, paper, parameters).
    virtual const VariantInfo& info() const = 0;
    /// Fills in auto defaults that depend on the input shape and checks cross-parameter constraints
    /// (e.g. window ≤ 2n); throws Error with what to change.
    virtual Params resolve(const Params& params, const Shape& shape) const = 0;
    /// Runs every head with resolved params. Fills O, cost.flops/bytes, structure, and P_eff when asked.
    virtual RunResult run(const Heads& heads, const Params& params, const RunOptions& options,
                          Backend& backend) const = 0;
    /// Upper bound of the tracked bytes run() holds at its peak (outputs included, inputs Q/K/V excluded)
    /// for these shapes and resolved params, without options.want_matrix. Benchmarks check it *before*
    /// running so a point that would not fit is skipped, not crashed. The default is conservative: it
    /// assumes one n×n matrix per head is materialised beside O; sub-quadratic variants override it.
    virtual int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params& resolved) const;
    /// Analytic FLOPs of run() for these shapes and resolved params, without running: the cost model the
    /// Performance panel draws before anything is measured. run() reports the same figure as cost.flops. The
    /// default counts exact attention (exact_attention_flops with the "causal" parameter, off when absent).
    virtual double estimate_flops(int heads, int n, int d, int dv, const Params& resolved) const;
    /// The weights a trained model would hold for these shapes and resolved params (Linformer's E and F), so that
    /// benchmarks can build them before timing and outside the peak, as they do the inputs, and pass them in
    /// RunOptions::weights. nullptr when the variant has none (the default).
    virtual std::shared_ptr<const VariantWeights> make_weights(const Heads& heads, const Params& resolved) const {
        (void)heads, (void)resolved;
        return nullptr;
    }
    /// A token-by-token decoder of the causal form of one head (d, dv), or nullptr when the variant has none.
    virtual std::unique_ptr<Decoder> make_decoder(int d, int dv, const Params& resolved) const {
        (void)d, (void)dv, (void)resolved;
        return nullptr;
    }
    /// The exact model this variant approximates with these resolved params (softmax attention by default).
    virtual ExactModel exact_model(const Params& resolved) const {
        (void)resolved;
        return ExactModel::Softmax;
    }
};

}  // namespace attnscope

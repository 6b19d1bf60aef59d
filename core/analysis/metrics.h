// attnscope — errors of a variant against the exact softmax on the same inputs (docs/VARIANTS.md "Metrics").
// The exact reference is computed once per (input, causality) and shared by every variant.
#pragma once
#include <optional>

#include "../backend/backend.h"
#include "../variants/variant.h"

namespace attnscope {

/// The exact softmax attention of an input: what every metric compares against.
struct Reference {
    bool causal = false;           // causality of this reference
    Tensor3 O;                     // (H, n, dv) exact output
    Tensor3 lse;                   // (H, n, 1) log Σ_j exp(s·q_i·k_j), s = 1/√d
    std::optional<Tensor3> P;      // (H, n, n) exact probabilities, when materialised
};

/// Computes the exact reference with s = 1/√d; materialises P when want_P (throws Error when P would not fit).
Reference compute_reference(const Heads& heads, bool causal, bool want_P, Backend& backend);

/// Fills result.metrics from the reference: rel_err_out when O has O_full's shape; rel_err_attn and row_kl
/// when P̃ and P exist with the same shape (row_kl only for normalised variants whose P̃ is non-negative);
/// mass_recall from structure.allowed_lse; density from structure.density. Averages over heads.
void compute_metrics(const Reference& ref, const VariantInfo& info, RunResult& result);

}  // namespace attnscope

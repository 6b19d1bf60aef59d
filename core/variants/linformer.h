// attnscope — `linformer` (Wang et al. 2020, "Linformer: Self-Attention with Linear Complexity"): keys and values
// projected along the sequence, K' = E·K, V' = F·V with E, F ∈ R^{k×n}; O = softmax(s·QK'ᵀ)·V'. The paper learns
// E and F; without training the `projection` parameter chooses what stands in for them:
//   pool    (default) E = F = segment means (row t averages the t-th of k contiguous segments): P̃ = P̄·F is a
//           row-stochastic blur of P, exact at k = n — what a trained projection can at least do;
//   random  E, F ~ N(0, 1/k): the untrained JL projection — it approximates nothing (signed P̃, rows not summing
//           to 1), which is what Linformer is before training;
//   jl      Theorem 1's P·RᵀR·V with R ~ N(0, 1/k): an O(n²) illustration of the theorem (error ∝ 1/√k), not a
//           fast method;
//   fitted  pooled E and F = argmin ‖P̄F − P‖_F = P̄⁺P on this input: an oracle of what training F could reach.
// The entry points below let tests inject E and F (E = F = I with k = n must equal `full`).
#pragma once
#include <cstdint>

#include "core/variants/variant.h"

namespace attnscope {

/// How Linformer shares E and F (Wang et al. 2020 §4); applies to the random projections (E, F and jl's R).
enum class LinformerSharing {
    None = 0,      // E_h, F_h distinct for every head: (H, k, n) each
    Headwise = 1,  // one E and one F for all heads: (1, k, n) each
    KeyValue = 2,  // one matrix for all heads, E = F: (1, k, n)
};

/// What stands in for the learned projections (see the file comment).
enum class LinformerProjection {
    Pool = 0,    // segment means
    Random = 1,  // N(0, 1/k), untrained
    Jl = 2,      // Theorem 1: P·RᵀR·V
    Fitted = 3,  // pooled E, least-squares F (oracle)
};

/// The sequence projections E (keys) and F (values).
struct LinformerProjections {
    Tensor3 E;  // (H|1, k, n)
    Tensor3 F;  // (H|1, k, n)
};

/// Seeded projections with entries N(0, 1/k) (core/backend/shared/random.h), shaped by the sharing mode.
LinformerProjections linformer_projections(int heads, int n, int k, LinformerSharing sharing, uint64_t seed);

/// The pooling projection (1, k, n): row t holds 1/|segment t| on the positions ⌊t·n/k⌋ … ⌊(t+1)·n/k⌋ − 1.
Tensor3 linformer_pooling(int n, int k);

/// Analytic FLOPs of linformer_run: the projections E·K, F·V (2·k·n·(d + dv)) and attention over k keys.
double linformer_flops(int heads, int n, int d, int dv, int k);

/// O = softmax(s·Q(EK)ᵀ)·(FV) through gemm + dense attention; fills O, cost, structure.projections (E, F) and, when
/// options.want_matrix, P̃ = P̄·F with P̄ = softmax(s·Q(EK)ᵀ) (n×k). E, F: (H|1, k, n).
RunResult linformer_run(const Heads& heads, const LinformerProjections& proj, float scale, const RunOptions& options,
                        Backend& backend);

/// The registered `linformer` variant.
std::unique_ptr<Variant> make_linformer_variant();

}  // namespace attnscope

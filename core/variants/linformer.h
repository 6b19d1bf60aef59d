// attnscope — Linformer's projections and run, exposed so tests (and lessons) can inject E and F, e.g.
// E = F = I with k = n, where Linformer must equal `full`.
#pragma once
#include <cstdint>

#include "variant.h"

namespace attnscope {

/// How Linformer shares E and F (Wang et al. 2020 §4).
enum class LinformerSharing {
    None = 0,      // E_h, F_h distinct for every head: (H, k, n) each
    Headwise = 1,  // one E and one F for all heads: (1, k, n) each
    KeyValue = 2,  // one matrix for all heads, E = F: (1, k, n)
};

/// The sequence projections E (keys) and F (values).
struct LinformerProjections {
    Tensor3 E;  // (H|1, k, n)
    Tensor3 F;  // (H|1, k, n)
};

/// Seeded projections with entries N(0, 1/k) (core/primitives/random.h), shaped by the sharing mode.
LinformerProjections linformer_projections(int heads, int n, int k, LinformerSharing sharing, uint64_t seed);

/// Analytic FLOPs of linformer_run: the projections E·K, F·V (2·k·n·(d + dv)) and attention over k keys.
double linformer_flops(int heads, int n, int d, int dv, int k);

/// O = softmax(s·Q(EK)ᵀ)·(FV) through gemm + dense attention; fills O, cost, structure ("E", "F") and, when
/// options.want_matrix, P̃ = P̄·F with P̄ = softmax(s·Q(EK)ᵀ) (n×k). E, F: (H|1, k, n).
RunResult linformer_run(const Heads& heads, const LinformerProjections& proj, float scale, const RunOptions& options,
                        Backend& backend);

}  // namespace attnscope

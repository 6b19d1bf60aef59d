// attnscope — pieces shared by the kernel (linear-attention) families: performer, linear, efficient, taylor.
// They all run feature maps + linear attention; P̃ = diag(1/D)·φ(Q)·φ(K)ᵀ is built only for display.
#pragma once
#include "core/backend/interface/backend.h"
#include "core/variants/variant.h"

namespace attnscope {

/// Rows of the causal chunk in linear attention (quadratic inside, prefix sums across).
constexpr int kLinearAttentionChunk = 64;

/// P̃ (H, n, n) = diag(1/D)·φ(Q)·φ(K)ᵀ, zero above the diagonal when causal. phi_Q, phi_K (H, n, f);
/// denom (H, n, 1) the D of linear_attention (nullptr: no normalisation). Rows with D = 0 stay 0.
Tensor3 kernel_effective_matrix(Backend& backend, const Tensor3& phi_Q, const Tensor3& phi_K, const Tensor3* denom,
                                bool causal);

/// Analytic FLOPs of linear attention over f features: S = φKᵀV, z, φQ·S, D (causal adds the chunk blocks).
double linear_attention_flops(int H, int n, int f, int dv, bool causal);

/// Analytic bytes of a kernel run: Q, K, V, O and D, plus both feature matrices when
/// they are materialised (performer) rather than fused into linear attention (linear, efficient, taylor).
double kernel_bytes(const Heads& h, int f, bool features_materialised = true);

/// Upper bound of the tracked peak of a fused kernel_attention run on the CPU (O, D, the (f × dv) sums and
/// per-thread feature blocks; kept in step with cpu_linear_attention.cpp, checked by test_bench_engine.cpp).
int64_t kernel_peak_bytes(int heads, int n, int d, int dv, int f);

/// Adds a note when some rows had D = 0 (their output is 0): denom (H, n, 1).
void note_zero_denominators(const Tensor3& denom, Structure& structure);

}  // namespace attnscope

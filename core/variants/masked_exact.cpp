#include "core/variants/masked_exact.h"

#include <cmath>

#include "core/variants/sparse_common.h"

namespace attnscope {

namespace {

/// Layout block of the masked exact run: the widest GEMM-friendly block of the masked family.
constexpr int kMaskedExactBlock = kDefaultLayoutBlock;

/// Every cell, cut to j ≤ i when causal and to what the mask modifier keeps.
auto kept_cells(int n, bool causal, const MaskMod& mask) {
    const int b = kMaskedExactBlock;
    return restricted(restricted(EveryKey{n, b}, Causal{n, b, causal}, n, b),
                      ModifierFilter{std::make_shared<const MaskMod>(mask), n, b}, n, b);
}

}  // namespace

MaskedExact masked_exact_attention(const Heads& h, float scale, bool causal, const Modifiers& modifiers,
                                   Backend& backend) {
    const int n = h.n();
    MaskedExact run;
    run.layout = build_layout(kept_cells(n, causal, modifiers.mask), n, kMaskedExactBlock, 1);
    run.O = Tensor3::uninitialized(h.heads(), n, h.dv());
    run.lse = Tensor3::uninitialized(h.heads(), n, 1);
    BlockSparseAttentionArgs a;
    a.Q = &h.Q, a.K = &h.K, a.V = &h.V, a.layout = &run.layout, a.O = &run.O, a.lse = &run.lse;
    a.scale = scale;
    a.score_mod = modifiers.score;
    backend.block_sparse_attention(a);
    return run;
}

Tensor3 masked_exact_matrix(const Heads& h, float scale, const Modifiers& modifiers, const MaskedExact& run) {
    return effective_matrix(h, run.layout, scale, modifiers.score, run.lse, [](int, int s) { return s; });
}

ReasonMask masked_exact_reasons(int heads, int n, bool causal, const MaskMod& mask) {
    return reason_mask(kept_cells(n, causal, mask), heads, n, 1);
}

double masked_exact_density(const MaskedExact& run, bool causal) {
    const double n = run.layout.n, cells = causal ? 0.5 * n * (n + 1.0) : n * n;
    return double(layout_allowed_cells(run.layout)[0]) / cells;
}

}  // namespace attnscope

#include "core/variants/masked_exact.h"

#include <cmath>

#include "core/variants/sparse_common.h"

namespace attnscope {

namespace {

/// Every cell (j ≤ i when causal), as a pattern the mask modifier can intersect.
struct AllCellsPattern {
    int n, b;
    bool causal;
    Reason reason(int, int i, int j) const { return causal && j > i ? Reason::None : Reason::Dense; }
    void candidates(int, int I, std::vector<BlockCandidate>& out) const {
        band_candidates(n, b, I, causal ? 0 : -int64_t(n), n, out);
    }
};

/// Layout block of the masked exact run: the widest GEMM-friendly block of the masked family.
constexpr int kMaskedExactBlock = kDefaultLayoutBlock;

MaskModdedPattern<AllCellsPattern> kept_cells(int n, bool causal, const MaskMod& mask) {
    return {std::make_shared<const AllCellsPattern>(AllCellsPattern{n, kMaskedExactBlock, causal}),
            std::make_shared<const MaskMod>(mask), n, kMaskedExactBlock};
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

// attnscope — a masked variant whose layout is in position order (longformer, bigbird, sink, xl) as its card plus its
// pattern function: pattern(n, H, params) builds the pattern and the layout setup, plan() adds its notes and hands
// both to make_sparse_plan(), and the shape-only estimates are computed here from the same function, so what a run
// is estimated to cost and what it runs are one pattern.
#pragma once
#include <cstdint>
#include <utility>

#include "core/variants/sparse_common.h"

namespace attnscope {

/// SparseVariant with the estimates of a pattern built by pattern(); Pattern as in sparse_common.h.
template <class Pattern>
class PatternVariant : public SparseVariant {
public:
    /// sparse_peak_bytes() of the pattern and setup pattern() builds for this shape.
    int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params& p) const override {
        const auto [pat, setup] = pattern(n, heads, p);
        return sparse_peak_bytes(pat, heads, n, d, dv, setup);
    }
    /// sparse_flops() of the pattern and setup pattern() builds for this shape.
    double estimate_flops(int heads, int n, int d, int dv, const Params& p) const override {
        const auto [pat, setup] = pattern(n, heads, p);
        return sparse_flops(pat, heads, n, d, dv, setup);
    }

protected:
    /// The pattern (positions) and its layout setup for n positions and H heads, without plan()'s notes.
    virtual std::pair<Pattern, SparseSetup> pattern(int n, int H, const Params& p) const = 0;

    /// The setup of a layout of blocks of `block` over `layout_heads` heads (1: shared), at the params' scale.
    static SparseSetup layout_setup(const Params& p, int block, bool causal, int layout_heads) {
        SparseSetup s;
        s.block = block;
        s.causal = causal;
        s.scale = static_cast<float>(p.get("scale"));
        s.layout_heads = layout_heads;
        return s;
    }
};

}  // namespace attnscope

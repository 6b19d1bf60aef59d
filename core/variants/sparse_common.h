// attnscope — what the masked family (strided, fixed, longformer, bigbird, xl, sink, vslash, blocksel, compose)
// shares: a variant writes plan() (its pattern, pattern_layout.h, via make_sparse_plan) and SparseVariant does the
// rest: execute() builds the layout and runs it, analyse() adds allowed_lse, explain() the reason mask, P̃ and the
// reachability note.
//
// The execution's Structure::blocks holds the layout the kernel ran and, when some heads run permuted, the slot order;
// bigbird adds Structure::random_blocks.
#pragma once
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backend/interface/backend.h"
#include "core/backend/interface/block_layout.h"
#include "core/variants/mask_atoms.h"
#include "core/variants/modifiers.h"
#include "core/variants/pattern_layout.h"
#include "core/variants/variant.h"

namespace attnscope {

/// P̃ = exp(mod(s·q_i·k_j) − lse_i) on the layout's allowed cells, 0 elsewhere (display only; quadratic by nature).
/// x, lse and the layout are in layout (slot) order; `position` maps a slot of head h back to its position (a
/// positional modifier never runs permuted, so `mod` sees positions).
Tensor3 effective_matrix(const Heads& x, const BlockLayout& layout, float scale, const ScoreMod& mod,
                         const Tensor3& lse, const std::function<int(int, int)>& position);

/// Allowed cells of each layout head (cells ≥ n excluded), from the layout alone.
std::vector<int64_t> layout_allowed_cells(const BlockLayout& layout);

/// What a variant tells SparseVariant besides its pattern.
/// A variant may run some heads in a *permuted* order (slot s holds position perm[s]) when that turns a
/// scattered pattern into a block-diagonal one — the Sparse Transformer's strided heads, reshaped so that
/// positions with the same residue mod l sit together (the paper's kernels do the same). The layout of such
/// heads is then in slot coordinates; execute() permutes Q, K, V in and O, lse out, and reports the
/// permutation as Structure::blocks->perm (H·n, slot → position, identity for heads run in place).
struct SparseSetup {
    int block = kDefaultLayoutBlock;  // b of the layout
    int layout_heads = 1;             // 1 when every head has the same pattern, else H
    bool causal = false;              // the variant's causality (decides density and the metrics reference)
    float scale = 1.0f;               // s in softmax(s·QKᵀ)
    std::vector<std::string> notes;   // variant-specific notes (padding to segment/stride, head split, ...)
    std::vector<int> perm;            // (n) slot → position for permuted heads; empty = no head is permuted
    std::vector<uint8_t> permuted;    // (H) 1 when head h runs in the perm order
    Modifiers modifiers;              // score modifier the primitive applies, mask modifier already in the layout;
                                      // set by make_sparse_plan()
};

/// Upper bound of the bytes SparseVariant::execute() holds at its peak (Variant::estimate_peak_bytes), from
/// the layout pattern's candidate blocks — every candidate counted as stored and masked — so no layout is built:
/// O and L, the allowed-lse copy, O and L again when the scale is not 1/√d (mass recall reruns at 1/√d), the
/// CPU primitive's per-thread scratch, permuted copies of Q, K, V, O and L, and the layout three times (its
/// build lists, the layout, and the lists' growth slack).
template <class LayoutPattern>
int64_t sparse_peak_bytes(const LayoutPattern& layout_pattern, int H, int n, int d, int dv, const SparseSetup& setup) {
    const int b = setup.block, nb = block_count(n, b), wpr = block_words_per_row(b);
    int64_t candidates = 0;
    std::vector<BlockCandidate> cand;
    for (int h = 0; h < setup.layout_heads; ++h)
        for (int I = 0; I < nb; ++I) {
            cand.clear();
            layout_pattern.candidates(h, I, cand);
            candidates += std::min<int64_t>(int64_t(cand.size()), nb);
        }
    const int64_t layout_bytes = 4ll * setup.layout_heads * (nb + 1) + candidates * (8ll + 8ll * b * wpr);
    const int64_t Hn = int64_t(H) * n;
    int64_t floats = Hn * (dv + 2);  // O, L, allowed-lse copy
    if (std::fabs(double(setup.scale) * std::sqrt(double(d)) - 1.0) > 1e-7) floats += Hn * (dv + 1);
    if (!setup.perm.empty()) floats += Hn * (2ll * d + 2ll * dv + 2);
    return floats * int64_t(sizeof(float)) + block_sparse_scratch_bytes(b, d, dv) + 3 * layout_bytes;
}

/// Analytic FLOPs of SparseVariant::execute() (Variant::estimate_flops): the allowed cells of the layout, one
/// multiply-add per (cell, feature) of QKᵀ and PV. Builds the layout (as execute() does) to count them exactly.
template <class LayoutPattern>
double sparse_flops(const LayoutPattern& layout_pattern, int H, int n, int d, int dv, const SparseSetup& setup) {
    const BlockLayout layout = build_layout(layout_pattern, n, setup.block, setup.layout_heads);
    const std::vector<int64_t> cells = layout_allowed_cells(layout);
    double allowed_total = 0;
    for (int h = 0; h < H; ++h) allowed_total += double(cells[layout.heads == 1 ? 0 : h]);
    return allowed_total * 2.0 * (d + dv);
}

/// A masked variant's plan: its layout setup and the two questions the later phases ask of its pattern.
struct SparsePlan : Plan {
    SparseSetup setup;
    std::function<BlockLayout()> build_layout;  // the layout the kernel runs (slot coordinates): built in execute(),
                                                // timed, since building it is part of the algorithm's cost
    std::function<ReasonMask()> reason_mask;    // the reason of every cell in positions (H, n, n): explain() only
    std::optional<RandomBlocks> random_blocks;  // bigbird's draws, for the views
};

/// What SparseVariant::execute() keeps for analyse() and explain(): the layout it ran, its inputs in slot order and L.
/// A variant that runs another primitive (vslash's line primitive) fills O and lse and may set the layout later.
struct SparseExecution : Execution {
    std::shared_ptr<const BlockLayout> layout;
    Heads permuted;  // Q, K, V in slot order (only when some head runs permuted)
    Tensor3 lse;     // (H, n, 1) in slot order
    /// The input in slot order: the permuted copies when some head runs permuted, else `in`.
    const Heads& slot_input(const Heads& in) const { return permuted.Q.empty() ? in : permuted; }
};

/// Sets the two closures of `plan` from a pattern (positions) and its layout pattern (slot coordinates).
template <class Pattern, class LayoutPattern>
void set_pattern_closures(SparsePlan& plan, std::shared_ptr<const Pattern> pattern,
                          std::shared_ptr<const LayoutPattern> layout_pattern, int H, int n) {
    plan.build_layout = [layout_pattern, n, b = plan.setup.block, heads = plan.setup.layout_heads] {
        return build_layout(*layout_pattern, n, b, heads);
    };
    plan.reason_mask = [pattern, H, n, heads = plan.setup.layout_heads] { return reason_mask(*pattern, H, n, heads); };
}

/// The plan of `pattern` (positions) whose layout is built from `layout_pattern` (slot coordinates; the same
/// object unless setup.perm is used), for the heads of input x. Both are shared so a layout pattern may refer to
/// its pattern. The params' modifiers (modifiers.h) are resolved here: a mask modifier is intersected with both
/// patterns, a score modifier handed to the primitive; positional modifiers need positions in order, so a variant
/// must not permute its heads when has_positional_modifiers() (throws Error otherwise).
/// A variant that keeps more in its plan names a PlanT derived from SparsePlan.
template <class PlanT = SparsePlan, class Pattern, class LayoutPattern>
std::unique_ptr<PlanT> make_sparse_plan(const Params& params, const Heads& x, std::shared_ptr<const Pattern> pattern,
                                        std::shared_ptr<const LayoutPattern> layout_pattern, SparseSetup setup) {
    auto plan = std::make_unique<PlanT>();
    plan->params = params;
    plan->causal = setup.causal;
    setup.modifiers = modifiers_of(params, x);
    const Modifiers& mods = setup.modifiers;
    if (mods.positional() && !setup.perm.empty())
        throw Error("internal: a positional modifier (" + mods.label() + ") on permuted heads");
    if (mods.mask.kind == MaskModKind::PrefixLm && setup.causal)
        setup.notes.push_back("prefix-LM on a causal pattern keeps the pattern as it is (the intersection keeps "
                              "j ≤ i): turn causal off to see the bidirectional prefix");
    if (mods.any()) setup.notes.push_back("modifiers: " + mods.label() + " (compared with exact attention with the same "
                                          "modifiers as well as with plain softmax)");
    plan->setup = std::move(setup);
    const int H = x.heads(), n = x.n();
    if (mods.mask.kind == MaskModKind::None) {
        set_pattern_closures(*plan, pattern, layout_pattern, H, n);
        return plan;
    }
    // The mask modifier is one more filter on both patterns (mask_compose.h).
    const ModifierFilter filter{std::make_shared<const MaskMod>(plan->setup.modifiers.mask), n, plan->setup.block};
    set_pattern_closures(*plan, std::make_shared<const Restricted<SharedPattern<Pattern>, ModifierFilter>>(
                                    restricted(SharedPattern<Pattern>{pattern}, filter, n, filter.b)),
                         std::make_shared<const Restricted<SharedPattern<LayoutPattern>, ModifierFilter>>(
                             restricted(SharedPattern<LayoutPattern>{layout_pattern}, filter, n, filter.b)),
                         H, n);
    return plan;
}

/// make_sparse_plan() for a pattern whose layout is in position order.
template <class Pattern>
std::unique_ptr<SparsePlan> make_sparse_plan(const Params& params, const Heads& x, Pattern pattern, SparseSetup setup) {
    auto shared = std::make_shared<const Pattern>(std::move(pattern));
    return make_sparse_plan(params, x, shared, shared, std::move(setup));
}

/// The phases every masked variant shares, over the SparsePlan its plan() returns: execute() builds the layout and
/// runs the block-sparse primitive (density, layout and notes included), analyse() adds allowed_lse (one more pass
/// when the scale is not 1/√d), explain() the reason mask, P̃ and, up to kReachabilityNoteMaxN, reachability.
class SparseVariant : public Variant {
public:
    /// A mask modifier makes the pattern depend on the input (its documents), so the shape-only estimates bound it.
    bool flops_estimate_is_bound(const Params& p) const override { return int(p.get_or("mask_mod", 0)) != 0; }
    std::unique_ptr<Execution> execute(const Plan& plan, const Heads& heads, Backend& backend) const override;
    void analyse(const Plan& plan, Execution& execution, const Heads& heads, Backend& backend) const override;
    void explain(const Plan& plan, Execution& execution, const Heads& heads, int max_matrix_n,
                 Backend& backend) const override;
};

}  // namespace attnscope

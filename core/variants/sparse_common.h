// attnscope — what the masked family (strided, fixed, longformer, bigbird, xl) shares: a *pattern* gives the
// exact reason of every cell plus, per query block, a superset of key blocks that may hold allowed cells;
// build_layout() turns it into the BSR layout of the block-sparse primitive. A masked variant writes plan()
// (its pattern, via make_sparse_plan) and SparseVariant does the rest: execute() builds the layout and runs it,
// analyse() adds allowed_lse, explain() the reason mask, P̃ and the reachability note.
//
// A Pattern is any type with
//   Reason reason(int h, int i, int j) const;                          // exact, None = not allowed
//   void candidates(int h, int I, std::vector<BlockCandidate>& out) const;  // key blocks to examine for block row I
// Candidates marked `full` must have every cell (inside the real n×n matrix) allowed: build_layout() then skips
// the per-cell evaluation. Layout tests compare the result with brute-force predicates, so a wrong hint fails.
//
// The execution's Structure::blocks holds the layout the kernel ran and, when some heads run permuted, the slot order;
// bigbird adds Structure::random_blocks.
#pragma once
#include <algorithm>
#include <concepts>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backend/interface/backend.h"
#include "core/backend/interface/block_layout.h"
#include "core/variants/modifiers.h"
#include "core/variants/variant.h"

namespace attnscope {

/// One key block a pattern wants examined for a query block.
struct BlockCandidate {
    int J = 0;          // key block index
    bool full = false;  // every cell of (I, J) is allowed: no per-cell evaluation needed
};

/// Appends the key blocks touched by the band lo ≤ i − j ≤ hi for query block I, marking those entirely inside.
void band_candidates(int n, int b, int I, int64_t lo, int64_t hi, std::vector<BlockCandidate>& out);

/// Appends every key block that intersects the key positions [j_begin, j_end] (inclusive), not full.
void range_candidates(int n, int b, int64_t j_begin, int64_t j_end, std::vector<BlockCandidate>& out);

/// The `keep` members of `candidates` with the largest score(c) (ties to the lower c), ascending: how the patterns
/// chosen from the input (topk, blocksel, vslash) pick their keys, blocks or lines.
template <class Score>
std::vector<int> top_indices(std::vector<int> candidates, int keep, const Score& score) {
    keep = std::min<int>(keep, int(candidates.size()));
    if (keep <= 0) return {};
    std::nth_element(candidates.begin(), candidates.begin() + (keep - 1), candidates.end(), [&](int a, int c) {
        const auto sa = score(a), sc = score(c);
        return sa > sc || (sa == sc && a < c);
    });
    candidates.resize(size_t(keep));
    std::sort(candidates.begin(), candidates.end());
    return candidates;
}

/// A pattern intersected with a mask modifier: the inner pattern's reason where the modifier keeps the cell, and its
/// candidate blocks minus those the modifier empties (a `full` hint survives only where the modifier keeps every cell).
template <class Inner>
struct MaskModdedPattern {
    std::shared_ptr<const Inner> inner;
    std::shared_ptr<const MaskMod> mask;
    int n = 0, b = 1;  // positions and layout block

    Reason reason(int h, int i, int j) const {
        const Reason r = inner->reason(h, i, j);
        return r != Reason::None && mask->allows(i, j) ? r : Reason::None;
    }
    void candidates(int h, int I, std::vector<BlockCandidate>& out) const {
        const size_t first = out.size();
        inner->candidates(h, I, out);
        size_t kept = first;
        for (size_t k = first; k < out.size(); ++k) {
            BlockCandidate c = out[k];
            if (c.J < 0 || c.J >= block_count(n, b)) continue;
            const BlockCover cover = mask->cover(n, b, I, c.J);
            if (cover == BlockCover::None) continue;
            if (cover == BlockCover::Partial) c.full = false;
            out[kept++] = c;
        }
        out.resize(kept);
    }
};

/// Largest layout block of the window-type patterns (strided, fixed, longformer, xl): a GEMM-friendly width.
constexpr int kDefaultLayoutBlock = 64;

/// Layout block for a pattern whose structure repeats every `span` positions (window half-width, stride,
/// block, segment): the largest power of two ≤ span, clamped to [16, 64], so narrow windows do not score
/// mostly forbidden cells and wide ones get full-size GEMMs.
inline int choose_layout_block(int64_t span) {
    int b = 16;
    while (b < kDefaultLayoutBlock && 2 * int64_t(b) <= span) b *= 2;
    return b;
}

/// build_layout() goes parallel from this many candidate cells (tasks × b²) on: at ~3 ns a cell that is ~0.2 ms of
/// work, ten times what opening a parallel region costs here.
constexpr int64_t kParallelBuildCells = int64_t(1) << 16;

/// A pattern that can say when row i of head h allows exactly one interval of keys [lo, hi] (inclusive) — a window
/// without globals or dilation — lets build_layout() fill a partial block row by row with word operations instead of
/// asking reason() for every cell. row_interval returns false where the row is not one interval (then reason() is
/// asked, as for every pattern without it).
template <class Pattern>
concept HasRowInterval = requires(const Pattern& p, int h, int i, int& lo, int& hi) {
    { p.row_interval(h, i, lo, hi) } -> std::same_as<bool>;
};

/// A pattern whose row allows a few whole runs of keys (block selection: its own block, block 0 and the chosen
/// blocks) can set row i's bits over keys [j0, j0 + ext) itself — bit c for key j0 + c, in 64-bit words — and
/// return how many it set; build_layout() then asks it instead of reason() cell by cell (b² calls, each a search
/// through the row's choices, were most of the layout's time).
template <class Pattern>
concept HasRowBits = requires(const Pattern& p, int h, int i, int j0, int ext, uint64_t* words) {
    { p.row_bits(h, i, j0, ext, words) } -> std::same_as<int64_t>;
};

/// Sets bits [c0, c1) of a bitmask row of 64-bit words.
inline void set_bit_range(uint64_t* words, int c0, int c1) {
    for (int w = c0 >> 6; c0 < c1; ++w) {
        const int lo = c0 & 63, hi = std::min(64, c1 - (w << 6));
        words[w] |= (hi == 64 ? ~0ull : (1ull << hi) - 1) & ~((1ull << lo) - 1);
        c0 = (w + 1) << 6;
    }
}

/// Builds the BSR layout of `pattern` for n positions, blocks of b and `heads` layout heads (1 or H).
template <class Pattern>
BlockLayout build_layout(const Pattern& pattern, int n, int b, int heads) {
    BlockLayout L;
    L.n = n, L.block = b, L.heads = heads;
    const int nb = block_count(n, b), wpr = block_words_per_row(b);
    const int tasks = heads * nb;
    std::vector<std::vector<int>> cols(tasks);
    std::vector<std::vector<uint64_t>> masks(tasks);  // per task: its masked blocks back to back
    std::vector<std::vector<int>> masked(tasks);      // per task: 1 when the stored block has a mask
    // Small layouts build in a fraction of that: a parallel region would cost more than it saves.
    const bool parallel = int64_t(tasks) * b * b >= kParallelBuildCells;
#pragma omp parallel for schedule(dynamic) if (parallel)
    for (int task = 0; task < tasks; ++task) {
        const int h = task / nb, I = task % nb;
        std::vector<BlockCandidate> cand;
        pattern.candidates(h, I, cand);
        // Sort by J with full before partial so duplicates keep the cheaper verdict.
        std::sort(cand.begin(), cand.end(), [](const BlockCandidate& x, const BlockCandidate& y) {
            return x.J != y.J ? x.J < y.J : x.full > y.full;
        });
        const int i0 = I * b, rows = block_extent(n, b, I);
        std::vector<uint64_t> bits(static_cast<size_t>(b) * wpr);
        for (size_t k = 0; k < cand.size(); ++k) {
            const int J = cand[k].J;
            if (J < 0 || J >= nb || (k > 0 && cand[k - 1].J == J)) continue;
            if (cand[k].full) {
                cols[task].push_back(J), masked[task].push_back(0);
                continue;
            }
            const int j0 = J * b, ext = block_extent(n, b, J);
            std::fill(bits.begin(), bits.end(), 0ull);
            int64_t count = 0;
            for (int r = 0; r < rows; ++r) {
                if constexpr (HasRowBits<Pattern>) {
                    count += pattern.row_bits(h, i0 + r, j0, ext, bits.data() + static_cast<size_t>(r) * wpr);
                    continue;
                }
                if constexpr (HasRowInterval<Pattern>) {
                    int lo = 0, hi = -1;
                    if (pattern.row_interval(h, i0 + r, lo, hi)) {
                        const int c0 = std::max(lo - j0, 0), c1 = std::min(hi - j0 + 1, ext);
                        if (c0 < c1) set_bit_range(bits.data() + static_cast<size_t>(r) * wpr, c0, c1), count += c1 - c0;
                        continue;
                    }
                }
                for (int c = 0; c < ext; ++c)
                    if (pattern.reason(h, i0 + r, j0 + c) != Reason::None) {
                        bits[static_cast<size_t>(r) * wpr + (c >> 6)] |= 1ull << (c & 63);
                        ++count;
                    }
            }
            if (count == 0) continue;
            cols[task].push_back(J);
            if (count == static_cast<int64_t>(rows) * ext) {
                masked[task].push_back(0);
            } else {
                masked[task].push_back(1);
                masks[task].insert(masks[task].end(), bits.begin(), bits.end());
            }
        }
    }
    L.row_ptr.assign(static_cast<size_t>(heads) * (nb + 1), 0);
    int mask_count = 0;
    for (int task = 0; task < tasks; ++task) {
        const int h = task / nb, I = task % nb;
        L.row_ptr[static_cast<size_t>(h) * (nb + 1) + I] = static_cast<int>(L.col_idx.size());
        for (size_t k = 0; k < cols[task].size(); ++k) {
            L.col_idx.push_back(cols[task][k]);
            L.mask_idx.push_back(masked[task][k] ? mask_count++ : -1);
        }
        L.masks.insert(L.masks.end(), masks[task].begin(), masks[task].end());
        if (I == nb - 1) L.row_ptr[static_cast<size_t>(h) * (nb + 1) + nb] = static_cast<int>(L.col_idx.size());
    }
    return L;
}

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

/// Reason mask (H, n, n) of a pattern; heads beyond the layout heads repeat head 0 when layout_heads = 1.
template <class Pattern>
ReasonMask reason_mask(const Pattern& pattern, int H, int n, int layout_heads) {
    ReasonMask m;
    m.heads = H, m.n = n;
    m.cells.assign(static_cast<size_t>(H) * n * n, 0);
#pragma omp parallel for collapse(2) schedule(static)
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) {
            const int ph = layout_heads == 1 ? 0 : h;
            uint8_t* row = m.cells.data() + (static_cast<size_t>(h) * n + i) * n;
            for (int j = 0; j < n; ++j) row[j] = static_cast<uint8_t>(pattern.reason(ph, i, j));
        }
    return m;
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
    auto mask = std::make_shared<const MaskMod>(plan->setup.modifiers.mask);
    const int b = plan->setup.block;
    set_pattern_closures(*plan, std::make_shared<const MaskModdedPattern<Pattern>>(MaskModdedPattern<Pattern>{pattern, mask, n, b}),
                         std::make_shared<const MaskModdedPattern<LayoutPattern>>(
                             MaskModdedPattern<LayoutPattern>{layout_pattern, mask, n, b}),
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

// attnscope — `strided` and `fixed` (Child et al. 2019, "Generating Long Sequences with Sparse Transformers").
// Each has two patterns, A and B. How they meet the heads is the `head_pattern` parameter, following the
// paper's §4.3 options: `union` (default; the merged head: every head attends to A ∪ B, the form that is exact
// when l ≥ n whatever H is), `split` (the multi-head option: even heads h = 0, 2, … use A, odd heads use B —
// with one head only A, so a single-head run is local only; the factorised view a lesson shows), `A` or `B`
// (every head one pattern).
//   strided  A (Local):   0 ≤ i − j < l         (bidirectional: |i − j| < l)
//            B (Stride):  (i − j) mod l = 0, j ≤ i (bidirectional: any j with i ≡ j mod l)
//   fixed    A (Local):   ⌊j/l⌋ = ⌊i/l⌋        (causal adds j ≤ i)
//            B (Summary): j mod l ∈ {l − c, …, l − 1}  (causal adds j ≤ i; rows before the first summary
//                         column then have nothing to attend in a B head: their output is 0, noted)
// A cell in both patterns is coloured by A. Each is composed (mask_compose.h) per head as (A ∪ B) ∩ causal. Layout block b = choose_layout_block(l) (16..64).
// Pure-B heads (split odd heads, or head_pattern B) run in a permuted order that makes their layout compact
// (strided: residue groups mod l; fixed: summary positions first); Structure::blocks->perm has it.
#include <algorithm>
#include <cmath>

#include "core/variants/common_params.h"
#include "core/variants/modifiers.h"
#include "core/variants/sparse_common.h"

namespace attnscope {

namespace {

enum class HeadPattern { Split = 0, Union, A, B };

ParamSpec head_pattern_param(const std::string& a_name, const std::string& b_name) {
    return choice_param("head_pattern", "heads",
                        "how A (" + a_name + ") and B (" + b_name +
                            ") meet the heads: union = A ∪ B in every head (the merged head); split = even heads A, odd "
                            "heads B (factorised heads)",
                        {"split", "union", "A", "B"}, 1);
}

/// Which of the two patterns head h uses.
struct HeadUse {
    HeadPattern mode = HeadPattern::Split;
    bool a(int h) const {
        return mode == HeadPattern::Union || mode == HeadPattern::A || (mode == HeadPattern::Split && h % 2 == 0);
    }
    bool b(int h) const {
        return mode == HeadPattern::Union || mode == HeadPattern::B || (mode == HeadPattern::Split && h % 2 == 1);
    }
};

std::string head_split_note(HeadPattern mode, int H, const std::string& a_name, const std::string& b_name) {
    switch (mode) {
        case HeadPattern::Split:
            return H == 1 ? "head_pattern split with one head: head 0 uses A (" + a_name +
                                ") only; set head_pattern=union for A ∪ B"
                          : "head_pattern split: even heads use A (" + a_name + "), odd heads B (" + b_name +
                                "); head_pattern=union shows A ∪ B";
        case HeadPattern::Union:
            return "head_pattern union: every head attends to A (" + a_name + ") ∪ B (" + b_name + ")";
        case HeadPattern::A:
            return "head_pattern A: every head uses A (" + a_name + ") only";
        case HeadPattern::B:
            return "head_pattern B: every head uses B (" + b_name + ") only";
    }
    return "";
}

// [SECTION] strided
/// A's band (Local) and B's every-l-th diagonal (Stride) in the heads that use them, causal unless bidirectional.
using StridedCells = Restricted<PerHead<AnyOf<Band, PeriodicDiagonals>>, Causal>;

struct StridedPattern {
    int n, b, l;
    bool bidirectional;
    HeadUse use;
    StridedCells cells;  // the composition that answers every question below

    StridedPattern(int n_, int b_, int l_, bool bidir, HeadUse u, int H) : n(n_), b(b_), l(l_), bidirectional(bidir), use(u) {
        PerHead<AnyOf<Band, PeriodicDiagonals>> heads;
        for (int h = 0; h < H; ++h)
            heads.parts.push_back(any_of(use.a(h) ? Band{n, b, -(int64_t(l) - 1), int64_t(l) - 1, Reason::Local}
                                                  : Band{n, b, 1, 0, Reason::Local},
                                         PeriodicDiagonals{n, b, use.b(h) ? l : 0}));
        cells = restricted(std::move(heads), Causal{n, b, !bidirectional}, n, b);
    }
    Reason reason(int h, int i, int j) const { return cells.reason(h, i, j); }
    void candidates(int h, int I, std::vector<BlockCandidate>& out) const { cells.candidates(h, I, out); }
    int64_t row_bits(int h, int i, int j0, int ext, uint64_t* words) const { return cells.row_bits(h, i, j0, ext, words); }
};

/// The strided pattern in layout coordinates. Pure-B heads (split odd heads, or head_pattern B) run in the
/// residue order of the paper's strided kernels: slot s holds position perm[s], positions grouped by p mod l
/// and ascending inside a group, so (i − j) mod l = 0 becomes "same group" — a block-diagonal layout whose
/// cost is n·⌈n/l⌉ cells instead of every block of the lower triangle.
/// A pattern with its layout setup and which heads run permuted (per head, and per layout head). The layout
/// pattern keeps a reference to the pattern, so callers build it from the plan's copy.
template <class Pattern>
struct PermutedPlan {
    Pattern pat;
    SparseSetup s;
    std::vector<uint8_t> permuted, layout_permuted;
};

/// Hands the permutation to the plan when some head runs permuted; returns whether one does.
bool use_permutation(SparseSetup& s, const std::vector<int>& perm, const std::vector<uint8_t>& permuted) {
    if (std::find(permuted.begin(), permuted.end(), 1) == permuted.end()) return false;
    s.perm = perm, s.permuted = permuted;
    return true;
}

struct StridedLayoutPattern {
    const StridedPattern& pat;
    std::vector<uint8_t> permuted;   // per layout head
    std::vector<int> perm;           // (n) slot → position
    std::vector<int> group_of_slot;  // (n) residue group of a slot
    std::vector<int> group_start;    // (groups + 1) first slot of each group

    StridedLayoutPattern(const StridedPattern& p, std::vector<uint8_t> permuted_heads)
        : pat(p), permuted(std::move(permuted_heads)) {
        for (int r = 0; r < std::min(p.l, p.n); ++r) {
            group_start.push_back(static_cast<int>(perm.size()));
            for (int q = r; q < p.n; q += p.l) perm.push_back(q), group_of_slot.push_back(r);
        }
        group_start.push_back(static_cast<int>(perm.size()));
    }
    Reason reason(int h, int s, int t) const {
        return permuted[h] ? pat.reason(h, perm[s], perm[t]) : pat.reason(h, s, t);
    }
    /// Heads in place write their rows through the pattern's fast path; permuted heads ask cell by cell.
    int64_t row_bits(int h, int s, int j0, int ext, uint64_t* words) const {
        return permuted[h] ? cellwise_row_bits(*this, h, s, j0, ext, words) : pat.row_bits(h, s, j0, ext, words);
    }
    void candidates(int h, int I, std::vector<BlockCandidate>& out) const {
        if (!permuted[h]) return pat.candidates(h, I, out);
        const int s0 = I * pat.b, s1 = s0 + block_extent(pat.n, pat.b, I) - 1;
        const int first = group_start[group_of_slot[s0]];
        const int last = pat.bidirectional ? group_start[group_of_slot[s1] + 1] - 1 : s1;
        range_candidates(pat.n, pat.b, first, last, out);
    }
};

/// sparse_peak_bytes() of a permuted plan: the layout pattern built on the plan's pattern, the permutation
/// handed over when some head runs permuted (so the permuted copies are counted).
template <class LayoutPattern, class Pattern>
int64_t permuted_plan_peak_bytes(PermutedPlan<Pattern> plan, int heads, int n, int d, int dv) {
    const LayoutPattern layout_pat(plan.pat, plan.layout_permuted);
    use_permutation(plan.s, layout_pat.perm, plan.permuted);
    return sparse_peak_bytes(layout_pat, heads, n, d, dv, plan.s);
}

/// sparse_flops() of a permuted plan (the layout in slot coordinates, as run() builds it).
template <class LayoutPattern, class Pattern>
double permuted_plan_flops(PermutedPlan<Pattern> plan, int heads, int n, int d, int dv) {
    const LayoutPattern layout_pat(plan.pat, plan.layout_permuted);
    use_permutation(plan.s, layout_pat.perm, plan.permuted);
    return sparse_flops(layout_pat, heads, n, d, dv, plan.s);
}

class StridedVariant : public SparseVariant {
public:
    StridedVariant() {
        m_info = {
            .id = "strided",
            .name = "Sparse Transformer (strided)",
            .paper = "Child et al. 2019",
            .summary = "A local (i − j < l) ∪ B strided ((i − j) mod l = 0) in every head (or split over heads); causal "
                  "masked softmax",
            .params = with_modifier_params({with_auto_default(int_param("stride", "l", "stride l: A attends the last l positions, B every l-th",
                                               0, 1, 1048576),
                                     "⌈√n⌉"),
                   bool_param("bidirectional", "bidir",
                              "also attend j > i (|i − j| < l and i ≡ j mod l); not in the paper", false),
                   head_pattern_param("local", "stride"), scale_param()}, true),
            .has_mask = true,
            .short_name = "Strided",
            .key_params = {"stride"},
            .budget_param = "stride"};
    }
    Params resolve(const Params& params, const Shape& heads) const override {
        Params p = Variant::resolve(params, heads);
        if (!p.has("stride")) p.set("stride", std::ceil(std::sqrt(double(heads.n()))));
        return p;
    }
    std::unique_ptr<Plan> plan(const Heads& x, const Params& p,
                               const std::shared_ptr<const VariantWeights>&) const override {
        auto [pat, s, permuted, layout_permuted] = pattern(x.n(), x.heads(), p);
        s.notes.push_back(head_split_note(pat.use.mode, x.heads(), "local", "stride"));
        auto shared = std::make_shared<const StridedPattern>(pat);
        auto layout_pat = std::make_shared<const StridedLayoutPattern>(*shared, layout_permuted);
        if (use_permutation(s, layout_pat->perm, permuted)) {
            s.notes.push_back(
                "stride heads run in residue order (positions grouped by p mod l, as the paper's "
                "kernels do): their layout is block-diagonal in that order");
        }
        if (pat.bidirectional) s.notes.push_back("bidirectional strided pattern: an extension, not in the paper");
        if (pat.l >= x.n())
            s.notes.push_back("stride l = " + std::to_string(pat.l) + " ≥ n = " + std::to_string(x.n()) +
                              ": pattern A covers every allowed pair (exact in A heads)");
        else if (x.n() % pat.l != 0)
            s.notes.push_back(
                "n = " + std::to_string(x.n()) + " padded to " + std::to_string((x.n() + pat.l - 1) / pat.l * pat.l) +
                " (stride l = " + std::to_string(pat.l) + "): the last stride period is partial, padding masked");
        return make_sparse_plan(p, x, shared, layout_pat, std::move(s));
    }
    int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params& p) const override {
        return permuted_plan_peak_bytes<StridedLayoutPattern>(pattern(n, heads, p), heads, n, d, dv);
    }
    double estimate_flops(int heads, int n, int d, int dv, const Params& p) const override {
        return permuted_plan_flops<StridedLayoutPattern>(pattern(n, heads, p), heads, n, d, dv);
    }

private:
    /// The pattern, its layout setup and the heads run in residue order (pure-B heads, when 2 ≤ l < n).
    static PermutedPlan<StridedPattern> pattern(int n, int H, const Params& p) {
        const int l = p.get_int("stride");
        const HeadUse use{static_cast<HeadPattern>(p.get_int("head_pattern"))};
        std::vector<uint8_t> permuted(H, 0);
        for (int h = 0; h < H; ++h) permuted[h] = l >= 2 && l < n && use.b(h) && !use.a(h) && !has_positional_modifiers(p);
        const bool any_permuted = std::find(permuted.begin(), permuted.end(), 1) != permuted.end();
        const int group = (n + l - 1) / l;
        StridedPattern pat(n, choose_layout_block(any_permuted ? std::min(l, group) : l), l, p.get_bool("bidirectional"),
                           use, H);
        SparseSetup s;
        s.block = pat.b;
        s.causal = !pat.bidirectional;
        s.scale = static_cast<float>(p.get("scale"));
        s.layout_heads = pat.use.mode == HeadPattern::Split && H > 1 ? H : 1;
        std::vector<uint8_t> layout_permuted(permuted.begin(), permuted.begin() + s.layout_heads);
        return {pat, std::move(s), std::move(permuted), std::move(layout_permuted)};
    }

};

// [SECTION] fixed
/// A's own block of l (Local) and B's summary columns (Summary) in the heads that use them, causal when asked.
using FixedCells = Restricted<PerHead<AnyOf<LocalBlocks, PeriodicColumns>>, Causal>;

struct FixedPattern {
    int n, b, l, c;
    bool causal;
    HeadUse use;
    FixedCells cells;  // the composition that answers every question below

    FixedPattern(int n_, int b_, int l_, int c_, bool causal_, HeadUse u, int H)
        : n(n_), b(b_), l(l_), c(c_), causal(causal_), use(u) {
        PerHead<AnyOf<LocalBlocks, PeriodicColumns>> heads;
        for (int h = 0; h < H; ++h)
            heads.parts.push_back(any_of(LocalBlocks{n, b, use.a(h) ? l : 0}, PeriodicColumns{n, b, l, use.b(h) ? c : 0}));
        cells = restricted(std::move(heads), Causal{n, b, causal}, n, b);
    }
    Reason reason(int h, int i, int j) const { return cells.reason(h, i, j); }
    void candidates(int h, int I, std::vector<BlockCandidate>& out) const { cells.candidates(h, I, out); }
    int64_t row_bits(int h, int i, int j0, int ext, uint64_t* words) const { return cells.row_bits(h, i, j0, ext, words); }
};

/// The fixed pattern in layout coordinates. Pure-B (summary) heads run with the summary positions first
/// (ascending), then the others: every query then attends a prefix of the summary slots, so the layout holds
/// n·(n/l)·c cells (halved when causal) instead of every block that contains a summary column.
struct FixedLayoutPattern {
    const FixedPattern& pat;
    std::vector<uint8_t> permuted;  // per layout head
    std::vector<int> perm;          // (n) slot → position
    std::vector<int> summary_upto;  // (n) summary positions ≤ p, for each position p
    int summaries = 0;              // S: summary positions in the sequence

    FixedLayoutPattern(const FixedPattern& p, std::vector<uint8_t> permuted_heads)
        : pat(p), permuted(std::move(permuted_heads)), summary_upto(p.n) {
        for (int q = 0; q < p.n; ++q) {
            const bool summary = q % p.l >= p.l - p.c;
            if (summary) perm.push_back(q);
            summaries += summary;
            summary_upto[q] = summaries;
        }
        for (int q = 0; q < p.n; ++q)
            if (q % p.l < p.l - p.c) perm.push_back(q);
    }
    Reason reason(int h, int s, int t) const {
        return permuted[h] ? pat.reason(h, perm[s], perm[t]) : pat.reason(h, s, t);
    }
    /// Heads in place write their rows through the pattern's fast path; permuted heads ask cell by cell.
    int64_t row_bits(int h, int s, int j0, int ext, uint64_t* words) const {
        return permuted[h] ? cellwise_row_bits(*this, h, s, j0, ext, words) : pat.row_bits(h, s, j0, ext, words);
    }
    void candidates(int h, int I, std::vector<BlockCandidate>& out) const {
        if (!permuted[h]) return pat.candidates(h, I, out);
        // Row s attends the summary slots [0, prefix(s)); blocks below every row's prefix are entirely allowed.
        int lo = summaries, hi = 0;
        for (int s = I * pat.b; s < I * pat.b + block_extent(pat.n, pat.b, I); ++s) {
            const int prefix = pat.causal ? summary_upto[perm[s]] : summaries;
            lo = std::min(lo, prefix), hi = std::max(hi, prefix);
        }
        for (int J = 0; J * pat.b < hi; ++J)
            out.push_back({J, (J + 1) * pat.b <= lo && block_extent(pat.n, pat.b, J) == pat.b});
    }
};

class FixedVariant : public SparseVariant {
public:
    FixedVariant() {
        m_info = {
            .id = "fixed",
            .name = "Sparse Transformer (fixed)",
            .paper = "Child et al. 2019",
            .summary = "A: same block of l (⌊j/l⌋ = ⌊i/l⌋) ∪ B: summary columns j mod l ∈ {l−c, …, l−1} in every head (or split "
            "over heads); masked softmax",
            // The paper's l = 128 (c = 8…32) belongs to n in the thousands; the defaults follow n below 512 so a
            // short input keeps several blocks (unchanged from n = 512 up).
            .params = with_modifier_params({with_auto_default(int_param("block", "l", "block length l: A attends within the same block of l "
                                                   "positions", 64, 1, 1048576),
                                         "n/8 rounded down to a power of two, within [8, 64]"),
             with_auto_default(int_param("summary", "c", "summary columns c: B attends the last c positions of every "
                                         "block (c ≤ l)", 8, 1, 1048576),
                               "l/8 within [1, 8]"),
             causal_param(true), head_pattern_param("block", "summary"), scale_param()}, true),
            .has_mask = true,
            .short_name = "Fixed",
            .key_params = {"block", "summary"},
            .budget_param = "block"};
    }
    Params resolve(const Params& params, const Shape& heads) const override {
        Params p = Variant::resolve(params, heads);
        if (!p.has("block")) p.set("block", std::clamp(power_of_two_floor(heads.n() / 8), 8, 64));
        if (!p.has("summary")) p.set("summary", std::clamp(p.get_int("block") / 8, 1, 8));
        if (p.get_int("summary") > p.get_int("block"))
            throw Error("fixed: summary c = " + std::to_string(p.get_int("summary")) +
                        " > block l = " + std::to_string(p.get_int("block")) +
                        ": choose c ≤ l (the summary is the last c positions of a block)");
        return p;
    }
    std::unique_ptr<Plan> plan(const Heads& x, const Params& p,
                               const std::shared_ptr<const VariantWeights>&) const override {
        auto [pat, s, permuted, layout_permuted] = pattern(x.n(), x.heads(), p);
        s.notes.push_back(head_split_note(pat.use.mode, x.heads(), "block", "summary"));
        auto shared = std::make_shared<const FixedPattern>(pat);
        auto layout_pat = std::make_shared<const FixedLayoutPattern>(*shared, layout_permuted);
        if (use_permutation(s, layout_pat->perm, permuted)) {
            s.notes.push_back(
                "summary heads run with the summary positions first: each query attends a prefix of "
                "them, so their layout holds only summary columns");
        }
        if (pat.l >= x.n())
            s.notes.push_back("block l = " + std::to_string(pat.l) + " ≥ n = " + std::to_string(x.n()) +
                              ": pattern A covers every allowed pair (exact in A heads)");
        else if (x.n() % pat.l != 0)
            s.notes.push_back("n = " + std::to_string(x.n()) + " padded to " +
                              std::to_string((x.n() + pat.l - 1) / pat.l * pat.l) +
                              " (block l = " + std::to_string(pat.l) +
                              "): the last block is partial, its summary columns beyond n are masked");
        const bool b_heads = pat.use.mode != HeadPattern::A && !(pat.use.mode == HeadPattern::Split && x.heads() == 1);
        if (b_heads && pat.causal && pat.l - pat.c > 0)
            s.notes.push_back("causal B (summary) heads: rows i < l − c = " + std::to_string(pat.l - pat.c) +
                              " have no summary column yet, so their output is 0 in those heads");
        return make_sparse_plan(p, x, shared, layout_pat, std::move(s));
    }
    int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params& p) const override {
        return permuted_plan_peak_bytes<FixedLayoutPattern>(pattern(n, heads, p), heads, n, d, dv);
    }
    double estimate_flops(int heads, int n, int d, int dv, const Params& p) const override {
        return permuted_plan_flops<FixedLayoutPattern>(pattern(n, heads, p), heads, n, d, dv);
    }

private:
    /// The pattern, its layout setup and the heads run summary-first (pure-B heads, when c < l).
    static PermutedPlan<FixedPattern> pattern(int n, int H, const Params& p) {
        FixedPattern pat(n, choose_layout_block(p.get_int("block")), p.get_int("block"), p.get_int("summary"),
                         p.get_bool("causal"), HeadUse{static_cast<HeadPattern>(p.get_int("head_pattern"))}, H);
        SparseSetup s;
        s.block = pat.b;
        s.causal = pat.causal;
        s.scale = static_cast<float>(p.get("scale"));
        s.layout_heads = pat.use.mode == HeadPattern::Split && H > 1 ? H : 1;
        std::vector<uint8_t> permuted(H, 0);
        for (int h = 0; h < H; ++h) permuted[h] = pat.c < pat.l && pat.use.b(h) && !pat.use.a(h) && !has_positional_modifiers(p);
        std::vector<uint8_t> layout_permuted(permuted.begin(), permuted.begin() + s.layout_heads);
        return {pat, std::move(s), std::move(permuted), std::move(layout_permuted)};
    }

};

}  // namespace

std::unique_ptr<Variant> make_strided_variant() { return std::make_unique<StridedVariant>(); }
std::unique_ptr<Variant> make_fixed_variant() { return std::make_unique<FixedVariant>(); }

}  // namespace attnscope

// attnscope — `vslash`: MInference's vertical-slash pattern (Jiang et al. 2024). Causal. The last q queries'
// exact attention probabilities estimate which key columns (vertical lines) and which diagonals i − j = o (slash
// lines) carry the mass; every query then keeps the V columns and the S diagonals with the largest summed
// probability (ties to the lower j or o), j ≤ i. As in MInference's reference code (vertical_and_slash_kernel),
// V and S are at least 30 and 50 (capped at n), the first 30 columns and the 100 nearest diagonals count as
// infinitely heavy, so they are kept first: every query keeps its own key (o = 0) and the first tokens.
//   Vertical: j is a kept column;  Slash: i − j is a kept offset (a cell on both counts as vertical)
// The estimate costs O(q·n·d) and runs in the plan (untimed, said in a note). Exact when V ≥ n or S ≥ n.
// execute() runs Backend::vertical_slash_attention over the kept lines (work ∝ kept cells); with a mask modifier the
// kept cells are a general mask, so it falls back to SparseVariant's block-sparse run. The 16-wide layout of the
// lines is built for the block view after the timed run (analyse()).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include <Eigen/Dense>

#include "core/backend/interface/vertical_slash_layout.h"
#include "core/format.h"
#include "core/variants/common_params.h"
#include "core/variants/modifiers.h"
#include "core/variants/sparse_common.h"

namespace attnscope {

namespace {

/// The kept lines of every head, as the line primitive reads them (ascending).
struct VSlashLines {
    std::vector<std::vector<int>> columns, offsets;  // per head
};

/// Head h's columns (Vertical) and diagonals (Slash), causal.
using VSlashPattern = Restricted<PerHead<Lines>, Causal>;

VSlashPattern vslash_pattern(int n, int b, const VSlashLines& lines) {
    PerHead<Lines> heads;
    for (size_t h = 0; h < lines.columns.size(); ++h) heads.parts.push_back(Lines::of(n, b, lines.columns[h], lines.offsets[h]));
    return restricted(std::move(heads), Causal{n, b, true}, n, b);
}

/// A vslash plan keeps its lines for the line primitive beside what every masked plan keeps.
struct VSlashPlan : SparsePlan {
    std::shared_ptr<const VSlashLines> lines;
};

/// MInference's floors and forced lines (minference_forward.py, vertical_and_slash_kernel): V ≥ 30, S ≥ 50, both
/// capped at n; the first 30 columns and the 100 nearest diagonals are given infinite estimated mass.
constexpr int kMinVerticals = 30, kMinSlashes = 50, kForcedColumns = 30, kForcedDiagonals = 100;

/// The V or S a run keeps at n positions: the requested count raised to MInference's floor, capped at n.
int lines_kept(int requested, int floor, int n) { return std::min(n, std::max(requested, floor)); }

/// Layout block of the pattern (block view, the mask-modifier fallback and the CUDA backend's layout alike).
constexpr int kVSlashBlock = 16;

/// Cells head h keeps: each column c and each diagonal o < n once (n − c and n − o cells), minus the cells on both.
int64_t kept_cells(int n, const std::vector<int>& columns, const std::vector<int>& offsets) {
    int64_t cells = 0;
    for (int c : columns) {
        cells += n - c;
        // Diagonals o ≤ n − 1 − c cross column c inside the matrix, at row c + o.
        cells -= std::upper_bound(offsets.begin(), offsets.end(), n - 1 - c) - offsets.begin();
    }
    for (int o : offsets)
        if (o < n) cells += n - o;
    return cells;
}

/// The `keep` indices of `sums` with the largest values (ties to the lower index), ascending.
std::vector<int> largest(const std::vector<double>& sums, int keep) {
    std::vector<int> all(sums.size());
    std::iota(all.begin(), all.end(), 0);
    return top_indices(std::move(all), keep, [&](int a) { return sums[size_t(a)]; });
}

class VSlashVariant : public SparseVariant {
public:
    VSlashVariant() {
        m_info = {
            .id = "vslash",
            .name = "Vertical-slash (MInference)",
            .paper = "Jiang et al. 2024",
            .summary = "causal; the last q queries' probabilities pick V ≥ 30 key columns (the first 30 forced) and S ≥ 50 "
                       "diagonals (the nearest 100 first) with the most mass; "
                       "every query keeps those; masked softmax",
            .params = with_modifier_params({with_auto_default(int_param("last_queries", "q", "queries (the last q) whose exact probabilities "
                                                   "choose the lines", 64, 1, 65536),
                                         "min(64, n)"),
                       with_auto_default(int_param("verticals", "V", "key columns kept, at least 30 (MInference's floor; the "
                                                   "first 30 columns always among them); V ≥ n: every key", 64, 0, 1048576),
                                         "min(64, n/8), raised to 30, at most n"),
                       with_auto_default(int_param("slashes", "S", "diagonals i − j kept, at least 50 (MInference's floor; the "
                                                   "100 nearest diagonals first); S ≥ n: every key", 64, 0, 1048576),
                                         "min(64, n/8), raised to 50, at most n"),
                       scale_param()}, true),
            .has_mask = true,
            .always_causal = true,
            .short_name = "Vertical-slash",
            .key_params = {"verticals", "slashes"},
            .signed_matrix = false,
            .budget_param = "verticals"};
    }
    Params resolve(const Params& params, const Shape& heads) const override {
        Params p = Variant::resolve(params, heads);
        const int n = heads.n();
        if (!p.has("last_queries")) p.set("last_queries", std::min(64, n));
        // The floors are part of the method (forced in MInference's code): resolved params say what runs.
        p.set("verticals", lines_kept(p.has("verticals") ? p.get_int("verticals") : std::min(64, n / 8), kMinVerticals, n));
        p.set("slashes", lines_kept(p.has("slashes") ? p.get_int("slashes") : std::min(64, n / 8), kMinSlashes, n));
        return p;
    }
    std::unique_ptr<Plan> plan(const Heads& x, const Params& p,
                               const std::shared_ptr<const VariantWeights>&) const override {
        const int n = x.n(), H = x.heads(), q = std::min(p.get_int("last_queries"), n);
        const int V = lines_kept(p.get_int("verticals"), kMinVerticals, n), S = lines_kept(p.get_int("slashes"), kMinSlashes, n);
        const float scale = static_cast<float>(p.get("scale"));
        // The estimate reads the probabilities of the model the run approximates: modified logits, allowed cells.
        const Modifiers mods = modifiers_of(p, x);
        VSlashLines pat;
        pat.columns.resize(size_t(H)), pat.offsets.resize(size_t(H));
#pragma omp parallel for schedule(static)
        for (int h = 0; h < H; ++h) {
            // Causal softmax rows of the last q queries, summed down columns and along diagonals.
            const Eigen::MatrixXf S_est = scale * (x.Q.head(h).bottomRows(q) * x.K.head(h).transpose());
            std::vector<double> column(size_t(n), 0.0), slash(size_t(n), 0.0), logit(size_t(n), 0.0);
            for (int r = 0; r < q; ++r) {
                const int i = n - q + r;
                double top = -INFINITY;
                for (int j = 0; j <= i; ++j) {
                    logit[size_t(j)] = mods.mask.allows(i, j) ? double(apply_score_mod(mods.score, h, i, j, S_est(r, j)))
                                                              : -INFINITY;
                    top = std::max(top, logit[size_t(j)]);
                }
                double total = 0;
                for (int j = 0; j <= i; ++j) total += std::exp(logit[size_t(j)] - top);
                for (int j = 0; j <= i; ++j) {
                    const double prob = std::exp(logit[size_t(j)] - top) / total;
                    column[size_t(j)] += prob, slash[size_t(i - j)] += prob;
                }
            }
            for (int j = 0; j < std::min(kForcedColumns, n); ++j) column[size_t(j)] = INFINITY;
            for (int o = 0; o < std::min(kForcedDiagonals, n); ++o) slash[size_t(o)] = INFINITY;
            pat.columns[size_t(h)] = largest(column, V);
            pat.offsets[size_t(h)] = largest(slash, S);
        }
        SparseSetup s;
        s.block = kVSlashBlock;
        s.causal = true;
        s.scale = scale;
        s.layout_heads = H;
        s.notes.push_back("estimate: the last " + std::to_string(q) + " queries' exact probabilities chose the lines in "
                          "the plan (O(q·n·d), untimed)");
        s.notes.push_back("MInference's forced lines: V = " + std::to_string(V) + " columns (≥ 30) with the first " +
                          std::to_string(std::min(kForcedColumns, n)) + " always among them, S = " + std::to_string(S) +
                          " diagonals (≥ 50) with the " + std::to_string(std::min({kForcedDiagonals, S, n})) +
                          " nearest first: every query keeps its own key");
        if (V >= n || S >= n)
            s.notes.push_back("V ≥ n or S ≥ n: every earlier key is kept (equals causal full attention)");
        auto lines = std::make_shared<const VSlashLines>(std::move(pat));
        auto pattern = std::make_shared<const VSlashPattern>(vslash_pattern(n, kVSlashBlock, *lines));
        auto plan = make_sparse_plan<VSlashPlan>(p, x, pattern, pattern, std::move(s));
        plan->lines = std::move(lines);
        return plan;
    }
    std::unique_ptr<Execution> execute(const Plan& base, const Heads& x, Backend& backend) const override {
        const auto& plan = static_cast<const VSlashPlan&>(base);
        const SparseSetup& setup = plan.setup;
        if (setup.modifiers.mask.kind != MaskModKind::None) {
            auto e = SparseVariant::execute(plan, x, backend);
            e->structure.notes.push_back("mask modifier: the kept lines ∩ the mask are a general mask, so this run "
                                         "used the block-sparse primitive (" + std::to_string(setup.block) + "×" +
                                         std::to_string(setup.block) + " blocks), not the line primitive");
            return e;
        }
        const int H = x.heads(), n = x.n(), d = x.d(), dv = x.dv();
        auto e = std::make_unique<SparseExecution>();
        // The primitive writes every row of O and lse (a row with no kept cell gets 0 and −inf).
        e->O = Tensor3::uninitialized(H, n, dv);
        e->lse = Tensor3::uninitialized(H, n, 1);
        VerticalSlashAttentionArgs a;
        a.Q = &x.Q, a.K = &x.K, a.V = &x.V, a.columns = &plan.lines->columns, a.offsets = &plan.lines->offsets;
        a.scale = setup.scale, a.score_mod = setup.modifiers.score, a.O = &e->O, a.lse = &e->lse;
        const auto t0 = std::chrono::steady_clock::now();
        backend.vertical_slash_attention(a);
        const double attention_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

        double cells = 0;  // the kept cells: what the CPU primitive scores and sums
        int64_t lines = 0;
        for (int h = 0; h < H; ++h) {
            cells += double(kept_cells(n, plan.lines->columns[size_t(h)], plan.lines->offsets[size_t(h)]));
            lines += int64_t(plan.lines->columns[size_t(h)].size() + plan.lines->offsets[size_t(h)].size());
        }
        Structure& st = e->structure;
        st.density = cells / (double(H) * 0.5 * double(n) * (n + 1.0));
        e->flops = cells * 2.0 * (d + dv);
        e->bytes = 4.0 * H * double(n) * (2.0 * d + 2.0 * dv) + 4.0 * double(lines);
        st.notes = setup.notes;
        st.notes.push_back("line primitive: " + format_fixed(cells / H, 0) + " kept cells per head scored, none "
                           "twice; attention " + format_fixed(attention_ms, 2) + " ms (wall)");
        return e;
    }
    void analyse(const Plan& base, Execution& execution, const Heads& x, Backend& backend) const override {
        const auto& plan = static_cast<const VSlashPlan&>(base);
        auto& e = static_cast<SparseExecution&>(execution);
        if (e.layout) {  // the block-sparse fallback ran: its layout and lse are SparseVariant's
            SparseVariant::analyse(plan, execution, x, backend);
            return;
        }
        attach_block_view(plan, e, x.n());
        // mass_recall needs log Σ_allowed exp(s₀·q·k) with the exact s₀ = 1/√d: the primitive's lse when s = s₀.
        const double exact_scale = 1.0 / std::sqrt(double(x.d()));
        if (std::fabs(double(plan.setup.scale) - exact_scale) <= 1e-7 * exact_scale) {
            e.structure.allowed_lse = e.lse;
            return;
        }
        Tensor3 O2(x.heads(), x.n(), x.dv()), lse2(x.heads(), x.n(), 1);
        VerticalSlashAttentionArgs a;
        a.Q = &x.Q, a.K = &x.K, a.V = &x.V, a.columns = &plan.lines->columns, a.offsets = &plan.lines->offsets;
        a.scale = static_cast<float>(exact_scale), a.score_mod = plan.setup.modifiers.score, a.O = &O2, a.lse = &lse2;
        backend.vertical_slash_attention(a);
        e.structure.allowed_lse = std::move(lse2);
    }
    void explain(const Plan& base, Execution& execution, const Heads& x, int max_matrix_n,
                 Backend& backend) const override {
        auto& e = static_cast<SparseExecution&>(execution);
        if (!e.layout) attach_block_view(static_cast<const VSlashPlan&>(base), e, x.n());
        SparseVariant::explain(base, execution, x, max_matrix_n, backend);  // P̃ from that layout and lse, the reasons
    }
    bool flops_estimate_is_bound(const Params&) const override { return true; }  // lines chosen by the input
    /// Upper bound of the attention over the kept cells: V columns and S diagonals per row, at most i + 1 (a cell on
    /// a kept column and a kept diagonal counts once in the run, twice here; which lines are kept depends on Q, K).
    double estimate_flops(int heads, int n, int d, int dv, const Params& p) const override {
        const int64_t lines = int64_t(lines_kept(p.get_int("verticals"), kMinVerticals, n)) +
                              lines_kept(p.get_int("slashes"), kMinSlashes, n);
        double cells = 0;
        for (int64_t i = 0; i < n; ++i) cells += double(std::min<int64_t>(lines, i + 1));
        return heads * cells * 2.0 * (d + dv);
    }
    /// O, L and the allowed-lse copy, the line primitive's scratch, and the 16-wide layout (held by the block-sparse
    /// fallback during the run and by the block view after it).
    int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params& p) const override {
        const int64_t b = kVSlashBlock, nb = (n + b - 1) / b;
        const int64_t V = lines_kept(p.get_int("verticals"), kMinVerticals, n), S = lines_kept(p.get_int("slashes"), kMinSlashes, n);
        const int64_t lines = V + 2 * S;
        const int64_t blocks = int64_t(heads) * nb * std::min<int64_t>(nb, lines);
        const int64_t columns = int64_t(heads) * V;
        return int64_t(heads) * n * (dv + 3) * 4 + blocks * (8 + 8 * b) + int64_t(n) * 64 * 4 * 2 +
               vertical_slash_scratch_bytes(heads, n, columns, d, dv) + (16ll << 20);
    }

private:
    /// Structure::blocks for the block view: the lines' layout, built here (untimed) because the line primitive needs
    /// none; explain() draws P̃ from it and the primitive's lse.
    static void attach_block_view(const VSlashPlan& plan, SparseExecution& e, int n) {
        e.layout = std::make_shared<const BlockLayout>(
            vertical_slash_layout(n, kVSlashBlock, plan.lines->columns, plan.lines->offsets));
        BlockPlan blocks;
        blocks.layout = e.layout;
        e.structure.blocks = std::move(blocks);
        e.structure.notes.push_back("block view: the lines' " + std::to_string(kVSlashBlock) + "×" +
                                    std::to_string(kVSlashBlock) + " layout, built after the timed run (the line "
                                    "primitive scores kept cells, not blocks)");
    }
};

}  // namespace

std::unique_ptr<Variant> make_vslash_variant() { return std::make_unique<VSlashVariant>(); }

}  // namespace attnscope

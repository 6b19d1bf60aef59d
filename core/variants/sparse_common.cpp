#include "core/variants/sparse_common.h"

#include <bit>
#include <chrono>
#include <cmath>
#include <functional>
#include <sstream>

#include "core/analysis/reachability.h"
#include "core/format.h"

namespace attnscope {

std::vector<int64_t> layout_allowed_cells(const BlockLayout& layout) {
    const BlockLayoutView v = layout.view();
    std::vector<int64_t> cells(layout.heads, 0);
    for (int h = 0; h < layout.heads; ++h)
        for (int I = 0; I < v.block_rows; ++I) {
            const int rows = block_extent(v.n, v.block, I);
            for (int k = layout_row_begin(v, h, I); k < layout_row_end(v, h, I); ++k) {
                const int ext = block_extent(v.n, v.block, v.col_idx[k]);
                if (v.mask_idx[k] < 0) {
                    cells[h] += int64_t(rows) * ext;
                    continue;
                }
                // Bits beyond the real extent are never set by build_layout().
                const uint64_t* m = v.masks + static_cast<int64_t>(v.mask_idx[k]) * v.block * v.words_per_row;
                for (int w = 0; w < rows * v.words_per_row; ++w) cells[h] += std::popcount(m[w]);
            }
        }
    return cells;
}

Tensor3 effective_matrix(const Heads& x, const BlockLayout& layout, float scale, const ScoreMod& mod,
                         const Tensor3& lse, const std::function<int(int, int)>& position) {
    const BlockLayoutView v = layout.view();
    const int H = x.heads(), n = x.n(), b = v.block;
    Tensor3 P(H, n, n);
#pragma omp parallel for collapse(2) schedule(dynamic)
    for (int h = 0; h < H; ++h)
        for (int I = 0; I < v.block_rows; ++I) {
            const int i0 = I * b, rows = block_extent(n, b, I);
            for (int k = layout_row_begin(v, h, I); k < layout_row_end(v, h, I); ++k) {
                const int j0 = v.col_idx[k] * b, ext = block_extent(n, b, v.col_idx[k]);
                const MatrixRM s =
                    scale * x.Q.head(h).middleRows(i0, rows) * x.K.head(h).middleRows(j0, ext).transpose();
                for (int r = 0; r < rows; ++r)
                    for (int c = 0; c < ext; ++c)
                        if (layout_cell_allowed(v, k, r, c))
                            P.at(h, position(h, i0 + r), position(h, j0 + c)) =
                                std::exp(apply_score_mod(mod, h, i0 + r, j0 + c, s(r, c)) - lse.at(h, i0 + r, 0));
            }
        }
    return P;
}

namespace {

/// Copies of the rows of t with head h's rows reordered to slot order when permuted[h] (out[s] = t[perm[s]]).
Tensor3 permute_rows(const Tensor3& t, const std::vector<int>& perm, const std::vector<uint8_t>& permuted) {
    Tensor3 out(t.heads(), t.rows(), t.cols());
    for (int h = 0; h < t.heads(); ++h) {
        if (!permuted[h]) {
            out.head(h) = t.head(h);
            continue;
        }
        for (int s = 0; s < t.rows(); ++s) out.head(h).row(s) = t.head(h).row(perm[s]);
    }
    return out;
}

/// Inverse of permute_rows(): out[perm[s]] = t[s] for permuted heads.
Tensor3 unpermute_rows(const Tensor3& t, const std::vector<int>& perm, const std::vector<uint8_t>& permuted) {
    Tensor3 out(t.heads(), t.rows(), t.cols());
    for (int h = 0; h < t.heads(); ++h) {
        if (!permuted[h]) {
            out.head(h) = t.head(h);
            continue;
        }
        for (int s = 0; s < t.rows(); ++s) out.head(h).row(perm[s]) = t.head(h).row(s);
    }
    return out;
}

}  // namespace

std::unique_ptr<Execution> SparseVariant::execute(const Plan& base, const Heads& x_in, Backend& backend) const {
    const auto& plan = static_cast<const SparsePlan&>(base);
    const SparseSetup& setup = plan.setup;
    auto e = std::make_unique<SparseExecution>();
    // The layout's build is part of the algorithm (a kernel needs it); its share is reported in a note.
    const auto t0 = std::chrono::steady_clock::now();
    e->layout = std::make_shared<const BlockLayout>(plan.build_layout());
    const auto t1 = std::chrono::steady_clock::now();
    const BlockLayout& layout = *e->layout;
    const bool permuted = !setup.perm.empty();
    const int H = x_in.heads(), n = x_in.n(), d = x_in.d(), dv = x_in.dv();
    BlockSparseAttentionArgs a;
    a.layout = &layout, a.scale = setup.scale, a.score_mod = setup.modifiers.score;
    if (permuted) {
        e->permuted.Q = permute_rows(x_in.Q, setup.perm, setup.permuted);
        e->permuted.K = permute_rows(x_in.K, setup.perm, setup.permuted);
        e->permuted.V = permute_rows(x_in.V, setup.perm, setup.permuted);
    }
    const Heads& x = e->slot_input(x_in);
    a.Q = &x.Q, a.K = &x.K, a.V = &x.V;
    // The primitive writes every row of O and lse (a row with no allowed cell gets 0 and −inf).
    e->O = Tensor3::uninitialized(H, n, dv);
    e->lse = Tensor3::uninitialized(H, n, 1);
    a.O = &e->O, a.lse = &e->lse;
    backend.block_sparse_attention(a);
    if (permuted) e->O = unpermute_rows(e->O, setup.perm, setup.permuted);
    const auto t2 = std::chrono::steady_clock::now();
    const double build_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    const double attention_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();

    const std::vector<int64_t> cells = layout_allowed_cells(layout);
    double allowed_total = 0;  // the count sparse_flops() makes from the same layout
    for (int h = 0; h < H; ++h) allowed_total += double(cells[layout.heads == 1 ? 0 : h]);
    const double denom = setup.causal ? 0.5 * double(n) * (n + 1.0) : double(n) * n;
    Structure& s = e->structure;
    s.density = allowed_total / (double(H) * denom);
    e->flops = allowed_total * 2.0 * (d + dv);
    const double layout_bytes = 4.0 * (layout.row_ptr.size() + 2.0 * layout.col_idx.size()) + 8.0 * layout.masks.size();
    e->bytes = 4.0 * H * double(n) * (2.0 * d + 2.0 * dv) + layout_bytes;

    const int b = layout.block, nb = layout.block_rows();
    BlockPlan blocks;
    blocks.layout = e->layout;
    if (permuted) {
        blocks.perm.resize(static_cast<size_t>(H) * n);
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < n; ++i) blocks.perm[static_cast<size_t>(h) * n + i] = setup.permuted[h] ? setup.perm[i] : i;
    }
    s.blocks = std::move(blocks);
    s.random_blocks = plan.random_blocks;

    s.notes = setup.notes;
    if (n % b != 0)
        s.notes.push_back("n = " + std::to_string(n) + " padded to " + std::to_string(nb * b) + " (block " +
                          std::to_string(b) + "); padding masked, results are for the real n = " + std::to_string(n));
    const double stored = double(layout.stored_blocks()) / layout.heads;
    double stored_cells = 0;  // cells the kernel scores (partial last blocks counted at their real size)
    for (int h = 0; h < layout.heads; ++h)
        for (int I = 0; I < nb; ++I)
            for (int k = layout.row_ptr[size_t(h) * (nb + 1) + I]; k < layout.row_ptr[size_t(h) * (nb + 1) + I + 1];
                 ++k)
                stored_cells += double(block_extent(n, b, I)) * block_extent(n, b, layout.col_idx[k]);
    stored_cells /= layout.heads;
    double allowed_per_layout_head = 0;
    for (int64_t c : cells) allowed_per_layout_head += double(c) / layout.heads;
    s.notes.push_back("layout: " + format_fixed(stored, 0) + " stored " + std::to_string(b) + "×" + std::to_string(b) +
                      " blocks per head (" + format_fixed(100.0 * stored / (double(nb) * nb), 2) + "% of the " +
                      std::to_string(nb) + "² grid), " +
                      format_fixed(100.0 * allowed_per_layout_head / std::max(1.0, stored_cells), 1) +
                      "% of scored cells allowed; build " + format_fixed(build_ms, 2) + " ms + attention " +
                      format_fixed(attention_ms, 2) + " ms (wall)");
    return e;
}

void SparseVariant::analyse(const Plan& base, Execution& execution, const Heads& x_in, Backend& backend) const {
    const SparseSetup& setup = static_cast<const SparsePlan&>(base).setup;
    auto& e = static_cast<SparseExecution&>(execution);
    const bool permuted = !setup.perm.empty();
    // mass_recall needs log Σ_allowed exp(s₀·q·k) with the exact s₀ = 1/√d: the primitive's lse when s = s₀.
    const double exact_scale = 1.0 / std::sqrt(double(x_in.d()));
    if (std::fabs(double(setup.scale) - exact_scale) <= 1e-7 * exact_scale) {
        e.structure.allowed_lse = permuted ? unpermute_rows(e.lse, setup.perm, setup.permuted) : e.lse;
        return;
    }
    const Heads& x = e.slot_input(x_in);
    Tensor3 O2(x.heads(), x.n(), x.dv()), lse2(x.heads(), x.n(), 1);
    BlockSparseAttentionArgs a;
    a.layout = e.layout.get(), a.Q = &x.Q, a.K = &x.K, a.V = &x.V;
    a.O = &O2, a.lse = &lse2, a.scale = static_cast<float>(exact_scale), a.score_mod = setup.modifiers.score;
    backend.block_sparse_attention(a);
    e.structure.allowed_lse = permuted ? unpermute_rows(lse2, setup.perm, setup.permuted) : std::move(lse2);
}

void SparseVariant::explain(const Plan& base, Execution& execution, const Heads& x_in, int max_matrix_n,
                            Backend&) const {
    const auto& plan = static_cast<const SparsePlan&>(base);
    const SparseSetup& setup = plan.setup;
    auto& e = static_cast<SparseExecution&>(execution);
    const int n = x_in.n();
    if (n > max_matrix_n) return;
    const bool permuted = !setup.perm.empty();
    e.P_eff = effective_matrix(e.slot_input(x_in), *e.layout, setup.scale, setup.modifiers.score, e.lse,
                               [&](int h, int s) { return permuted && setup.permuted[h] ? setup.perm[s] : s; });
    ReasonMask mask = plan.reason_mask();
    if (n <= kReachabilityNoteMaxN)
        e.structure.notes.push_back(reachability_summary(compute_reachability(mask_adjacency(mask, -1), 3, setup.causal)));
    e.structure.mask = std::move(mask);
}

}  // namespace attnscope

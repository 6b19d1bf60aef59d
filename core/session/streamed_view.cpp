#include "core/session/streamed_view.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "core/backend/interface/block_layout.h"
#include "core/backend/interface/pooling.h"

namespace attnscope {

namespace {

/// Column bin of every key position: j lies in bin b when pool_bin_begin(b) ≤ j < pool_bin_end(b).
std::vector<int> column_bins(int n, int s) {
    std::vector<int> bin(static_cast<size_t>(n));
    for (int b = 0; b < s; ++b)
        for (int64_t j = pool_bin_begin(b, n, s); j < pool_bin_end(b, n, s); ++j) bin[static_cast<size_t>(j)] = b;
    return bin;
}

bool is_exact(const RunResult& r) { return r.variant == "full" || r.variant == "flash"; }

/// Every cell of bin row bi of head h: softmax rows of scale·q·k (causal: j ≤ i), max-pooled into out. The max of a
/// bin's weights is exp(max of its scores − m)/l, so each bin needs one max over its scores, and each row one Σ exp.
void dense_bin_row(const Heads& x, float scale, bool causal, int h, int bi, int s, Tensor3& out, MatrixRM& scores) {
    const int n = x.n();
    const int64_t i0 = pool_bin_begin(bi, n, s), i1 = pool_bin_end(bi, n, s);
    const int rows = int(i1 - i0);
    scores.resize(rows, n);
    scores.noalias() = scale * (x.Q.head(h).middleRows(i0, rows) * x.K.head(h).transpose());
    float* pooled = out.head_data(h) + int64_t(bi) * s;
    for (int r = 0; r < rows; ++r) {
        const int64_t i = i0 + r, keys = causal ? i + 1 : n;
        auto row = scores.row(r).head(keys);
        const float m = row.maxCoeff();
        const float l = (row.array() - m).exp().sum();
        for (int bj = 0; bj < s; ++bj) {
            const int64_t j0 = pool_bin_begin(bj, n, s), j1 = std::min<int64_t>(pool_bin_end(bj, n, s), keys);
            if (j0 >= j1) break;
            const float top = scores.row(r).segment(j0, j1 - j0).maxCoeff();
            pooled[bj] = std::max(pooled[bj], std::exp(top - m) / l);
        }
    }
}

/// Every allowed cell of layout block row I of head h: softmax over the row's allowed cells, max-pooled into out.
void masked_block_row(const Heads& x, float scale, const BlockLayoutView& L, int h, int I, int s,
                      const std::vector<int>& bin, Tensor3& out, std::vector<int>& cols, std::vector<float>& vals) {
    const int n = x.n(), b = L.block, i0 = I * b, rows = block_extent(n, b, I);
    const ConstMatView Q = x.Q.head(h), K = x.K.head(h);
    for (int r = 0; r < rows; ++r) {
        const int i = i0 + r;
        cols.clear(), vals.clear();
        for (int k = layout_row_begin(L, h, I); k < layout_row_end(L, h, I); ++k) {
            const int J = L.col_idx[k], ext = block_extent(n, b, J);
            for (int c = 0; c < ext; ++c)
                if (layout_cell_allowed(L, k, r, c))
                    cols.push_back(J * b + c), vals.push_back(scale * Q.row(i).dot(K.row(J * b + c)));
        }
        if (vals.empty()) continue;  // a row with nothing allowed has no weights (P̃ row of zeros)
        const float m = *std::max_element(vals.begin(), vals.end());
        float l = 0;
        for (float& v : vals) l += (v = std::exp(v - m));
        float* pooled = out.head_data(h) + pool_bin_of(i, n, s) * s;
        for (size_t t = 0; t < cols.size(); ++t) {
            float& cell = pooled[bin[size_t(cols[t])]];
            cell = std::max(cell, vals[t] / l);
        }
    }
}

}  // namespace

bool can_stream_view(const RunResult& result, std::string& why) {
    if (result.params.has("score_mod") && result.params.get("score_mod") != 0.0) {
        why = "a score modifier is on";
        return false;
    }
    if (is_exact(result)) {
        // With a mask modifier exact attention keeps only the mask's cells, which the row-by-row stream does not know.
        if (result.params.has("mask_mod") && result.params.get("mask_mod") != 0.0) {
            why = "a mask modifier is on";
            return false;
        }
        return true;
    }
    const auto& blocks = result.structure.blocks;
    if (!blocks || !blocks->layout) {
        why = "its P̃ is not a softmax over a block layout";
        return false;
    }
    if (!blocks->perm.empty()) {
        why = "some heads ran permuted";
        return false;
    }
    return true;
}

std::optional<Tensor3> streamed_view(const RunResult& result, const Heads& x, int size,
                                     const std::function<bool()>& cancelled) {
    std::string why;
    if (!can_stream_view(result, why)) throw Error("no streamed view for " + result.variant + ": " + why);
    const int H = x.heads(), n = x.n(), s = std::min(n, size);
    const float scale = static_cast<float>(result.params.get("scale"));
    Tensor3 out(H, s, s);  // weights are ≥ 0 and every bin holds a cell: 0 is the max's neutral start
    if (is_exact(result)) {
        for (int h = 0; h < H; ++h) {
            // Checked here too: inside the loop only thread 0 asks (`cancelled` need not be thread-safe), and another
            // thread may take every row before thread 0 takes one.
            if (cancelled && cancelled()) return std::nullopt;
            std::atomic<bool> stop{false};
#pragma omp parallel
            {
                MatrixRM scores;
#pragma omp for schedule(dynamic)
                for (int bi = 0; bi < s; ++bi) {
                    if (stop) continue;
                    if (omp_get_thread_num() == 0 && cancelled && cancelled()) stop = true;
                    dense_bin_row(x, scale, result.causal, h, bi, s, out, scores);
                }
            }
            if (stop) return std::nullopt;
        }
        return out;
    }
    const BlockLayout& layout = *result.structure.blocks->layout;
    const BlockLayoutView L = layout.view();
    const std::vector<int> bin = column_bins(n, s);
    for (int h = 0; h < H; ++h) {
        if (cancelled && cancelled()) return std::nullopt;
        // Layout block rows in runs that never share a bin row, so threads write disjoint rows of the view.
        const int nb = L.block_rows;
        std::vector<int> starts{0};
        for (int I = 1; I < nb; ++I)
            if (pool_bin_of(int64_t(I) * L.block, n, s) != pool_bin_of(int64_t(I) * L.block - 1, n, s)) starts.push_back(I);
        starts.push_back(nb);
#pragma omp parallel
        {
            std::vector<int> cols;
            std::vector<float> vals;
            const int groups = int(starts.size()) - 1;
#pragma omp for schedule(dynamic)
            for (int g = 0; g < groups; ++g)
                for (int I = starts[size_t(g)]; I < starts[size_t(g) + 1]; ++I) masked_block_row(x, scale, L, h, I, s, bin, out, cols, vals);
        }
    }
    return out;
}

}  // namespace attnscope

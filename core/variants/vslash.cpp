// attnscope — `vslash`: MInference's vertical-slash pattern (Jiang et al. 2024). Causal. The last q queries'
// exact attention probabilities estimate which key columns (vertical lines) and which diagonals i − j = o (slash
// lines) carry the mass; every query then keeps the V columns and the S diagonals with the largest summed
// probability (ties to the lower j or o), j ≤ i.
//   Vertical: j is a kept column;  Slash: i − j is a kept offset (a cell on both counts as vertical)
// The estimate costs O(q·n·d) and runs in the plan (untimed, said in a note). Exact when V ≥ n or S ≥ n.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <Eigen/Dense>

#include "common_params.h"
#include "modifiers.h"
#include "sparse_common.h"

namespace attnscope {

namespace {

struct VSlashPattern {
    int n, b;
    std::vector<std::vector<int>> columns, offsets;  // per head, ascending
    std::vector<std::vector<char>> is_column, is_offset;  // per head, (n) membership

    Reason reason(int h, int i, int j) const {
        if (j > i) return Reason::None;
        if (is_column[size_t(h)][size_t(j)]) return Reason::Vertical;
        return is_offset[size_t(h)][size_t(i - j)] ? Reason::Slash : Reason::None;
    }
    void candidates(int h, int I, std::vector<BlockCandidate>& out) const {
        const int64_t i1 = int64_t(I) * b + block_extent(n, b, I) - 1;
        for (int j : columns[size_t(h)])
            if (j <= i1) range_candidates(n, b, j, j, out);
        for (int o : offsets[size_t(h)]) band_candidates(n, b, I, o, o, out);
    }
};

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
            .summary = "causal; the last q queries' probabilities pick V key columns and S diagonals with the most mass; "
                       "every query keeps those; masked softmax",
            .params = with_modifier_params({with_auto_default(int_param("last_queries", "q", "queries (the last q) whose exact probabilities "
                                                   "choose the lines", 64, 1, 65536),
                                         "min(64, n)"),
                       with_auto_default(int_param("verticals", "V", "key columns kept (V ≥ n: every key)", 64, 0, 1048576),
                                         "min(64, n/8, ≥ 1)"),
                       with_auto_default(int_param("slashes", "S", "diagonals i − j kept (S ≥ n: every key)", 64, 0, 1048576),
                                         "min(64, n/8, ≥ 1)"),
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
        if (!p.has("verticals")) p.set("verticals", std::clamp(n / 8, 1, 64));
        if (!p.has("slashes")) p.set("slashes", std::clamp(n / 8, 1, 64));
        return p;
    }
    std::unique_ptr<Plan> plan(const Heads& x, const Params& p,
                               const std::shared_ptr<const VariantWeights>&) const override {
        const int n = x.n(), H = x.heads(), q = std::min(p.get_int("last_queries"), n);
        const float scale = static_cast<float>(p.get("scale"));
        VSlashPattern pat;
        pat.n = n, pat.b = 16;
        pat.columns.resize(size_t(H)), pat.offsets.resize(size_t(H));
        pat.is_column.assign(size_t(H), std::vector<char>(size_t(n), 0));
        pat.is_offset.assign(size_t(H), std::vector<char>(size_t(n), 0));
#pragma omp parallel for schedule(static)
        for (int h = 0; h < H; ++h) {
            // Causal softmax rows of the last q queries, summed down columns and along diagonals.
            const Eigen::MatrixXf S = scale * (x.Q.head(h).bottomRows(q) * x.K.head(h).transpose());
            std::vector<double> column(size_t(n), 0.0), slash(size_t(n), 0.0);
            for (int r = 0; r < q; ++r) {
                const int i = n - q + r;
                const float top = S.row(r).head(i + 1).maxCoeff();
                double total = 0;
                for (int j = 0; j <= i; ++j) total += std::exp(double(S(r, j) - top));
                for (int j = 0; j <= i; ++j) {
                    const double prob = std::exp(double(S(r, j) - top)) / total;
                    column[size_t(j)] += prob, slash[size_t(i - j)] += prob;
                }
            }
            pat.columns[size_t(h)] = largest(column, p.get_int("verticals"));
            pat.offsets[size_t(h)] = largest(slash, p.get_int("slashes"));
            for (int j : pat.columns[size_t(h)]) pat.is_column[size_t(h)][size_t(j)] = 1;
            for (int o : pat.offsets[size_t(h)]) pat.is_offset[size_t(h)][size_t(o)] = 1;
        }
        SparseSetup s;
        s.block = pat.b;
        s.causal = true;
        s.scale = scale;
        s.layout_heads = H;
        s.notes.push_back("estimate: the last " + std::to_string(q) + " queries' exact probabilities chose the lines in "
                          "the plan (O(q·n·d), untimed)");
        if (p.get_int("verticals") >= n || p.get_int("slashes") >= n)
            s.notes.push_back("V ≥ n or S ≥ n: every earlier key is kept (equals causal full attention)");
        return make_sparse_plan(p, x, std::move(pat), std::move(s));
    }
    bool flops_estimate_is_bound(const Params&) const override { return true; }  // lines chosen by the input
    /// Upper bound of the attention over the kept cells: V columns and S diagonals per row, at most i + 1 (a cell on
    /// a kept column and a kept diagonal counts once in the run, twice here; which lines are kept depends on Q, K).
    double estimate_flops(int heads, int n, int d, int dv, const Params& p) const override {
        const int64_t lines = int64_t(p.get_int("verticals")) + p.get_int("slashes");
        double cells = 0;
        for (int64_t i = 0; i < n; ++i) cells += double(std::min<int64_t>(lines, i + 1));
        return heads * cells * 2.0 * (d + dv);
    }
    int64_t estimate_peak_bytes(int heads, int n, int, int dv, const Params& p) const override {
        const int64_t b = 16, nb = (n + b - 1) / b;
        const int64_t lines = int64_t(p.get_int("verticals")) + 2 * int64_t(p.get_int("slashes"));
        const int64_t blocks = int64_t(heads) * nb * std::min<int64_t>(nb, lines);
        return int64_t(heads) * n * (dv + 3) * 4 + blocks * (8 + 8 * b) + int64_t(n) * 64 * 4 * 2 + (16ll << 20);
    }
};

}  // namespace

std::unique_ptr<Variant> make_vslash_variant() { return std::make_unique<VSlashVariant>(); }

}  // namespace attnscope

// attnscope tests — helpers of the masked-family suites: running a variant and reading back its layout, a dense
// double-precision masked-softmax reference, random inputs.
#pragma once
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "tests/unit/backend_suite.h"
#include "core/backend/shared/random.h"
#include "core/session/experiment.h"
#include "core/variants/registry.h"
#include "core/variants/sparse_common.h"

namespace attnscope::test {

/// Dense (H, n, n) booleans of a layout, heads expanded to H; `perm` (H·n, slot → position, the run's
/// Structure::blocks->perm) maps heads laid out in a permuted order back to positions.
inline std::vector<uint8_t> layout_cells(const BlockLayout& L, int H, const std::vector<int>* perm = nullptr) {
    const BlockLayoutView v = L.view();
    const int n = L.n;
    std::vector<uint8_t> out(static_cast<size_t>(H) * n * n, 0);
    for (int h = 0; h < H; ++h)
        for (int I = 0; I < v.block_rows; ++I)
            for (int k = layout_row_begin(v, h, I); k < layout_row_end(v, h, I); ++k)
                for (int r = 0; r < block_extent(n, v.block, I); ++r)
                    for (int c = 0; c < block_extent(n, v.block, v.col_idx[k]); ++c)
                        if (layout_cell_allowed(v, k, r, c)) {
                            int i = I * v.block + r, j = v.col_idx[k] * v.block + c;
                            if (perm) i = (*perm)[size_t(h) * n + i], j = (*perm)[size_t(h) * n + j];
                            out[(static_cast<size_t>(h) * n + i) * n + j] = 1;
                        }
    return out;
}

inline Tensor3 random_tensor3(int H, int n, int d, uint64_t seed, float scale = 1.0f) {
    Tensor3 t(H, n, d);
    for (int64_t k = 0; k < t.size(); ++k) t.data()[k] = scale * static_cast<float>(rng::normal(seed, 11, k));
    return t;
}

inline Heads random_heads(int H, int n, int d, int dv, uint64_t seed) {
    Heads x;
    x.Q = random_tensor3(H, n, d, seed * 3 + 1), x.K = random_tensor3(H, n, d, seed * 3 + 2);
    x.V = random_tensor3(H, n, dv, seed * 3 + 3);
    x.source = "test";
    return x;
}

/// allowed(h, i, j) → bool; the reference computes O (and lse) in double over exactly those cells.
using CellPredicate = std::function<bool(int, int, int)>;
/// The modified logit of cell (h, i, j) given its plain logit x (a score modifier written from its definition).
using Logit = std::function<double(int, int, int, double)>;

/// ALiBi's slopes as the paper's get_slopes builds them: a power of two H gives start·ratio^h with start = ratio =
/// 2^(−8/H); any other H takes the slopes of the closest power of two c below it, then slopes(2c)[0::2][:H − c].
inline std::vector<double> alibi_slopes(int H) {
    const auto power_of_two = [](int m) {
        std::vector<double> out;
        const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(double(m)) - 3)));
        for (int h = 0; h < m; ++h) out.push_back(start * std::pow(start, h));
        return out;
    };
    if (std::exp2(std::floor(std::log2(double(H)))) == H) return power_of_two(H);
    const int c = int(std::exp2(std::floor(std::log2(double(H)))));
    std::vector<double> out = power_of_two(c);
    const std::vector<double> finer = alibi_slopes(2 * c);
    for (int t = 0; out.size() < size_t(H); t += 2) out.push_back(finer[size_t(t)]);
    return out;
}
/// ALiBi as Press et al. define it: head h of H (0-based) adds −m_h·|i − j| with m_h = alibi_slopes(H)[h].
inline Logit alibi_logit(int H) {
    return [slopes = alibi_slopes(H)](int h, int i, int j, double x) { return x - slopes[size_t(h)] * std::abs(i - j); };
}
/// Gemma 2's soft-cap: c·tanh(x/c).
inline Logit softcap_logit(double c) {
    return [c](int, int i, int j, double x) { return (void)i, (void)j, c * std::tanh(x / c); };
}

/// Dense masked softmax in double of the logits scale·q·k (modified by `logit` when given): O (H, n, dv) and lse
/// (H, n, 1); rows with no allowed cell give 0 and −inf.
inline void masked_reference(const Heads& x, double scale, const CellPredicate& allowed, Tensor3& O, Tensor3& lse,
                             const Logit& logit = {}) {
    const int H = x.heads(), n = x.n(), d = x.d(), dv = x.dv();
    O = Tensor3(H, n, dv), lse = Tensor3(H, n, 1);
    std::vector<double> s(n);
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) {
            double mx = -INFINITY;
            for (int j = 0; j < n; ++j) {
                s[j] = -INFINITY;
                if (!allowed(h, i, j)) continue;
                double dot = 0;
                for (int c = 0; c < d; ++c) dot += double(x.Q.at(h, i, c)) * x.K.at(h, j, c);
                s[j] = logit ? logit(h, i, j, scale * dot) : scale * dot;
                mx = std::max(mx, s[j]);
            }
            if (mx == -INFINITY) {
                lse.at(h, i, 0) = -INFINITY;
                continue;
            }
            double sum = 0;
            std::vector<double> acc(dv, 0.0);
            for (int j = 0; j < n; ++j) {
                if (s[j] == -INFINITY) continue;
                const double p = std::exp(s[j] - mx);
                sum += p;
                for (int c = 0; c < dv; ++c) acc[c] += p * x.V.at(h, j, c);
            }
            for (int c = 0; c < dv; ++c) O.at(h, i, c) = static_cast<float>(acc[c] / sum);
            lse.at(h, i, 0) = static_cast<float>(mx + std::log(sum));
        }
}

/// Runs a variant with NAME=VALUE assignments through the session path; `layout` receives the layout the
/// run used (its Structure::blocks; a test fails when the variant reports none).
inline RunResult run_recorded(const Heads& x, const std::string& id,
                              const std::vector<std::pair<std::string, std::string>>& sets, Backend& backend,
                              std::optional<BlockLayout>* layout = nullptr, bool want_matrix = true) {
    RunOptions options;
    options.explain = want_matrix;
    RunResult r = run_variant(x, parse_variant_request(id, sets), options, backend, nullptr);
    if (layout) {
        EXPECT_TRUE(r.structure.blocks && r.structure.blocks->layout) << id << " reported no block layout";
        if (r.structure.blocks && r.structure.blocks->layout) *layout = *r.structure.blocks->layout;
    }
    return r;
}

/// Every registered variant with a parameter called `param` (mask_mod: the masked variants and the exact ones), in
/// the registry's order: tests over "every masked variant" read this, so a new one is not missed.
inline std::vector<std::string> variants_with_param(const std::string& param) {
    std::vector<std::string> out;
    for (const auto& v : all_variants())
        if (find_param(v->info().params, param)) out.push_back(v->info().id);
    return out;
}

/// Settings of a masked variant that keep a few keys per row at n ≈ 100 (its defaults keep nearly all); a test
/// fails naming a variant that has none here, so the registry's loops cannot skip a new variant silently.
inline std::vector<std::pair<std::string, std::string>> small_budget(const std::string& id) {
    static const std::map<std::string, std::vector<std::pair<std::string, std::string>>> budgets = {
        {"full", {}},
        {"flash", {}},
        {"strided", {{"stride", "5"}}},
        {"fixed", {{"block", "16"}, {"summary", "2"}}},
        {"longformer", {{"window", "4"}}},
        {"bigbird", {{"block", "8"}}},
        {"xl", {{"segment", "16"}}},
        {"sink", {{"window", "3"}, {"sinks", "1"}}},
        {"topk", {{"k", "1"}}},
        {"blocksel", {{"block", "8"}, {"top_blocks", "1"}}},
        {"vslash", {{"last_queries", "4"}, {"verticals", "1"}, {"slashes", "1"}}},
        {"compose", {{"window", "3"}, {"sinks", "1"}}},
    };
    const auto it = budgets.find(id);
    if (it == budgets.end()) {
        ADD_FAILURE() << id << " has no small-budget settings: add them to small_budget in tests/unit/sparse_test_util.h";
        return {};
    }
    return it->second;
}

}  // namespace attnscope::test

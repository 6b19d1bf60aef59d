// Metrics per head (issue 32, points 4–6): every metric of every head and their mean over heads against the
// definitions computed here in double from Q, K, V (exact softmax written out, no helper of the code under test);
// keys_for_90 and row entropy of P̃ and of the exact P told apart; a figure of one head prints that head's numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/backend/factory/make_backend.h"
#include "core/figure/run_figure.h"
#include "core/session/experiment.h"
#include "core/session/metrics.h"
#include "tests/unit/sparse_test_util.h"

namespace attnscope::test {
namespace {

using Assignments = std::vector<std::pair<std::string, std::string>>;

/// Four heads that differ on purpose: head h's logits are scaled by 0.4 + 0.7·h, so its rows go from flat to
/// peaked and its errors, mass and concentration differ from the other heads' (a mean cannot pass for one head).
Heads unequal_heads(int n) {
    Heads x = random_heads(4, n, 16, 8, 32);
    for (int h = 0; h < x.heads(); ++h) x.Q.head(h) *= 0.4f + 0.7f * float(h);
    return x;
}

/// The exact softmax of one head written out in double: P = softmax(QKᵀ/√d) row by row (keys j ≤ i when causal),
/// O = P·V.
struct ExactHead {
    Eigen::MatrixXd P, O;
};
ExactHead exact_head(const Heads& x, int h, bool causal) {
    const Eigen::MatrixXd Q = x.Q.head(h).cast<double>(), K = x.K.head(h).cast<double>(), V = x.V.head(h).cast<double>();
    Eigen::MatrixXd S = Q * K.transpose() / std::sqrt(double(x.d()));
    for (int i = 0; i < S.rows(); ++i) {
        const int keys = causal ? i + 1 : int(S.cols());
        const double top = S.row(i).head(keys).maxCoeff();
        S.row(i) = (S.row(i).array() - top).exp().matrix();
        S.row(i).tail(S.cols() - keys).setZero();
        S.row(i) /= S.row(i).sum();
    }
    return {S, S * V};
}

Eigen::MatrixXd as_double(const Tensor3& t, int h) { return t.head(h).cast<double>(); }

/// The fewest entries of `row`, largest first, holding 90% of its sum; and −Σ p ln p.
double keys_for_90_of(std::vector<double> row) {
    double total = 0;
    for (double v : row) total += v;
    std::sort(row.begin(), row.end(), std::greater<double>());
    double cumulative = 0;
    int k = 0;
    while (k < int(row.size()) && cumulative < 0.9 * total) cumulative += row[size_t(k++)];
    return k;
}
double entropy_of(const std::vector<double>& row) {
    double e = 0;
    for (double v : row)
        if (v > 0) e -= v * std::log(v);
    return e;
}

/// Mean over the rows of M of keys_for_90_of and of entropy_of (every row: n ≤ 256).
std::pair<double, double> concentration(const Eigen::MatrixXd& M) {
    double keys = 0, entropy = 0;
    for (int i = 0; i < M.rows(); ++i) {
        std::vector<double> row(M.cols());
        for (int j = 0; j < M.cols(); ++j) row[size_t(j)] = M(i, j);
        keys += keys_for_90_of(row), entropy += entropy_of(row);
    }
    return {keys / double(M.rows()), entropy / double(M.rows())};
}

double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / double(v.size());
}

RunResult run_with_matrices(const Heads& x, const std::string& id, const Assignments& sets, ReferenceCache& refs,
                            Backend& backend) {
    RunOptions options;
    options.explain = true;
    return run_variant(x, parse_variant_request(id, sets), options, backend, &refs);
}

// Point 5: rel_err_out, rel_err_attn, mass_recall, row_kl_rev and mass_ceiling of every head, and the run's value
// as the mean over heads of those (docs/VARIANTS.md) — not ‖O − O_full‖_F / ‖O_full‖_F pooled over all heads,
// which this input tells apart.
TEST(MetricsPerHead, EveryHeadAndTheMeanOverHeadsFollowTheDefinition) {
    auto backend = make_backend("cpu");
    const Heads x = unequal_heads(96);
    ReferenceCache refs(x, true);
    const RunResult r = run_with_matrices(x, "longformer", {{"window", "16"}}, refs, *backend);
    const Metrics& m = r.metrics;
    ASSERT_EQ(m.heads.size(), size_t(x.heads())) << "the run carries no per-head values";
    std::vector<double> out, attn, mass, kl_rev, ceiling;
    double pooled_num = 0, pooled_den = 0;
    for (int h = 0; h < x.heads(); ++h) {
        const ExactHead e = exact_head(x, h, r.causal);
        const Eigen::MatrixXd O = as_double(r.O, h), Pt = as_double(*r.P_eff, h);
        out.push_back((O - e.O).norm() / e.O.norm());
        attn.push_back((Pt - e.P).norm() / e.P.norm());
        pooled_num += (O - e.O).squaredNorm(), pooled_den += e.O.squaredNorm();
        double kept = 0, kl = 0, best = 0;
        for (int i = 0; i < x.n(); ++i) {
            std::vector<double> row;
            int keys = 0;
            for (int j = 0; j < x.n(); ++j) {
                row.push_back(e.P(i, j));
                if (r.structure.mask->at(h, i, j) == Reason::None) continue;
                kept += e.P(i, j), ++keys;
                if (Pt(i, j) > 0) kl += Pt(i, j) * std::log(Pt(i, j) / e.P(i, j));
            }
            std::sort(row.begin(), row.end(), std::greater<double>());
            for (int k = 0; k < keys; ++k) best += row[size_t(k)];
        }
        mass.push_back(kept / x.n()), kl_rev.push_back(kl / x.n()), ceiling.push_back(best / x.n());
        std::printf("[case] head %d: rel_err_out %.5f (code %.5f), rel_err_attn %.5f, mass_recall %.5f (code %.5f)\n", h,
                    out.back(), m.heads[size_t(h)].rel_err_out.value_or(NAN), attn.back(), mass.back(),
                    m.heads[size_t(h)].mass_recall.value_or(NAN));
        const MetricValues& got = m.heads[size_t(h)];
        ASSERT_TRUE(got.rel_err_out && got.rel_err_attn && got.mass_recall && got.row_kl_rev && got.mass_ceiling);
        EXPECT_NEAR(*got.rel_err_out, out.back(), 1e-4 * out.back()) << "head " << h;
        EXPECT_NEAR(*got.rel_err_attn, attn.back(), 1e-4 * attn.back()) << "head " << h;
        EXPECT_NEAR(*got.mass_recall, mass.back(), 1e-5) << "head " << h;
        EXPECT_NEAR(*got.row_kl_rev, kl_rev.back(), 1e-4 * std::max(1.0, kl_rev.back())) << "head " << h;
        EXPECT_NEAR(*got.mass_ceiling, ceiling.back(), 1e-5) << "head " << h;
    }
    const double pooled = std::sqrt(pooled_num / pooled_den);
    std::printf("[case] rel_err_out: mean over heads %.5f, pooled over heads %.5f, code %.5f\n", mean(out), pooled,
                m.rel_err_out.value_or(NAN));
    ASSERT_GT(std::abs(mean(out) - pooled), 1e-3) << "this input cannot tell the two definitions apart";
    EXPECT_NEAR(*m.rel_err_out, mean(out), 1e-4 * mean(out));
    EXPECT_NEAR(*m.rel_err_attn, mean(attn), 1e-4 * mean(attn));
    EXPECT_NEAR(*m.mass_recall, mean(mass), 1e-5);
    EXPECT_NEAR(*m.row_kl_rev, mean(kl_rev), 1e-4 * std::max(1.0, mean(kl_rev)));
    EXPECT_NEAR(*m.mass_ceiling, mean(ceiling), 1e-5);
    EXPECT_NEAR(*metric_by_id(r, "rel_err_out"), mean(out), 1e-4 * mean(out));
    // The heads differ: a per-head value that repeated the mean would fail above; make sure it could.
    EXPECT_GT(*std::max_element(out.begin(), out.end()) - *std::min_element(out.begin(), out.end()), 0.05);
}

// Point 6: keys_for_90 and row_entropy describe P̃; keys_for_90_exact and row_entropy_exact the exact P the run is
// compared with — per head and as means — and metric_by_id / metric_ids know every id, old and new.
TEST(MetricsPerHead, RowConcentrationOfTheVariantAndOfTheExactMatrix) {
    auto backend = make_backend("cpu");
    const Heads x = unequal_heads(96);
    ReferenceCache refs(x, true);
    const RunResult r = run_with_matrices(x, "sink", {{"window", "8"}, {"sinks", "2"}}, refs, *backend);
    const Metrics& m = r.metrics;
    ASSERT_EQ(m.heads.size(), size_t(x.heads()));
    std::vector<double> keys, entropy, keys_exact, entropy_exact;
    for (int h = 0; h < x.heads(); ++h) {
        const auto [k, e] = concentration(as_double(*r.P_eff, h));
        const auto [ke, ee] = concentration(exact_head(x, h, r.causal).P);
        keys.push_back(k), entropy.push_back(e), keys_exact.push_back(ke), entropy_exact.push_back(ee);
        const MetricValues& got = m.heads[size_t(h)];
        std::printf("[case] sink w=8 s=2, head %d: keys_for_90 P̃ %.3f (code %.3f), P %.3f (code %.3f); entropy P̃ %.4f, "
                    "P %.4f\n", h, k, got.keys_for_90.value_or(NAN), ke, got.keys_for_90_exact.value_or(NAN), e, ee);
        ASSERT_TRUE(got.keys_for_90 && got.row_entropy && got.keys_for_90_exact && got.row_entropy_exact);
        // A tie at the 90% line (float P̃ against double) may count one key apart in a row: 0.05 over 96 rows.
        EXPECT_NEAR(*got.keys_for_90, k, 0.05) << "head " << h;
        EXPECT_NEAR(*got.keys_for_90_exact, ke, 0.05) << "head " << h;
        EXPECT_NEAR(*got.row_entropy, e, 1e-4) << "head " << h;
        EXPECT_NEAR(*got.row_entropy_exact, ee, 1e-4) << "head " << h;
    }
    ASSERT_GT(mean(keys_exact) - mean(keys), 2.0) << "the window keeps fewer keys than the exact rows need";
    EXPECT_NEAR(*m.keys_for_90, mean(keys), 0.05);
    EXPECT_NEAR(*m.keys_for_90_exact, mean(keys_exact), 0.05);
    EXPECT_NEAR(*m.row_entropy, mean(entropy), 1e-4);
    EXPECT_NEAR(*m.row_entropy_exact, mean(entropy_exact), 1e-4);
    EXPECT_NEAR(*metric_by_id(r, "keys_for_90"), mean(keys), 0.05);
    EXPECT_NEAR(*metric_by_id(r, "keys_for_90_exact"), mean(keys_exact), 0.05);
    EXPECT_NEAR(*metric_by_id(r, "row_entropy"), mean(entropy), 1e-4);
    EXPECT_NEAR(*metric_by_id(r, "row_entropy_exact"), mean(entropy_exact), 1e-4);
    for (const char* id : {"keys_for_90", "row_entropy", "keys_for_90_exact", "row_entropy_exact"})
        EXPECT_NE(std::find(metric_ids().begin(), metric_ids().end(), id), metric_ids().end()) << id;
}

/// The number after the last ": " of the first line of `lines` containing `what`, and that line; NaN when none.
std::pair<double, std::string> number_in(const std::vector<std::string>& lines, const std::string& what) {
    for (const std::string& line : lines)
        if (line.find(what) != std::string::npos) return {std::stod(line.substr(line.rfind(": ") + 2)), line};
    return {NAN, ""};
}

// Point 4: a figure of head 3 (figure --view-head 3, run --png's head-3 file) prints head 3's own output error and
// mass, says "head 3", and not the mean over heads.
TEST(MetricsPerHead, FigureOfOneHeadPrintsThatHeadsOwnNumbers) {
    auto backend = make_backend("cpu");
    const Heads x = unequal_heads(64);
    ReferenceCache refs(x, true);
    const RunResult r = run_with_matrices(x, "longformer", {{"window", "12"}}, refs, *backend);
    const int h = 3;
    const ExactHead e = exact_head(x, h, r.causal);
    const double own_err = (as_double(r.O, h) - e.O).norm() / e.O.norm();
    double kept = 0;
    for (int i = 0; i < x.n(); ++i)
        for (int j = 0; j < x.n(); ++j)
            if (r.structure.mask->at(h, i, j) != Reason::None) kept += e.P(i, j);
    const double own_mass = kept / x.n();
    figure::RunFigureOptions f;
    f.view = figure::View::Weights;
    f.head = h;
    const figure::FigureSpec spec = figure::figure_of_runs(x, {r}, f, {});
    ASSERT_EQ(spec.panels.size(), 1u);
    const auto& lines = spec.panels[0].lines;
    const auto [err, err_line] = number_in(lines, "output error vs exact softmax");
    const auto [mass, mass_line] = number_in(lines, "exact softmax mass kept");
    std::printf("[case] head 3: '%s' (own %.4f, mean %.4f); '%s' (own %.4f, mean %.4f)\n", err_line.c_str(), own_err,
                r.metrics.rel_err_out.value_or(NAN), mass_line.c_str(), own_mass, r.metrics.mass_recall.value_or(NAN));
    // The printed digits (%.2e, %.3f) must be head 3's, which this input keeps far from the mean.
    ASSERT_GT(std::abs(own_err - *r.metrics.rel_err_out), 0.02 * own_err);
    ASSERT_GT(std::abs(own_mass - *r.metrics.mass_recall), 0.005);
    EXPECT_NEAR(err, own_err, 0.006 * own_err) << err_line;
    EXPECT_NEAR(mass, own_mass, 0.0015) << mass_line;
    EXPECT_EQ(err_line.rfind("head 3", 0), 0u) << err_line;
    EXPECT_EQ(mass_line.rfind("head 3", 0), 0u) << mass_line;
}

}  // namespace
}  // namespace attnscope::test

// `linformer` and `svd` on every backend: the limit cases equal full (k = n with E = F = I; r = n), a naive
// double-precision evaluation of softmax(s·Q(EK)ᵀ)(FV) matches with the variant's own E, F, projections have
// the documented shapes and variance, P̃ is the operator O applies, and the oracle obeys Eckart–Young.
#include <Eigen/SVD>
#include <cmath>
#include <cstring>

#include "tests/unit/backend_suite.h"
#include "core/data/scenarios.h"
#include "core/backend/shared/random.h"
#include "core/session/experiment.h"
#include "core/variants/linformer.h"
#include "core/variants/registry.h"

namespace attnscope::test {
namespace {

Tensor3 random_tensor(int H, int n, int d, uint64_t seed, float scale = 1.0f) {
    Tensor3 t(H, n, d);
    for (int64_t k = 0; k < t.size(); ++k) t.data()[k] = scale * static_cast<float>(rng::normal(seed, 13, k));
    return t;
}

Heads random_heads(int H, int n, int d, int dv, uint64_t seed) {
    Heads in;
    in.Q = random_tensor(H, n, d, seed * 3 + 1), in.K = random_tensor(H, n, d, seed * 3 + 2);
    in.V = random_tensor(H, n, dv, seed * 3 + 3);
    return in;
}

Tensor3 exact(const Heads& in, Backend& backend, Tensor3* P) {
    Tensor3 O(in.heads(), in.n(), in.dv());
    DenseAttentionArgs a;
    a.Q = &in.Q, a.K = &in.K, a.V = &in.V, a.O = &O, a.P = P;
    a.scale = static_cast<float>(1.0 / std::sqrt(double(in.d())));
    backend.dense_attention(a);
    return O;
}

RunResult run_named(const std::string& id, const Heads& in, const std::vector<std::pair<std::string, std::string>>& sets,
                    Backend& backend, bool want_matrix) {
    const Variant& v = find_variant(id);
    RunOptions options;
    options.explain = want_matrix;
    return v.run(in, v.resolve(parse_variant_request(id, sets).params, in.shape()), options, backend);
}

class LowRankBackend : public testing::TestWithParam<std::string> {};

TEST_P(LowRankBackend, LinformerWithIdentityProjectionsEqualsFull) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (int n : {1, 33, 128})
        for (int heads_of_E : {1, 2}) {
            const double tol = 2e-6;
            std::cout << "[case] backend=" << GetParam() << " linformer k=n=" << n << " E=F=I heads(E)=" << heads_of_E
                      << " tol=" << tol << "\n";
            const Heads in = random_heads(2, n, 16, 8, 4);
            LinformerProjections proj;
            proj.E = Tensor3(heads_of_E, n, n);
            for (int h = 0; h < heads_of_E; ++h) proj.E.head(h).setIdentity();
            proj.F = proj.E;
            RunOptions options;
            options.explain = true;
            const RunResult r = linformer_run(in, proj, 0.25f, options, *backend);
            Tensor3 P(2, n, n);
            const Tensor3 O = exact(in, *backend, &P);
            EXPECT_LE(rel_err(r.O, O), tol);
            ASSERT_TRUE(r.P_eff.has_value());
            EXPECT_LE(rel_err(*r.P_eff, P), tol);
        }
}

// With the variant's own seeded E, F: O equals softmax(s·Q(EK)ᵀ)(FV) evaluated naively in double.
TEST_P(LowRankBackend, LinformerMatchesNaiveFormula) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (const char* sharing : {"none", "headwise", "key-value"}) {
        const int H = 3, n = 70, d = 8, dv = 5, k = 16;
        const double tol = 1e-5;
        std::cout << "[case] backend=" << GetParam() << " linformer n=70 k=16 sharing=" << sharing << " tol=" << tol << "\n";
        const Heads in = random_heads(H, n, d, dv, 9);
        const RunResult r = run_named(
            "linformer", in, {{"k", "16"}, {"projection", "random"}, {"sharing", sharing}, {"seed", "5"}}, *backend, true);
        const Tensor3& E = r.structure.projections.value().E.value();
        const Tensor3& F = r.structure.projections.value().F.value();
        const int want_heads = std::string(sharing) == "none" ? H : 1;
        ASSERT_EQ(E.heads(), want_heads);
        ASSERT_EQ(F.heads(), want_heads);
        ASSERT_EQ(E.rows(), k);
        ASSERT_EQ(E.cols(), n);
        if (std::string(sharing) == "key-value") {
            EXPECT_EQ(std::memcmp(E.data(), F.data(), size_t(E.bytes())), 0);
        } else {
            EXPECT_NE(std::memcmp(E.data(), F.data(), size_t(E.bytes())), 0);
        }
        Tensor3 naive(H, n, dv);
        for (int h = 0; h < H; ++h) {
            const Eigen::MatrixXd Kp = E.head(E.heads() == 1 ? 0 : h).cast<double>() * in.K.head(h).cast<double>();
            const Eigen::MatrixXd Vp = F.head(F.heads() == 1 ? 0 : h).cast<double>() * in.V.head(h).cast<double>();
            Eigen::MatrixXd S = in.Q.head(h).cast<double>() * Kp.transpose() / std::sqrt(double(d));
            for (int i = 0; i < n; ++i) {
                S.row(i).array() -= S.row(i).maxCoeff();
                S.row(i) = S.row(i).array().exp().matrix();
                S.row(i) /= S.row(i).sum();
            }
            naive.head(h) = (S * Vp).cast<float>();
            // P̃ = P̄·F is the operator the output applies: P̃·V = O.
            const Eigen::MatrixXd PV = r.P_eff->head(h).cast<double>() * in.V.head(h).cast<double>();
            EXPECT_LE((PV - r.O.head(h).cast<double>()).norm(), 1e-4 * (1.0 + r.O.head(h).norm()));
        }
        EXPECT_LE(rel_err(r.O, naive), tol);
    }
}

TEST_P(LowRankBackend, LinformerSeedsReproduceAndEntriesHaveVarianceOneOverK) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] backend=" << GetParam() << " linformer n=512 k=64 seeds 3 vs 3 vs 4; var tol 5%\n";
    const Heads in = random_heads(2, 512, 16, 16, 2);
    const RunResult a = run_named("linformer", in, {{"projection", "random"}, {"seed", "3"}}, *backend, true);
    const RunResult b = run_named("linformer", in, {{"projection", "random"}, {"seed", "3"}}, *backend, false);
    const RunResult c = run_named("linformer", in, {{"projection", "random"}, {"seed", "4"}}, *backend, false);
    EXPECT_EQ(std::memcmp(a.O.data(), b.O.data(), size_t(a.O.bytes())), 0);
    EXPECT_NE(std::memcmp(a.O.data(), c.O.data(), size_t(a.O.bytes())), 0);
    const Tensor3& E = a.structure.projections.value().E.value();
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < E.size(); ++i) sum += E.data()[i], sq += double(E.data()[i]) * E.data()[i];
    const double mean = sum / E.size(), var = sq / E.size() - mean * mean;
    EXPECT_NEAR(var, 1.0 / 64, 0.05 / 64);
    EXPECT_NEAR(mean, 0.0, 5.0 * std::sqrt(1.0 / 64 / E.size()));
}

/// Mean rel_err_out of linformer on the lowrank scenario (n = 256, H = 2, d = 64) at k over `seeds` seeds.
double linformer_error(Backend& backend, const std::string& projection, int k, int seeds) {
    ScenarioSpec spec;
    spec.kind = ScenarioKind::LowRank, spec.n = 256, spec.heads = 2, spec.dim = 64;
    const Heads in = make_scenario(spec);
    ReferenceCache refs(in, false);
    double sum = 0;
    for (int seed = 0; seed < seeds; ++seed)
        sum += *run_variant(in,
                            parse_variant_request("linformer", {{"k", std::to_string(k)},
                                                                {"projection", projection},
                                                                {"seed", std::to_string(seed)}}),
                            RunOptions{}, backend, &refs)
                    .metrics.rel_err_out;
    return sum / seeds;
}

// pool (the default): E = F = segment means — P̃ is non-negative with rows summing to 1, O = P̃·V, and k = n is
// exactly softmax attention.
TEST_P(LowRankBackend, PooledLinformerIsARowStochasticBlurExactAtKEqualsN) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (const auto& [n, k] : std::vector<std::pair<int, int>>{{70, 16}, {70, 70}, {100, 33}}) {
        std::cout << "[case] backend=" << GetParam() << " linformer pool n=" << n << " k=" << k << "\n";
        const Heads in = random_heads(2, n, 8, 6, 21);
        const RunResult r = run_named("linformer", in, {{"k", std::to_string(k)}}, *backend, true);
        ASSERT_TRUE(r.P_eff.has_value());
        for (int h = 0; h < 2; ++h) {
            EXPECT_GE(r.P_eff->head(h).minCoeff(), 0.0f);
            for (int i = 0; i < n; ++i) EXPECT_NEAR(r.P_eff->head(h).row(i).sum(), 1.0f, 1e-5f);
            const MatrixRM PV = r.P_eff->head(h) * in.V.head(h);
            EXPECT_LE((PV - r.O.head(h)).norm(), 1e-5 * (1.0 + r.O.head(h).norm()));
        }
        if (k == n) {
            Tensor3 P(2, n, n);
            EXPECT_LE(rel_err(r.O, exact(in, *backend, &P)), 2e-6);
            EXPECT_LE(rel_err(*r.P_eff, P), 2e-6);
        }
    }
}

// What each stand-in for the learned projections shows on the lowrank scenario (n = 256): pool and the fitted
// oracle fall with k; the untrained random projection stays worse than outputting zeros (error > 1); Theorem 1's
// P·RᵀR·V falls like 1/√k (×4 in k halves the error, within seed noise).
TEST_P(LowRankBackend, ProjectionsBehaveAsTheirDefinitionsPromise) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] backend=" << GetParam() << " lowrank n=256 H=2 d=64: pool, fitted, random, jl at k = 16, 64, 256\n";
    const double pool16 = linformer_error(*backend, "pool", 16, 1), pool64 = linformer_error(*backend, "pool", 64, 1),
                 pool256 = linformer_error(*backend, "pool", 256, 1);
    EXPECT_LT(pool64, pool16);
    EXPECT_LE(pool256, 1e-5);
    const double fit16 = linformer_error(*backend, "fitted", 16, 1), fit64 = linformer_error(*backend, "fitted", 64, 1);
    EXPECT_LT(fit64, fit16);
    EXPECT_LE(fit16, pool16) << "the least-squares F is at least as good as the pooled one";
    for (int k : {16, 64, 256}) EXPECT_GT(linformer_error(*backend, "random", k, 3), 1.0) << "k = " << k;
    const double jl16 = linformer_error(*backend, "jl", 16, 6), jl64 = linformer_error(*backend, "jl", 64, 6);
    std::cout << "  pool " << pool16 << " " << pool64 << " " << pool256 << ", fitted " << fit16 << " " << fit64
              << ", jl " << jl16 << " " << jl64 << " (ratio " << jl16 / jl64 << ", 1/√k law: 2)\n";
    EXPECT_NEAR(jl16 / jl64, 2.0, 0.4);
}

TEST(LowRankVariants, LinformerRefusesCausalAndOversizedK) {
    EXPECT_THROW(parse_variant_request("linformer", {{"causal", "1"}}), Error);
    const Heads in = random_heads(1, 32, 4, 4, 1);
    try {
        run_named("linformer", in, {{"k", "64"}}, *make_backend("cpu"), false);
        FAIL() << "k > n accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("choose k ≤ n"), std::string::npos) << e.what();
    }
    try {
        run_named("svd", in, {{"rank", "33"}}, *make_backend("cpu"), false);
        FAIL() << "rank > n accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("choose r ≤ n"), std::string::npos) << e.what();
    }
    EXPECT_NE(find_variant("linformer").info().summary.find("non-causal"), std::string::npos);
}

TEST_P(LowRankBackend, SvdFullRankEqualsFull) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (int n : {1, 17, 96}) {
        const double tol = 1e-4;  // fp32 LAPACK reconstruction U·Σ·Vᵀ of a matrix with entries ≤ 1
        std::cout << "[case] backend=" << GetParam() << " svd r=n=" << n << " tol=" << tol << "\n";
        const Heads in = random_heads(2, n, 8, 8, 6);
        Tensor3 P(2, n, n);
        const Tensor3 O = exact(in, *backend, &P);
        const RunResult r = run_named("svd", in, {{"rank", std::to_string(n)}}, *backend, true);
        EXPECT_LE(rel_err(r.O, O), tol);
        EXPECT_LE(rel_err(*r.P_eff, P), tol);
    }
}

// Eckart–Young: ‖P − P_r‖_F² = Σ_{l>r} σ_l², and P_r has rank r.
TEST_P(LowRankBackend, SvdOracleIsTheBestRankR) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const int n = 80;
    const Heads in = random_heads(1, n, 8, 8, 7);
    Tensor3 P(1, n, n);
    exact(in, *backend, &P);
    const Eigen::JacobiSVD<Eigen::MatrixXd> ref(P.head(0).cast<double>());
    for (int rank : {1, 5, 20}) {
        std::cout << "[case] backend=" << GetParam() << " svd n=80 r=" << rank << " rel tol 1e-3 on the tail norm\n";
        const RunResult r = run_named("svd", in, {{"rank", std::to_string(rank)}}, *backend, true);
        const double err = (r.P_eff->head(0).cast<double>() - P.head(0).cast<double>()).norm();
        const double tail = ref.singularValues().tail(n - rank).norm();
        EXPECT_NEAR(err, tail, 1e-3 * tail + 1e-6) << "rank " << rank;
        const Eigen::JacobiSVD<Eigen::MatrixXd> got(r.P_eff->head(0).cast<double>());
        EXPECT_LT(got.singularValues()[rank], 1e-4 * got.singularValues()[0]) << "P_r must have rank " << rank;
        const MatrixRM PV = r.P_eff->head(0) * in.V.head(0);
        EXPECT_LE((PV - r.O.head(0)).norm(), 1e-4 * (1.0 + r.O.head(0).norm()));
    }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, LowRankBackend, testing::ValuesIn(suite_backends()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace attnscope::test

namespace attnscope::test {
namespace {

class GemmFewHeads : public testing::TestWithParam<std::string> {};

// Few heads (H < threads) split C's rows over the threads: check every transpose, odd sizes, alpha/beta.
TEST_P(GemmFewHeads, RowSplitMatchesNaiveProduct) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (int rows : {1, 3, 37})
        for (bool ta : {false, true})
            for (bool tb : {false, true}) {
                std::cout << "[case] backend=" << GetParam() << " gemm H=1 rows=" << rows << " ta=" << ta << " tb=" << tb
                          << " alpha=1.5 beta=0.5 tol=1e-4\n";
                const int k = 29, c = 11;
                const Tensor3 A = random_tensor(1, ta ? k : rows, ta ? rows : k, 41);
                const Tensor3 B = random_tensor(1, tb ? c : k, tb ? k : c, 42);
                Tensor3 C(1, rows, c, 2.0f);
                backend->gemm(A, ta, B, tb, 1.5f, 0.5f, C);
                for (int i = 0; i < rows; ++i)
                    for (int j = 0; j < c; ++j) {
                        double s = 0;
                        for (int l = 0; l < k; ++l)
                            s += double(ta ? A.at(0, l, i) : A.at(0, i, l)) * (tb ? B.at(0, j, l) : B.at(0, l, j));
                        EXPECT_NEAR(C.at(0, i, j), 1.5 * s + 1.0, 1e-4) << "i=" << i << " j=" << j;
                    }
            }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, GemmFewHeads, testing::ValuesIn(suite_backends()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace attnscope::test

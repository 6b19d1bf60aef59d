// performer (FAVOR+) on every backend: the fast path against the closed-form estimator computed naively
// with the same ω, the FAVOR+ claims (error falls with m, orthogonal beats i.i.d., positive features), the
// causal prefix form against the masked quadratic form, ω's construction, reproducibility and tiny shapes.
#include <cmath>

#include "core/variants/performer.h"
#include "core/variants/registry.h"
#include "tests/unit/kernel_test_util.h"

namespace attnscope::test {
namespace {

const char* kKindNames[] = {"positive", "hyperbolic", "trig", "relu"};

/// φ(X_h) from the paper's formula in double precision, without any stabiliser: (n, f).
MatD naive_favor(const MatD& X, const MatD& omega, int kind) {
    const int n = static_cast<int>(X.rows()), d = static_cast<int>(X.cols()), m = static_cast<int>(omega.rows());
    const MatD Xh = X * std::pow(double(d), -0.25);
    const MatD P = Xh * omega.transpose();
    const int f = kind == 1 || kind == 2 ? 2 * m : m;
    MatD phi(n, f);
    for (int i = 0; i < n; ++i) {
        const double h = 0.5 * Xh.row(i).squaredNorm();
        for (int c = 0; c < m; ++c) {
            const double p = P(i, c);
            switch (kind) {
                case 0: phi(i, c) = std::exp(p - h) / std::sqrt(double(m)); break;
                case 1:
                    phi(i, c) = std::exp(p - h) / std::sqrt(2.0 * m);
                    phi(i, m + c) = std::exp(-p - h) / std::sqrt(2.0 * m);
                    break;
                case 2:
                    phi(i, c) = std::exp(h) * std::sin(p) / std::sqrt(double(m));
                    phi(i, m + c) = std::exp(h) * std::cos(p) / std::sqrt(double(m));
                    break;
                default: phi(i, c) = std::max(p, 0.0) / std::sqrt(double(m)); break;
            }
        }
    }
    return phi;
}

Params performer_params(int m, int kind, bool causal, bool orthogonal = true, int seed = 0) {
    Params p = parse_params("performer", find_variant("performer").info().params, {});
    p.set("features", m), p.set("kind", kind), p.set("causal", causal), p.set("orthogonal", orthogonal),
        p.set("seed", seed);
    return p;
}

class PerformerBackend : public testing::TestWithParam<std::string> {};

TEST_P(PerformerBackend, GivenOmegaMatchesNaiveClosedForm) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const int H = 2, n = 150, d = 8, dv = 5, m = 20;  // n crosses the causal chunk (64); m not a multiple of d
    const Heads in = seeded_heads(H, n, d, dv, 5, 0.7f);
    const Tensor3 omega = seeded_tensor(1, m, d, 77);  // any ω: the estimator is a formula given ω
    for (int kind = 0; kind < 4; ++kind)
        for (bool causal : {false, true}) {
            // trig divides by a D that can come close to 0, which amplifies float rounding.
            const double tol = kind == 2 ? 2e-3 : 2e-5;
            std::cout << "[case] backend=" << GetParam() << " performer kind=" << kKindNames[kind] << " H=" << H
                      << " n=" << n << " d=" << d << " dv=" << dv << " m=" << m << " causal=" << causal
                      << " tol=" << tol << "\n";
            RunOptions options;
            options.explain = true;
            const RunResult r = run_performer(in, performer_params(m, kind, causal), options, *backend, &omega);
            ASSERT_TRUE(r.P_eff);
            for (int h = 0; h < H; ++h) {
                const MatD phiQ = naive_favor(head_d(in.Q, h), head_d(omega, 0), kind);
                const MatD phiK = naive_favor(head_d(in.K, h), head_d(omega, 0), kind);
                const MatD P = naive_kernel_matrix(phiQ * phiK.transpose(), causal, true, 0.0);
                const MatD O = P * head_d(in.V, h);
                EXPECT_LE(max_rel_diff(head_d(r.O, h), O), tol) << "O, head " << h;
                EXPECT_LE(max_rel_diff(head_d(*r.P_eff, h), P), tol) << "P̃, head " << h;
            }
        }
}

/// Mean over seeds of rel_err_attn (‖P̃ − P‖/‖P‖, what the estimator targets) for one configuration.
double mean_attn_error(const Heads& in, Backend& backend, ReferenceCache& refs, int m, bool orthogonal, int seeds) {
    RunOptions options;
    options.explain = true;
    double sum = 0;
    for (int seed = 0; seed < seeds; ++seed)
        sum += *run_variant(in, {"performer", performer_params(m, 0, false, orthogonal, seed)}, options, backend, &refs)
                    .metrics.rel_err_attn;
    return sum / seeds;
}

// The FAVOR+ estimator's variance grows like exp(‖q̂ + k̂‖²): with unit-variance Q, K at d = 16 a few thousand
// features are needed before the error is small. Inputs scaled by ½ keep ‖x̂‖² ≈ 1, where the m^-½ law shows.
TEST_P(PerformerBackend, ErrorFallsAsFeaturesGrow) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const int H = 2, n = 128, d = 16, seeds = 8;
    const Heads in = seeded_heads(H, n, d, d, 11, 0.5f);
    ReferenceCache refs(in, true);
    std::vector<double> mean_err;
    for (int m : {16, 64, 256, 1024}) {
        mean_err.push_back(mean_attn_error(in, *backend, refs, m, true, seeds));
        std::cout << "[case] backend=" << GetParam() << " performer positive H=" << H << " n=" << n << " d=" << d
                  << " |q|,|k| scale=0.5 m=" << m << " seeds=" << seeds << " mean rel_err_attn=" << mean_err.back()
                  << "\n";
    }
    // Monte Carlo error ∝ m^-½: each 4× step should about halve it; demand a clear fall at every step.
    for (size_t k = 1; k < mean_err.size(); ++k) EXPECT_LT(mean_err[k], 0.8 * mean_err[k - 1]) << "step " << k;
    EXPECT_LT(mean_err.back(), 0.25 * mean_err.front());
}

TEST_P(PerformerBackend, OrthogonalBeatsIidOnAverage) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const int H = 2, n = 128, d = 16, seeds = 24;
    const Heads in = seeded_heads(H, n, d, d, 12, 0.5f);
    ReferenceCache refs(in, true);
    for (int m : {16, 64}) {
        const double orth = mean_attn_error(in, *backend, refs, m, true, seeds);
        const double iid = mean_attn_error(in, *backend, refs, m, false, seeds);
        std::cout << "[case] backend=" << GetParam() << " performer positive H=" << H << " n=" << n << " d=" << d
                  << " |q|,|k| scale=0.5 m=" << m << " seeds=" << seeds << " mean rel_err_attn orthogonal=" << orth
                  << " iid=" << iid << "\n";
        EXPECT_LT(orth, iid) << "m=" << m;
    }
}

TEST_P(PerformerBackend, PositiveFeaturesNeverNegative) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    // Scale 30 makes logits of several hundred: most features underflow to 0 (FAVOR+ cannot represent
    // e^±900); the run must stay finite and say which rows lost every key (D = 0).
    for (float scale : {1.0f, 30.0f}) {
        for (int kind : {0, 1}) {
            std::cout << "[case] backend=" << GetParam() << " performer kind=" << kKindNames[kind]
                      << " n=100 d=16 m=40 |q|,|k| scale=" << scale << "\n";
            const Heads in = seeded_heads(2, 100, 16, 8, 13, scale);
            for (bool causal : {false, true}) {
                const RunResult r = run_by_id("performer", in, *backend,
                                              {{"features", "40"}, {"kind", kKindNames[kind]}, {"causal", causal ? "1" : "0"}});
                const FeatureMaps& features = r.structure.features.value();
                for (const auto& [name, phi_of] : {std::pair{"phi_Q", &features.phi_Q}, std::pair{"phi_K", &features.phi_K}}) {
                    const Tensor3& phi = phi_of->value();
                    EXPECT_TRUE(phi.all_finite()) << name;
                    EXPECT_GE(Eigen::Map<const Eigen::VectorXf>(phi.data(), phi.size()).minCoeff(), 0.0f) << name;
                }
                EXPECT_TRUE(r.O.all_finite());
                ASSERT_TRUE(r.P_eff);
                EXPECT_TRUE(r.P_eff->all_finite());
                EXPECT_GE(Eigen::Map<const Eigen::VectorXf>(r.P_eff->data(), r.P_eff->size()).minCoeff(), 0.0f);
                int empty_rows = 0;
                for (int h = 0; h < 2; ++h)
                    for (int i = 0; i < 100; ++i) {
                        const float sum = r.P_eff->head(h).row(i).sum();
                        if (sum == 0.0f) {
                            ++empty_rows;
                        } else {
                            // At scale 30 the surviving features are subnormal and carry fewer significant bits.
                            EXPECT_NEAR(sum, 1.0f, scale > 1.0f ? 1e-3 : 1e-5) << "row " << i;
                        }
                    }
                if (scale == 1.0f) {
                    EXPECT_EQ(empty_rows, 0);
                }
                const bool noted = !r.structure.notes.empty() && r.structure.notes[0].find("D = 0") != std::string::npos;
                EXPECT_EQ(noted, empty_rows > 0);
            }
        }
    }
}

TEST_P(PerformerBackend, CausalPrefixEqualsMaskedQuadratic) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    // H = 1 splits each head into segments (parallel scan); H = 3 runs one segment per head.
    for (int H : {1, 3})
        for (int kind = 0; kind < 4; ++kind) {
            const int n = 300, d = 12, dv = 7;
            const double tol = kind == 2 ? 2e-3 : 2e-5;
            std::cout << "[case] backend=" << GetParam() << " performer causal kind=" << kKindNames[kind] << " H=" << H
                      << " n=" << n << " d=" << d << " m=24 tol=" << tol << "\n";
            const Heads in = seeded_heads(H, n, d, dv, 14, 0.6f);
            const RunResult r = run_by_id("performer", in, *backend,
                                          {{"features", "24"}, {"kind", kKindNames[kind]}, {"causal", "1"}});
            for (int h = 0; h < H; ++h) {
                // The masked quadratic form from the run's own features: sums over j ≤ i, then normalise.
                const MatD phiQ = head_d(r.structure.features.value().phi_Q.value(), h);
                const MatD phiK = head_d(r.structure.features.value().phi_K.value(), h);
                const MatD P = naive_kernel_matrix(phiQ * phiK.transpose(), true, true, 0.0);
                EXPECT_LE(max_rel_diff(head_d(r.O, h), P * head_d(in.V, h)), tol) << "head " << h;
                for (int i = 0; i + 1 < n; ++i)
                    EXPECT_EQ(r.P_eff->head(h).row(i).tail(n - i - 1).cwiseAbs().maxCoeff(), 0.0f) << "row " << i;
            }
        }
}

TEST_P(PerformerBackend, SameSeedSameBitsOtherSeedDiffers) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] backend=" << GetParam() << " performer n=200 d=16 m=32 seeds 3, 3, 4; causal both\n";
    const Heads in = seeded_heads(2, 200, 16, 16, 15);
    for (const char* causal : {"0", "1"}) {
        const auto run = [&](const char* seed) {
            return run_by_id("performer", in, *backend, {{"features", "32"}, {"seed", seed}, {"causal", causal}}, false);
        };
        const RunResult a = run("3"), b = run("3"), c = run("4");
        EXPECT_TRUE(same_bits(a.O, b.O));
        EXPECT_TRUE(same_bits(a.structure.features.value().omega, b.structure.features.value().omega));
        EXPECT_FALSE(same_bits(a.O, c.O));
    }
}

TEST_P(PerformerBackend, TinyShapes) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (int kind = 0; kind < 4; ++kind) {
        std::cout << "[case] backend=" << GetParam() << " performer kind=" << kKindNames[kind]
                  << " n=1 d=1 (m auto = 1) and n=1 d=4\n";
        for (int d : {1, 4}) {
            const Heads in = seeded_heads(1, 1, d, 3, 16);
            for (const char* causal : {"0", "1"}) {
                const RunResult r = run_by_id("performer", in, *backend, {{"kind", kKindNames[kind]}, {"causal", causal}});
                EXPECT_EQ(r.params.get_int("features"), d == 1 ? 1 : 6);  // ⌈d·ln d⌉, at least 1
                // One key: P̃ = [1] whenever D ≠ 0, so O = v_0 (relu may have D = 0 and then O = 0, noted).
                const bool zero_d = !r.structure.notes.empty() && r.structure.notes[0].find("D = 0") != std::string::npos;
                // trig: D = cos(p_q − p_k)-like sums can be small, which amplifies rounding.
                const double tol = kind == 2 ? 1e-4 : 1e-5;
                for (int c = 0; c < 3; ++c)
                    EXPECT_NEAR(r.O.at(0, 0, c), zero_d ? 0.0f : in.V.at(0, 0, c), tol * std::max(1.0f, std::abs(in.V.at(0, 0, c))))
                        << "d=" << d;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, PerformerBackend, testing::ValuesIn(suite_backends()), backend_name);

// ω is host structure (no backend): orthogonality inside blocks, the two norm scalings, i.i.d. rows.
TEST(PerformerOmega, OrthogonalBlocksAndNorms) {
    std::cout << "[case] ω m=40 d=16 (3 blocks, last truncated) chi and sqrt_d, seed 9, tol=1e-5\n";
    const int m = 40, d = 16;
    const Tensor3 chi = performer_omega(m, d, true, OmegaNorm::Chi, 9);
    const Tensor3 sq = performer_omega(m, d, true, OmegaNorm::SqrtD, 9);
    for (int r = 0; r < m; ++r) {
        EXPECT_NEAR(sq.head(0).row(r).norm(), std::sqrt(double(d)), 1e-5);
        // Same directions, different lengths.
        const double cosine = chi.head(0).row(r).dot(sq.head(0).row(r)) / (chi.head(0).row(r).norm() * sq.head(0).row(r).norm());
        EXPECT_NEAR(cosine, 1.0, 1e-5);
        for (int s = r + 1; s < m && s / d == r / d; ++s)
            EXPECT_NEAR(sq.head(0).row(r).dot(sq.head(0).row(s)), 0.0, 1e-4) << "rows " << r << ", " << s;
    }
    // χ(d) lengths vary around √d.
    double lo = 1e9, hi = 0;
    for (int r = 0; r < m; ++r) lo = std::min<double>(lo, chi.head(0).row(r).norm()), hi = std::max<double>(hi, chi.head(0).row(r).norm());
    EXPECT_LT(lo, std::sqrt(double(d)));
    EXPECT_GT(hi, std::sqrt(double(d)));
    const Tensor3 iid = performer_omega(m, d, false, OmegaNorm::Chi, 9);
    double max_cos = 0;
    for (int s = 1; s < d; ++s)
        max_cos = std::max<double>(max_cos, std::abs(iid.head(0).row(0).dot(iid.head(0).row(s))) /
                                                (iid.head(0).row(0).norm() * iid.head(0).row(s).norm()));
    EXPECT_GT(max_cos, 1e-3);  // i.i.d. rows are not orthogonal
    EXPECT_TRUE(same_bits(chi, performer_omega(m, d, true, OmegaNorm::Chi, 9)));
    EXPECT_FALSE(same_bits(chi, performer_omega(m, d, true, OmegaNorm::Chi, 10)));
}

TEST(PerformerParams, RejectsWrongOmegaAndBadFeatures) {
    std::cout << "[case] performer: ω of the wrong shape, features=0\n";
    auto backend = make_backend("cpu");
    const Heads in = seeded_heads(1, 10, 4, 4, 17);
    const Tensor3 wrong(1, 5, 3);
    RunOptions options;
    EXPECT_THROW(run_performer(in, performer_params(5, 0, false), options, *backend, &wrong), Error);
    EXPECT_THROW(parse_variant_request("performer", {{"features", "0"}}), Error);
    EXPECT_THROW(parse_variant_request("performer", {{"kind", "cosine"}}), Error);
}

}  // namespace
}  // namespace attnscope::test

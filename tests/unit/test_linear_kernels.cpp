// linear (Katharopoulos), efficient (Shen) and taylor (Li) on every backend: each against its paper's
// formula computed naively in double, causal running sums against the masked quadratic form, rows of P̃
// summing to 1, reproducibility and tiny shapes; plus the feature-map primitive on its own.
#include <cmath>

#include "tests/unit/kernel_test_util.h"

namespace attnscope::test {
namespace {

MatD elu1(const MatD& X) { return X.unaryExpr([](double x) { return x > 0 ? x + 1 : std::exp(x); }); }

MatD l2_rows(const MatD& X) {
    MatD Y = X;
    for (int i = 0; i < Y.rows(); ++i) Y.row(i) /= X.row(i).norm();
    return Y;
}

/// Li 2020 written out: O_i = (Σ_j v_j + (Σ_j v_j k̂_jᵀ) q̂_i) / (n_i + q̂_i·(Σ_j k̂_j + ε)), sums over j ≤ i
/// when causal (n_i = i + 1) or all j (n_i = n).
MatD naive_taylor(const MatD& Q, const MatD& K, const MatD& V, bool causal, double eps) {
    const MatD q = l2_rows(Q), k = l2_rows(K);
    const int n = static_cast<int>(Q.rows());
    MatD O(n, V.cols());
    for (int i = 0; i < n; ++i) {
        const int last = causal ? i : n - 1;
        Eigen::RowVectorXd sum_v = Eigen::RowVectorXd::Zero(V.cols());
        MatD sum_vk = MatD::Zero(V.cols(), K.cols());
        Eigen::RowVectorXd sum_k = Eigen::RowVectorXd::Zero(K.cols());
        for (int j = 0; j <= last; ++j) {
            sum_v += V.row(j);
            sum_vk += V.row(j).transpose() * k.row(j);
            sum_k += k.row(j);
        }
        const double denom = (last + 1) + q.row(i).dot((sum_k.array() + eps).matrix());
        O.row(i) = (sum_v + (sum_vk * q.row(i).transpose()).transpose()) / denom;
    }
    return O;
}

/// Shen 2018 written out: ρ_q = softmax over each row, ρ_k = softmax over each column; E = ρ_q(ρ_kᵀV).
MatD naive_efficient(const MatD& Q, const MatD& K, const MatD& V, MatD* P_out) {
    MatD rq = Q, rk = K;
    for (int i = 0; i < Q.rows(); ++i) {
        rq.row(i) = (Q.row(i).array() - Q.row(i).maxCoeff()).exp().matrix();
        rq.row(i) /= rq.row(i).sum();
    }
    for (int c = 0; c < K.cols(); ++c) {
        rk.col(c) = (K.col(c).array() - K.col(c).maxCoeff()).exp().matrix();
        rk.col(c) /= rk.col(c).sum();
    }
    if (P_out) *P_out = rq * rk.transpose();
    return rq * (rk.transpose() * V);
}

class KernelsBackend : public testing::TestWithParam<std::string> {};

TEST_P(KernelsBackend, LinearMatchesFormulaBothForms) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const double eps = 1e-6, tol = 2e-5;
    for (int H : {1, 3})
        for (bool causal : {false, true}) {
            const int n = 300, d = 10, dv = 6;
            std::cout << "[case] backend=" << GetParam() << " linear H=" << H << " n=" << n << " d=" << d
                      << " dv=" << dv << " eps=" << eps << " causal=" << causal << " tol=" << tol << "\n";
            const Heads in = seeded_heads(H, n, d, dv, 21);
            const RunResult r = run_by_id("linear", in, *backend, {{"causal", causal ? "1" : "0"}});
            for (int h = 0; h < H; ++h) {
                // Causal: the masked quadratic form, i.e. Σ_{j ≤ i} — what the running sums S_i, Z_i must give.
                const MatD A = elu1(head_d(in.Q, h)) * elu1(head_d(in.K, h)).transpose();
                const MatD P = naive_kernel_matrix(A, causal, true, eps);
                EXPECT_LE(max_rel_diff(head_d(r.O, h), P * head_d(in.V, h)), tol) << "head " << h;
                EXPECT_LE(max_rel_diff(head_d(*r.P_eff, h), P), tol) << "head " << h;
                for (int i = 0; i < n; ++i) EXPECT_NEAR(r.P_eff->head(h).row(i).sum(), 1.0f, 1e-5) << "row " << i;
            }
        }
}

TEST_P(KernelsBackend, TaylorMatchesFormulaBothForms) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const double tol = 2e-5;
    for (double eps : {1e-6, 0.05})  // a visible ε checks where it goes (every component of Σk̂)
        for (bool causal : {false, true}) {
            const int H = 2, n = 200, d = 9, dv = 4;
            std::cout << "[case] backend=" << GetParam() << " taylor H=" << H << " n=" << n << " d=" << d
                      << " eps=" << eps << " causal=" << causal << " tol=" << tol << "\n";
            const Heads in = seeded_heads(H, n, d, dv, 22);
            const RunResult r =
                run_by_id("taylor", in, *backend, {{"causal", causal ? "1" : "0"}, {"eps", std::to_string(eps)}});
            for (int h = 0; h < H; ++h) {
                const MatD O = naive_taylor(head_d(in.Q, h), head_d(in.K, h), head_d(in.V, h), causal, eps);
                EXPECT_LE(max_rel_diff(head_d(r.O, h), O), tol) << "head " << h;
                // P̃ = normalised 1 + q̂·k̂: non-negative, rows sum to 1 up to ε's share, P̃·V = O.
                EXPECT_GE(r.P_eff->head(h).minCoeff(), 0.0f);
                EXPECT_LE(max_rel_diff(head_d(*r.P_eff, h) * head_d(in.V, h), O), tol);
                if (eps < 1e-3) {
                    for (int i = 0; i < n; ++i) EXPECT_NEAR(r.P_eff->head(h).row(i).sum(), 1.0f, 1e-5) << "row " << i;
                }
                if (causal) {
                    for (int i = 0; i + 1 < n; ++i) EXPECT_EQ(r.P_eff->head(h).row(i).tail(n - i - 1).cwiseAbs().maxCoeff(), 0.0f);
                }
            }
        }
}

TEST_P(KernelsBackend, EfficientMatchesFormula) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const double tol = 2e-5;
    for (float scale : {1.0f, 40.0f}) {  // large logits: both softmaxes must stay stable
        const int H = 2, n = 130, d = 12, dv = 5;
        std::cout << "[case] backend=" << GetParam() << " efficient H=" << H << " n=" << n << " d=" << d
                  << " |q|,|k| scale=" << scale << " tol=" << tol << "\n";
        const Heads in = seeded_heads(H, n, d, dv, 23, scale);
        const RunResult r = run_by_id("efficient", in, *backend, {});
        EXPECT_FALSE(r.causal);
        for (int h = 0; h < H; ++h) {
            MatD P;
            const MatD O = naive_efficient(head_d(in.Q, h), head_d(in.K, h), head_d(in.V, h), &P);
            EXPECT_LE(max_rel_diff(head_d(r.O, h), O), tol) << "head " << h;
            EXPECT_LE(max_rel_diff(head_d(*r.P_eff, h), P), tol) << "head " << h;
            for (int i = 0; i < n; ++i) EXPECT_NEAR(r.P_eff->head(h).row(i).sum(), 1.0f, 1e-5) << "row " << i;
        }
    }
}

TEST_P(KernelsBackend, SameInputSameBits) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] backend=" << GetParam() << " linear/taylor/efficient twice on n=500 d=16 H=1, causal both\n";
    const Heads in = seeded_heads(1, 500, 16, 16, 24);
    for (const char* id : {"linear", "taylor", "efficient"})
        for (const char* causal : {"0", "1"}) {
            if (std::string(id) == "efficient" && causal[0] == '1') continue;
            std::vector<std::pair<std::string, std::string>> sets;
            if (std::string(id) != "efficient") sets.emplace_back("causal", causal);
            const RunResult a = run_by_id(id, in, *backend, sets, false), b = run_by_id(id, in, *backend, sets, false);
            EXPECT_TRUE(same_bits(a.O, b.O)) << id << " causal=" << causal;
        }
}

TEST_P(KernelsBackend, TinyShapes) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] backend=" << GetParam() << " linear/taylor/efficient n=1 and n=2 with d=1, both forms, tol=1e-5\n";
    for (int n : {1, 2})
        for (uint64_t seed : {25u, 26u, 27u}) {
            const Heads in = seeded_heads(1, n, 1, 2, seed);
            const MatD Q = head_d(in.Q, 0), K = head_d(in.K, 0), V = head_d(in.V, 0);
            for (bool causal : {false, true}) {
                const auto sets = [&](const char* id) {
                    return std::string(id) == "efficient" ? std::vector<std::pair<std::string, std::string>>{}
                                                          : std::vector<std::pair<std::string, std::string>>{
                                                                {"causal", causal ? "1" : "0"}};
                };
                const RunResult lin = run_by_id("linear", in, *backend, sets("linear"));
                const MatD P = naive_kernel_matrix(elu1(Q) * elu1(K).transpose(), causal, true, 1e-6);
                EXPECT_LE(max_rel_diff(head_d(lin.O, 0), P * V), 1e-5) << "linear n=" << n;
                // With d = 1, q̂·k̂ = ±1: sim = 1 + q̂·k̂ can be 0 for every key (then D is ±ε and O = 0).
                const RunResult tay = run_by_id("taylor", in, *backend, sets("taylor"));
                EXPECT_LE((head_d(tay.O, 0) - naive_taylor(Q, K, V, causal, 1e-6)).cwiseAbs().maxCoeff(), 1e-5)
                    << "taylor n=" << n;
                const RunResult eff = run_by_id("efficient", in, *backend, sets("efficient"));
                EXPECT_LE(max_rel_diff(head_d(eff.O, 0), naive_efficient(Q, K, V, nullptr)), 1e-5) << "efficient n=" << n;
                for (const RunResult* r : {&lin, &tay, &eff}) EXPECT_TRUE(r->O.all_finite()) << r->variant;
                if (n == 1) { EXPECT_NEAR(eff.O.at(0, 0, 1), in.V.at(0, 0, 1), 1e-5); }  // one key: O = v_0
            }
        }
}

TEST_P(KernelsBackend, FeatureMapPrimitive) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] backend=" << GetParam() << " feature maps on (2, 70, 6): softmax rows/positions sum to 1, "
              << "L2 rows unit, elu+1 > 0, prepend_one, add\n";
    const Tensor3 X = seeded_tensor(2, 70, 6, 26, 3.0f);
    for (FeatureMap map : {FeatureMap::SoftmaxRows, FeatureMap::SoftmaxPositions, FeatureMap::L2Normalise,
                           FeatureMap::EluPlusOne}) {
        Tensor3 out(2, 70, 7);
        FeatureMapArgs a;
        a.X = &X, a.out = &out, a.map = map, a.prepend_one = true;
        backend->feature_map(a);
        for (int h = 0; h < 2; ++h) {
            const MatD f = head_d(out, h).rightCols(6);
            EXPECT_EQ(head_d(out, h).col(0).minCoeff(), 1.0);
            EXPECT_EQ(head_d(out, h).col(0).maxCoeff(), 1.0);
            for (int i = 0; i < 70; ++i) {
                if (map == FeatureMap::SoftmaxRows) { EXPECT_NEAR(f.row(i).sum(), 1.0, 1e-6); }
                if (map == FeatureMap::L2Normalise) { EXPECT_NEAR(f.row(i).norm(), 1.0, 1e-6); }
            }
            if (map == FeatureMap::SoftmaxPositions) {
                for (int c = 0; c < 6; ++c) EXPECT_NEAR(f.col(c).sum(), 1.0, 1e-5);
            }
            if (map == FeatureMap::EluPlusOne) { EXPECT_GT(f.minCoeff(), 0.0); }
        }
    }
    Tensor3 out(2, 70, 6);
    FeatureMapArgs a;
    a.X = &X, a.out = &out, a.map = FeatureMap::SoftmaxRows, a.add = 0.5f;
    backend->feature_map(a);
    EXPECT_NEAR(out.head(0).row(0).sum(), 1.0 + 6 * 0.5, 1e-5);
    Tensor3 wrong(2, 70, 5);
    a.out = &wrong;
    EXPECT_THROW(backend->feature_map(a), Error);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, KernelsBackend, testing::ValuesIn(suite_backends()), backend_name);

TEST(KernelVariants, CardsAndParameters) {
    std::cout << "[case] cards: flags, eps range, efficient has no causal form\n";
    for (const char* id : {"performer", "linear", "efficient", "taylor"}) {
        const VariantInfo& info = find_variant(id).info();
        EXPECT_FALSE(info.has_mask) << id;
        EXPECT_TRUE(info.normalised) << id;
        EXPECT_TRUE(info.has_matrix) << id;
    }
    EXPECT_FALSE(find_variant("fnet").info().normalised);
    EXPECT_EQ(find_param(find_variant("efficient").info().params, "causal"), nullptr);
    EXPECT_THROW(parse_variant_request("linear", {{"eps", "-1"}}), Error);
    EXPECT_THROW(parse_variant_request("taylor", {{"eps", "2"}}), Error);
}

}  // namespace
}  // namespace attnscope::test

// The metrics against the right model: the own-model reference of shared-QK attention against a brute-force
// double-precision one, the reverse KL against −log of the kept mass, and LSH's limit case against its own model.
#include <cmath>

#include "tests/unit/backend_suite.h"
#include "tests/unit/sparse_test_util.h"
#include "core/session/metrics.h"
#include "core/data/scenarios.h"
#include "core/backend/shared/random.h"
#include "core/session/experiment.h"

namespace attnscope::test {
namespace {

Heads gaussian_heads(int H, int n, int d, int dv, uint64_t seed) {
    ScenarioSpec spec;
    spec.kind = ScenarioKind::Gaussian, spec.n = n, spec.heads = H, spec.dim = d, spec.value_dim = dv, spec.seed = seed;
    return make_scenario(spec);
}

/// softmax(s·q_i·q̂_j) over j ≠ i (j < i when causal), the row's own value when nothing else is allowed; doubles.
Tensor3 shared_qk_brute_force(const Heads& in, bool causal) {
    Heads keyed = in;  // keys = the L2-normalised queries
    for (int h = 0; h < in.heads(); ++h) keyed.K.head(h) = in.Q.head(h).rowwise().normalized();
    Tensor3 O, lse;
    masked_reference(keyed, 1.0 / std::sqrt(double(in.d())), [causal](int, int i, int j) { return j != i && !(causal && j > i); },
                     O, lse);
    for (int h = 0; h < in.heads(); ++h)
        for (int i = 0; i < in.n(); ++i)
            if (std::isinf(lse.at(h, i, 0))) O.head(h).row(i) = in.V.head(h).row(i);  // only itself: its own value
    return O;
}

class MetricsBackend : public testing::TestWithParam<std::string> {};

TEST_P(MetricsBackend, SharedQkModelReferenceMatchesBruteForce) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (int n : {1, 7, 64, 150})
        for (bool causal : {false, true}) {
            std::cout << "[case] backend=" << GetParam() << " n=" << n << " causal=" << causal << " H=2 d=16 dv=8\n";
            const Heads in = gaussian_heads(2, n, 16, 8, 4);
            const Reference ref = compute_model_reference(in, ExactModel::SharedQkSelfMasked, causal, *backend);
            EXPECT_LE(rel_err(ref.O, shared_qk_brute_force(in, causal)), 2e-6);
            for (int64_t k = 0; k < ref.lse.size(); ++k) EXPECT_TRUE(std::isfinite(ref.lse.data()[k]));
        }
}

// LSH with one bucket and one chunk covering everything is exactly its own model under shared QK, while its
// error against softmax(s·QKᵀ) stays large: the change of model is not an approximation error.
TEST_P(MetricsBackend, LshLimitCaseEqualsItsOwnModel) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (int n : {37, 200})
        for (bool causal : {false, true}) {
            std::cout << "[case] backend=" << GetParam() << " lsh n_b=1 c≥n shared_qk n=" << n << " causal=" << causal
                      << "\n";
            const Heads in = gaussian_heads(2, n, 16, 16, 7);
            ReferenceCache refs(in, false);
            const RunResult r = run_variant(
                in,
                parse_variant_request("lsh", {{"buckets", "1"}, {"chunk", std::to_string(n)}, {"rounds", "3"},
                                              {"causal", causal ? "1" : "0"}}),
                RunOptions{}, *backend, &refs);
            EXPECT_EQ(r.model, ExactModel::SharedQkSelfMasked);
            ASSERT_TRUE(r.metrics.rel_err_model.has_value());
            EXPECT_LE(*r.metrics.rel_err_model, 2e-6);
            EXPECT_GE(*r.metrics.rel_err_out, 0.1) << "softmax(QKᵀ) is another model: the error should be large";
            EXPECT_NEAR(*r.metrics.mass_recall, 1.0, 1e-5) << "every key of the own model is inside the one chunk";
        }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, MetricsBackend, testing::ValuesIn(suite_backends()));

// For a mask renormalised over its allowed cells, KL(P̃‖P) = −log(kept mass) row by row; KL(P‖P̃) is infinite.
TEST(Metrics, ReverseKlOfARenormalisedMaskIsMinusLogKeptMass) {
    auto backend = make_backend("cpu");
    const Heads in = gaussian_heads(2, 96, 16, 16, 3);
    ReferenceCache refs(in, true);
    RunOptions options;
    options.explain = true;
    const RunResult r = run_variant(in, parse_variant_request("longformer", {{"window", "16"}}), options, *backend, &refs);
    const Reference& ref = refs.get(false, *backend);
    double expected = 0;
    for (int h = 0; h < in.heads(); ++h)
        for (int i = 0; i < in.n(); ++i) {
            double kept = 0;
            for (int j = 0; j < in.n(); ++j)
                if (r.P_eff->at(h, i, j) > 0) kept += ref.P->at(h, i, j);
            expected += -std::log(kept);
        }
    expected /= double(in.heads()) * in.n();
    std::cout << "[case] longformer w=16 n=96 H=2: KL(P̃‖P) " << *r.metrics.row_kl_rev << ", mean −log kept mass "
              << expected << "\n";
    ASSERT_TRUE(r.metrics.row_kl_rev.has_value());
    EXPECT_NEAR(*r.metrics.row_kl_rev, expected, 1e-4 * std::max(1.0, expected));
    EXPECT_GT(*r.metrics.row_kl_rev, 0.0);
    EXPECT_TRUE(std::isinf(*r.metrics.row_kl));
    // full keeps everything: both directions are 0 (float rounding only).
    const RunResult f = run_variant(in, parse_variant_request("full", {}), options, *backend, &refs);
    EXPECT_LE(*f.metrics.row_kl_rev, 1e-6);
    EXPECT_LE(*f.metrics.row_kl, 1e-6);
}

}  // namespace
}  // namespace attnscope::test

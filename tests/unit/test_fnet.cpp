// fnet on every backend: the FFT path against a direct O(n²·c²) DFT, the sequence-mixing matrix P̃, the
// choice of X (layer input when given, else V), and metrics that skip what does not apply.
#include <cmath>
#include <numbers>

#include "core/figure/run_figure.h"
#include "core/session/metrics.h"
#include "core/session/worker.h"
#include "tests/unit/kernel_test_util.h"

namespace attnscope::test {
namespace {

/// Re Σ_a Σ_b X[a][b]·exp(−2πi(ia/n + jb/c)) = Σ_a Σ_b X[a][b]·cos(2π(ia/n + jb/c)), in double.
MatD direct_dft_real(const MatD& X) {
    const int n = static_cast<int>(X.rows()), c = static_cast<int>(X.cols());
    MatD Y(n, c);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < c; ++j) {
            double s = 0;
            for (int a = 0; a < n; ++a)
                for (int b = 0; b < c; ++b)
                    s += X(a, b) * std::cos(2.0 * std::numbers::pi * (double(i * a % n) / n + double(j * b % c) / c));
            Y(i, j) = s;
        }
    return Y;
}

class FnetBackend : public testing::TestWithParam<std::string> {};

TEST_P(FnetBackend, EqualsDirectDft) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (int n : {1, 2, 7, 16, 33})
        for (int c : {1, 5, 6}) {
            const double tol = 1e-5;
            std::cout << "[case] backend=" << GetParam() << " fnet on V: H=2 n=" << n << " c=dv=" << c << " tol=" << tol
                      << " (relative to max |Y|)\n";
            const Heads in = seeded_heads(2, n, 3, c, 31);
            const RunResult r = run_by_id("fnet", in, *backend, {});
            ASSERT_EQ(r.O.heads(), 2);
            for (int h = 0; h < 2; ++h) EXPECT_LE(max_rel_diff(head_d(r.O, h), direct_dft_real(head_d(in.V, h))), tol);
            ASSERT_TRUE(r.P_eff);
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                    EXPECT_NEAR(r.P_eff->at(1, i, j), std::cos(2.0 * std::numbers::pi * i * j / n), 1e-5);
        }
}

// FNet's sequence mixing is the pair (C_n, S_n): with A + iB = X·F_d, Y = C_n·A + S_n·B exactly, while C_n·A
// alone leaves about half the signal out. The matrices checked are the ones the run hands to the views.
TEST_P(FnetBackend, OutputIsTheRealAndImaginaryDftPair) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (int n : {5, 32, 64}) {
        const int c = 12;
        std::cout << "[case] backend=" << GetParam() << " fnet on V: H=2 n=" << n << " c=" << c
                  << ": Y = C_n·Re(X·F_d) + S_n·Im(X·F_d) to 1e-5, C_n alone misses ≥ 20%\n";
        const Heads in = seeded_heads(2, n, 3, c, 35);
        RunOptions options;
        options.explain = true;
        const RunResult r = run_variant(in, parse_variant_request("fnet", {}), options, *backend, nullptr);
        ASSERT_TRUE(r.P_eff);
        ASSERT_EQ(r.structure.display_matrices.size(), 1u);
        const Tensor3& S = r.structure.display_matrices[0].matrix;
        for (int h = 0; h < 2; ++h) {
            const MatD X = head_d(in.V, h);
            MatD A(n, c), B(n, c);  // X·F_d with F_d = exp(−2πi·jb/c)
            for (int a = 0; a < n; ++a)
                for (int j = 0; j < c; ++j) {
                    double re = 0, im = 0;
                    for (int b = 0; b < c; ++b) {
                        const double angle = 2.0 * std::numbers::pi * double(j * b % c) / c;
                        re += X(a, b) * std::cos(angle), im -= X(a, b) * std::sin(angle);
                    }
                    A(a, j) = re, B(a, j) = im;
                }
            const MatD C_n = head_d(*r.P_eff, h), S_n = head_d(S, h), Y = head_d(r.O, h);
            EXPECT_LE(max_rel_diff(Y, C_n * A + S_n * B), 1e-5);
            if (n > 4) {
                EXPECT_GE((Y - C_n * A).norm() / Y.norm(), 0.2) << "C_n alone would be FNet's operator";
            }
        }
        EXPECT_EQ(find_variant("fnet").exact_model(r.params), ExactModel::Different);
    }
}

TEST_P(FnetBackend, MixesLayerInputWhenGiven) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] backend=" << GetParam() << " fnet with X (1, 12, 20) beside Q/K/V (3, 12, 4): Y is (1, 12, 20); "
              << "rel_err_out and row_kl unset, rel_err_attn set\n";
    Heads in = seeded_heads(3, 12, 4, 4, 32);
    in.X = seeded_tensor(1, 12, 20, 33);
    RunOptions options;
    options.explain = true;
    ReferenceCache refs(in, true);
    const RunResult r = run_variant(in, parse_variant_request("fnet", {}), options, *backend, &refs);
    ASSERT_EQ(r.O.heads(), 1);
    ASSERT_EQ(r.O.cols(), 20);
    EXPECT_LE(max_rel_diff(head_d(r.O, 0), direct_dft_real(head_d(in.X, 0))), 1e-5);
    EXPECT_FALSE(r.metrics.rel_err_out.has_value());
    EXPECT_FALSE(r.metrics.row_kl.has_value());
    // P̃ has one head here; the reference has three, so the matrix error does not apply either.
    EXPECT_FALSE(r.metrics.rel_err_attn.has_value());
    // Its one mixing matrix stands for every head: views of head 2 (of 3) read plane 0, never past the tensor (the
    // GUI once uploaded plane 2 of this one-plane matrix as a texture; ASan saw the read).
    ASSERT_TRUE(r.P_eff);
    ASSERT_EQ(r.P_eff->heads(), 1);
    const SpectrumView spectrum = matrix_spectrum(*r.P_eff, 2);
    EXPECT_TRUE(spectrum.note.empty()) << spectrum.note;
    EXPECT_EQ(spectrum.singular_values.size(), 12u);
    VariantView view;
    view.pooled = std::make_shared<const Tensor3>(*r.P_eff);
    EXPECT_EQ(view.plane(2), 0);
    figure::RunFigureOptions figure_options;
    figure_options.head = 2, figure_options.view = figure::View::Weights;
    const figure::FigureSpec spec = figure::figure_of_runs(in, {r}, figure_options, nullptr);
    ASSERT_EQ(spec.panels.size(), 1u);
    EXPECT_FLOAT_EQ(spec.panels[0].values[size_t(3) * 12 + 5], r.P_eff->at(0, 3, 5));
    view.pooled = std::make_shared<const Tensor3>(3, 4, 4);  // a view with a plane per head keeps the head
    EXPECT_EQ(view.plane(2), 2);
    in.X = seeded_tensor(1, 11, 20, 33);
    EXPECT_THROW(run_variant(in, parse_variant_request("fnet", {}), options, *backend, nullptr), Error);
}

TEST_P(FnetBackend, MetricsOnVSkipRowKl) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] backend=" << GetParam() << " fnet on V (2, 16, 8) with metrics: rel_err_out set, row_kl unset\n";
    const Heads in = seeded_heads(2, 16, 8, 8, 34);
    RunOptions options;
    options.explain = true;
    ReferenceCache refs(in, true);
    const RunResult r = run_variant(in, parse_variant_request("fnet", {}), options, *backend, &refs);
    EXPECT_TRUE(r.metrics.rel_err_out.has_value());
    EXPECT_TRUE(r.metrics.rel_err_attn.has_value());
    EXPECT_FALSE(r.metrics.row_kl.has_value());
}

INSTANTIATE_TEST_SUITE_P(AllBackends, FnetBackend, testing::ValuesIn(suite_backends()), backend_name);

}  // namespace
}  // namespace attnscope::test

// Spectra: exact LAPACK singular values of matrices built with known singular values from random orthogonal
// factors; the randomized top-k SVD agrees with the exact values on a low-rank matrix; the cumulative curve.
#include <gtest/gtest.h>

#include <Eigen/QR>
#include <cmath>
#include <utility>

#include "core/analysis/spectrum.h"
#include "core/backend/cpu/svd.h"
#include "core/backend/shared/random.h"

namespace attnscope::test {
namespace {

/// Random matrix with orthonormal columns (rows × cols), by QR of a seeded Gaussian.
Eigen::MatrixXd random_orthonormal(int rows, int cols, uint64_t seed) {
    Eigen::MatrixXd G(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) G(i, j) = rng::normal(seed, 21, uint64_t(i) * cols + j);
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(G);
    return qr.householderQ() * Eigen::MatrixXd::Identity(rows, cols);
}

/// M = U·diag(σ)·Vᵀ as a one-head tensor.
Tensor3 with_singular_values(int rows, int cols, const std::vector<double>& sigma, uint64_t seed) {
    const int r = static_cast<int>(sigma.size());
    const Eigen::MatrixXd U = random_orthonormal(rows, r, seed), V = random_orthonormal(cols, r, seed + 1);
    Eigen::VectorXd s(r);
    for (int l = 0; l < r; ++l) s[l] = sigma[l];
    const Eigen::MatrixXd M = U * s.asDiagonal() * V.transpose();
    Tensor3 t(1, rows, cols);
    t.head(0) = M.cast<float>();
    return t;
}

TEST(Spectrum, ExactSingularValuesOfAKnownMatrix) {
    for (auto [rows, cols] : {std::pair{120, 120}, std::pair{150, 90}, std::pair{60, 200}}) {
        const int k = std::min(rows, cols);
        std::vector<double> sigma(k);
        for (int l = 0; l < k; ++l) sigma[l] = 10.0 * std::pow(0.93, l);
        std::cout << "[case] exact spectrum " << rows << "x" << cols << " σ_l = 10·0.93^l, rel tol 1e-4 (σ ≥ 1e-3)\n";
        const Tensor3 M = with_singular_values(rows, cols, sigma, 3);
        const Spectrum s = compute_spectrum(M, 0);
        ASSERT_TRUE(s.exact);
        ASSERT_EQ(s.singular_values.size(), size_t(k));
        double total = 0;
        for (double v : sigma) total += v;
        double run = 0;
        for (int l = 0; l < k; ++l) {
            if (sigma[l] >= 1e-3) {
                EXPECT_NEAR(s.singular_values[l], sigma[l], 1e-4 * sigma[0]) << "σ_" << l;
            }
            run += sigma[l];
            EXPECT_NEAR(s.cumulative[l], run / total, 1e-4) << "cumulative " << l;
        }
        EXPECT_NEAR(s.cumulative.back(), 1.0, 1e-12);
        EXPECT_NEAR(energy_at_rank(s, 1), sigma[0] * sigma[0] / [&] {
            double e = 0;
            for (double v : sigma) e += v * v;
            return e;
        }(), 1e-4);
    }
}

TEST(Spectrum, TruncatedExactSvdReconstructs) {
    std::cout << "[case] exact truncated SVD 70x50 rank 50 reconstruction, tol 1e-4\n";
    std::vector<double> sigma(50);
    for (int l = 0; l < 50; ++l) sigma[l] = 1.0 + 49 - l;
    const Tensor3 M = with_singular_values(70, 50, sigma, 9);
    const TruncatedSvd svd = exact_truncated_svd(M.head(0), 50, true);
    Eigen::VectorXf s(50);
    for (int l = 0; l < 50; ++l) s[l] = static_cast<float>(svd.S[l]);
    const MatrixRM back = svd.U * s.asDiagonal() * svd.Vt;
    EXPECT_LE((back - M.head(0)).norm(), 1e-4 * M.head(0).norm());
}

// Low rank (20) plus a little noise: the randomized top-k finds the exact top values.
TEST(Spectrum, RandomizedTopKAgreesWithExactOnLowRank) {
    for (int n : {300, 900}) {
        std::vector<double> sigma(20);
        for (int l = 0; l < 20; ++l) sigma[l] = 100.0 / (1.0 + l);
        Tensor3 M = with_singular_values(n, n, sigma, 5);
        for (int64_t i = 0; i < M.size(); ++i) M.data()[i] += 1e-4f * static_cast<float>(rng::normal(8, 1, i));
        std::cout << "[case] randomized top-10 vs exact, n=" << n << " rank 20 + noise 1e-4, rel tol 1e-3\n";
        const std::vector<double> exact = exact_singular_values(std::as_const(M).head(0));
        const TruncatedSvd rnd = randomized_svd(std::as_const(M).head(0), 10, true, 17);
        ASSERT_FALSE(rnd.exact);
        ASSERT_EQ(rnd.S.size(), 10u);
        for (int l = 0; l < 10; ++l) EXPECT_NEAR(rnd.S[l], exact[l], 1e-3 * exact[l]) << "σ_" << l;
        // The vectors reconstruct the top-10 part: ‖M − U Σ Vᵀ‖ ≈ the tail of the exact spectrum.
        Eigen::VectorXf s(10);
        for (int l = 0; l < 10; ++l) s[l] = static_cast<float>(rnd.S[l]);
        double tail = 0;
        for (size_t l = 10; l < exact.size(); ++l) tail += exact[l] * exact[l];
        const double err = (M.head(0) - rnd.U * s.asDiagonal() * rnd.Vt).cast<double>().norm();
        EXPECT_NEAR(err, std::sqrt(tail), 1e-2 * std::sqrt(tail));
    }
}

// Above the exact limit compute_spectrum switches to the randomized top-k and still finds the known values.
TEST(Spectrum, LargeMatrixUsesRandomizedTopK) {
    const int n = kExactSvdLimit + 100;
    std::vector<double> sigma(12);
    for (int l = 0; l < 12; ++l) sigma[l] = std::pow(2.0, -l);
    std::cout << "[case] compute_spectrum n=" << n << " rank 12, top_k=8, rel tol 1e-3\n";
    const Tensor3 M = with_singular_values(n, n, sigma, 12);
    const Spectrum s = compute_spectrum(M, 0, 8);
    EXPECT_FALSE(s.exact);
    ASSERT_EQ(s.singular_values.size(), 8u);
    for (int l = 0; l < 8; ++l) EXPECT_NEAR(s.singular_values[l], sigma[l], 1e-3 * sigma[l]) << "σ_" << l;
    EXPECT_NEAR(s.cumulative.back(), 1.0, 1e-12);
}

TEST(Spectrum, RejectsBadHeadAndEmptyMatrix) {
    const Tensor3 M(2, 4, 4, 1.0f);
    EXPECT_THROW(compute_spectrum(M, 2), Error);
    EXPECT_THROW(compute_spectrum(M, 0, 0), Error);
    EXPECT_THROW(compute_spectrum(Tensor3(1, 0, 3), 0), Error);
    const Spectrum s = compute_spectrum(M, 1);
    EXPECT_NEAR(s.singular_values[0], 4.0, 1e-5);  // all-ones 4×4: one singular value 4, the rest 0
    EXPECT_NEAR(s.singular_values[1], 0.0, 1e-5);
}

}  // namespace
}  // namespace attnscope::test

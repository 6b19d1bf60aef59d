// The SVD recipes of core/backend/cuda/svd_pipeline.cuh (what core/backend/cuda/svd.cu runs with cuBLAS/cuSOLVER) on the host: the
// sketch kernel through the emulation shim, the column-major products, transposes and factorisations through
// Eigen with the same leading dimensions. Checks the layout algebra (row-major M read as Mᵀ) and that the device
// randomized recipe reproduces the CPU's randomized_svd with the same seed, and the exact path's transpose.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <deque>
#include <iostream>
#include <vector>

#include "core/backend/cpu/svd.h"
#include "core/backend/shared/random.h"
#include "core/backend/cuda/svd_pipeline.cuh"

namespace attnscope::test {
namespace {

using ColMap = Eigen::Map<Eigen::MatrixXf, 0, Eigen::OuterStride<>>;
using ConstColMap = Eigen::Map<const Eigen::MatrixXf, 0, Eigen::OuterStride<>>;

/// svd_pipeline.cuh's Ops on host memory (Eigen, column-major, explicit leading dimensions).
class HostSvdOps {
public:
    void product(bool trans_a, int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
        const ConstColMap a(A, trans_a ? k : m, trans_a ? m : k, Eigen::OuterStride<>(lda));
        const ConstColMap b(B, k, n, Eigen::OuterStride<>(ldb));
        ColMap c(C, m, n, Eigen::OuterStride<>(ldc));
        if (trans_a) c.noalias() = a.transpose() * b;
        else c.noalias() = a * b;
    }
    void transpose(int rows, int cols, const float* A, int lda, float* T, int ldt) {
        const ConstColMap a(A, cols, rows, Eigen::OuterStride<>(lda));
        ColMap t(T, rows, cols, Eigen::OuterStride<>(ldt));
        t = a.transpose();
    }
    void orthonormalise(float* Y, int rows, int l) {
        ColMap y(Y, rows, l, Eigen::OuterStride<>(rows));
        const Eigen::MatrixXf copy = y;
        Eigen::HouseholderQR<Eigen::MatrixXf> qr(copy);
        y = qr.householderQ() * Eigen::MatrixXf::Identity(rows, l);
    }
    void values(float* A, int m, int n, float* S) {
        EXPECT_GE(m, n) << "values() is only ever asked for rows ≥ columns (gesvd's requirement)";
        const ColMap a(A, m, n, Eigen::OuterStride<>(m));
        const Eigen::VectorXf s = Eigen::JacobiSVD<Eigen::MatrixXf>(a).singularValues();
        std::copy(s.data(), s.data() + s.size(), S);
    }
    void sketch(float* omega, int c, int l, uint64_t seed) {
        const int64_t total = int64_t(c) * l;
        cuda_emu::launch(dim3(unsigned((total + cuda::kSvdThreads - 1) / cuda::kSvdThreads)), dim3(cuda::kSvdThreads), 0,
                         [&] { cuda::svd_sketch_kernel(omega, c, l, seed); });
    }
    float* scratch(size_t count) {
        m_buffers.emplace_back(count, NAN);
        return m_buffers.back().data();
    }
    void copy(float* dst, const float* src, size_t count) { std::copy(src, src + count, dst); }

private:
    std::deque<std::vector<float>> m_buffers;
};

/// A row-major (r, c) matrix with decaying spectrum: Σ_l 0.7^l·u_l·v_lᵀ plus small noise (seeded).
MatrixRM decaying(int r, int c, uint64_t seed) {
    MatrixRM M(r, c);
    for (int i = 0; i < r; ++i)
        for (int j = 0; j < c; ++j) M(i, j) = 0.01f * float(rng::normal(seed, 91, uint64_t(i) * c + j));
    for (int l = 0; l < 30; ++l) {
        Eigen::VectorXf u(r), v(c);
        for (int i = 0; i < r; ++i) u[i] = float(rng::normal(seed + l, 92, i));
        for (int j = 0; j < c; ++j) v[j] = float(rng::normal(seed + l, 93, j));
        M += float(std::pow(0.7, l)) * (u / u.norm()) * (v / v.norm()).transpose() * float(10.0);
    }
    return M;
}

TEST(SvdPipelineEmulation, RandomizedRecipeMatchesCpuRandomizedSvd) {
    for (auto [r, c, k] : {std::tuple{200, 120, 16}, std::tuple{90, 300, 20}, std::tuple{64, 64, 64}}) {
        const int l = std::min(k + 10, std::min(r, c));
        std::cout << "[case] randomized recipe r=" << r << " c=" << c << " k=" << k << " l=" << l
                  << " seed 5, 3 power iterations, vs cpu randomized_svd, tol 1e-4·σ1\n";
        MatrixRM M = decaying(r, c, 3);
        const TruncatedSvd cpu = randomized_svd(ConstMatView(M.data(), r, c), k, false, 5, 10, 3);
        HostSvdOps ops;
        std::vector<float> S(size_t(k), NAN);
        cuda::randomized_values(ops, M.data(), r, c, k, l, 5, 3, S.data());
        ASSERT_EQ(cpu.S.size(), size_t(k));
        for (int i = 0; i < k; ++i) EXPECT_NEAR(S[i], cpu.S[i], 1e-4 * cpu.S[0]) << "σ_" << i;
    }
}

TEST(SvdPipelineEmulation, ExactPathTransposesOnlyWhenRowsExceedColumns) {
    for (auto [r, c] : {std::pair{70, 40}, std::pair{40, 70}, std::pair{33, 33}, std::pair{1, 5}, std::pair{5, 1}}) {
        std::cout << "[case] exact path r=" << r << " c=" << c << " vs LAPACK, tol 1e-5·σ1\n";
        MatrixRM M = decaying(r, c, 8);
        const std::vector<double> lapack = exact_singular_values(ConstMatView(M.data(), r, c));
        HostSvdOps ops;
        std::vector<float> work(size_t(r) * c, NAN), S(size_t(std::min(r, c)), NAN);
        MatrixRM scratch = M;  // exact_values overwrites its input
        cuda::exact_values(ops, scratch.data(), r, c, work.data(), S.data());
        for (size_t i = 0; i < S.size(); ++i) EXPECT_NEAR(S[i], lapack[i], 1e-5 * lapack[0]) << "σ_" << i;
    }
}

}  // namespace
}  // namespace attnscope::test

// attnscope tests — helpers for the kernel families (performer, linear, efficient, taylor, fnet):
// seeded inputs, running a variant by id, and plain double-precision references written from the papers'
// formulas (no chunking, no stabiliser, no shortcuts) to compare the fast paths against.
#pragma once
#include <Eigen/Core>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "tests/unit/backend_suite.h"
#include "core/backend/shared/random.h"
#include "core/session/experiment.h"
#include "core/variants/registry.h"
#include "core/variants/variant.h"

namespace attnscope::test {

using MatD = Eigen::MatrixXd;

/// (H, n, d) tensor of N(0, scale²) entries from a seed.
inline Tensor3 seeded_tensor(int H, int n, int d, uint64_t seed, float scale = 1.0f) {
    Tensor3 t(H, n, d);
    for (int64_t k = 0; k < t.size(); ++k) t.data()[k] = scale * static_cast<float>(rng::normal(seed, 99, k));
    return t;
}

/// Q, K, V with the given shapes; Q and K scaled by qk_scale (sets how peaked softmax rows are).
inline Heads seeded_heads(int H, int n, int d, int dv, uint64_t seed, float qk_scale = 1.0f) {
    Heads in;
    in.Q = seeded_tensor(H, n, d, seed * 3 + 1, qk_scale);
    in.K = seeded_tensor(H, n, d, seed * 3 + 2, qk_scale);
    in.V = seeded_tensor(H, n, dv, seed * 3 + 3);
    in.source = "test";
    return in;
}

/// Runs variant `id` with NAME=VALUE assignments (through the same path as the CLI), without metrics.
inline RunResult run_by_id(const std::string& id, const Heads& in, Backend& backend,
                           const std::vector<std::pair<std::string, std::string>>& sets, bool want_matrix = true) {
    RunOptions options;
    options.explain = want_matrix;
    return run_variant(in, parse_variant_request(id, sets), options, backend, nullptr);
}

/// Head h of a tensor in double precision.
inline MatD head_d(const Tensor3& t, int h) { return t.head(h).cast<double>(); }

/// The quadratic form of kernel attention: P̃ = diag(1/D)·A (A = φQφKᵀ masked to j ≤ i when causal,
/// D_i = Σ_j A_ij + d_eps, or no division when !normalise); returns P̃.
inline MatD naive_kernel_matrix(const MatD& A_in, bool causal, bool normalise, double d_eps) {
    MatD A = A_in;
    const int n = static_cast<int>(A.rows());
    for (int i = 0; i < n; ++i) {
        if (causal)
            for (int j = i + 1; j < A.cols(); ++j) A(i, j) = 0;
        if (normalise) A.row(i) /= A.row(i).sum() + d_eps;
    }
    return A;
}

/// Largest |a − b| relative to max |b| (scale-free, never divides by a tiny entry).
inline double max_rel_diff(const MatD& a, const MatD& b) {
    const double scale = std::max(1e-30, b.cwiseAbs().maxCoeff());
    return (a - b).cwiseAbs().maxCoeff() / scale;
}

/// True when two tensors hold the same bits.
inline bool same_bits(const Tensor3& a, const Tensor3& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), static_cast<size_t>(a.bytes())) == 0;
}

/// Backend names as test parameters, printed as-is.
inline std::string backend_name(const testing::TestParamInfo<std::string>& info) { return info.param; }

}  // namespace attnscope::test

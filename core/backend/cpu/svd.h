// attnscope — singular value decompositions of attention matrices: exact through LAPACK (sgesdd, falling
// back to sgesvd) and randomized top-k (Halko, Martinsson & Tropp 2011: Gaussian sketch, power iterations,
// QR, SVD of the small projected matrix) for matrices too large for an O(n³) factorisation.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace attnscope {

/// Leading singular triplets M ≈ U·diag(S)·Vt.
struct TruncatedSvd {
    MatrixRM U;             // (rows, r) left singular vectors (empty when vectors were not asked for)
    std::vector<double> S;  // (r) singular values, descending
    MatrixRM Vt;            // (r, cols) right singular vectors, transposed (empty when not asked for)
    bool exact = true;      // true: LAPACK on the whole matrix; false: randomized estimate
};

/// Every singular value of M (rows × cols), descending, by LAPACK; throws Error when LAPACK fails.
std::vector<double> exact_singular_values(ConstMatView M);

/// Exact SVD by LAPACK truncated to `rank` (≤ min(rows, cols)); vectors when want_vectors.
TruncatedSvd exact_truncated_svd(ConstMatView M, int rank, bool want_vectors);

/// Randomized top-`rank` SVD: sketch with rank + oversample Gaussian columns (seeded, svd_sketch_entry of
/// core/backend/shared/svd_sketch.h, which the CUDA backend draws too),
/// `power_iterations` rounds of (M·Mᵀ) with re-orthonormalisation, then LAPACK on the small projection.
TruncatedSvd randomized_svd(ConstMatView M, int rank, bool want_vectors, uint64_t seed = 0, int oversample = 10,
                            int power_iterations = 3);

/// The largest min(rows, cols) for which truncated_svd() factorises exactly.
constexpr int kExactSvdLimit = 2048;

/// Exact when min(rows, cols) ≤ kExactSvdLimit, randomized otherwise.
TruncatedSvd truncated_svd(ConstMatView M, int rank, bool want_vectors, uint64_t seed = 0);

}  // namespace attnscope

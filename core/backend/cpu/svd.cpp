#include "core/backend/cpu/svd.h"

#include <lapacke.h>

#include <Eigen/QR>
#include <algorithm>
#include <mutex>
#include <string>

#include "core/backend/shared/svd_sketch.h"

// OpenBLAS (Debian's pthread build) behind LAPACKE.
extern "C" void openblas_set_num_threads(int num_threads);

namespace attnscope {

namespace {

/// LAPACK runs on the calling thread only. OpenBLAS's own pthread pool spins for a while after each call and
/// then fights our OpenMP threads for the cores, which slows the GUI's edit → view updates by an order of magnitude
/// beside the renderer (docs/PERFORMANCE.reasons.md). Our callers parallelise themselves.
void lapack_single_threaded() {
    static std::once_flag once;
    std::call_once(once, [] { openblas_set_num_threads(1); });
}

/// LAPACK SVD of a row-major copy: jobz 'N' (values) or 'S' (thin vectors); sgesvd when sgesdd fails.
TruncatedSvd lapack_svd(MatrixRM a, bool want_vectors) {
    const int m = static_cast<int>(a.rows()), n = static_cast<int>(a.cols()), k = std::min(m, n);
    TruncatedSvd out;
    std::vector<float> s(k);
    if (want_vectors) out.U.resize(m, k), out.Vt.resize(k, n);
    float* u = want_vectors ? out.U.data() : nullptr;
    float* vt = want_vectors ? out.Vt.data() : nullptr;
    const MatrixRM backup = a;
    lapack_single_threaded();
    // Row-major LAPACKE checks ldu ≥ min(m, n) and ldvt ≥ n even when no vectors are computed.
    lapack_int info = LAPACKE_sgesdd(LAPACK_ROW_MAJOR, want_vectors ? 'S' : 'N', m, n, a.data(), n, s.data(), u,
                                     std::max(1, k), vt, std::max(1, n));
    if (info != 0) {
        // Divide and conquer can fail to converge on pathological inputs; QR iteration is slower but sturdier.
        a = backup;
        std::vector<float> superb(std::max(1, k - 1));
        const char job = want_vectors ? 'S' : 'N';
        info = LAPACKE_sgesvd(LAPACK_ROW_MAJOR, job, job, m, n, a.data(), n, s.data(), u, std::max(1, k), vt,
                              std::max(1, n), superb.data());
    }
    if (info != 0)
        throw Error("SVD of a " + std::to_string(m) + "×" + std::to_string(n) + " matrix failed (LAPACK info " +
                    std::to_string(info) + "): check the matrix for NaN/Inf");
    out.S.assign(s.begin(), s.end());
    return out;
}

/// Orthonormal basis of the columns of Y (thin Q of a Householder QR).
MatrixRM orthonormal_columns(const MatrixRM& Y) {
    Eigen::HouseholderQR<MatrixRM> qr(Y);
    MatrixRM Q = qr.householderQ() * MatrixRM::Identity(Y.rows(), Y.cols());
    return Q;
}

}  // namespace

std::vector<double> exact_singular_values(ConstMatView M) { return lapack_svd(MatrixRM(M), false).S; }

TruncatedSvd exact_truncated_svd(ConstMatView M, int rank, bool want_vectors) {
    TruncatedSvd out = lapack_svd(MatrixRM(M), want_vectors);
    const int r = std::clamp(rank, 0, static_cast<int>(out.S.size()));
    out.S.resize(r);
    if (want_vectors) {
        out.U = MatrixRM(out.U.leftCols(r));
        out.Vt = MatrixRM(out.Vt.topRows(r));
    }
    out.exact = true;
    return out;
}

TruncatedSvd randomized_svd(ConstMatView M, int rank, bool want_vectors, uint64_t seed, int oversample,
                            int power_iterations) {
    const int rows = static_cast<int>(M.rows()), cols = static_cast<int>(M.cols());
    const int r = std::clamp(rank, 0, std::min(rows, cols));
    const int l = std::min(r + oversample, std::min(rows, cols));
    MatrixRM omega(cols, l);
    for (int i = 0; i < cols; ++i)
        for (int j = 0; j < l; ++j) omega(i, j) = svd_sketch_entry(seed, i, j, l);
    MatrixRM Q = orthonormal_columns(M * omega);
    for (int it = 0; it < power_iterations; ++it) {
        // Re-orthonormalise between products so the small singular directions are not lost to rounding.
        const MatrixRM Z = orthonormal_columns(M.transpose() * Q);
        Q = orthonormal_columns(M * Z);
    }
    const MatrixRM B = Q.transpose() * M;  // (l, cols)
    TruncatedSvd small = lapack_svd(B, want_vectors);
    TruncatedSvd out;
    out.exact = false;
    out.S.assign(small.S.begin(), small.S.begin() + r);
    if (want_vectors) {
        out.U = Q * small.U.leftCols(r);
        out.Vt = MatrixRM(small.Vt.topRows(r));
    }
    return out;
}

TruncatedSvd truncated_svd(ConstMatView M, int rank, bool want_vectors, uint64_t seed) {
    if (std::min(M.rows(), M.cols()) <= kExactSvdLimit) return exact_truncated_svd(M, rank, want_vectors);
    return randomized_svd(M, rank, want_vectors, seed);
}

}  // namespace attnscope

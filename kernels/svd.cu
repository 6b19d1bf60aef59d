// attnscope — singular values on CUDA through cuSOLVER: batched Jacobi (gesvdjBatched) for many small heads,
// gesvd per head otherwise, and the randomized top-k of core/analysis/svd.cpp (same sketch Ω, drawn on the
// device by svd_sketch_entry; cuBLAS products; geqrf + orgqr re-orthonormalisation; gesvd of the projection).
//
// Layout: a row-major (r, c) buffer read column-major is Mᵀ (c × r, lda = c); σ(Mᵀ) = σ(M), so the exact path
// factorises Mᵀ as it lies (transposing on the device only when gesvd needs rows ≥ columns). The randomized
// path computes the products of the CPU recipe on M through that view, so both backends sketch the same range.
#include <cusolverDn.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common.cuh"
#include "core/primitives/svd_sketch.h"

namespace attnscope::cuda {

namespace {

void check_cusolver(cusolverStatus_t status, const char* what) {
    if (status != CUSOLVER_STATUS_SUCCESS)
        throw Error(std::string("cuSOLVER ") + what + " failed (cusolverStatus " + std::to_string(int(status)) +
                    "); retry with --backend cpu if the GPU is unusable");
}

/// A cuSOLVER dense handle bound to the context's stream (its internal buffers are cuSOLVER's own).
class Solver {
public:
    explicit Solver(const Context& ctx) {
        check_cusolver(cusolverDnCreate(&m_handle), "cusolverDnCreate");
        const cusolverStatus_t bound = cusolverDnSetStream(m_handle, ctx.stream());
        if (bound != CUSOLVER_STATUS_SUCCESS) {
            (void)cusolverDnDestroy(m_handle);
            check_cusolver(bound, "cusolverDnSetStream");
        }
    }
    ~Solver() { (void)cusolverDnDestroy(m_handle); }
    Solver(const Solver&) = delete;
    Solver& operator=(const Solver&) = delete;
    cusolverDnHandle_t get() const { return m_handle; }

private:
    cusolverDnHandle_t m_handle = nullptr;
};

/// Turns a non-zero cuSOLVER info into an Error (after the stream has finished).
void check_info(const Context& ctx, const DeviceBuffer<int>& info, const char* what) {
    std::vector<int> host(info.size());
    copy_to_host(ctx, host.data(), info.get(), info.bytes());
    for (size_t b = 0; b < host.size(); ++b)
        if (host[b] != 0)
            throw Error(std::string(what) + " did not converge (info " + std::to_string(host[b]) + " for matrix " +
                        std::to_string(b) + "): check the matrix for NaN/Inf or use --backend cpu");
}

/// Ω (c × l, column-major): entry (i, j) = svd_sketch_entry(seed, i, j, l), the CPU's Ω(i, j).
__global__ void svd_sketch_kernel(float* omega, int c, int l, uint64_t seed) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= int64_t(c) * l) return;
    omega[idx] = svd_sketch_entry(seed, idx % c, idx / c, l);
}

/// Every σ of `heads` column-major (m × n, lda = m) matrices packed back to back, by batched Jacobi (m, n ≤ 32).
void batched_jacobi(const Context& ctx, const Solver& solver, float* A, int m, int n, int heads, float* S) {
    gesvdjInfo_t params = nullptr;
    check_cusolver(cusolverDnCreateGesvdjInfo(&params), "cusolverDnCreateGesvdjInfo");
    struct ParamsGuard {
        gesvdjInfo_t p;
        ~ParamsGuard() { (void)cusolverDnDestroyGesvdjInfo(p); }
    } guard{params};
    DeviceBuffer<float> U(size_t(m) * m * heads, "gesvdjBatched U"), V(size_t(n) * n * heads, "gesvdjBatched V");
    int lwork = 0;
    check_cusolver(cusolverDnSgesvdjBatched_bufferSize(solver.get(), CUSOLVER_EIG_MODE_NOVECTOR, m, n, A, m, S, U.get(),
                                                       m, V.get(), n, &lwork, params, heads),
                   "gesvdjBatched_bufferSize");
    DeviceBuffer<float> work(size_t(std::max(lwork, 1)), "gesvdjBatched workspace");
    DeviceBuffer<int> info(size_t(heads), "gesvdjBatched info");
    check_cusolver(cusolverDnSgesvdjBatched(solver.get(), CUSOLVER_EIG_MODE_NOVECTOR, m, n, A, m, S, U.get(), m, V.get(),
                                            n, work.get(), lwork, info.get(), params, heads),
                   "gesvdjBatched");
    check_info(ctx, info, "batched Jacobi SVD (gesvdjBatched)");
}

/// Singular values of one column-major (m × n, lda = m, m ≥ n) matrix by gesvd (A is overwritten).
void gesvd_values(const Context& ctx, const Solver& solver, float* A, int m, int n, float* S) {
    int lwork = 0;
    check_cusolver(cusolverDnSgesvd_bufferSize(solver.get(), m, n, &lwork), "gesvd_bufferSize");
    DeviceBuffer<float> work(size_t(std::max(lwork, 1)), "gesvd workspace");
    DeviceBuffer<float> rwork(size_t(std::max(n, 1)), "gesvd rwork");
    DeviceBuffer<int> info(1, "gesvd info");
    // jobu = jobvt = 'N': U and Vᵀ are not referenced (LAPACK semantics); their leading dimensions stay valid.
    check_cusolver(cusolverDnSgesvd(solver.get(), 'N', 'N', m, n, A, m, S, nullptr, m, nullptr, n, work.get(), lwork,
                                    rwork.get(), info.get()),
                   "gesvd");
    check_info(ctx, info, "SVD (gesvd)");
}

/// Replaces the columns of Y (rows × l, column-major, rows ≥ l) by an orthonormal basis of their span.
void orthonormalise(const Solver& solver, float* Y, int rows, int l, DeviceBuffer<float>& tau,
                    DeviceBuffer<float>& work, DeviceBuffer<int>& info) {
    int lq = 0, lo = 0;
    check_cusolver(cusolverDnSgeqrf_bufferSize(solver.get(), rows, l, Y, rows, &lq), "geqrf_bufferSize");
    check_cusolver(cusolverDnSorgqr_bufferSize(solver.get(), rows, l, l, Y, rows, tau.get(), &lo), "orgqr_bufferSize");
    const size_t need = size_t(std::max({lq, lo, 1}));
    if (work.size() < need) work = DeviceBuffer<float>(need, "QR workspace");
    check_cusolver(cusolverDnSgeqrf(solver.get(), rows, l, Y, rows, tau.get(), work.get(), int(work.size()), info.get()),
                   "geqrf");
    check_cusolver(cusolverDnSorgqr(solver.get(), rows, l, l, Y, rows, tau.get(), work.get(), int(work.size()), info.get()),
                   "orgqr");
}

/// Column-major C (m × n) = op(A)·B through cuBLAS.
void product(const Context& ctx, bool trans_a, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
             float* C, int ldc) {
    const float one = 1.0f, zero = 0.0f;
    ATTNSCOPE_CUBLAS_CHECK(cublasSgemm(ctx.cublas(), trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A,
                                       lda, B, ldb, &zero, C, ldc));
}

/// Top-k σ of the row-major (r, c) matrix whose column-major view is A = Mᵀ (c × r, lda = c): the CPU recipe
/// Y = M·Ω, power iterations Z = orth(Mᵀ·Q), Q = orth(M·Z), then σ(Qᵀ·M) = σ(A·Q).
void randomized_values(const Context& ctx, const Solver& solver, const float* A, int r, int c, int k, int l,
                       const SvdRequest& q, float* S) {
    DeviceBuffer<float> omega(size_t(c) * l, "randomized SVD sketch Ω"), Y(size_t(r) * l, "randomized SVD range Y"),
        Z(size_t(c) * l, "randomized SVD co-range Z"), tau(size_t(l), "QR τ"), work, sl(size_t(l), "σ of the projection");
    DeviceBuffer<int> info(1, "QR info");
    constexpr int kThreads = 256;
    svd_sketch_kernel<<<unsigned(ceil_div(int64_t(c) * l, kThreads)), kThreads, 0, ctx.stream()>>>(omega.get(), c, l,
                                                                                                    q.seed);
    ATTNSCOPE_CHECK_LAUNCH("svd_sketch_kernel");
    product(ctx, true, r, l, c, A, c, omega.get(), c, Y.get(), r);  // Y = M·Ω = Aᵀ·Ω
    orthonormalise(solver, Y.get(), r, l, tau, work, info);
    for (int it = 0; it < q.power_iterations; ++it) {
        product(ctx, false, c, l, r, A, c, Y.get(), r, Z.get(), c);  // Z = Mᵀ·Q = A·Q
        orthonormalise(solver, Z.get(), c, l, tau, work, info);
        product(ctx, true, r, l, c, A, c, Z.get(), c, Y.get(), r);  // Q = M·Z = Aᵀ·Z
        orthonormalise(solver, Y.get(), r, l, tau, work, info);
    }
    check_info(ctx, info, "QR of the randomized SVD (geqrf/orgqr)");
    product(ctx, false, c, l, r, A, c, Y.get(), r, Z.get(), c);  // Bᵀ = (Qᵀ·M)ᵀ = A·Q, c × l with c ≥ l
    gesvd_values(ctx, solver, Z.get(), c, l, sl.get());
    ATTNSCOPE_CUDA_CHECK(cudaMemcpyAsync(S, sl.get(), size_t(k) * sizeof(float), cudaMemcpyDeviceToDevice, ctx.stream()));
}

}  // namespace

void singular_values(Context& ctx, const float* M, int H, int r, int c, const SvdRequest& q, double* S) {
    const int mn = std::min(r, c);
    const int k = q.top_k == 0 ? mn : std::min(q.top_k, mn);
    const size_t per_head = size_t(r) * c;
    const std::string shape = std::to_string(H) + " head(s) of " + std::to_string(r) + "×" + std::to_string(c);
    std::vector<float> values(size_t(H) * k);
    Solver solver(ctx);
    if (q.top_k == 0 && std::max(r, c) <= 32) {
        // Many small heads: one batched Jacobi call over all of them (Mᵀ of each head: m = c, n = r, lda = c).
        require_device_memory((per_head + size_t(c) * c + size_t(r) * r + mn) * H * sizeof(float),
                              "the batched SVD of " + shape);
        DeviceBuffer<float> A = upload(ctx, M, per_head * H, "SVD input");
        DeviceBuffer<float> dS(size_t(H) * mn, "singular values");
        batched_jacobi(ctx, solver, A.get(), c, r, H, dS.get());
        copy_to_host(ctx, values.data(), dS.get(), dS.bytes());
    } else if (q.top_k == 0) {
        // gesvd needs rows ≥ columns: Mᵀ as it lies when c ≥ r, else M itself (a transpose by cublasSgeam).
        require_device_memory((2 * per_head + mn) * sizeof(float) + (size_t(64) << 20), "the SVD of " + shape);
        DeviceBuffer<float> A(per_head, "SVD input"), T(c < r ? per_head : 0, "SVD input transposed");
        DeviceBuffer<float> dS(size_t(mn), "singular values");
        for (int h = 0; h < H; ++h) {
            copy_to_device(ctx, A.get(), M + size_t(h) * per_head, per_head * sizeof(float));
            float* target = A.get();
            if (c < r) {
                const float one = 1.0f, zero = 0.0f;
                ATTNSCOPE_CUBLAS_CHECK(cublasSgeam(ctx.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, r, c, &one, A.get(), c, &zero,
                                                   T.get(), r, T.get(), r));
                target = T.get();
            }
            gesvd_values(ctx, solver, target, std::max(r, c), mn, dS.get());
            copy_to_host(ctx, values.data() + size_t(h) * k, dS.get(), size_t(k) * sizeof(float));
        }
    } else {
        const int l = std::min(k + std::max(0, q.oversample), mn);
        require_device_memory((per_head + size_t(2 * c + r + 2) * l) * sizeof(float) + (size_t(64) << 20),
                              "the randomized top-" + std::to_string(k) + " SVD of " + shape);
        DeviceBuffer<float> A(per_head, "SVD input"), dS(size_t(k), "singular values");
        for (int h = 0; h < H; ++h) {
            copy_to_device(ctx, A.get(), M + size_t(h) * per_head, per_head * sizeof(float));
            randomized_values(ctx, solver, A.get(), r, c, k, l, q, dS.get());
            copy_to_host(ctx, values.data() + size_t(h) * k, dS.get(), size_t(k) * sizeof(float));
        }
    }
    for (size_t i = 0; i < values.size(); ++i) S[i] = double(values[i]);
}

}  // namespace attnscope::cuda

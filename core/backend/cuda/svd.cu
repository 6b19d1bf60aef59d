// attnscope — singular values on CUDA through cuSOLVER: batched Jacobi (gesvdjBatched) for many small heads,
// gesvd per head otherwise, and the randomized top-k of core/backend/cpu/svd.cpp (same sketch Ω, drawn on the
// device by svd_sketch_entry; cuBLAS products; geqrf + orgqr re-orthonormalisation; gesvd of the projection).
//
// Layout: a row-major (r, c) buffer read column-major is Mᵀ (c × r, lda = c); σ(Mᵀ) = σ(M), so the exact path
// factorises Mᵀ as it lies (transposing on the device only when gesvd needs rows ≥ columns). The randomized
// path computes the products of the CPU recipe on M through that view, so both backends sketch the same range.
#include <cusolverDn.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/backend/cuda/common.cuh"
#include "core/backend/cuda/svd_pipeline.cuh"

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

/// The Ops of svd_pipeline.cuh on the GPU: cuBLAS products and transposes on the context's stream, cuSOLVER
/// geqrf + orgqr and gesvd, tracked scratch buffers.
class DeviceSvdOps {
public:
    DeviceSvdOps(const Context& ctx, const Solver& solver, int max_l)
        : m_ctx(ctx), m_solver(solver), m_tau(size_t(std::max(max_l, 1)), "QR τ"), m_info(1, "QR info") {}
    void product(bool trans_a, int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
        const float one = 1.0f, zero = 0.0f;
        ATTNSCOPE_CUBLAS_CHECK(cublasSgemm(m_ctx.cublas(), trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one,
                                           A, lda, B, ldb, &zero, C, ldc));
    }
    void transpose(int rows, int cols, const float* A, int lda, float* T, int ldt) {
        const float one = 1.0f, zero = 0.0f;
        ATTNSCOPE_CUBLAS_CHECK(cublasSgeam(m_ctx.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &one, A, lda, &zero, T,
                                           ldt, T, ldt));
    }
    void orthonormalise(float* Y, int rows, int l) {
        int lq = 0, lo = 0;
        check_cusolver(cusolverDnSgeqrf_bufferSize(m_solver.get(), rows, l, Y, rows, &lq), "geqrf_bufferSize");
        check_cusolver(cusolverDnSorgqr_bufferSize(m_solver.get(), rows, l, l, Y, rows, m_tau.get(), &lo),
                       "orgqr_bufferSize");
        const size_t need = size_t(std::max({lq, lo, 1}));
        if (m_work.size() < need) m_work = DeviceBuffer<float>(need, "QR workspace");
        check_cusolver(cusolverDnSgeqrf(m_solver.get(), rows, l, Y, rows, m_tau.get(), m_work.get(), int(m_work.size()),
                                        m_info.get()),
                       "geqrf");
        check_cusolver(cusolverDnSorgqr(m_solver.get(), rows, l, l, Y, rows, m_tau.get(), m_work.get(),
                                        int(m_work.size()), m_info.get()),
                       "orgqr");
    }
    void values(float* A, int m, int n, float* S) { gesvd_values(m_ctx, m_solver, A, m, n, S); }
    void sketch(float* omega, int c, int l, uint64_t seed) {
        svd_sketch_kernel<<<unsigned(ceil_div(int64_t(c) * l, kSvdThreads)), kSvdThreads, 0, m_ctx.stream()>>>(omega, c,
                                                                                                              l, seed);
        ATTNSCOPE_CHECK_LAUNCH("svd_sketch_kernel");
    }
    float* scratch(size_t count) {
        m_buffers.emplace_back(count, "randomized SVD scratch");
        return m_buffers.back().get();
    }
    void copy(float* dst, const float* src, size_t count) {
        ATTNSCOPE_CUDA_CHECK(
            cudaMemcpyAsync(dst, src, count * sizeof(float), cudaMemcpyDeviceToDevice, m_ctx.stream()));
    }
    /// Turns a failed QR (negative info: a bad argument) into Error once the stream has finished.
    void check_qr() const { check_info(m_ctx, m_info, "QR of the randomized SVD (geqrf/orgqr)"); }

private:
    const Context& m_ctx;
    const Solver& m_solver;
    DeviceBuffer<float> m_tau, m_work;
    DeviceBuffer<int> m_info;
    std::vector<DeviceBuffer<float>> m_buffers;
};

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
        // gesvd needs rows ≥ columns: Mᵀ as it lies when c ≥ r, else M itself (svd_pipeline.cuh: exact_values).
        require_device_memory((2 * per_head + mn) * sizeof(float) + (size_t(64) << 20), "the SVD of " + shape);
        DeviceBuffer<float> A(per_head, "SVD input"), T(c < r ? per_head : 0, "SVD input transposed");
        DeviceBuffer<float> dS(size_t(mn), "singular values");
        DeviceSvdOps ops(ctx, solver, 1);
        for (int h = 0; h < H; ++h) {
            copy_to_device(ctx, A.get(), M + size_t(h) * per_head, per_head * sizeof(float));
            exact_values(ops, A.get(), r, c, T.get(), dS.get());
            copy_to_host(ctx, values.data() + size_t(h) * k, dS.get(), size_t(k) * sizeof(float));
        }
    } else {
        const int l = std::min(k + std::max(0, q.oversample), mn);
        require_device_memory((per_head + size_t(2 * c + r + 2) * l) * sizeof(float) + (size_t(64) << 20),
                              "the randomized top-" + std::to_string(k) + " SVD of " + shape);
        DeviceBuffer<float> A(per_head, "SVD input"), dS(size_t(k), "singular values");
        for (int h = 0; h < H; ++h) {
            copy_to_device(ctx, A.get(), M + size_t(h) * per_head, per_head * sizeof(float));
            DeviceSvdOps ops(ctx, solver, l);
            randomized_values(ops, A.get(), r, c, k, l, q.seed, q.power_iterations, dS.get());
            ops.check_qr();
            copy_to_host(ctx, values.data() + size_t(h) * k, dS.get(), size_t(k) * sizeof(float));
        }
    }
    for (size_t i = 0; i < values.size(); ++i) S[i] = double(values[i]);
}

}  // namespace attnscope::cuda

// attnscope — batched GEMM through cuBLAS with the project's row-major layout (mapping: gemm.cuh).
#include "core/backend/cuda/gemm.cuh"

namespace attnscope::cuda {

namespace {

/// C[i] *= beta (beta == 0 writes exact zeros, as BLAS does, so NaN garbage in C is not propagated).
__global__ void scale_kernel(float* C, int64_t count, float beta) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) C[i] = beta == 0.0f ? 0.0f : C[i] * beta;
}

}  // namespace

void gemm_device(const Context& ctx, const DeviceMatrices& A, bool ta, const DeviceMatrices& B, bool tb, float alpha,
                 float beta, float* C, int H, int r, int c) {
    if (H == 0 || r == 0 || c == 0) return;
    const int k = ta ? A.rows : A.cols;
    if (k == 0) {
        // cuBLAS rejects a zero leading dimension; the product is empty, so only beta·C remains.
        const int64_t count = int64_t(H) * r * c;
        constexpr int kThreads = 256;
        scale_kernel<<<unsigned(ceil_div(count, kThreads)), kThreads, 0, ctx.stream()>>>(C, count, beta);
        ATTNSCOPE_CHECK_LAUNCH("scale_kernel");
        return;
    }
    const ColumnMajorGemm g = row_major_as_column_major(A, ta, B, tb, r, c);
    ATTNSCOPE_CUBLAS_CHECK(cublasSgemmStridedBatched(ctx.cublas(), g.op_first, g.op_second, g.m, g.n, g.k, &alpha, g.first,
                                                     g.ld_first, g.stride_first, g.second, g.ld_second, g.stride_second,
                                                     &beta, C, g.ldc, g.stride_c, H));
}

void gemm(Context& ctx, const HostMatrices& A, bool ta, const HostMatrices& B, bool tb, float alpha, float beta,
          float* C, int H, int r, int c) {
    const size_t a_count = size_t(A.heads) * A.rows * A.cols, b_count = size_t(B.heads) * B.rows * B.cols;
    const size_t c_count = size_t(H) * r * c;
    if (c_count == 0) return;
    require_device_memory((a_count + b_count + c_count) * sizeof(float),
                          "gemm of " + std::to_string(H) + " heads (" + std::to_string(r) + "×" + std::to_string(c) + ")");
    const DeviceInput dA = upload_input(ctx, A.data, a_count, "gemm operand A");
    const DeviceInput dB = upload_input(ctx, B.data, b_count, "gemm operand B");
    // With beta = 0 the old C is never read, so it need not be copied over.
    DeviceBuffer<float> dC = beta == 0.0f ? DeviceBuffer<float>(c_count, "gemm result C")
                                          : upload(ctx, C, c_count, "gemm result C");
    gemm_device(ctx, {dA.get(), A.heads, A.rows, A.cols}, ta, {dB.get(), B.heads, B.rows, B.cols}, tb, alpha, beta,
                dC.get(), H, r, c);
    download(ctx, dC.get(), C, c_count);
}

}  // namespace attnscope::cuda

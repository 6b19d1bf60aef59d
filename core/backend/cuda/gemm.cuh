// attnscope — batched row-major GEMM on device buffers through cuBLAS, for any family that needs one.
#pragma once
#include "core/backend/cuda/common.cuh"

namespace attnscope::cuda {

/// One operand on the device: `heads` row-major (rows, cols) matrices back to back; heads == 1 broadcasts.
struct DeviceMatrices {
    const float* data = nullptr;  // (heads, rows, cols) on the device
    int heads = 0, rows = 0, cols = 0;
};

/// The column-major cuBLAS call that computes a row-major C (r, c) = op(A)·op(B): cuBLAS sees the row-major
/// C as Cᵀ (c, r), and Cᵀ = op(B)ᵀ·op(A)ᵀ, where a row-major buffer read column-major is already transposed.
/// So B goes first and A second, each with its own transpose flag and its row length as leading dimension.
struct ColumnMajorGemm {
    cublasOperation_t op_first, op_second;  // transposes applied to `first` (B) and `second` (A)
    int m, n, k;                            // column-major sizes: m = c, n = r, k = inner
    const float* first;                     // B
    int ld_first;
    long long stride_first;                 // 0 broadcasts one head
    const float* second;                    // A
    int ld_second;
    long long stride_second;
    int ldc;
    long long stride_c;
};

/// Maps a row-major batched product to its cuBLAS arguments (pure host math, unit-tested on the CPU).
inline ColumnMajorGemm row_major_as_column_major(const DeviceMatrices& A, bool ta, const DeviceMatrices& B, bool tb,
                                                 int r, int c) {
    ColumnMajorGemm g{};
    g.op_first = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    g.op_second = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    g.m = c, g.n = r, g.k = ta ? A.rows : A.cols;
    g.first = B.data, g.ld_first = B.cols, g.stride_first = B.heads == 1 ? 0 : (long long)B.rows * B.cols;
    g.second = A.data, g.ld_second = A.cols, g.stride_second = A.heads == 1 ? 0 : (long long)A.rows * A.cols;
    g.ldc = c, g.stride_c = (long long)r * c;
    return g;
}

/// C_h = alpha·op(A_h)·op(B_h) + beta·C_h on the context's stream; C (H, r, c) row-major on the device.
/// Shapes must already agree (the host entry validates them); k = 0 only scales C by beta.
void gemm_device(const Context& ctx, const DeviceMatrices& A, bool trans_a, const DeviceMatrices& B, bool trans_b,
                 float alpha, float beta, float* C, int H, int r, int c);

}  // namespace attnscope::cuda

// attnscope — batched row-major GEMM on device buffers through cuBLAS, for any family that needs one.
#pragma once
#include "common.cuh"

namespace attnscope::cuda {

/// One operand on the device: `heads` row-major (rows, cols) matrices back to back; heads == 1 broadcasts.
struct DeviceMatrices {
    const float* data = nullptr;  // (heads, rows, cols) on the device
    int heads = 0, rows = 0, cols = 0;
};

/// C_h = alpha·op(A_h)·op(B_h) + beta·C_h on the context's stream; C (H, r, c) row-major on the device.
/// Shapes must already agree (the host entry validates them); k = 0 only scales C by beta.
void gemm_device(const Context& ctx, const DeviceMatrices& A, bool trans_a, const DeviceMatrices& B, bool trans_b,
                 float alpha, float beta, float* C, int H, int r, int c);

}  // namespace attnscope::cuda

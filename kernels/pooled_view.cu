// attnscope — the pooled level-of-detail view on CUDA: one thread per output pixel reduces its bin of the
// n×m matrix with the bin bounds of core/primitives/pooling.h (the same functions the CPU loop calls), in the
// same order as the CPU (row by row, left to right), so mean pixels match it to the last rounding step.
#include <cmath>

#include "common.cuh"

namespace attnscope::cuda {

namespace {

/// out (H, sr, sc): each pixel the max or mean of its bin of M (H, n, m).
__global__ void pooled_view_kernel(const float* M, int H, int n, int m, int sr, int sc, bool use_max, float* out) {
    const int64_t pixel = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t per_head = int64_t(sr) * sc;
    if (pixel >= per_head * H) return;
    const int64_t h = pixel / per_head;
    const int64_t bi = (pixel % per_head) / sc, bj = pixel % sc;
    const int64_t i0 = pool_bin_begin(bi, n, sr), i1 = pool_bin_end(bi, n, sr);
    const int64_t j0 = pool_bin_begin(bj, m, sc), j1 = pool_bin_end(bj, m, sc);
    float acc = use_max ? -INFINITY : 0.0f;
    for (int64_t i = i0; i < i1; ++i) {
        const float* row = M + (h * n + i) * m;
        for (int64_t j = j0; j < j1; ++j) acc = use_max ? fmaxf(acc, row[j]) : acc + row[j];
    }
    if (!use_max) acc /= float((i1 - i0) * (j1 - j0));
    out[pixel] = acc;
}

}  // namespace

void pooled_view(Context& ctx, const float* M, int H, int n, int m, int sr, int sc, PoolMode mode, float* out) {
    const size_t in_count = size_t(H) * n * m, out_count = size_t(H) * sr * sc;
    if (out_count == 0) return;
    require_device_memory((in_count + out_count) * sizeof(float), "the pooled view of a " + std::to_string(n) + "×" +
                                                                      std::to_string(m) + " matrix");
    DeviceBuffer<float> dM = upload(ctx, M, in_count, "the matrix to pool");
    DeviceBuffer<float> dOut(out_count, "the pooled view");
    constexpr int kThreads = 256;
    pooled_view_kernel<<<unsigned(ceil_div(int64_t(out_count), kThreads)), kThreads, 0, ctx.stream()>>>(
        dM.get(), H, n, m, sr, sc, mode == PoolMode::Max, dOut.get());
    ATTNSCOPE_CHECK_LAUNCH("pooled_view_kernel");
    download(ctx, dOut.get(), out, out_count);
}

}  // namespace attnscope::cuda

// attnscope — the pooled level-of-detail view on CUDA (kernel in pooled_view.cuh): upload, launch, download.
#include "core/backend/cuda/pooled_view.cuh"

namespace attnscope::cuda {

void pooled_view(Context& ctx, const float* M, int H, int n, int m, int sr, int sc, PoolMode mode, float* out) {
    const size_t in_count = size_t(H) * n * m, out_count = size_t(H) * sr * sc;
    if (out_count == 0) return;
    require_device_memory((in_count + out_count) * sizeof(float), "the pooled view of a " + std::to_string(n) + "×" +
                                                                      std::to_string(m) + " matrix");
    DeviceBuffer<float> dM = upload(ctx, M, in_count, "the matrix to pool");
    DeviceBuffer<float> dOut(out_count, "the pooled view");
    constexpr int kThreads = 256;
    pooled_view_kernel<<<unsigned(ceil_div(int64_t(out_count), kThreads)), kThreads, 0, ctx.stream()>>>(
        dM.get(), H, n, m, sr, sc, mode, dOut.get());
    ATTNSCOPE_CHECK_LAUNCH("pooled_view_kernel");
    download(ctx, dOut.get(), out, out_count);
}

}  // namespace attnscope::cuda

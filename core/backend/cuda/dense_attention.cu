// attnscope — dense attention on CUDA: the tiled flash kernel (flash_attention.cuh) for O and lse, and the
// materialised path for display: S = s·QKᵀ and O = P·V through cuBLAS around a row-softmax kernel that
// folds each row with the shared online-softmax functions and merges lanes with online_softmax_merge.
#include <algorithm>
#include <string>

#include "core/backend/cuda/flash_attention.cuh"
#include "core/backend/cuda/flash_attention_wide.cuh"
#include "core/backend/cuda/gemm.cuh"
#include "core/backend/cuda/softmax_rows.cuh"

namespace attnscope::cuda {

namespace {

template <int D, int BC>
void launch_flash_bucket(cudaStream_t stream, const FlashParams& p, int H) {
    constexpr int smem_bytes = flash_smem_floats(D, BC) * int(sizeof(float));
    allow_dynamic_smem(flash_attention_kernel<D, BC>, smem_bytes, "the flash kernel for head dim " + std::to_string(D),
                       "use --backend cpu");
    const dim3 grid(unsigned(ceil_div(p.n, kFlashBr)), unsigned(H));
    flash_attention_kernel<D, BC><<<grid, kFlashThreads, smem_bytes, stream>>>(p);
    ATTNSCOPE_CHECK_LAUNCH("flash_attention_kernel");
}

std::string shape_text(const AttentionShape& s) {
    return "H = " + std::to_string(s.H) + ", n = " + std::to_string(s.n) + ", m = " + std::to_string(s.m) +
           ", d = " + std::to_string(s.d) + ", dv = " + std::to_string(s.dv);
}

}  // namespace

void launch_flash_attention(cudaStream_t stream, const FlashParams& p, int H) {
    if (H == 0 || p.n == 0) return;
    if (H > 65535) throw Error("the CUDA flash kernel takes at most 65535 heads per call (got " + std::to_string(H) + ")");
    const int dim = p.d > p.dv ? p.d : p.dv;
    const bool launched =
        with_flash_bucket(dim, [&]<int D, int BC>() { launch_flash_bucket<D, BC>(stream, p, H); });
    if (!launched) launch_flash_attention_wide(stream, p, H);
}

void flash_attention(Context& ctx, const AttentionShape& s, const float* Q, const float* K, const float* V, float* O,
                     float* lse) {
    if (s.H == 0 || s.n == 0) return;
    run_flash_from_host(ctx, s, Q, K, V, O, lse, "flash attention (" + shape_text(s) + ")", launch_flash_attention);
}

void run_flash_from_host(Context& ctx, const AttentionShape& s, const float* Q, const float* K, const float* V,
                         float* O, float* lse, const std::string& what, FlashLaunch launch) {
    const size_t q = size_t(s.H) * s.n * s.d, k = size_t(s.H) * s.m * s.d, v = size_t(s.H) * s.m * s.dv;
    const size_t o = size_t(s.H) * s.n * s.dv, l = lse ? size_t(s.H) * s.n : 0;
    require_device_memory((q + k + v + o + l) * sizeof(float), what);
    const DeviceInput dQ = upload_input(ctx, Q, q, "Q"), dK = upload_input(ctx, K, k, "K"), dV = upload_input(ctx, V, v, "V");
    DeviceBuffer<float> dO(o, "O"), dL(l, "lse");
    const FlashParams p{dQ.get(), dK.get(), dV.get(), dO.get(), lse ? dL.get() : nullptr, s.n, s.m, s.d, s.dv,
                        s.scale, s.causal, s.mod};
    launch(ctx.stream(), p, s.H);
    download(ctx, dO.get(), O, o);
    if (lse) download(ctx, dL.get(), lse, l);
}

void materialised_attention(Context& ctx, const AttentionShape& s, const float* Q, const float* K, const float* V,
                            float* O, float* lse, float* P) {
    if (s.H == 0 || s.n == 0) return;
    const size_t q = size_t(s.H) * s.n * s.d, k = size_t(s.H) * s.m * s.d, v = size_t(s.H) * s.m * s.dv;
    const size_t o = size_t(s.H) * s.n * s.dv, l = lse ? size_t(s.H) * s.n : 0, pc = size_t(s.H) * s.n * s.m;
    require_device_memory((q + k + v + o + l + pc) * sizeof(float),
                          "dense attention with P materialised (" + shape_text(s) + ")");
    const DeviceInput dQ = upload_input(ctx, Q, q, "Q"), dK = upload_input(ctx, K, k, "K"), dV = upload_input(ctx, V, v, "V");
    DeviceBuffer<float> dP(pc, "P (n×m per head)"), dO(o, "O"), dL(l, "lse");
    // S = s·Q·Kᵀ, (H, n, m).
    gemm_device(ctx, {dQ.get(), s.H, s.n, s.d}, false, {dK.get(), s.H, s.m, s.d}, true, s.scale, 0.0f, dP.get(), s.H,
                s.n, s.m);
    const int64_t rows = int64_t(s.H) * s.n;
    if (s.mod.kind != ScoreModKind::None) {
        constexpr int kThreads = 256;
        const int64_t blocks = std::min<int64_t>(ceil_div(rows * s.m, int64_t(kThreads)), 65535);
        score_mod_rows_kernel<<<unsigned(blocks), kThreads, 0, ctx.stream()>>>(dP.get(), rows, s.n, s.m, s.mod);
        ATTNSCOPE_CHECK_LAUNCH("score_mod_rows_kernel");
    }
    softmax_rows_kernel<<<unsigned(ceil_div(rows, kSoftmaxWarps)), kSoftmaxWarps * kWarpSize, 0, ctx.stream()>>>(
        dP.get(), lse ? dL.get() : nullptr, rows, s.n, s.m, s.causal);
    ATTNSCOPE_CHECK_LAUNCH("softmax_rows_kernel");
    // O = P·V, (H, n, dv).
    gemm_device(ctx, {dP.get(), s.H, s.n, s.m}, false, {dV.get(), s.H, s.m, s.dv}, false, 1.0f, 0.0f, dO.get(), s.H,
                s.n, s.dv);
    download(ctx, dP.get(), P, pc);
    download(ctx, dO.get(), O, o);
    if (lse) download(ctx, dL.get(), lse, l);
}

}  // namespace attnscope::cuda

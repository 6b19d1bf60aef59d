// attnscope — dense attention on tensor cores (precision = tf32): uploads Q, K, V, launches the WMMA kernel of
// flash_attention_tc.cuh (head dims up to 128; larger ones run the fp32 flash path), downloads O and lse.
#include <string>

#include "core/backend/cuda/flash_attention_tc.cuh"

namespace attnscope::cuda {

namespace {

template <int D, int BC>
void launch_tf32_bucket(cudaStream_t stream, const FlashParams& p, int H) {
    constexpr int smem_bytes = flash_tf32_smem_floats(D, BC) * int(sizeof(float));
    allow_dynamic_smem(flash_attention_tf32_kernel<D, BC>, smem_bytes,
                       "the tensor-core flash kernel for head dim " + std::to_string(D),
                       "use precision=fp32 or --backend cpu");
    const dim3 grid(unsigned(ceil_div(p.n, kFlashBr)), unsigned(H));
    flash_attention_tf32_kernel<D, BC><<<grid, kFlashThreads, smem_bytes, stream>>>(p);
    ATTNSCOPE_CHECK_LAUNCH("flash_attention_tf32_kernel");
}

}  // namespace

void launch_flash_attention_tf32(cudaStream_t stream, const FlashParams& p, int H) {
    if (H == 0 || p.n == 0) return;
    if (H > 65535) throw Error("the CUDA flash kernel takes at most 65535 heads per call (got " + std::to_string(H) + ")");
    const int dim = p.d > p.dv ? p.d : p.dv;
    if (!with_flash_bucket(dim, [&]<int D, int BC>() { launch_tf32_bucket<D, BC>(stream, p, H); }))
        throw Error("the tensor-core flash kernel supports head dims up to " + std::to_string(kMaxFlashHeadDim) +
                    " (got d = " + std::to_string(p.d) + ", dv = " + std::to_string(p.dv) + "): use precision=fp32");
}

void flash_attention_tf32(Context& ctx, const AttentionShape& s, const float* Q, const float* K, const float* V,
                          float* O, float* lse) {
    if (s.H == 0 || s.n == 0) return;
    if (s.d > kMaxFlashHeadDim || s.dv > kMaxFlashHeadDim) return flash_attention(ctx, s, Q, K, V, O, lse);
    run_flash_from_host(ctx, s, Q, K, V, O, lse,
                        "tensor-core flash attention (H = " + std::to_string(s.H) + ", n = " + std::to_string(s.n) +
                            ", m = " + std::to_string(s.m) + ", d = " + std::to_string(s.d) + ")",
                        launch_flash_attention_tf32);
}

}  // namespace attnscope::cuda

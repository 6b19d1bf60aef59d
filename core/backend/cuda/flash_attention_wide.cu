// attnscope — launch of the flash kernel for head dims above 128 (flash_attention_wide.cuh); dense_attention.cu
// routes head dims its buckets do not serve here.
#include <string>

#include "core/backend/cuda/flash_attention_wide.cuh"

namespace attnscope::cuda {

void launch_flash_attention_wide(cudaStream_t stream, const FlashParams& p, int H) {
    if (H == 0 || p.n == 0) return;
    constexpr int D = kMaxFlashHeadDim, BC = 32;
    const int slices = attention_output_slices(true, p.dv);
    if (H > 65535 || slices > 65535)
        throw Error("the CUDA flash kernel takes at most 65535 heads and value dims up to " +
                    std::to_string(65535 * D) + " (got H = " + std::to_string(H) + ", dv = " + std::to_string(p.dv) +
                    "): use --backend cpu");
    constexpr int smem_bytes = flash_smem_floats(D, BC) * int(sizeof(float));
    allow_dynamic_smem(flash_attention_wide_kernel<D, BC>, smem_bytes, "the wide flash kernel", "use --backend cpu");
    const dim3 grid(unsigned(ceil_div(p.n, kFlashBr)), unsigned(H), unsigned(slices));
    flash_attention_wide_kernel<D, BC><<<grid, kFlashThreads, smem_bytes, stream>>>(p);
    ATTNSCOPE_CHECK_LAUNCH("flash_attention_wide_kernel");
}

}  // namespace attnscope::cuda

// attnscope — dense attention through CUTLASS's fused multi-head attention: CUTLASS's examples/41 kernel from the
// pinned nvidia-cutlass wheel (scripts/setup.sh), the kernel torch's memory-efficient scaled_dot_product_attention
// runs. On float inputs its products run 3×TF32 on tensor cores (CUTLASS's OpMultiplyAddFastF32: about fp32's
// accuracy); for bf16 and fp16, Q, K and V are rounded on the device (narrow.cuh) from their float copies, the products
// run at 16 bits with fp32 accumulation and softmax, and O is widened back to float there. Heads run as CUTLASS's
// batches of one head each, so Q, K, V and O keep attnscope's (H, rows, dims) layout; the kernel writes the lse in
// rows padded to 32 per head, compacted here. attnscope's own kernels (flash_attention.cuh) stay the teaching versions.
#include <kernel_forward.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/backend/cuda/common.cuh"
#include "core/backend/cuda/narrow.cuh"

namespace attnscope::cuda {

namespace {

/// CUTLASS's forward kernel for element type T: kQueries × kKeys tiles, head dims up to kMaxK, aligned loads, no
/// dropout, no bias. Sm80's tensor-core code, which sm_86, sm_89 and sm_90 run as well.
template <class T, int kQueries, int kKeys, int kMaxK>
using CutlassAttention = AttentionKernel<T, cutlass::arch::Sm80, true, kQueries, kKeys, kMaxK, false, false>;

/// Launches kernel AK on the context's stream over (H, n, d) inputs of its element type; lse_padded (H, ⌈n/32⌉·32)
/// may be nullptr.
template <class AK>
void launch_cutlass(const Context& ctx, const AttentionShape& s, const void* Q, const void* K, const void* V, void* O,
                    float* lse_padded) {
    using T = typename AK::scalar_t;
    static_assert(!AK::kNeedsOutputAccumulatorBuffer, "one pass over the value columns: O accumulates in registers");
    typename AK::Params p;
    p.query_ptr = static_cast<T*>(const_cast<void*>(Q));
    p.key_ptr = static_cast<T*>(const_cast<void*>(K));
    p.value_ptr = static_cast<T*>(const_cast<void*>(V));
    p.output_ptr = static_cast<T*>(O);
    p.logsumexp_ptr = lse_padded;
    p.scale = s.scale;
    p.head_dim = s.d, p.head_dim_value = s.dv, p.num_queries = s.n, p.num_keys = s.m;
    p.custom_mask_type = s.causal ? AK::CausalFromTopLeft : AK::NoCustomMask;  // j ≤ i
    // One head per batch: a head is a row-major (rows, dims) block, batch b starts at b·rows·dims, and O lands at
    // b·n·dv, which is attnscope's layout. The head strides equal the batch strides (they are never stepped with one
    // head, but a zero head stride would select CUTLASS's single-query path).
    p.q_strideM = s.d, p.k_strideM = s.d, p.v_strideM = s.dv, p.o_strideM = s.dv;
    p.q_strideH = s.n * s.d, p.k_strideH = s.m * s.d, p.v_strideH = s.m * s.dv;
    p.q_strideB = int64_t(s.n) * s.d, p.k_strideB = int64_t(s.m) * s.d, p.v_strideB = int64_t(s.m) * s.dv;
    p.num_batches = s.H, p.num_heads = 1;
    if (!AK::check_supported(p))
        throw Error("CUTLASS's attention kernel refused the shape (H = " + std::to_string(s.H) + ", n = " +
                    std::to_string(s.n) + ", d = " + std::to_string(s.d) + ", dv = " + std::to_string(s.dv) +
                    "): use kernel own");
    constexpr auto kernel = attention_kernel_batched_impl<AK>;
    const int smem_bytes = int(sizeof(typename AK::SharedStorage));
    allow_dynamic_smem(kernel, smem_bytes, "CUTLASS's attention kernel", "use kernel own");
    kernel<<<p.getBlocksGrid(), p.getThreadsGrid(), smem_bytes, ctx.stream()>>>(p);
    ATTNSCOPE_CHECK_LAUNCH("attention_kernel_batched_impl (CUTLASS)");
}

/// The tile shapes torch's memory-efficient attention picks on sm_80+: 64 × 64 up to head dim 64, 32 × 128 above.
template <class T>
void launch_for_head_dim(const Context& ctx, const AttentionShape& s, const void* Q, const void* K, const void* V,
                         void* O, float* lse_padded) {
    if (std::max(s.d, s.dv) <= 64)
        launch_cutlass<CutlassAttention<T, 64, 64, 64>>(ctx, s, Q, K, V, O, lse_padded);
    else
        launch_cutlass<CutlassAttention<T, 32, 128, 128>>(ctx, s, Q, K, V, O, lse_padded);
}

/// y = x rounded to 16 bits (Bf16 or F16) on the context's stream.
void narrow_on_device(const Context& ctx, CutlassElement element, const float* x, uint16_t* y, size_t count) {
    const unsigned blocks = unsigned(ceil_div(int64_t(count), kConvertThreads));
    if (element == CutlassElement::Bf16)
        narrow_kernel<true><<<blocks, kConvertThreads, 0, ctx.stream()>>>(x, y, int64_t(count));
    else
        narrow_kernel<false><<<blocks, kConvertThreads, 0, ctx.stream()>>>(x, y, int64_t(count));
    ATTNSCOPE_CHECK_LAUNCH("narrow_kernel");
}

/// x = the floats of 16-bit y (Bf16 or F16) on the context's stream.
void widen_on_device(const Context& ctx, CutlassElement element, const uint16_t* y, float* x, size_t count) {
    const unsigned blocks = unsigned(ceil_div(int64_t(count), kConvertThreads));
    if (element == CutlassElement::Bf16)
        widen_kernel<true><<<blocks, kConvertThreads, 0, ctx.stream()>>>(y, x, int64_t(count));
    else
        widen_kernel<false><<<blocks, kConvertThreads, 0, ctx.stream()>>>(y, x, int64_t(count));
    ATTNSCOPE_CHECK_LAUNCH("widen_kernel");
}

/// Launches the kernel of `element` for the head dims of s.
void launch_element(const Context& ctx, const AttentionShape& s, CutlassElement element, const void* Q, const void* K,
                    const void* V, void* O, float* lse_padded) {
    switch (element) {
        case CutlassElement::F32: launch_for_head_dim<float>(ctx, s, Q, K, V, O, lse_padded); break;
        case CutlassElement::Bf16: launch_for_head_dim<cutlass::bfloat16_t>(ctx, s, Q, K, V, O, lse_padded); break;
        case CutlassElement::F16: launch_for_head_dim<cutlass::half_t>(ctx, s, Q, K, V, O, lse_padded); break;
    }
}

}  // namespace

void flash_attention_cutlass(Context& ctx, const AttentionShape& s, CutlassElement element, const float* Q,
                             const float* K, const float* V, float* O, float* lse) {
    if (s.H == 0 || s.n == 0) return;
    const bool f32 = element == CutlassElement::F32;
    const size_t q = size_t(s.H) * s.n * s.d, k = size_t(s.H) * s.m * s.d, v = size_t(s.H) * s.m * s.dv;
    const size_t o = size_t(s.H) * s.n * s.dv;
    const int lse_rows = int(ceil_div(s.n, 32));  // CUTLASS's kAlignLSE rows per head, in units of 32
    const size_t l = lse ? size_t(s.H) * lse_rows * 32 : 0;
    const size_t narrow_bytes = f32 ? 0 : (q + k + v + o) * sizeof(uint16_t);
    require_device_memory((q + k + v + o) * sizeof(float) + narrow_bytes + l * sizeof(float),
                          "CUTLASS attention (H = " + std::to_string(s.H) + ", n = " + std::to_string(s.n) + ")");
    // The float inputs are the caller's tensors (served from the device when kept resident).
    const DeviceInput dQ = upload_input(ctx, Q, q, "Q"), dK = upload_input(ctx, K, k, "K"), dV = upload_input(ctx, V, v, "V");
    DeviceBuffer<float> dO(o, "O");
    DeviceBuffer<float> dL(l, "lse (rows padded to 32)");
    float* lse_padded = lse ? dL.get() : nullptr;
    if (f32) {
        launch_element(ctx, s, element, dQ.get(), dK.get(), dV.get(), dO.get(), lse_padded);
    } else {
        DeviceBuffer<uint16_t> hQ(q, "Q (16-bit)"), hK(k, "K (16-bit)"), hV(v, "V (16-bit)"), hO(o, "O (16-bit)");
        narrow_on_device(ctx, element, dQ.get(), hQ.get(), q);
        narrow_on_device(ctx, element, dK.get(), hK.get(), k);
        narrow_on_device(ctx, element, dV.get(), hV.get(), v);
        launch_element(ctx, s, element, hQ.get(), hK.get(), hV.get(), hO.get(), lse_padded);
        widen_on_device(ctx, element, hO.get(), dO.get(), o);
    }
    download(ctx, dO.get(), O, o);
    if (!lse) return;
    std::vector<float> padded(l);
    download(ctx, dL.get(), padded.data(), l);
    for (int h = 0; h < s.H; ++h)
        std::copy_n(padded.data() + size_t(h) * lse_rows * 32, s.n, lse + size_t(h) * s.n);
}

}  // namespace attnscope::cuda

// attnscope — dense attention through CUTLASS's fused multi-head attention: CUTLASS's examples/41 kernel from the
// pinned nvidia-cutlass wheel (scripts/setup.sh), the kernel torch's memory-efficient scaled_dot_product_attention
// runs. On float inputs its products run 3×TF32 on tensor cores (CUTLASS's OpMultiplyAddFastF32: about fp32's
// accuracy); on bf16 and fp16 inputs they run at 16 bits with fp32 accumulation and softmax. Heads run as CUTLASS's
// batches of one head each, so Q, K, V and O keep attnscope's (H, rows, dims) layout; the kernel writes the lse in
// rows padded to 32 per head, compacted here. attnscope's own kernels (flash_attention.cuh) stay the teaching versions.
#include <kernel_forward.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/backend/cuda/common.cuh"

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

}  // namespace

void flash_attention_cutlass(Context& ctx, const AttentionShape& s, CutlassElement element, const void* Q,
                             const void* K, const void* V, void* O, float* lse) {
    if (s.H == 0 || s.n == 0) return;
    const size_t bytes = element == CutlassElement::F32 ? sizeof(float) : sizeof(uint16_t);
    const size_t q = size_t(s.H) * s.n * s.d, k = size_t(s.H) * s.m * s.d, v = size_t(s.H) * s.m * s.dv;
    const size_t o = size_t(s.H) * s.n * s.dv;
    const int lse_rows = int(ceil_div(s.n, 32));  // CUTLASS's kAlignLSE rows per head, in units of 32
    const size_t l = lse ? size_t(s.H) * lse_rows * 32 : 0;
    require_device_memory((q + k + v + o) * bytes + l * sizeof(float),
                          "CUTLASS attention (H = " + std::to_string(s.H) + ", n = " + std::to_string(s.n) + ")");
    // Float inputs are the caller's tensors (kept on the device when resident); 16-bit ones are made per call.
    const bool f32 = element == CutlassElement::F32;
    const auto staged = [&](const void* host, size_t count, const char* what) {
        std::pair<DeviceInput, DeviceBuffer<unsigned char>> out;
        if (f32) {
            out.first = upload_input(ctx, static_cast<const float*>(host), count, what);
        } else {
            out.second = DeviceBuffer<unsigned char>(count * bytes, what);
            copy_to_device(ctx, out.second.get(), host, count * bytes);
        }
        return out;
    };
    const auto iQ = staged(Q, q, "Q"), iK = staged(K, k, "K"), iV = staged(V, v, "V");
    const auto device = [&](const auto& in) -> const void* { return f32 ? static_cast<const void*>(in.first.get())
                                                                        : static_cast<const void*>(in.second.get()); };
    const void *dQ = device(iQ), *dK = device(iK), *dV = device(iV);
    DeviceBuffer<unsigned char> dO(o * bytes, "O");
    DeviceBuffer<float> dL(l, "lse (rows padded to 32)");
    float* lse_padded = lse ? dL.get() : nullptr;
    switch (element) {
        case CutlassElement::F32:
            launch_for_head_dim<float>(ctx, s, dQ, dK, dV, dO.get(), lse_padded);
            break;
        case CutlassElement::Bf16:
            launch_for_head_dim<cutlass::bfloat16_t>(ctx, s, dQ, dK, dV, dO.get(), lse_padded);
            break;
        case CutlassElement::F16:
            launch_for_head_dim<cutlass::half_t>(ctx, s, dQ, dK, dV, dO.get(), lse_padded);
            break;
    }
    copy_to_host(ctx, O, dO.get(), o * bytes);
    if (!lse) return;
    std::vector<float> padded(l);
    download(ctx, dL.get(), padded.data(), l);
    for (int h = 0; h < s.H; ++h)
        std::copy_n(padded.data() + size_t(h) * lse_rows * 32, s.n, lse + size_t(h) * s.n);
}

}  // namespace attnscope::cuda

// attnscope — linear attention on CUDA: the pipeline of linear_attention.cuh run with cuBLAS GEMMs and real
// kernel launches on the context's stream (DeviceOps); inputs uploaded, O and D downloaded.
#include <string>

#include "core/backend/cuda/device_ops.cuh"
#include "core/backend/cuda/linear_attention.cuh"

namespace attnscope::cuda {

void linear_attention(Context& ctx, const LinearAttentionShape& s, const float* phi_Q, const float* phi_K,
                      const float* V, float* O, float* denom) {
    if (s.H == 0 || s.n == 0) return;
    const size_t q = size_t(s.H) * s.n * s.f, k = size_t(s.H) * s.m * s.f, v = size_t(s.H) * s.m * s.dv;
    const size_t o = size_t(s.H) * s.n * s.dv, d = denom ? size_t(s.H) * s.n : 0;
    require_device_memory((q + k + v + o + d + size_t(linear_attention_scratch_floats(s))) * sizeof(float),
                          std::string(s.causal ? "causal" : "bidirectional") + " linear attention (H = " +
                              std::to_string(s.H) + ", n = " + std::to_string(s.n) + ", " + std::to_string(s.f) +
                              " features)");
    const DeviceInput dQ = upload_input(ctx, phi_Q, q, "φQ"), dK = upload_input(ctx, phi_K, k, "φK");
    const DeviceInput dV = upload_input(ctx, V, v, "V");
    DeviceBuffer<float> dO(o, "O"), dD(d, "D");
    {
        DeviceOps ops(ctx);
        run_linear_attention(ops, s, dQ.get(), dK.get(), dV.get(), dO.get(), denom ? dD.get() : nullptr);
        ctx.synchronize("linear attention");  // scratch is freed when ops goes out of scope
    }
    download(ctx, dO.get(), O, o);
    if (denom) download(ctx, dD.get(), denom, d);
}

}  // namespace attnscope::cuda

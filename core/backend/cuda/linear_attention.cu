// attnscope — linear attention on CUDA: the pipeline of linear_attention.cuh run with cuBLAS GEMMs and real
// kernel launches on the context's stream (DeviceOps). linear_attention uploads φ(Q), φ(K) and V and downloads O and
// D; kernel_attention makes φ(Q), φ(K) on the device (feature_maps.cu) and keeps them there, so only O and D cross.
#include <algorithm>
#include <string>

#include "core/backend/cuda/device_ops.cuh"
#include "core/backend/cuda/linear_attention.cuh"

namespace attnscope::cuda {

namespace {

/// O (and D when dD is not nullptr) from φ(Q), φ(K) and V already on the device.
void linear_attention_on_device(Context& ctx, const LinearAttentionShape& s, const float* dQ, const float* dK,
                                const float* dV, float* dO, float* dD) {
    DeviceOps ops(ctx);
    run_linear_attention(ops, s, dQ, dK, dV, dO, dD);
    ctx.synchronize("linear attention");  // scratch is freed when ops goes out of scope
}

/// Bytes of device memory linear attention needs besides its inputs: O, D (when asked for) and its scratch.
size_t linear_attention_bytes(const LinearAttentionShape& s, bool denom) {
    const size_t o = size_t(s.H) * s.n * s.dv, d = denom ? size_t(s.H) * s.n : 0;
    return (o + d + size_t(linear_attention_scratch_floats(s))) * sizeof(float);
}

std::string linear_attention_what(const LinearAttentionShape& s) {
    return std::string(s.causal ? "causal" : "bidirectional") + " linear attention (H = " + std::to_string(s.H) +
           ", n = " + std::to_string(s.n) + ", " + std::to_string(s.f) + " features)";
}

}  // namespace

void linear_attention(Context& ctx, const LinearAttentionShape& s, const float* phi_Q, const float* phi_K,
                      const float* V, float* O, float* denom) {
    if (s.H == 0 || s.n == 0) return;
    const size_t q = size_t(s.H) * s.n * s.f, k = size_t(s.H) * s.m * s.f, v = size_t(s.H) * s.m * s.dv;
    const size_t o = size_t(s.H) * s.n * s.dv, d = denom ? size_t(s.H) * s.n : 0;
    require_device_memory((q + k + v) * sizeof(float) + linear_attention_bytes(s, denom), linear_attention_what(s));
    const DeviceInput dQ = upload_input(ctx, phi_Q, q, "φQ"), dK = upload_input(ctx, phi_K, k, "φK");
    const DeviceInput dV = upload_input(ctx, V, v, "V");
    DeviceBuffer<float> dO(o, "O"), dD(d, "D");
    linear_attention_on_device(ctx, s, dQ.get(), dK.get(), dV.get(), dO.get(), denom ? dD.get() : nullptr);
    download(ctx, dO.get(), O, o);
    if (denom) download(ctx, dD.get(), denom, d);
}

void kernel_attention(Context& ctx, const FeatureMapCall& q_call, const FeatureMapCall& k_call, const float* Q,
                      const float* K, const float* omega_q, const float* omega_k, const LinearAttentionShape& s,
                      const float* V, float* O, float* denom) {
    if (s.H == 0 || s.n == 0) return;
    const size_t xq = size_t(q_call.H) * q_call.n * q_call.d, xk = size_t(k_call.H) * k_call.n * k_call.d;
    const size_t wq = feature_map_omega_floats(q_call), wk = feature_map_omega_floats(k_call);
    const size_t q = size_t(s.H) * s.n * s.f, k = size_t(s.H) * s.m * s.f, v = size_t(s.H) * s.m * s.dv;
    const size_t o = size_t(s.H) * s.n * s.dv, d = denom ? size_t(s.H) * s.n : 0;
    const size_t map_scratch = std::max(feature_map_scratch_floats(q_call), feature_map_scratch_floats(k_call));
    require_device_memory((xq + xk + wq + wk + q + k + v + map_scratch) * sizeof(float) +
                              linear_attention_bytes(s, denom),
                          "kernel attention: feature maps and " + linear_attention_what(s));
    DeviceBuffer<float> dPhiQ(q, "φ(Q)"), dPhiK(k, "φ(K)");
    {
        const DeviceInput dX = upload_input(ctx, Q, xq, "Q"), dW = upload_input(ctx, omega_q, wq, "ω");
        feature_map_on_device(ctx, q_call, dX.get(), dW.get(), dPhiQ.get());
    }
    {
        const DeviceInput dX = upload_input(ctx, K, xk, "K"), dW = upload_input(ctx, omega_k, wk, "ω");
        feature_map_on_device(ctx, k_call, dX.get(), dW.get(), dPhiK.get());
    }
    const DeviceInput dV = upload_input(ctx, V, v, "V");
    DeviceBuffer<float> dO(o, "O"), dD(d, "D");
    linear_attention_on_device(ctx, s, dPhiQ.get(), dPhiK.get(), dV.get(), dO.get(), denom ? dD.get() : nullptr);
    download(ctx, dO.get(), O, o);
    if (denom) download(ctx, dD.get(), denom, d);
}

}  // namespace attnscope::cuda

// attnscope — feature maps on CUDA: the kernels of feature_maps.cuh (the FAVOR kinds through run_favor_map with
// DeviceOps) on device memory (feature_map_on_device, which kernel attention also runs), and the host entry that
// uploads X (and ω) and downloads φ(X).
#include <string>

#include "core/backend/cuda/device_ops.cuh"
#include "core/backend/cuda/feature_maps.cuh"

namespace attnscope::cuda {

size_t feature_map_scratch_floats(const FeatureMapCall& call) {
    return call.kind <= FeatureMapKernel::FavorRelu ? size_t(call.H) * call.n * (size_t(call.m) + 3) : 0;
}

size_t feature_map_omega_floats(const FeatureMapCall& call) {
    return call.kind <= FeatureMapKernel::FavorRelu ? size_t(call.omega_heads) * call.m * call.d : 0;
}

void feature_map_on_device(Context& ctx, const FeatureMapCall& call, const float* dX, const float* dW, float* dOut) {
    if (call.H == 0 || call.n == 0) return;  // nothing to map (a launch of no blocks is an error)
    FeatureMapShape s;
    s.H = call.H, s.n = call.n, s.d = call.d, s.cols = call.cols, s.offset = call.prepend_one ? 1 : 0, s.add = call.add;
    DeviceOps ops(ctx);
    switch (call.kind) {
        case FeatureMapKernel::EluPlusOne:
        case FeatureMapKernel::SoftmaxRows:
        case FeatureMapKernel::L2Normalise: {
            const RowMapKind kind = call.kind == FeatureMapKernel::EluPlusOne    ? RowMapKind::EluPlusOne
                                    : call.kind == FeatureMapKernel::SoftmaxRows ? RowMapKind::SoftmaxRows
                                                                                 : RowMapKind::L2Normalise;
            ops.launch(int64_t(s.H) * s.n, row_map_kernel, dX, s, kind, dOut);
            break;
        }
        case FeatureMapKernel::SoftmaxPositions:
            ops.launch(int64_t(s.H) * s.d, softmax_positions_kernel, dX, s, dOut);
            break;
        default:
            run_favor_map(ops, s, dX, dW, call.omega_heads, call.m, call.x_scale, call.is_query,
                          static_cast<fmap::FavorKind>(int(call.kind)), dOut);
    }
    if (call.kind <= FeatureMapKernel::FavorRelu) ctx.synchronize("a feature map");  // ops frees the FAVOR scratch
}

void feature_map(Context& ctx, const FeatureMapCall& call, const float* X, const float* omega, float* out) {
    if (call.H == 0 || call.n == 0) return;
    const size_t x = size_t(call.H) * call.n * call.d, o = size_t(call.H) * call.n * call.cols;
    const size_t w = feature_map_omega_floats(call);
    require_device_memory((x + o + w + feature_map_scratch_floats(call)) * sizeof(float),
                          "a feature map of H = " + std::to_string(call.H) + ", n = " + std::to_string(call.n) +
                              " rows into " + std::to_string(call.cols) + " columns");
    const DeviceInput dX = upload_input(ctx, X, x, "X"), dW = upload_input(ctx, omega, w, "ω");
    DeviceBuffer<float> dOut(o, "φ(X)");
    feature_map_on_device(ctx, call, dX.get(), dW.get(), dOut.get());
    download(ctx, dOut.get(), out, o);
}

}  // namespace attnscope::cuda

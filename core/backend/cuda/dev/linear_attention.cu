/*
Feature map + linear attention forward (Katharopoulos et al. 2020: φ = elu + 1), developed in isolation (llm.c
style): a CPU reference, numbered kernel versions behind one switch, element-wise validation of every version,
then timing with CUDA events. O_i = Σ_j (φq_i·φk_j) v_j / Σ_j φq_i·φk_j over all j (bidirectional) or j ≤ i
(causal).

Build: the CMake target `linear_attention_dev` (built with the CUDA backend).
Run (needs an NVIDIA GPU):
  ./linear_attention_dev KERNEL [n] [d] [H] [causal] [chunk]   defaults: n = 4096, d = 64, H = 8, causal = 0, 64
  version 1: naive quadratic form, one thread per (head, row, value column) (obviously right, O(n²))
  version 2: the production pipeline: row_map_kernel (φ) then run_linear_attention with DeviceOps (cuBLAS
             bidirectional; causal by chunk states + exclusive scan + masked chunk GEMMs), as the library runs it
*/
#include <cstdlib>
#include <string>

#include "core/backend/cuda/dev/dev_common.cuh"
#include "core/backend/cuda/device_ops.cuh"
#include "core/backend/cuda/feature_maps.cuh"
#include "core/backend/cuda/linear_attention.cuh"

using namespace attnscope;
using namespace attnscope::cuda;

// ----------------------------------------------------------------------------
// CPU reference in double: φ, then the quadratic form (numerically the definition).

void linear_cpu(std::vector<float>& O, const std::vector<float>& Q, const std::vector<float>& K,
                const std::vector<float>& V, int H, int n, int d, bool causal) {
    std::vector<double> fq(static_cast<size_t>(d)), fk(static_cast<size_t>(n) * d);
    for (int h = 0; h < H; ++h) {
        for (size_t e = 0; e < fk.size(); ++e) fk[e] = fmap::elu_plus_one(double(K[size_t(h) * n * d + e]));
        for (int i = 0; i < n; ++i) {
            for (int f = 0; f < d; ++f) fq[size_t(f)] = fmap::elu_plus_one(double(Q[(size_t(h) * n + i) * d + f]));
            std::vector<double> num(size_t(d), 0.0);
            double den = 0;
            for (int j = 0; j < (causal ? i + 1 : n); ++j) {
                double w = 0;
                for (int f = 0; f < d; ++f) w += fq[size_t(f)] * fk[size_t(j) * d + f];
                den += w;
                for (int f = 0; f < d; ++f) num[size_t(f)] += w * V[(size_t(h) * n + j) * d + f];
            }
            for (int f = 0; f < d; ++f) O[(size_t(h) * n + i) * d + f] = float(num[size_t(f)] / den);
        }
    }
}

// ----------------------------------------------------------------------------
// GPU kernels

// Version 1: one thread per (head, row, value column), the quadratic form with φ applied on the fly.
__global__ void linear_naive_kernel(const float* Q, const float* K, const float* V, int H, int n, int d, bool causal,
                                    float* O) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= int64_t(H) * n * d) return;
    const int col = int(idx % d);
    const int64_t row = idx / d, h = row / n;
    const int i = int(row % n);
    float num = 0.0f, den = 0.0f;
    for (int j = 0; j < (causal ? i + 1 : n); ++j) {
        float w = 0.0f;
        for (int f = 0; f < d; ++f)
            w = fmaf(fmap::elu_plus_one(Q[row * d + f]), fmap::elu_plus_one(K[(h * n + j) * d + f]), w);
        den += w;
        num = fmaf(w, V[(h * n + j) * d + col], num);
    }
    O[idx] = num / den;
}

// ----------------------------------------------------------------------------

int run(int version, int n, int d, int H, bool causal, int chunk) {
    std::printf("linear attention dev: version %d, H = %d, n = %d, d = dv = %d, %s, chunk %d\n", version, H, n, d,
                causal ? "causal" : "bidirectional", chunk);
    const size_t count = size_t(H) * n * d;
    const std::vector<float> Q = dev::normal_floats(count, 1), K = dev::normal_floats(count, 2),
                             V = dev::normal_floats(count, 3);
    std::vector<float> O(count);
    linear_cpu(O, Q, K, V, H, n, d, causal);

    Context ctx;
    DeviceBuffer<float> dQ = dev::to_device(Q, "Q"), dK = dev::to_device(K, "K"), dV = dev::to_device(V, "V");
    DeviceBuffer<float> dPhiQ(count, "φQ"), dPhiK(count, "φK"), dO(count, "O");
    FeatureMapShape fs;
    fs.H = H, fs.n = n, fs.d = d, fs.cols = d;
    LinearAttentionShape s;
    s.H = H, s.n = n, s.m = n, s.f = d, s.dv = d, s.causal = causal, s.chunk = chunk;
    const auto launch = [&](int v) {
        if (v == 1) {
            constexpr int kThreads = 128;
            linear_naive_kernel<<<unsigned(ceil_div(int64_t(count), kThreads)), kThreads, 0, ctx.stream()>>>(
                dQ.get(), dK.get(), dV.get(), H, n, d, causal, dO.get());
            ATTNSCOPE_CHECK_LAUNCH("linear_naive_kernel");
        } else if (v == 2) {
            DeviceOps ops(ctx);
            ops.launch(int64_t(H) * n, row_map_kernel, dQ.get(), fs, RowMapKind::EluPlusOne, dPhiQ.get());
            ops.launch(int64_t(H) * n, row_map_kernel, dK.get(), fs, RowMapKind::EluPlusOne, dPhiK.get());
            run_linear_attention(ops, s, dPhiQ.get(), dPhiK.get(), dV.get(), dO.get(), nullptr);
            ctx.synchronize("linear attention");  // scratch is freed with ops
        } else {
            throw Error("unknown kernel version " + std::to_string(v) + ": choose 1 or 2");
        }
    };
    bool ok = true;
    for (int v = 1; v <= 2; ++v) {
        dev::poison(dO);
        launch(v);
        ctx.synchronize("validation");
        std::printf("version %d\n", v);
        ok &= dev::validate("  O", dO.get(), O, 1e-5f, 1e-4f);
    }
    if (!ok) return 1;
    // The context's stream is not the default stream: time around a synchronised launch.
    const float ms = dev::time_ms(10, [&] {
        launch(version);
        ctx.synchronize("timing");
    });
    std::printf("version %d: %.4f ms (%s)\n", version, double(ms),
                version == 1 ? "O(n²·d²) naive" : "O(n·d²) features + states");
    return 0;
}

int main(int argc, char** argv) {
    const int version = dev::int_arg(argc, argv, 1, 2);
    const int n = dev::int_arg(argc, argv, 2, 4096);
    const int d = dev::int_arg(argc, argv, 3, 64);
    const int H = dev::int_arg(argc, argv, 4, 8);
    const bool causal = dev::int_arg(argc, argv, 5, 0) != 0;
    const int chunk = dev::int_arg(argc, argv, 6, 64);
    if (n < 1 || d < 1 || H < 1 || chunk < 1) {
        std::fprintf(stderr, "usage: %s KERNEL [n >= 1] [d >= 1] [H >= 1] [causal 0|1] [chunk >= 1]\n", argv[0]);
        return 2;
    }
    try {
        return run(version, n, d, H, causal, chunk);
    } catch (const Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}

/*
Flash attention forward, developed in isolation (llm.c style): a CPU reference, numbered kernel versions
behind one switch, element-wise validation of every version against the reference (absolute + relative
tolerance, first mismatches printed), then timing with CUDA events.

Build: the CMake target `flash_attention_dev` (built with the CUDA backend), or by hand from the repo root:
  nvcc -O3 -std=c++20 -lineinfo -arch=sm_80 -I. -Ikernels core/backend/cuda/dev/flash_attention.cu \
       core/backend/cuda/common.cu core/backend/cuda/dense_attention.cu core/backend/cuda/gemm.cu -lcublas -o flash_attention_dev

Run (needs an NVIDIA GPU):
  ./flash_attention_dev KERNEL [n] [d] [H] [causal] [DUMP_DIR]   defaults: n = 1024, d = 64, H = 8, causal = 0
  DUMP_DIR: also write q, k, v (inputs), o, lse (version 2's outputs) as raw float32 and meta.txt, for
  scripts/gpu_torch_compare.py (flash against torch's scaled_dot_product_attention on the same GPU)
  version 1: naive, one thread per query row, online softmax over all keys (no shared memory)
  version 2: the production kernel (core/backend/cuda/flash_attention.cuh via launch_flash_attention)
  version 3: the production kernel template with Bc = 32 for every head-dim bucket (tile-size experiment)
*/
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/backend/cuda/common.cuh"
#include "core/backend/cuda/dev/dev_common.cuh"
#include "core/backend/shared/online_softmax.h"
#include "core/backend/shared/random.h"
#include "core/backend/cuda/flash_attention.cuh"

using namespace attnscope;
using namespace attnscope::cuda;

// ----------------------------------------------------------------------------
// CPU reference: two passes per row in double precision.

void attention_cpu(std::vector<float>& O, std::vector<float>& lse, const std::vector<float>& Q,
                   const std::vector<float>& K, const std::vector<float>& V, int H, int n, int d, float scale,
                   bool causal) {
    std::vector<double> s(n);
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) {
            const float* q = &Q[(size_t(h) * n + i) * d];
            const int allowed = causal ? i + 1 : n;
            double mx = -INFINITY;
            for (int j = 0; j < allowed; ++j) {
                const float* k = &K[(size_t(h) * n + j) * d];
                double dot = 0;
                for (int c = 0; c < d; ++c) dot += double(scale * q[c]) * k[c];
                s[j] = dot;
                mx = std::max(mx, dot);
            }
            double sum = 0;
            for (int j = 0; j < allowed; ++j) sum += (s[j] = std::exp(s[j] - mx));
            std::vector<double> acc(d, 0.0);
            for (int j = 0; j < allowed; ++j)
                for (int c = 0; c < d; ++c) acc[c] += s[j] * V[(size_t(h) * n + j) * d + c];
            float* o = &O[(size_t(h) * n + i) * d];
            for (int c = 0; c < d; ++c) o[c] = float(acc[c] / sum);
            lse[size_t(h) * n + i] = float(mx + std::log(sum));
        }
}

// ----------------------------------------------------------------------------
// GPU kernels

// Version 1: one thread per (head, query); the output row lives in a local array (slow, obviously right).
__global__ void flash_attention_naive_kernel(FlashParams p, int H) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= int64_t(H) * p.n) return;
    const int64_t h = idx / p.n;
    const int i = int(idx % p.n);
    const float* q = p.Q + idx * p.d;
    float acc[kMaxFlashHeadDim];
    for (int c = 0; c < p.dv; ++c) acc[c] = 0.0f;
    OnlineSoftmaxRow row = online_softmax_init();
    const int allowed = p.causal ? min(p.m, i + 1) : p.m;
    for (int j = 0; j < allowed; ++j) {
        const float* k = p.K + (h * p.m + j) * p.d;
        float s = 0.0f;
        for (int c = 0; c < p.d; ++c) s = fmaf(p.scale * q[c], k[c], s);
        const float new_max = online_softmax_new_max(row, s);
        const float rescale = online_softmax_rescale(row.m, new_max);
        const float w = expf(s - new_max);
        online_softmax_update(row, new_max, w);
        const float* v = p.V + (h * p.m + j) * p.dv;
        for (int c = 0; c < p.dv; ++c) acc[c] = acc[c] * rescale + w * v[c];
    }
    const float inv = online_softmax_inv_sum(row);
    for (int c = 0; c < p.dv; ++c) p.O[idx * p.dv + c] = acc[c] * inv;
    if (p.lse) p.lse[idx] = online_softmax_lse(row);
}

// ----------------------------------------------------------------------------
// Kernel launchers

void launch_v1(const FlashParams& p, int H) {
    constexpr int kThreads = 128;
    flash_attention_naive_kernel<<<unsigned(ceil_div(int64_t(H) * p.n, kThreads)), kThreads>>>(p, H);
    ATTNSCOPE_CHECK_LAUNCH("flash_attention_naive_kernel");
}

void launch_v2(const FlashParams& p, int H) { launch_flash_attention(nullptr, p, H); }

template <int D>
void launch_v3_bucket(const FlashParams& p, int H) {
    constexpr int kBc = 32;
    constexpr int smem = flash_smem_floats(D, kBc) * int(sizeof(float));
    ATTNSCOPE_CUDA_CHECK(
        cudaFuncSetAttribute(flash_attention_kernel<D, kBc>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    flash_attention_kernel<D, kBc><<<dim3(unsigned(ceil_div(p.n, kFlashBr)), unsigned(H)), kFlashThreads, smem>>>(p);
    ATTNSCOPE_CHECK_LAUNCH("flash_attention_kernel (Bc = 32)");
}

void launch_v3(const FlashParams& p, int H) {
    const int dim = std::max(p.d, p.dv);
    if (dim <= 32) launch_v3_bucket<32>(p, H);
    else if (dim <= 64) launch_v3_bucket<64>(p, H);
    else launch_v3_bucket<128>(p, H);
}

void launch_version(int version, const FlashParams& p, int H) {
    switch (version) {
        case 1: launch_v1(p, H); break;
        case 2: launch_v2(p, H); break;
        case 3: launch_v3(p, H); break;
        default: throw Error("unknown kernel version " + std::to_string(version) + ": choose 1, 2 or 3");
    }
}

// ----------------------------------------------------------------------------
// Validation and timing

/// Compares device results with the reference: |gpu − cpu| ≤ atol + rtol·|cpu| per element.
bool validate(const char* name, const float* device, const std::vector<float>& ref, float atol, float rtol) {
    std::vector<float> out(ref.size());
    ATTNSCOPE_CUDA_CHECK(cudaMemcpy(out.data(), device, ref.size() * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const float diff = std::fabs(out[i] - ref[i]);
        if (!(diff <= atol + rtol * std::fabs(ref[i]))) {  // also catches NaN
            if (bad < 5) std::printf("  %s mismatch at %zu: cpu %.8g gpu %.8g\n", name, i, ref[i], out[i]);
            ++bad;
        }
    }
    std::printf("%s: %s (%zu of %zu elements outside atol %.1e + rtol %.1e)\n", name, bad ? "FAIL" : "OK", bad,
                ref.size(), double(atol), double(rtol));
    return bad == 0;
}

void write_floats(const std::string& path, const float* data, size_t count) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(data, sizeof(float), count, f) != count) {
        if (f) std::fclose(f);
        throw Error("cannot write " + path + ": choose a writable DUMP_DIR");
    }
    std::fclose(f);
}

int run(int version, int n, int d, int H, bool causal, const char* dump_dir) {
    std::printf("flash attention dev: version %d, H = %d, n = %d, d = dv = %d, %s\n", version, H, n, d,
                causal ? "causal" : "bidirectional");
    const size_t count = size_t(H) * n * d;
    std::vector<float> Q(count), K(count), V(count), O(count), lse(size_t(H) * n);
    for (size_t i = 0; i < count; ++i) {
        Q[i] = float(rng::normal(1, 0, i)), K[i] = float(rng::normal(2, 0, i)), V[i] = float(rng::normal(3, 0, i));
    }
    const float scale = 1.0f / std::sqrt(float(d));
    attention_cpu(O, lse, Q, K, V, H, n, d, scale, causal);

    DeviceBuffer<float> dQ(count, "Q"), dK(count, "K"), dV(count, "V"), dO(count, "O"), dL(size_t(H) * n, "lse");
    ATTNSCOPE_CUDA_CHECK(cudaMemcpy(dQ.get(), Q.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    ATTNSCOPE_CUDA_CHECK(cudaMemcpy(dK.get(), K.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    ATTNSCOPE_CUDA_CHECK(cudaMemcpy(dV.get(), V.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    const FlashParams p{dQ.get(), dK.get(), dV.get(), dO.get(), dL.get(), n, n, d, d, scale, causal, ScoreMod{}};

    // Validate every version first (a fast wrong kernel is worthless), then time the chosen one.
    bool ok = true;
    for (int v = 1; v <= 3; ++v) {
        ATTNSCOPE_CUDA_CHECK(cudaMemset(dO.get(), 0xff, count * sizeof(float)));  // NaN: unwritten cells fail
        launch_version(v, p, H);
        ATTNSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
        std::printf("version %d\n", v);
        ok &= validate("  O", dO.get(), O, 1e-5f, 1e-4f);
        ok &= validate("  lse", dL.get(), lse, 1e-5f, 1e-5f);
    }
    if (!ok) return 1;

    cudaEvent_t start, stop;
    ATTNSCOPE_CUDA_CHECK(cudaEventCreate(&start));
    ATTNSCOPE_CUDA_CHECK(cudaEventCreate(&stop));
    constexpr int kRepeats = 20;
    launch_version(version, p, H);  // warm-up
    ATTNSCOPE_CUDA_CHECK(cudaEventRecord(start));
    for (int r = 0; r < kRepeats; ++r) launch_version(version, p, H);
    ATTNSCOPE_CUDA_CHECK(cudaEventRecord(stop));
    ATTNSCOPE_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    ATTNSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    ms /= kRepeats;
    const double flops = 4.0 * H * double(n) * n * d * (causal ? 0.5 : 1.0);
    std::printf("version %d: %.4f ms, %.2f TFLOP/s (4·n²·d·H%s)\n", version, double(ms), flops / (ms * 1e-3) / 1e12,
                causal ? " / 2" : "");
    ATTNSCOPE_CUDA_CHECK(cudaEventDestroy(start));
    ATTNSCOPE_CUDA_CHECK(cudaEventDestroy(stop));

    if (dump_dir) {
        launch_v2(p, H);
        std::vector<float> out(count), out_lse(size_t(H) * n);
        ATTNSCOPE_CUDA_CHECK(cudaMemcpy(out.data(), dO.get(), count * sizeof(float), cudaMemcpyDeviceToHost));
        ATTNSCOPE_CUDA_CHECK(cudaMemcpy(out_lse.data(), dL.get(), out_lse.size() * sizeof(float), cudaMemcpyDeviceToHost));
        const std::string dir = dump_dir;
        write_floats(dir + "/q.f32", Q.data(), count);
        write_floats(dir + "/k.f32", K.data(), count);
        write_floats(dir + "/v.f32", V.data(), count);
        write_floats(dir + "/o.f32", out.data(), count);
        write_floats(dir + "/lse.f32", out_lse.data(), out_lse.size());
        FILE* meta = std::fopen((dir + "/meta.txt").c_str(), "w");
        if (!meta) throw Error("cannot write " + dir + "/meta.txt: choose a writable DUMP_DIR");
        std::fprintf(meta, "H %d\nn %d\nd %d\ncausal %d\nscale %.9g\nversion %d\nms %.6f\n", H, n, d, int(causal),
                     double(scale), version, double(ms));
        std::fclose(meta);
        std::printf("wrote q, k, v, o, lse and meta.txt to %s\n", dump_dir);
    }
    return 0;
}

int main(int argc, char** argv) {
    const int version = dev::int_arg(argc, argv, 1, 2);
    const int n = dev::int_arg(argc, argv, 2, 1024);
    const int d = dev::int_arg(argc, argv, 3, 64);
    const int H = dev::int_arg(argc, argv, 4, 8);
    const bool causal = dev::int_arg(argc, argv, 5, 0) != 0;
    if (n < 1 || d < 1 || d > kMaxFlashHeadDim || H < 1) {
        std::fprintf(stderr, "usage: %s KERNEL [n >= 1] [1 <= d <= %d] [H >= 1] [causal 0|1]\n", argv[0],
                     kMaxFlashHeadDim);
        return 2;
    }
    try {
        return run(version, n, d, H, causal, argc > 6 ? argv[6] : nullptr);
    } catch (const Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}

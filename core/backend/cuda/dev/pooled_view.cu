/*
The pooled level-of-detail view (max or mean over bins of an n×m matrix), developed in isolation (llm.c style):
a CPU reference, numbered kernel versions behind one switch, element-wise validation, then timing with CUDA
events. Bins are those of core/backend/interface/pooling.h (the CPU and the production kernel call the same functions).

Build: the CMake target `pooled_view_dev` (built with the CUDA backend).
Run (needs an NVIDIA GPU):
  ./pooled_view_dev KERNEL [n] [m] [H] [size] [mean]   defaults: n = m = 8192, H = 4, size = 512, max
  version 1: the production kernel (core/backend/cuda/pooled_view.cuh), one thread per output pixel, CPU summation order
  version 2: one warp per output pixel, lanes stride the bin's columns, warp-reduced (coalesced reads; mean
             rounding differs from the CPU order, hence the relative tolerance)
*/
#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/backend/cuda/dev/dev_common.cuh"
#include "core/backend/cuda/device_util.cuh"
#include "core/backend/cuda/pooled_view.cuh"

using namespace attnscope;
using namespace attnscope::cuda;

// ----------------------------------------------------------------------------
// CPU reference (double for the mean).

void pooled_cpu(std::vector<float>& out, const std::vector<float>& M, int H, int n, int m, int sr, int sc, bool use_max) {
    for (int h = 0; h < H; ++h)
        for (int bi = 0; bi < sr; ++bi)
            for (int bj = 0; bj < sc; ++bj) {
                const int64_t i0 = pool_bin_begin(bi, n, sr), i1 = pool_bin_end(bi, n, sr);
                const int64_t j0 = pool_bin_begin(bj, m, sc), j1 = pool_bin_end(bj, m, sc);
                double acc = use_max ? -INFINITY : 0.0;
                for (int64_t i = i0; i < i1; ++i)
                    for (int64_t j = j0; j < j1; ++j) {
                        const double v = M[(size_t(h) * n + size_t(i)) * m + size_t(j)];
                        acc = use_max ? std::max(acc, v) : acc + v;
                    }
                if (!use_max) acc /= double((i1 - i0) * (j1 - j0));
                out[(size_t(h) * sr + bi) * sc + bj] = float(acc);
            }
}

// ----------------------------------------------------------------------------
// GPU kernels

// Version 2: one warp per output pixel.
__global__ void pooled_view_warp_kernel(const float* M, int H, int n, int m, int sr, int sc, bool use_max, float* out) {
    const int64_t pixel = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
    const int lane = int(threadIdx.x % kWarpSize);
    const int64_t per_head = int64_t(sr) * sc;
    if (pixel >= per_head * H) return;  // whole warps leave together (pixel is uniform across the warp)
    const int64_t h = pixel / per_head, bi = (pixel % per_head) / sc, bj = pixel % sc;
    const int64_t i0 = pool_bin_begin(bi, n, sr), i1 = pool_bin_end(bi, n, sr);
    const int64_t j0 = pool_bin_begin(bj, m, sc), j1 = pool_bin_end(bj, m, sc);
    float acc = use_max ? -INFINITY : 0.0f;
    for (int64_t i = i0; i < i1; ++i) {
        const float* row = M + (h * n + i) * m;
        for (int64_t j = j0 + lane; j < j1; j += kWarpSize) acc = use_max ? fmaxf(acc, row[j]) : acc + row[j];
    }
    acc = use_max ? group_max<kWarpSize>(acc) : group_sum<kWarpSize>(acc);
    if (lane == 0) out[pixel] = use_max ? acc : acc / float((i1 - i0) * (j1 - j0));
}

void launch_version(int version, const float* M, int H, int n, int m, int sr, int sc, bool use_max, float* out) {
    const int64_t pixels = int64_t(H) * sr * sc;
    constexpr int kThreads = 256;
    switch (version) {
        case 1:
            pooled_view_kernel<<<unsigned(ceil_div(pixels, kThreads)), kThreads>>>(M, H, n, m, sr, sc,
                                                                                 use_max ? PoolMode::Max : PoolMode::Mean, out);
            ATTNSCOPE_CHECK_LAUNCH("pooled_view_kernel");
            break;
        case 2:
            pooled_view_warp_kernel<<<unsigned(ceil_div(pixels * kWarpSize, kThreads)), kThreads>>>(M, H, n, m, sr, sc,
                                                                                                  use_max, out);
            ATTNSCOPE_CHECK_LAUNCH("pooled_view_warp_kernel");
            break;
        default: throw Error("unknown kernel version " + std::to_string(version) + ": choose 1 or 2");
    }
}

// ----------------------------------------------------------------------------

int run(int version, int n, int m, int H, int size, bool use_max) {
    const int sr = std::min(n, size), sc = std::min(m, size);
    std::printf("pooled view dev: version %d, H = %d, %d×%d → %d×%d, %s\n", version, H, n, m, sr, sc,
                use_max ? "max" : "mean");
    const std::vector<float> M = dev::normal_floats(size_t(H) * n * m, 1);
    std::vector<float> out(size_t(H) * sr * sc);
    pooled_cpu(out, M, H, n, m, sr, sc, use_max);
    DeviceBuffer<float> dM = dev::to_device(M, "M"), dOut(out.size(), "pooled");
    bool ok = true;
    for (int v = 1; v <= 2; ++v) {
        dev::poison(dOut);
        launch_version(v, dM.get(), H, n, m, sr, sc, use_max, dOut.get());
        ATTNSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
        std::printf("version %d\n", v);
        ok &= dev::validate("  pooled", dOut.get(), out, 1e-6f, 1e-5f);
    }
    if (!ok) return 1;
    const float ms = dev::time_ms(20, [&] { launch_version(version, dM.get(), H, n, m, sr, sc, use_max, dOut.get()); });
    std::printf("version %d: %.4f ms, %.1f GB/s reading M\n", version, double(ms),
                double(M.size()) * sizeof(float) / (ms * 1e-3) / 1e9);
    return 0;
}

int main(int argc, char** argv) {
    const int version = dev::int_arg(argc, argv, 1, 1);
    const int n = dev::int_arg(argc, argv, 2, 8192);
    const int m = dev::int_arg(argc, argv, 3, n);
    const int H = dev::int_arg(argc, argv, 4, 4);
    const int size = dev::int_arg(argc, argv, 5, 512);
    const bool mean = dev::int_arg(argc, argv, 6, 0) != 0;
    if (n < 1 || m < 1 || H < 1 || size < 1) {
        std::fprintf(stderr, "usage: %s KERNEL [n >= 1] [m >= 1] [H >= 1] [size >= 1] [mean 0|1]\n", argv[0]);
        return 2;
    }
    try {
        return run(version, n, m, H, size, !mean);
    } catch (const Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}

/*
Block-sparse attention forward, developed in isolation (llm.c style): a CPU reference, numbered kernel versions
behind one switch, element-wise validation of every version against the reference, then timing with CUDA events.
The layout is BigBird-like (sliding window of w blocks, g global blocks, r random blocks per row, seeded), over
the BSR format of core/backend/interface/block_layout.h; diagonal blocks carry a lower-triangular bitmask when causal.

Build: the CMake target `block_sparse_attention_dev` (built with the CUDA backend).
Run (needs an NVIDIA GPU):
  ./block_sparse_attention_dev KERNEL [n] [d] [H] [b] [causal]   defaults: n = 4096, d = 64, H = 8, b = 64, 0
  version 1: naive, one thread per (head, query row), online softmax over the row's allowed cells
  version 2: the production kernel (core/backend/cuda/block_sparse_attention.cuh via launch_block_sparse_attention),
             any head dim (d > 128 runs the sliced instantiation)
*/
#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/backend/cuda/block_sparse_attention.cuh"
#include "core/backend/cuda/dev/dev_common.cuh"

using namespace attnscope;
using namespace attnscope::cuda;

// ----------------------------------------------------------------------------
// The layout: window of 3 blocks, 1 global block, 2 random blocks per block row (sorted, deduplicated).

BlockLayout make_layout(int n, int b, bool causal) {
    BlockLayout L;
    L.n = n, L.block = b, L.heads = 1;
    const int nb = L.block_rows();
    L.row_ptr.push_back(0);
    for (int I = 0; I < nb; ++I) {
        std::vector<int> cols = {0, I - 1, I, I + 1};
        for (int k = 0; k < 2; ++k) cols.push_back(int(rng::bits(7, uint64_t(I), uint64_t(k)) % uint64_t(nb)));
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
        for (int J : cols) {
            if (J < 0 || J >= nb || (causal && J > I)) continue;
            if (causal && J == I) L.append_block(J, [](int r, int c) { return c <= r; });
            else L.append_block(J);
        }
        L.row_ptr.push_back(int(L.col_idx.size()));
    }
    return L;
}

// ----------------------------------------------------------------------------
// CPU reference: two passes per row over the allowed cells, in double precision.

void attention_cpu(std::vector<float>& O, std::vector<float>& lse, const std::vector<float>& Q,
                   const std::vector<float>& K, const std::vector<float>& V, const BlockLayout& L, int H, int d,
                   float scale) {
    const BlockLayoutView v = L.view();
    const int n = L.n, b = L.block;
    std::vector<double> s;
    std::vector<int> keys;
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) {
            const int I = i / b;
            keys.clear(), s.clear();
            double mx = -INFINITY;
            for (int k = layout_row_begin(v, h, I); k < layout_row_end(v, h, I); ++k) {
                const int J = L.col_idx[size_t(k)];
                for (int c = 0; c < block_extent(n, b, J); ++c) {
                    if (!layout_cell_allowed(v, k, i - I * b, c)) continue;
                    const int j = J * b + c;
                    double dot = 0;
                    for (int f = 0; f < d; ++f) dot += double(scale * Q[(size_t(h) * n + i) * d + f]) * K[(size_t(h) * n + j) * d + f];
                    keys.push_back(j), s.push_back(dot), mx = std::max(mx, dot);
                }
            }
            double sum = 0;
            for (double& x : s) sum += (x = std::exp(x - mx));
            for (int f = 0; f < d; ++f) {
                double acc = 0;
                for (size_t t = 0; t < keys.size(); ++t) acc += s[t] * V[(size_t(h) * n + keys[t]) * d + f];
                O[(size_t(h) * n + i) * d + f] = keys.empty() ? 0.0f : float(acc / sum);
            }
            lse[size_t(h) * n + i] = keys.empty() ? -INFINITY : float(mx + std::log(sum));
        }
}

// ----------------------------------------------------------------------------
// GPU kernels

constexpr int kNaiveMaxDim = 512;

// Version 1: one thread per (head, query row), walking its block row's stored blocks cell by cell.
__global__ void block_sparse_naive_kernel(BlockSparseParams p, int H) {
    const int n = p.layout.n, b = p.layout.block;
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= int64_t(H) * n) return;
    const int h = int(idx / n), i = int(idx % n), I = i / b;
    float acc[kNaiveMaxDim];
    for (int c = 0; c < p.dv; ++c) acc[c] = 0.0f;
    OnlineSoftmaxRow row = online_softmax_init();
    const float* q = p.Q + idx * p.d;
    for (int k = layout_row_begin(p.layout, h, I); k < layout_row_end(p.layout, h, I); ++k) {
        const int J = p.layout.col_idx[k];
        for (int c = 0; c < block_extent(n, b, J); ++c) {
            if (!layout_cell_allowed(p.layout, k, i - I * b, c)) continue;
            const int64_t j = int64_t(h) * n + J * b + c;
            float s = 0.0f;
            for (int f = 0; f < p.d; ++f) s = fmaf(p.scale * q[f], p.K[j * p.d + f], s);
            const float new_max = online_softmax_new_max(row, s);
            const float rescale = online_softmax_rescale(row.m, new_max);
            const float w = expf(s - new_max);
            online_softmax_update(row, new_max, w);
            for (int f = 0; f < p.dv; ++f) acc[f] = acc[f] * rescale + w * p.V[j * p.dv + f];
        }
    }
    const float inv = online_softmax_inv_sum(row);
    for (int f = 0; f < p.dv; ++f) p.O[idx * p.dv + f] = acc[f] * inv;
    p.lse[idx] = online_softmax_lse(row);
}

void launch_version(int version, const BlockSparseParams& p, int H) {
    switch (version) {
        case 1: {
            constexpr int kThreads = 128;
            block_sparse_naive_kernel<<<unsigned(ceil_div(int64_t(H) * p.layout.n, kThreads)), kThreads>>>(p, H);
            ATTNSCOPE_CHECK_LAUNCH("block_sparse_naive_kernel");
            break;
        }
        case 2: launch_block_sparse_attention(nullptr, p, H); break;
        default: throw Error("unknown kernel version " + std::to_string(version) + ": choose 1 or 2");
    }
}

// ----------------------------------------------------------------------------

int run(int version, int n, int d, int H, int b, bool causal) {
    const BlockLayout L = make_layout(n, b, causal);
    std::printf("block-sparse dev: version %d, H = %d, n = %d, d = dv = %d, b = %d, %s, %lld stored blocks\n", version,
                H, n, d, b, causal ? "causal" : "bidirectional", static_cast<long long>(L.stored_blocks()));
    const size_t count = size_t(H) * n * d;
    const std::vector<float> Q = dev::normal_floats(count, 1), K = dev::normal_floats(count, 2),
                             V = dev::normal_floats(count, 3);
    std::vector<float> O(count), lse(size_t(H) * n);
    const float scale = 1.0f / std::sqrt(float(d));
    attention_cpu(O, lse, Q, K, V, L, H, d, scale);

    DeviceBuffer<float> dQ = dev::to_device(Q, "Q"), dK = dev::to_device(K, "K"), dV = dev::to_device(V, "V");
    DeviceBuffer<float> dO(count, "O"), dL(size_t(H) * n, "lse");
    DeviceBuffer<int> dRow = dev::to_device(L.row_ptr, "row_ptr"), dCol = dev::to_device(L.col_idx, "col_idx"),
                      dMaskIdx = dev::to_device(L.mask_idx, "mask_idx");
    DeviceBuffer<uint64_t> dMasks = dev::to_device(L.masks, "masks");
    BlockLayoutView view = L.view();
    view.row_ptr = dRow.get(), view.col_idx = dCol.get(), view.mask_idx = dMaskIdx.get(), view.masks = dMasks.get();
    const BlockSparseParams p{dQ.get(), dK.get(), dV.get(), dO.get(), dL.get(), view, d, d, scale, ScoreMod{}};

    bool ok = true;
    for (int v = 1; v <= 2; ++v) {
        dev::poison(dO), dev::poison(dL);
        launch_version(v, p, H);
        ATTNSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
        std::printf("version %d\n", v);
        ok &= dev::validate("  O", dO.get(), O, 1e-5f, 1e-4f);
        ok &= dev::validate("  lse", dL.get(), lse, 1e-5f, 1e-5f);
    }
    if (!ok) return 1;
    const float ms = dev::time_ms(20, [&] { launch_version(version, p, H); });
    double cells = 0;
    for (size_t k = 0; k < L.col_idx.size(); ++k) cells += double(b) * b;
    std::printf("version %d: %.4f ms, %.2f TFLOP/s on the stored blocks (4·cells·d·H)\n", version, double(ms),
                4.0 * cells * d * H / (ms * 1e-3) / 1e12);
    return 0;
}

int main(int argc, char** argv) {
    const int version = dev::int_arg(argc, argv, 1, 2);
    const int n = dev::int_arg(argc, argv, 2, 4096);
    const int d = dev::int_arg(argc, argv, 3, 64);
    const int H = dev::int_arg(argc, argv, 4, 8);
    const int b = dev::int_arg(argc, argv, 5, 64);
    const bool causal = dev::int_arg(argc, argv, 6, 0) != 0;
    if (n < 1 || d < 1 || d > kNaiveMaxDim || H < 1 || b < 1) {
        std::fprintf(stderr, "usage: %s KERNEL [n >= 1] [1 <= d <= %d] [H >= 1] [b >= 1] [causal 0|1]\n", argv[0],
                     kNaiveMaxDim);
        return 2;
    }
    try {
        return run(version, n, d, H, b, causal);
    } catch (const Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}

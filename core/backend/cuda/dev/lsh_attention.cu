/*
Chunked LSH attention forward (Reformer), developed in isolation (llm.c style): a CPU reference, numbered kernel
versions behind one switch, element-wise validation of every version, then timing with CUDA events. Buckets
are drawn at random per (round, head, position) and sorted by (bucket, position) on the host (the hash itself
is core/backend/cuda/lsh.cuh and is not the subject here); shared QK (self-mask on), look-back 1, duplicate discount over
the rounds — the cell rules of core/backend/interface/lsh_rules.h.

Build: the CMake target `lsh_attention_dev` (built with the CUDA backend).
Run (needs an NVIDIA GPU):
  ./lsh_attention_dev KERNEL [n] [d] [H] [R] [c] [causal]   defaults: n = 4096, d = 64, H = 8, R = 4, c = 64, 0
  version 1: naive, one thread per (round, head, sorted slot), online softmax over the chunk set
  version 2: the production kernel (core/backend/cuda/lsh_attention.cuh), launched here with its chunk maps
*/
#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/backend/cuda/dev/dev_common.cuh"
#include "core/backend/cuda/lsh_attention.cuh"

using namespace attnscope;
using namespace attnscope::cuda;

struct Problem {
    int H, n, d, R, c, nb;
    bool causal;
    std::vector<int> perm, chunk;  // (R, H, n) sorted positions and the chunk of each position per round
};

Problem make_problem(int H, int n, int d, int R, int c, bool causal) {
    Problem pr{H, n, d, R, c, std::max(2, n / c), causal, {}, {}};
    pr.perm.resize(size_t(R) * H * n), pr.chunk.resize(pr.perm.size());
    for (int64_t seg = 0; seg < int64_t(R) * H; ++seg) {
        std::vector<std::pair<int, int>> keyed(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) keyed[size_t(i)] = {int(rng::bits(11, uint64_t(seg), uint64_t(i)) % uint64_t(pr.nb)), i};
        std::sort(keyed.begin(), keyed.end());
        for (int s = 0; s < n; ++s) {
            pr.perm[size_t(seg * n + s)] = keyed[size_t(s)].second;
            pr.chunk[size_t(seg * n + keyed[size_t(s)].second)] = s / c;
        }
    }
    return pr;
}

// ----------------------------------------------------------------------------
// CPU reference: per round and query, the explicit key set, scores with the lsh.h rules, softmax in double.

void lsh_cpu(std::vector<float>& O, std::vector<float>& lse, const std::vector<float>& Q, const std::vector<float>& V,
             const Problem& pr, float scale) {
    const int H = pr.H, n = pr.n, d = pr.d, R = pr.R, c = pr.c, nc = lsh_num_chunks(n, c);
    const int attended = lsh_chunks_attended(1, nc);
    std::vector<double> s;
    std::vector<int> keys;
    for (int r = 0; r < R; ++r)
        for (int h = 0; h < H; ++h) {
            const int* perm = pr.perm.data() + (int64_t(r) * H + h) * n;
            for (int slot = 0; slot < n; ++slot) {
                const int qi = perm[slot], t = slot / c;
                keys.clear(), s.clear();
                double mx = -INFINITY;
                for (int b = 0; b < attended; ++b) {
                    const int kc = lsh_key_chunk(t, b, nc);
                    for (int ks = kc * c; ks < std::min(n, kc * c + c); ++ks) {
                        const int kj = perm[ks];
                        if (pr.causal && kj > qi) continue;
                        int count = 0;
                        for (int r2 = 0; r2 < R; ++r2) {
                            const int64_t seg = (int64_t(r2) * H + h) * n;
                            count += lsh_chunk_attends(pr.chunk[size_t(seg + qi)], pr.chunk[size_t(seg + kj)], 1, nc);
                        }
                        double dot = 0;
                        for (int f = 0; f < d; ++f)
                            dot += double(scale * Q[(size_t(h) * n + qi) * d + f]) * Q[(size_t(h) * n + kj) * d + f];
                        const double score = (kj == qi ? double(kLshSelfScore) : dot) - std::log(double(count));
                        keys.push_back(kj), s.push_back(score), mx = std::max(mx, score);
                    }
                }
                double sum = 0;
                for (double& x : s) sum += (x = std::exp(x - mx));
                const size_t row = (size_t(r) * H + h) * n + size_t(qi);
                for (int f = 0; f < d; ++f) {
                    double acc = 0;
                    for (size_t k = 0; k < keys.size(); ++k) acc += s[k] * V[(size_t(h) * n + keys[k]) * d + f];
                    O[row * d + f] = keys.empty() ? 0.0f : float(acc / sum);
                }
                lse[row] = keys.empty() ? -INFINITY : float(mx + std::log(sum));
            }
        }
}

// ----------------------------------------------------------------------------
// GPU kernels

constexpr int kNaiveMaxDim = 256;

// Version 1: one thread per (round, head, sorted slot).
__global__ void lsh_attention_naive_kernel(LshAttentionParams p) {
    const int n = p.n, c = p.chunk_len, R = p.rounds;
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= int64_t(R) * p.H * n) return;
    const int64_t seg = idx / n;
    const int slot = int(idx % n), h = int(seg % p.H), r = int(seg / p.H);
    const int nc = lsh_num_chunks(n, c), attended = lsh_chunks_attended(p.look_back, nc), t = slot / c;
    const int* perm = p.perm_k + seg * n;
    const int qi = p.perm_q[seg * n + slot];
    float acc[kNaiveMaxDim];
    for (int f = 0; f < p.dv; ++f) acc[f] = 0.0f;
    OnlineSoftmaxRow row = online_softmax_init();
    for (int b = 0; b < attended; ++b) {
        const int kc = lsh_key_chunk(t, b, nc);
        for (int ks = kc * c; ks < min(n, kc * c + c); ++ks) {
            const int kj = perm[ks];
            if (p.causal && kj > qi) continue;
            float discount = 0.0f;
            if (R > 1) {
                int count = 0;
                for (int r2 = 0; r2 < R; ++r2) {
                    const int64_t s2 = (int64_t(r2) * p.H + h) * n;
                    count += lsh_chunk_attends(p.chunk_q[s2 + qi], p.chunk_k[s2 + kj], p.look_back, nc) ? 1 : 0;
                }
                discount = lsh_duplicate_discount(count);
            }
            float dot = 0.0f;
            for (int f = 0; f < p.d; ++f)
                dot = fmaf(p.scale * p.Q[(int64_t(h) * n + qi) * p.d + f], p.K[(int64_t(h) * n + kj) * p.d + f], dot);
            const float s = lsh_cell_score(dot, p.self_mask && kj == qi, discount);
            const float new_max = online_softmax_new_max(row, s);
            const float rescale = online_softmax_rescale(row.m, new_max);
            const float w = expf(s - new_max);
            online_softmax_update(row, new_max, w);
            for (int f = 0; f < p.dv; ++f) acc[f] = acc[f] * rescale + w * p.V[(int64_t(h) * n + kj) * p.dv + f];
        }
    }
    const int64_t out = (int64_t(r) * p.H + h) * n + qi;
    const float inv = online_softmax_inv_sum(row);
    for (int f = 0; f < p.dv; ++f) p.O_rounds[out * p.dv + f] = acc[f] * inv;
    p.lse_rounds[out] = online_softmax_lse(row);
}

// Version 2: the production kernel with the chunk maps it reads.
void launch_v2(const LshAttentionParams& p, int* chunk) {
    const int64_t total = int64_t(p.rounds) * p.H * p.n;
    lsh_chunk_kernel<<<unsigned(ceil_div(total, kLshChunkThreads)), kLshChunkThreads>>>(p.perm_q, total, p.n,
                                                                                       p.chunk_len, chunk);
    ATTNSCOPE_CHECK_LAUNCH("lsh_chunk_kernel");
    with_attention_bucket(std::max(p.d, p.dv), [&]<int D, int BC, bool kSliced>() {
        const int smem = lsh_attention_smem_floats(D, BC, p.rounds) * int(sizeof(float));
        ATTNSCOPE_CUDA_CHECK(cudaFuncSetAttribute(lsh_attention_kernel<D, BC, kSliced>,
                                                  cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        const dim3 grid(unsigned(lsh_num_chunks(p.n, p.chunk_len)), unsigned(p.H),
                        unsigned(p.rounds * attention_output_slices(kSliced, p.dv)));
        lsh_attention_kernel<D, BC, kSliced><<<grid, kFlashThreads, size_t(smem)>>>(p);
        ATTNSCOPE_CHECK_LAUNCH("lsh_attention_kernel");
    });
}

// ----------------------------------------------------------------------------

int run(int version, int n, int d, int H, int R, int c, bool causal) {
    std::printf("lsh attention dev: version %d, H = %d, n = %d, d = dv = %d, R = %d, c = %d, %s\n", version, H, n, d,
                R, c, causal ? "causal" : "bidirectional");
    const Problem pr = make_problem(H, n, d, R, c, causal);
    const size_t count = size_t(H) * n * d, total = size_t(R) * H * n;
    const std::vector<float> Q = dev::normal_floats(count, 1), V = dev::normal_floats(count, 3);
    std::vector<float> O(total * size_t(d)), lse(total);
    const float scale = 1.0f / std::sqrt(float(d));
    lsh_cpu(O, lse, Q, V, pr, scale);

    DeviceBuffer<float> dQ = dev::to_device(Q, "Q"), dV = dev::to_device(V, "V");
    DeviceBuffer<float> dO(O.size(), "O_rounds"), dL(total, "lse_rounds");
    DeviceBuffer<int> dPerm = dev::to_device(pr.perm, "perm"), dChunk(total, "chunks");
    LshAttentionParams p{};
    p.Q = dQ.get(), p.K = dQ.get(), p.V = dV.get(), p.perm_q = p.perm_k = dPerm.get();
    p.chunk_q = p.chunk_k = dChunk.get(), p.O_rounds = dO.get(), p.lse_rounds = dL.get();
    p.H = H, p.n = n, p.d = d, p.dv = d, p.rounds = R, p.chunk_len = c, p.look_back = 1;
    p.scale = scale, p.causal = causal, p.self_mask = true;
    const auto launch = [&](int v) {
        if (v == 1) {
            constexpr int kThreads = 128;
            lsh_attention_naive_kernel<<<unsigned(ceil_div(int64_t(total), kThreads)), kThreads>>>(p);
            ATTNSCOPE_CHECK_LAUNCH("lsh_attention_naive_kernel");
        } else if (v == 2) {
            launch_v2(p, dChunk.get());
        } else {
            throw Error("unknown kernel version " + std::to_string(v) + ": choose 1 or 2");
        }
    };
    // Version 1 reads the chunk maps too: build them once before validating.
    launch_v2(p, dChunk.get());
    bool ok = true;
    for (int v = 1; v <= 2; ++v) {
        dev::poison(dO), dev::poison(dL);
        launch(v);
        ATTNSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
        std::printf("version %d\n", v);
        ok &= dev::validate("  O_rounds", dO.get(), O, 1e-5f, 1e-4f);
        ok &= dev::validate("  lse_rounds", dL.get(), lse, 1e-4f, 1e-5f);
    }
    if (!ok) return 1;
    const float ms = dev::time_ms(20, [&] { launch(version); });
    const double cells = double(R) * H * n * lsh_chunks_attended(1, lsh_num_chunks(n, c)) * c;
    std::printf("version %d: %.4f ms, %.2f TFLOP/s on the chunk sets (4·cells·d)\n", version, double(ms),
                4.0 * cells * d / (ms * 1e-3) / 1e12);
    return 0;
}

int main(int argc, char** argv) {
    const int version = dev::int_arg(argc, argv, 1, 2);
    const int n = dev::int_arg(argc, argv, 2, 4096);
    const int d = dev::int_arg(argc, argv, 3, 64);
    const int H = dev::int_arg(argc, argv, 4, 8);
    const int R = dev::int_arg(argc, argv, 5, 4);
    const int c = dev::int_arg(argc, argv, 6, 64);
    const bool causal = dev::int_arg(argc, argv, 7, 0) != 0;
    if (n < 1 || d < 1 || d > kNaiveMaxDim || H < 1 || R < 1 || R > kMaxLshRounds || c < 1) {
        std::fprintf(stderr, "usage: %s KERNEL [n >= 1] [1 <= d <= %d] [H >= 1] [1 <= R <= %d] [c >= 1] [causal 0|1]\n",
                     argv[0], kNaiveMaxDim, kMaxLshRounds);
        return 2;
    }
    try {
        return run(version, n, d, H, R, c, causal);
    } catch (const Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}

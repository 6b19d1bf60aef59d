// attnscope — chunked LSH attention on CUDA: uploads Q, K, V and the sorted orders, turns the orders into
// per-round chunk maps (lsh_chunk_kernel, only when R > 1: they feed the duplicate discount), launches the
// kernel of lsh_attention.cuh (one block per (chunk, head, round)) and downloads L_r and O_r, or combines the rounds
// there (lsh.cu's combination kernel) and downloads only O.
#include <string>

#include "core/backend/cuda/lsh_attention.cuh"

namespace attnscope::cuda {

namespace {

template <int D, int BC, bool kSliced>
void launch_lsh_bucket(cudaStream_t stream, const LshAttentionParams& p) {
    const int smem_bytes = lsh_attention_smem_floats(D, BC, p.rounds) * int(sizeof(float));
    allow_dynamic_smem(lsh_attention_kernel<D, BC, kSliced>, smem_bytes,
                       "the LSH attention kernel for head dim " + std::to_string(D) + " and " +
                           std::to_string(p.rounds) + " rounds",
                       "use --backend cpu");
    const int slices = attention_output_slices(kSliced, p.dv);
    const dim3 grid(unsigned(lsh_num_chunks(p.n, p.chunk_len)), unsigned(p.H), unsigned(p.rounds * slices));
    lsh_attention_kernel<D, BC, kSliced><<<grid, kFlashThreads, size_t(smem_bytes), stream>>>(p);
    ATTNSCOPE_CHECK_LAUNCH("lsh_attention_kernel");
}

}  // namespace

void launch_lsh_attention(cudaStream_t stream, const LshAttentionParams& p) {
    if (p.H == 0 || p.n == 0) return;
    if (p.H > 65535 || int64_t(p.rounds) * attention_output_slices(true, p.dv) > 65535)
        throw Error("the CUDA LSH attention kernel takes at most 65535 heads and 65535 (round, 128 value columns) "
                    "pairs per call (got H = " + std::to_string(p.H) + ", R = " + std::to_string(p.rounds) +
                    ", dv = " + std::to_string(p.dv) + "): use --backend cpu");
    const int dim = p.d > p.dv ? p.d : p.dv;
    with_attention_bucket(dim, [&]<int D, int BC, bool kSliced>() { launch_lsh_bucket<D, BC, kSliced>(stream, p); });
}

void lsh_attention(Context& ctx, const LshAttentionShape& s, const float* Q, const float* K, const float* V,
                   const int* perm_q, const int* perm_k, float* O_rounds, float* lse_rounds, float* O) {
    const int64_t total = int64_t(s.rounds) * s.H * s.n;
    if (total == 0) return;
    const size_t q = size_t(s.H) * s.n * s.d, v = size_t(s.H) * s.n * s.dv;
    const size_t o = size_t(total) * s.dv, maps = s.rounds > 1 ? size_t(total) : 0;
    const size_t combined = O ? size_t(s.H) * s.n * s.dv : 0;
    const bool shared = perm_q == perm_k;
    require_device_memory((2 * q + v + o + size_t(total) + combined) * sizeof(float) +
                              (shared ? 1 : 2) * (size_t(total) + maps) * sizeof(int),
                          "LSH attention (R = " + std::to_string(s.rounds) + ", H = " + std::to_string(s.H) +
                              ", n = " + std::to_string(s.n) + ", chunk " + std::to_string(s.chunk_len) + ")");
    const DeviceInput dQ = upload_input(ctx, Q, q, "Q"), dK = upload_input(ctx, K, q, "K"), dV = upload_input(ctx, V, v, "V");
    DeviceBuffer<int> dPq = upload_array(ctx, perm_q, size_t(total), "LSH query order");
    DeviceBuffer<int> dPk = shared ? DeviceBuffer<int>() : upload_array(ctx, perm_k, size_t(total), "LSH key order");
    DeviceBuffer<int> dCq(maps, "LSH query chunks"), dCk(shared ? 0 : maps, "LSH key chunks");
    const unsigned blocks = unsigned(ceil_div(total, kLshChunkThreads));
    if (maps) {
        lsh_chunk_kernel<<<blocks, kLshChunkThreads, 0, ctx.stream()>>>(dPq.get(), total, s.n, s.chunk_len, dCq.get());
        ATTNSCOPE_CHECK_LAUNCH("lsh_chunk_kernel");
        if (!shared) {
            lsh_chunk_kernel<<<blocks, kLshChunkThreads, 0, ctx.stream()>>>(dPk.get(), total, s.n, s.chunk_len,
                                                                          dCk.get());
            ATTNSCOPE_CHECK_LAUNCH("lsh_chunk_kernel");
        }
    }
    DeviceBuffer<float> dO(o, "O_rounds"), dL(size_t(total), "lse_rounds");
    LshAttentionParams p{};
    p.Q = dQ.get(), p.K = dK.get(), p.V = dV.get();
    p.perm_q = dPq.get(), p.perm_k = shared ? dPq.get() : dPk.get();
    p.chunk_q = dCq.get(), p.chunk_k = shared ? dCq.get() : dCk.get();
    p.O_rounds = dO.get(), p.lse_rounds = dL.get();
    p.H = s.H, p.n = s.n, p.d = s.d, p.dv = s.dv;
    p.rounds = s.rounds, p.chunk_len = s.chunk_len, p.look_back = s.look_back;
    p.scale = s.scale, p.causal = s.causal, p.self_mask = s.self_mask;
    launch_lsh_attention(ctx.stream(), p);
    if (O) {
        DeviceBuffer<float> dCombined(combined, "O");
        launch_lsh_combine(ctx.stream(), dO.get(), dL.get(), s.rounds, int64_t(s.H) * s.n, s.dv, dCombined.get(), nullptr);
        download(ctx, dCombined.get(), O, combined);
    }
    if (O_rounds) download(ctx, dO.get(), O_rounds, o);
    download(ctx, dL.get(), lse_rounds, size_t(total));
}

}  // namespace attnscope::cuda

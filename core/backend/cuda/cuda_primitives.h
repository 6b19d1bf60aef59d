// attnscope — the CUDA primitives as plain C++ entry points on host buffers (no CUDA or Eigen types), so the
// host-compiled CudaBackend (cuda_backend.cpp) can call them. Each entry uploads its inputs, launches on the
// context's stream, downloads its outputs and returns; device-pointer launchers for composing kernels on
// the device live in the family headers (gemm.cuh, flash_attention.cuh).
// One .cu per family: gemm.cu, dense_attention.cu, pooled_view.cu; shared machinery in common.cu.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/backend/interface/block_layout.h"
#include "core/backend/interface/gemm_roof.h"
#include "core/backend/interface/pooling.h"
#include "core/backend/interface/score_mod.h"

namespace attnscope::cuda {

class Context;
/// Destroys a Context (defined in common.cu, where Context is complete).
struct ContextDeleter {
    void operator()(Context* ctx) const noexcept;
};
using ContextPtr = std::unique_ptr<Context, ContextDeleter>;

/// Creates a stream + cuBLAS handle on device 0; throws Error when that fails.
ContextPtr make_context();
/// Keeps a device copy of host bytes [host, host + bytes) on the context until forget_resident (Context::keep_resident).
void keep_resident(Context& ctx, const void* host, size_t bytes);
/// Frees the context's kept copies.
void forget_resident(Context& ctx);

/// "" when a usable CUDA device exists, else why not, e.g. "no CUDA device found (cudaGetDeviceCount: ...)".
/// The answer is computed once per process.
std::string probe_device();
/// One line naming device 0, e.g. "CUDA, NVIDIA A100-SXM4-40GB (sm_80, 40.0 GiB), runtime 13.0".
std::string device_description();

/// Bytes of device memory held by tracked allocations now.
int64_t device_bytes_live();
/// Peak of device_bytes_live() since the last reset_device_peak().
int64_t device_bytes_peak();
/// Starts a new peak measurement at the current level.
void reset_device_peak();

/// One operand of a batched GEMM: `heads` row-major (rows, cols) matrices back to back; heads == 1 broadcasts.
struct HostMatrices {
    const float* data = nullptr;  // (heads, rows, cols) on the host
    int heads = 0, rows = 0, cols = 0;
};

/// C_h = alpha·op(A_h)·op(B_h) + beta·C_h through cuBLAS; shapes already validated by the caller.
void gemm(Context& ctx, const HostMatrices& A, bool trans_a, const HostMatrices& B, bool trans_b, float alpha,
          float beta, float* C, int H, int r, int c);  // C: (H, r, c) on the host, read when beta != 0

/// Sizes of one dense attention call (validated by the caller).
struct AttentionShape {
    int H = 0, n = 0, m = 0, d = 0, dv = 0;  // heads, queries, keys, head dim, value dim
    float scale = 1.0f;                      // s in softmax(s·QKᵀ)
    bool causal = false;                     // key j allowed only when j ≤ i (m == n)
    ScoreMod mod;                            // applied to every logit before masking (core/backend/interface/score_mod.h)
};

/// Largest head dim (d and dv) of the flash kernel's buckets; larger ones run the sliced (wide) kernel.
constexpr int kMaxFlashHeadDim = 128;

/// Tiled online-softmax attention (FlashAttention-2 style), any head dim; lse may be nullptr.
void flash_attention(Context& ctx, const AttentionShape& s, const float* Q, const float* K, const float* V,
                     float* O, float* lse);  // Q (H,n,d), K (H,m,d), V (H,m,dv), O (H,n,dv), lse (H,n,1)

/// flash_attention on tensor cores (TF32 inputs, fp32 accumulation and softmax; flash_attention_tc.cuh): looser
/// accuracy (≈ 1e-3 relative), same contract; head dims above kMaxFlashHeadDim run the fp32 (wide) kernel.
void flash_attention_tf32(Context& ctx, const AttentionShape& s, const float* Q, const float* K, const float* V,
                          float* O, float* lse);  // shapes as flash_attention

/// The element type CUTLASS's attention kernel computes in.
enum class CutlassElement { F32, Bf16, F16 };

/// Dense attention through CUTLASS's fused multi-head attention (flash_attention_cutlass.cu) on host float Q, K, V and
/// O: F32 runs 3×TF32 on tensor cores (about fp32's accuracy); Bf16 and F16 round Q, K, V to 16 bits on the device
/// (to nearest even, as core/backend/shared/half.h does), accumulate in fp32 and widen O back. lse (fp32) may be nullptr. The shape
/// must pass validate_cutlass_attention.
void flash_attention_cutlass(Context& ctx, const AttentionShape& s, CutlassElement element, const float* Q,
                             const float* K, const float* V, float* O, float* lse);  // shapes as flash_attention

/// Attention with P materialised: S = s·QKᵀ (cuBLAS), row softmax in place, O = P·V (cuBLAS).
void materialised_attention(Context& ctx, const AttentionShape& s, const float* Q, const float* K, const float* V,
                            float* O, float* lse, float* P);  // P (H,n,m); lse may be nullptr

/// Pools each head of M (H, n, m) to out (H, sr, sc) by bins of pooling.h, reducing by max or mean.
void pooled_view(Context& ctx, const float* M, int H, int n, int m, int sr, int sc, PoolMode mode, float* out);

/// Sizes of one block-sparse call (validated by the caller; the layout's n equals n).
struct BlockSparseShape {
    int H = 0, n = 0, d = 0, dv = 0;  // heads, sequence length, head dim, value dim
    float scale = 1.0f;               // s in softmax(s·QKᵀ)
    ScoreMod mod;                     // applied to every logit before the layout's mask
};

/// Attention restricted to `layout` (host arrays, uploaded by the call); one thread block per (query block,
/// head) walking only the stored key blocks. Any head dim: above kMaxFlashHeadDim the sliced kernel
/// (attention_tile.cuh) walks the features in slices and splits the value columns over blocks.
void block_sparse_attention(Context& ctx, const BlockSparseShape& s, const BlockLayout& layout, const float* Q,
                            const float* K, const float* V, float* O,
                            float* lse);  // Q, K (H,n,d), V (H,n,dv), O (H,n,dv), lse (H,n,1) or nullptr

/// Sizes of one vertical-slash call (validated by the caller).
struct VerticalSlashShape {
    int H = 0, n = 0, d = 0, dv = 0;  // heads, sequence length, head dim, value dim
    float scale = 1.0f;               // s in softmax(s·QKᵀ)
    ScoreMod mod;                     // applied to every kept logit
};

/// Attention over the kept columns and diagonals (lists as validated by validate_vertical_slash_attention): one
/// thread block per (block of 64 query rows, head) gathering the block's merged key ranges
/// (vertical_slash_attention.cuh). Any head dim, as block_sparse_attention.
void vertical_slash_attention(Context& ctx, const VerticalSlashShape& s, const std::vector<std::vector<int>>& columns,
                              const std::vector<std::vector<int>>& offsets, const float* Q, const float* K,
                              const float* V, float* O,
                              float* lse);  // Q, K (H,n,d), V (H,n,dv), O (H,n,dv), lse (H,n,1) or nullptr

/// Buckets and sorted order of every (round, head): x·R_r through cuBLAS, lsh_argmax_bucket per position, one
/// CUB radix sort by ((round, head), bucket, position). Shapes validated by the caller; rotations unused
/// (may be nullptr) when n_buckets = 1.
void lsh_hash(Context& ctx, const float* X, int H, int n, int d, const float* rotations, int R, int n_buckets,
              int* buckets, int* perm);  // X (H,n,d), rotations (R,d,nb/2); buckets, perm (R,H,n) host, sized
/// O = Σ_r O_r·exp(L_r − logsumexp_r L_r) per row; lse = logsumexp_r L_r when not nullptr.
void lsh_combine(Context& ctx, const float* O_rounds, const float* lse_rounds, int R, int H, int n, int dv, float* O,
                 float* lse);  // O_rounds (R,H·n,dv), lse_rounds (R,H·n,1), O (H,n,dv), lse (H,n,1)

/// Sizes and rules of one chunked LSH attention call (as LshAttentionArgs; validated by the caller).
struct LshAttentionShape {
    int H = 0, n = 0, d = 0, dv = 0;               // heads, positions, head dim, value dim
    int rounds = 1, chunk_len = 64, look_back = 1;  // R, c, chunks looked back (wrapping)
    float scale = 1.0f;                             // s
    bool causal = false, self_mask = true;          // lsh.h cell rules
};
/// Chunked attention over the sorted order of every round (lsh_attention.cuh); perm_q == perm_k (the same
/// pointer) marks shared QK and uploads the order once. Any head dim. With O, the rounds are also combined on the
/// device (lsh_combine's kernel) and only O goes back; O_rounds may then be nullptr.
void lsh_attention(Context& ctx, const LshAttentionShape& s, const float* Q, const float* K, const float* V,
                   const int* perm_q, const int* perm_k, float* O_rounds, float* lse_rounds,
                   float* O);  // Q, K (H,n,d), V (H,n,dv), perms (R,H,n), O_rounds (R,H·n,dv), lse (R,H·n,1), O (H,n,dv)

/// Which map feature_map applies: the FAVOR kinds first, in fmap::FavorKind's order (FeatureMap's values).
enum class FeatureMapKernel {
    FavorPositive, FavorHyperbolic, FavorTrig, FavorRelu, EluPlusOne, SoftmaxRows, SoftmaxPositions, L2Normalise
};

/// Sizes and options of one feature-map call (validated by the caller; as FeatureMapArgs).
struct FeatureMapCall {
    int H = 0, n = 0, d = 0;       // X (H, n, d)
    int cols = 0;                  // columns of out (features + 1 with prepend_one)
    int m = 0, omega_heads = 1;    // ω (omega_heads, m, d), FAVOR kinds only
    FeatureMapKernel kind = FeatureMapKernel::EluPlusOne;
    float x_scale = 1.0f, add = 0.0f;
    bool is_query = true, prepend_one = false;
};

/// out (H, n, cols) = φ(X) on the GPU; omega may be nullptr for the non-FAVOR maps.
void feature_map(Context& ctx, const FeatureMapCall& call, const float* X, const float* omega, float* out);
/// feature_map on device memory: dOut (H, n, cols) = φ(dX), dW = ω (or nullptr), nothing copied.
void feature_map_on_device(Context& ctx, const FeatureMapCall& call, const float* dX, const float* dW, float* dOut);
/// Floats of ω a call reads (0 for the maps without random features).
size_t feature_map_omega_floats(const FeatureMapCall& call);
/// Floats of device scratch feature_map_on_device allocates for a call (the FAVOR projections and stabilisers).
size_t feature_map_scratch_floats(const FeatureMapCall& call);

/// Sizes and options of one linear-attention call (as LinearAttentionArgs; validated by the caller).
struct LinearAttentionShape {
    int H = 0, n = 0, m = 0, f = 0, dv = 0;  // heads, queries, keys (m = n when causal), features, value dim
    bool causal = false;                     // sums over j ≤ i only
    bool normalise = true;                   // divide by D_i
    float d_eps = 0.0f;                      // added to D_i
    float z_eps = 0.0f;                      // added to Σ_j φK_j from column z_eps_first on
    int z_eps_first = 0;
    int chunk = 64;                          // causal chunk length c
};

/// Linear attention: bidirectional through cuBLAS, causal through a chunked prefix scan (linear_attention.cuh).
void linear_attention(Context& ctx, const LinearAttentionShape& s, const float* phi_Q, const float* phi_K,
                      const float* V, float* O,
                      float* denom);  // φQ (H,n,f), φK (H,m,f), V (H,m,dv), O (H,n,dv), denom (H,n,1) or nullptr

/// φ_q(Q) and φ_k(K) made on the device (feature_map_on_device), then linear attention on them there: only O and
/// denom come back. Q (H,n,d), K (H,m,d), ω per map (or nullptr), V (H,m,dv), O (H,n,dv), denom (H,n,1) or nullptr.
void kernel_attention(Context& ctx, const FeatureMapCall& q_call, const FeatureMapCall& k_call, const float* Q,
                      const float* K, const float* omega_q, const float* omega_k, const LinearAttentionShape& s,
                      const float* V, float* O, float* denom);

/// Y (H, n, c) = Re(2-D DFT of each head of X (H, n, c)), unnormalised, through cuFFT.
void fft2_real(Context& ctx, const float* X, int H, int n, int c, float* Y);

/// Singular values of H row-major (r, c) matrices through cuSOLVER, descending, into S (H, k) on the host.
/// top_k = 0: exact, k = min(r, c): batched Jacobi (gesvdjBatched) when r, c ≤ 32, else gesvd per head.
/// top_k ≥ 1: randomized top k = min(top_k, r, c): the sketch Ω of core/backend/shared/svd_sketch.h drawn on the
/// device, products through cuBLAS, QR through geqrf/orgqr, gesvd of the small projection.
struct SvdRequest {
    int top_k = 0;
    uint64_t seed = 0;
    int oversample = 10;
    int power_iterations = 3;
};
void singular_values(Context& ctx, const float* M, int H, int r, int c, const SvdRequest& request,
                     double* S);  // M (H, r, c), S (H, k)

/// A pair of CUDA events (start, stop) for timing the device work of one primitive call.
class EventPair;
/// Destroys an EventPair (defined in measurement.cu).
struct EventPairDeleter {
    void operator()(EventPair* events) const noexcept;
};
using EventPairPtr = std::unique_ptr<EventPair, EventPairDeleter>;
/// Creates the two events; throws Error when that fails.
EventPairPtr make_event_pair();
/// The host↔device copies of one timed call: their device ms (an event pair around each) and bytes.
struct CopyTime {
    double ms = 0;
    int64_t bytes = 0;
};
/// Records the start event on the context's stream and starts timing its copies.
void record_start(Context& ctx, EventPair& events);
/// Records the stop event on the context's stream, waits for it and returns the ms between the two events; the
/// copies enqueued since record_start go to `copies` when given.
double record_stop(Context& ctx, EventPair& events, CopyTime* copies = nullptr);
/// The operands, result and events of the device GEMM roof, kept on the device between calls (resident_gemm.cu).
class ResidentGemm;
/// Destroys a ResidentGemm and frees its device buffers.
struct ResidentGemmDeleter {
    void operator()(ResidentGemm* roof) const noexcept;
};
using ResidentGemmPtr = std::unique_ptr<ResidentGemm, ResidentGemmDeleter>;
/// An empty roof: operands are made by the first time_resident_gemm of a size.
ResidentGemmPtr make_resident_gemm();
/// One size×size product C = A·B (row-major, operands from resident_gemm_operand) through cublasGemmEx in
/// `precision`, timed by events around the call alone; (re)makes the operands, untimed, when the size changes. When
/// c_host is given, C (size² floats) is copied into it after the timing.
ResidentGemmSample time_resident_gemm(Context& ctx, ResidentGemm& roof, int size, GemmPrecision precision,
                                      float* c_host);
/// Free memory on the current device in bytes (cudaMemGetInfo); -1 when it cannot be read.
int64_t device_free_bytes();
/// Sets the high-water mark of the tracked device allocations (DeviceMeter restarts and restores it).
void set_device_peak(int64_t bytes);

}  // namespace attnscope::cuda

// attnscope — the Backend interface: the handful of compute primitives every backend implements.
// Variants are plans over these primitives; the CPU backend runs everywhere, the CUDA backend (core/backend/cuda/)
// where a device exists. Every buffer argument carries its shape in a comment: (H, rows, cols).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/backend/interface/block_layout.h"
#include "core/backend/interface/gemm_roof.h"
#include "core/backend/interface/pooling.h"
#include "core/backend/interface/score_mod.h"
#include "core/tensor.h"

namespace attnscope {

/// Arithmetic of the tiled dense attention path. The CPU backend always computes in fp32.
enum class AttentionPrecision {
    Fp32,  // fp32 everywhere (CUDA cores on a GPU; 3×TF32 on tensor cores with DenseKernel::Cutlass)
    Tf32,  // CUDA: Q·Kᵀ and P·V on tensor cores with TF32 inputs (10-bit mantissa), fp32 accumulation/softmax
    Bf16,  // CUDA, DenseKernel::Cutlass: Q, K, V rounded to bfloat16 (8-bit mantissa), fp32 accumulation/softmax
    Fp16,  // the same with IEEE half inputs (11-bit mantissa)
};

/// Which CUDA kernel runs the tiled dense path (the CPU backend has one and ignores it).
enum class DenseKernel {
    Own,      // attnscope's kernels (flash_attention.cuh fp32, flash_attention_tc.cuh tf32): the teaching versions
    Cutlass,  // CUTLASS's fused multi-head attention (torch's memory-efficient SDPA kernel): fp32, bf16, fp16
    Best,     // CUTLASS's where it takes the call (as fast as SDPA fp32 on an H200; the own kernel ran at 0.5–0.7×),
              // else attnscope's: dense_kernel_to_run
};

/// Arguments of the dense attention primitive O = softmax(mod(scale·Q·Kᵀ) [+ causal mask])·V, per head.
struct DenseAttentionArgs {
    const Tensor3* Q = nullptr;          // (H, n, d)
    const Tensor3* K = nullptr;          // (H, m, d)
    const Tensor3* V = nullptr;          // (H, m, dv)
    float scale = 1.0f;                  // s in softmax(s·QKᵀ)
    ScoreMod score_mod;                  // applied to every logit s·q_i·k_j before masking (score_mod.h)
    bool causal = false;                 // key j allowed only when j ≤ i (requires m == n)
    int tile_rows = 64;                  // Br: query rows per tile of the online softmax
    int tile_cols = 64;                  // Bc: key columns per tile of the online softmax
    Tensor3* O = nullptr;                // (H, n, dv) out, required
    Tensor3* lse = nullptr;              // (H, n, 1) out, optional: log Σ_j exp(s·q_i·k_j)
    Tensor3* P = nullptr;                // (H, n, m) out, optional: materialise the probabilities
    // pooled, entry (h, a, b): the largest P[h][i][j] over row bin a of the n queries (sr = pooled->rows() bins)
    // and column bin b of the m keys (sc = pooled->cols() bins), P being the probabilities O uses (score modifier
    // applied; causal: only j ≤ i count, a bin with no such cell is 0); 1 ≤ sr ≤ n, 1 ≤ sc ≤ m. The CPU computes it
    // in the pass that computes O, holding sc·Br′ more floats per thread for a query tile's column-bin maxima
    // (tiled_attention_scratch_bytes with pooled_cols = sc), or from P when P is materialised; CUDA refuses it.
    Tensor3* pooled = nullptr;  // (H, sr, sc) out, optional: max-pooled P, bins as pooled_view's (pooling.h)
    AttentionPrecision precision = AttentionPrecision::Fp32;  // tiled path only (P is always fp32)
    DenseKernel kernel = DenseKernel::Own;                    // tiled path on CUDA only
};

/// Bytes of tile scratch the tiled (P-less) dense attention holds on the CPU for m keys: per thread q (Br, d),
/// s (Br, min(Bc, m)), acc (Br, dv) and 4 row statistics (Br), plus (sc, Br) column-bin maxima when the call asks
/// for a pooled picture with sc = pooled_cols columns. Variants' memory estimates use it;
/// tests/unit/test_bench_engine.cpp checks estimates built on it against the tracked peak.
int64_t tiled_attention_scratch_bytes(int tile_rows, int tile_cols, int m, int d, int dv, int pooled_cols = 0);

/// Query rows per tile as the CPU tile scratch holds them: tile_rows rounded up to whole vectors when a vector flash
/// kernel is compiled in (core/cpu_isa.h; its transposed rows are padded), tile_rows otherwise.
int tiled_attention_padded_rows(int tile_rows);

/// Key columns the CPU block-sparse attention scores per GEMM: wide enough for efficient GEMMs, small enough to
/// stay in L2.
constexpr int kBlockSparseChunkCols = 256;

/// Bytes of scratch the CPU block-sparse attention holds for blocks of b: per thread q (b, d), s (b, C),
/// gathered k (C, d) and v (C, dv), acc (b, dv) and 4 row statistics (b), C = max(b, ⌊256/b⌋·b).
int64_t block_sparse_scratch_bytes(int block, int d, int dv);

/// Arguments of block-sparse attention: per head h and query i, softmax(mod(scale·q_i·k_j)) over the cells (i, j)
/// the layout allows, times V. Rows with no allowed cell get O = 0 and lse = −inf. Positions i, j are the rows of
/// Q and K as given (a permuted run that uses a positional modifier would see slot distances).
struct BlockSparseAttentionArgs {
    const Tensor3* Q = nullptr;            // (H, n, d)
    const Tensor3* K = nullptr;            // (H, n, d)
    const Tensor3* V = nullptr;            // (H, n, dv)
    const BlockLayout* layout = nullptr;   // n, block b, 1 or H layout heads
    float scale = 1.0f;                    // s in softmax(s·QKᵀ)
    ScoreMod score_mod;                    // applied to every logit before the layout's mask (score_mod.h)
    Tensor3* O = nullptr;                  // (H, n, dv) out, required
    Tensor3* lse = nullptr;                // (H, n, 1) out, optional: log Σ_{j allowed} exp(mod(s·q_i·k_j))
};

/// Arguments of vertical-slash attention (MInference's line pattern): per head h and query i, softmax(mod(scale·q_i·k_j))
/// over the union of the kept columns {j ∈ columns[h], j ≤ i} and the kept diagonals {i − o : o ∈ offsets[h], i − o ≥ 0}
/// (a cell on both counts once), times V. Rows with no allowed cell get O = 0 and lse = −inf, as block-sparse.
struct VerticalSlashAttentionArgs {
    const Tensor3* Q = nullptr;                        // (H, n, d)
    const Tensor3* K = nullptr;                        // (H, n, d)
    const Tensor3* V = nullptr;                        // (H, n, dv)
    const std::vector<std::vector<int>>* columns = nullptr;  // (H) per head: kept key columns, ascending, in [0, n)
    const std::vector<std::vector<int>>* offsets = nullptr;  // (H) per head: kept i − j, ascending, ≥ 0 (≥ n: none)
    float scale = 1.0f;                                // s in softmax(s·QKᵀ)
    ScoreMod score_mod;                                // applied to every logit before the mask (score_mod.h)
    Tensor3* O = nullptr;                              // (H, n, dv) out, required
    Tensor3* lse = nullptr;                            // (H, n, 1) out, optional: log Σ_{j allowed} exp(mod(s·q_i·k_j))
};

/// Query rows per task of the CPU vertical-slash attention: one GEMM of these rows against the gathered columns.
constexpr int kVerticalSlashRows = 64;

/// Bytes of scratch the CPU vertical-slash attention holds for H heads of n positions with `columns` kept columns in
/// all: the gathered column keys and values (columns, d + dv), per (head, position) a column-membership float and the
/// running max and sum, and per thread q (R, d), s (R, C) and 2 row factors (R), R = kVerticalSlashRows,
/// C = kBlockSparseChunkCols (the accumulator is O itself).
int64_t vertical_slash_scratch_bytes(int H, int n, int64_t columns, int d, int dv);

/// Arguments of the LSH hash primitive: buckets of every position per round, and the sorted order.
struct LshHashArgs {
    const Tensor3* X = nullptr;          // (H, n, d) vectors to hash (queries, or keys when QK are not shared)
    const Tensor3* rotations = nullptr;  // (R, d, n_b/2) one random rotation per round, shared by the heads
    int rounds = 1;                      // R
    int n_buckets = 2;                   // n_b: 1, or even
    std::vector<int>* buckets = nullptr; // (R, H, n) out: bucket of each position, resized by the call
    std::vector<int>* perm = nullptr;    // (R, H, n) out: position at each sorted slot (key bucket·n + position)
};

/// Arguments of chunked LSH attention: per round, each chunk of c sorted queries attends to its own chunk
/// and look_back previous chunks of sorted keys (wrapping), with causal masking, the self-mask and the
/// duplicate discount (core/backend/interface/lsh_rules.h). Rows with no allowed key output 0 and L_r = −inf.
struct LshAttentionArgs {
    const Tensor3* Q = nullptr;             // (H, n, d)
    const Tensor3* K = nullptr;             // (H, n, d) keys (L2-normalised queries under shared QK)
    const Tensor3* V = nullptr;             // (H, n, dv)
    const std::vector<int>* perm_q = nullptr; // (R, H, n) query position at each sorted slot
    const std::vector<int>* perm_k = nullptr; // (R, H, n) key position at each sorted slot (= perm_q when shared)
    int rounds = 1;                         // R
    int chunk_len = 64;                     // c
    int look_back = 1;                      // previous chunks attended (wrapping)
    float scale = 1.0f;                     // s
    bool causal = false;                    // key position ≤ query position only
    bool self_mask = true;                  // score kLshSelfScore for query i = key i (shared QK)
    Tensor3* O_rounds = nullptr;            // (R, H·n, dv) out: O_r of every position (not sorted); may be nullptr with O
    Tensor3* lse_rounds = nullptr;          // (R, H·n, 1) out: L_r = log Σ exp(score) of the round's set
    Tensor3* O = nullptr;                   // (H, n, dv) out, optional: the rounds combined as lsh_combine combines
                                            // them, in the same call (a device keeps O_rounds where it computed them)
};

/// Arguments of the round combination O = Σ_r O_r·exp(L_r − logsumexp_r L_r).
struct LshCombineArgs {
    const Tensor3* O_rounds = nullptr;    // (R, H·n, dv)
    const Tensor3* lse_rounds = nullptr;  // (R, H·n, 1)
    Tensor3* O = nullptr;                 // (H, n, dv) out
    Tensor3* lse = nullptr;               // (H, n, 1) out, optional: logsumexp_r L_r
};

/// Which feature map φ a FeatureMapArgs call applies (math per element in primitives/feature_maps.h).
enum class FeatureMap {
    FavorPositive,     // m^-½·exp(ωᵢᵀx̂ − ‖x̂‖²/2 − stab): m columns, > 0 (FAVOR+ SM⁺)
    FavorHyperbolic,   // (2m)^-½·[exp(ωx̂ − ‖x̂‖²/2 − stab), exp(−ωx̂ − ‖x̂‖²/2 − stab)]: 2m columns, > 0 (SM^hyp)
    FavorTrig,         // m^-½·exp(‖x̂‖²/2 − stab)·[sin ωx̂, cos ωx̂]: 2m columns, signed (SM^trig)
    FavorRelu,         // m^-½·max(ωᵢᵀx̂, 0): m columns, ≥ 0 (generalised kernel, f = ReLU)
    EluPlusOne,        // elu(x) + 1 per element: d columns, > 0 (Katharopoulos)
    SoftmaxRows,       // softmax over each row's d features (Efficient attention ρ_q)
    SoftmaxPositions,  // softmax over the n positions of each feature (Efficient attention ρ_k)
    L2Normalise,       // x / ‖x‖ per row; an all-zero row stays zero (Taylor q̂, k̂)
};

/// True for the FAVOR kinds (they need ω).
inline bool is_favor(FeatureMap map) {
    return map == FeatureMap::FavorPositive || map == FeatureMap::FavorHyperbolic || map == FeatureMap::FavorTrig ||
           map == FeatureMap::FavorRelu;
}

/// Columns of φ(x) for a map with m random features on d-dimensional rows (+1 with prepend_one).
int feature_map_columns(FeatureMap map, int m, int d, bool prepend_one = false);

/// Arguments of the feature-map primitive out = φ(x_scale·X), per head.
/// The exp kinds subtract a stabiliser that cancels in D⁻¹: the row max of the exponent for queries, the
/// max over all rows of a head for keys (a per-key shift would not cancel).
struct FeatureMapArgs {
    const Tensor3* X = nullptr;      // (H, n, d) rows to map (queries or keys)
    const Tensor3* omega = nullptr;  // (1|H, m, d) random features ω (FAVOR kinds only)
    FeatureMap map = FeatureMap::EluPlusOne;
    float x_scale = 1.0f;            // x̂ = x_scale·x (d^-¼ for Performer); FAVOR kinds only
    bool is_query = true;            // stabiliser per row (queries) or per head (keys)
    float add = 0.0f;                // constant added to every feature after the map (peers' ε; papers: 0)
    bool prepend_one = false;        // out = [1, φ(x)]: Taylor's 1 + q̂·k̂ as one dot product
    Tensor3* out = nullptr;          // (H, n, feature_map_columns(...)) out, sized by the caller
};

/// Arguments of linear attention O_i = φQ_i·S / D_i with S = Σ_j φK_j V_jᵀ, D_i = φQ_i·(Σ_j φK_j + z_eps) + d_eps;
/// sums over all j (bidirectional) or j ≤ i (causal, chunked prefix sums).
struct LinearAttentionArgs {
    const Tensor3* phi_Q = nullptr;  // (H, n, f) query features
    const Tensor3* phi_K = nullptr;  // (H, n, f) key features
    const Tensor3* V = nullptr;      // (H, n, dv)
    bool causal = false;             // sums over j ≤ i only
    bool normalise = true;           // divide by D_i (off for Efficient attention: ρ already normalises)
    float d_eps = 0.0f;              // added to D_i (Katharopoulos ε)
    float z_eps = 0.0f;              // added to the components c ≥ z_eps_first of Σ_j φK_j (Taylor ε)
    int z_eps_first = 0;             // first feature column that gets z_eps
    int chunk = 64;                  // causal: rows per chunk (quadratic inside a chunk, prefix sums across)
    Tensor3* O = nullptr;            // (H, n, dv) out, required
    Tensor3* denom = nullptr;        // (H, n, 1) out, optional: D_i (1 when not normalising); 0 marks D = 0 rows
};

/// Arguments of kernel attention: the feature maps φ_q(Q), φ_k(K) followed by linear attention, as one call so a
/// backend can fuse them and never hold φ(Q), φ(K) (H, n, f) in memory. Same results as feature_map twice and
/// then linear_attention with these arguments.
struct KernelAttentionArgs {
    FeatureMapArgs q_map;            // X = Q (H, n, d), map, ω, scale, add, prepend_one; out unused
    FeatureMapArgs k_map;            // X = K (H, m, d), likewise; both maps must give the same column count f
    LinearAttentionArgs attention;   // V (H, m, dv), causal, normalise, eps, chunk, O, denom; phi_Q, phi_K unused
};

/// Arguments of the singular-values primitive: σ of one head or of every head of M, descending.
/// Exact (every σ) when top_k = 0, else a randomized top-k (Halko et al. 2011) whose Gaussian sketch Ω comes
/// from core/backend/shared/random.h, so a seed gives the same sketch on every backend.
struct SingularValuesArgs {
    const Tensor3* M = nullptr;          // (H, r, c)
    int head = -1;                       // -1: every head; h: head h only
    int top_k = 0;                       // 0: exact, all min(r, c) values; k ≥ 1: randomized top min(k, r, c)
    uint64_t seed = 0;                   // randomized: seed of Ω (c, k + oversample)
    int oversample = 10;                 // randomized: extra sketch columns
    int power_iterations = 3;            // randomized: rounds of M·Mᵀ with re-orthonormalisation
    std::vector<double>* S = nullptr;    // (heads, k) out, resized by the call; descending per head
};
/// Checks SingularValuesArgs (head exists, matrix not empty, top_k ≥ 0); throws Error naming the problem and
/// returns the values per head the call produces.
int validate_singular_values(const SingularValuesArgs& args);

/// What a backend measured about its own device over a scope (DeviceMeter in core/backend/interface/cost_meter.h).
struct DeviceClock {
    double ms_total = 0;        // device time of every primitive call so far (CUDA events; monotonic)
    double call_wall_ms_total = 0;  // host wall time spent inside those calls (launch, copies, waits)
    double copy_ms_total = 0;       // device time of the host↔device copies inside those calls (an event pair each)
    int64_t copy_bytes_total = 0;   // bytes those copies moved
    int64_t live_bytes = 0;     // tracked device bytes held now
    int64_t peak_bytes = 0;     // high-water mark of live_bytes since the last set_device_peak
};

/// Compute primitives. Implementations must be thread-compatible (one call at a time per instance)
/// and must throw attnscope::Error (never crash) on bad shapes or exhausted memory.
class Backend {
public:
    virtual ~Backend() = default;
    /// Short id: "cpu" or "cuda".
    virtual std::string name() const = 0;
    /// One line for the UI and reports, e.g. "CPU, 2 threads (Eigen 3.4.0, OpenMP)".
    virtual std::string description() const = 0;

    /// C_h = alpha·op(A_h)·op(B_h) + beta·C_h for every head h. A or B may have one head (broadcast).
    /// A: (H|1, r, k) or its transpose; B: (H|1, k, c) or its transpose; C: (H, r, c), sized by the caller.
    virtual void gemm(const Tensor3& A, bool trans_a, const Tensor3& B, bool trans_b, float alpha, float beta,
                      Tensor3& C) = 0;

    /// Dense attention. Without P it runs the tiled online softmax (O(n) extra memory); with P it
    /// materialises the probabilities. Fills lse when given.
    virtual void dense_attention(const DenseAttentionArgs& args) = 0;

    /// Pools each head of M (H, n, m) to out (H, s_r, s_c) with s_r = min(n, size), s_c = min(m, size),
    /// reducing each bin by max or mean. out is resized by the call.
    virtual void pooled_view(const Tensor3& M, int size, PoolMode mode, Tensor3& out) = 0;

    /// Attention restricted to a block-sparse layout; work is proportional to the stored blocks.
    virtual void block_sparse_attention(const BlockSparseAttentionArgs& args) = 0;
    /// Attention over kept key columns and diagonals (see VerticalSlashAttentionArgs); work is proportional to the
    /// kept cells, not to the b×b blocks they touch.
    virtual void vertical_slash_attention(const VerticalSlashAttentionArgs& args) = 0;
    /// Hashes every position of X in every round and sorts by (bucket, position); see LshHashArgs.
    virtual void lsh_hash(const LshHashArgs& args) = 0;
    /// Chunked attention over the sorted order of every round; see LshAttentionArgs.
    virtual void lsh_attention(const LshAttentionArgs& args) = 0;
    /// Log-sum-exp combination of the rounds; see LshCombineArgs.
    virtual void lsh_combine(const LshCombineArgs& args) = 0;

    /// Applies a feature map φ to every row (or, for SoftmaxPositions, every column) of each head.
    virtual void feature_map(const FeatureMapArgs& args) = 0;
    /// Linear attention from features (bidirectional or causal prefix sums); never builds an n×n matrix.
    virtual void linear_attention(const LinearAttentionArgs& args) = 0;
    /// Feature maps + linear attention in one call (see KernelAttentionArgs). The default materialises
    /// φ(Q), φ(K) through feature_map and runs linear_attention; a backend overrides it to fuse the two.
    virtual void kernel_attention(const KernelAttentionArgs& args);
    /// Y_h = Re(F_n·X_h·F_c) for every head: the real part of the 2-D DFT of X (H, n, c) into Y (H, n, c),
    /// unnormalised (FNet token mixing). Y is resized by the call.
    virtual void fft2_real(const Tensor3& X, Tensor3& Y) = 0;

    /// Singular values of M's heads (exact, or randomized top-k); see SingularValuesArgs.
    virtual void singular_values(const SingularValuesArgs& args) = 0;

    /// True when the backend runs on a device with its own clock and memory (CUDA); the CPU's truth is the
    /// wall clock and the host's tracked bytes, so it keeps the defaults below.
    virtual bool has_device() const { return false; }
    /// The device's clock and tracked memory now (zeros without a device).
    virtual DeviceClock device_clock() const { return {}; }
    /// Sets the device high-water mark to `bytes` (a DeviceMeter restarts and restores it; no-op without a device).
    virtual void set_device_peak(int64_t bytes) { (void)bytes; }
    /// Free device memory in bytes for an estimate before launch, or -1 without a device.
    virtual int64_t device_free_bytes() const { return -1; }
    /// Keeps device copies of these host tensors until release_device_inputs(), so the primitives that read them
    /// copy nothing (a bench point's Q, K and V across its runs). The caller must not change them meanwhile. A
    /// backend without a device keeps nothing.
    virtual void keep_inputs_on_device(const std::vector<const Tensor3*>& tensors) { (void)tensors; }
    /// Frees the copies keep_inputs_on_device made.
    virtual void release_device_inputs() {}
    /// The device's GEMM roof: one size×size · size×size product on operands kept on the device (made, untimed, on
    /// the first call of a size), timed around the library call alone, so no copy counts. `result`, when given,
    /// receives C (row-major C = A·B of the fixed operands resident_gemm_operand describes). Throws Error on a
    /// backend without a device (the CPU's roof is its host SGEMM) and when size < 16.
    virtual ResidentGemmSample time_resident_gemm(int size, GemmPrecision precision, Tensor3* result = nullptr);
};

/// keep_inputs_on_device for the length of a scope: the copies are released when it ends.
class DeviceInputsScope {
public:
    /// Keeps device copies of `tensors` on `backend` (nothing without a device).
    DeviceInputsScope(Backend& backend, const std::vector<const Tensor3*>& tensors) : m_backend(backend) {
        m_backend.keep_inputs_on_device(tensors);
    }
    ~DeviceInputsScope() { m_backend.release_device_inputs(); }
    DeviceInputsScope(const DeviceInputsScope&) = delete;
    DeviceInputsScope& operator=(const DeviceInputsScope&) = delete;

private:
    Backend& m_backend;
};

/// Sizes of one head's product op(A)·op(B) = C: (rows × inner) · (inner × cols).
struct GemmShape {
    int rows = 0, inner = 0, cols = 0;
};

/// Checks gemm shapes for every backend (heads equal or broadcast, inner and outer sizes); throws Error
/// naming the mismatch, else returns the per-head sizes.
GemmShape validate_gemm(const Tensor3& A, bool trans_a, const Tensor3& B, bool trans_b, const Tensor3& C);

/// Checks the shapes of dense attention arguments; throws Error naming the mismatch.
void validate_dense_attention(const DenseAttentionArgs& args);
/// What CUTLASS's fused attention (DenseKernel::Cutlass) takes beyond validate_dense_attention: no score modifier,
/// d and dv ≤ 128 and multiples of 8, at most 65535 heads, precision fp32, bf16 or fp16 (it has no single-pass
/// TF32 form). Throws Error saying what to change.
void validate_cutlass_attention(const DenseAttentionArgs& args);
/// Why CUTLASS's fused attention cannot take these arguments, with what to change; "" when it can.
std::string cutlass_refusal(const DenseAttentionArgs& args);
/// The kernel a CUDA backend runs for args: its kernel, with Best resolved to Cutlass when cutlass_refusal is empty
/// and to Own otherwise (tf32, a score modifier, head dims CUTLASS does not take).
DenseKernel dense_kernel_to_run(const DenseAttentionArgs& args);
/// Checks the shapes of feature-map arguments; throws Error naming the mismatch.
void validate_feature_map(const FeatureMapArgs& args);
/// Checks the shapes of linear-attention arguments; throws Error naming the mismatch.
void validate_linear_attention(const LinearAttentionArgs& args);
/// Checks kernel-attention arguments (maps, V, O, denom); throws Error naming the mismatch, else returns f.
int validate_kernel_attention(const KernelAttentionArgs& args);

/// Checks shapes and layout consistency of block-sparse arguments; throws Error naming the mismatch.
void validate_block_sparse_attention(const BlockSparseAttentionArgs& args);

/// Checks shapes and line lists of vertical-slash arguments (one list per head, ascending, columns in [0, n), offsets
/// ≥ 0); throws Error naming the problem.
void validate_vertical_slash_attention(const VerticalSlashAttentionArgs& args);

/// Checks the buffers and rotations of LSH hashing (every backend, same messages); throws Error naming the problem.
void validate_lsh_hash(const LshHashArgs& args);
/// Checks the buffers, shapes and geometry of chunked LSH attention (every backend, same messages); throws
/// Error naming the problem.
void validate_lsh_attention(const LshAttentionArgs& args);
/// Checks the buffers and shapes of the LSH round combination; throws Error naming the problem.
void validate_lsh_combine(const LshCombineArgs& args);
/// Checks that the FFT input is not empty; throws Error naming its shape.
void validate_fft2_real(const Tensor3& X);
/// Checks the pooled view size; throws Error when it is below 1.
void validate_pooled_view(int size);

}  // namespace attnscope

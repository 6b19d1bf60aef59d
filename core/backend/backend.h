// attnscope — the Backend interface: the handful of compute primitives every backend implements.
// Variants are plans over these primitives; the CPU backend runs everywhere, the CUDA backend (kernels/)
// where a device exists. Every buffer argument carries its shape in a comment: (H, rows, cols).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "../primitives/block_layout.h"
#include "../primitives/pooling.h"
#include "../tensor.h"

namespace attnscope {

/// Arguments of the dense attention primitive O = softmax(scale·Q·Kᵀ [+ causal mask])·V, per head.
struct DenseAttentionArgs {
    const Tensor3* Q = nullptr;          // (H, n, d)
    const Tensor3* K = nullptr;          // (H, m, d)
    const Tensor3* V = nullptr;          // (H, m, dv)
    float scale = 1.0f;                  // s in softmax(s·QKᵀ)
    bool causal = false;                 // key j allowed only when j ≤ i (requires m == n)
    int tile_rows = 64;                  // Br: query rows per tile of the online softmax
    int tile_cols = 64;                  // Bc: key columns per tile of the online softmax
    Tensor3* O = nullptr;                // (H, n, dv) out, required
    Tensor3* lse = nullptr;              // (H, n, 1) out, optional: log Σ_j exp(s·q_i·k_j)
    Tensor3* P = nullptr;                // (H, n, m) out, optional: materialise the probabilities
};

// [SECTION] block-sparse
/// Arguments of block-sparse attention: per head h and query i, softmax(scale·q_i·k_j) over the cells (i, j)
/// the layout allows, times V. Rows with no allowed cell get O = 0 and lse = −inf.
struct BlockSparseAttentionArgs {
    const Tensor3* Q = nullptr;            // (H, n, d)
    const Tensor3* K = nullptr;            // (H, n, d)
    const Tensor3* V = nullptr;            // (H, n, dv)
    const BlockLayout* layout = nullptr;   // n, block b, 1 or H layout heads
    float scale = 1.0f;                    // s in softmax(s·QKᵀ)
    Tensor3* O = nullptr;                  // (H, n, dv) out, required
    Tensor3* lse = nullptr;                // (H, n, 1) out, optional: log Σ_{j allowed} exp(s·q_i·k_j)
};
// [SECTION] end block-sparse

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

    // [SECTION] block-sparse
    /// Attention restricted to a block-sparse layout; work is proportional to the stored blocks.
    virtual void block_sparse_attention(const BlockSparseAttentionArgs& args) = 0;
    // [SECTION] end block-sparse
};

/// Checks the shapes of dense attention arguments; throws Error naming the mismatch.
void validate_dense_attention(const DenseAttentionArgs& args);

// [SECTION] block-sparse
/// Checks shapes and layout consistency of block-sparse arguments; throws Error naming the mismatch.
void validate_block_sparse_attention(const BlockSparseAttentionArgs& args);
// [SECTION] end block-sparse

}  // namespace attnscope

// attnscope — what a variant decided, for the views and the metrics: typed parts, each present only for the
// variants that have it. A panel reads the parts it draws (the LSH panel LshBuckets, the block view the
// BlockPlan, …); nothing is looked up by name.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backend/interface/block_layout.h"
#include "core/reason.h"
#include "core/tensor.h"

namespace attnscope {

/// The block-sparse layout a masked variant's kernel ran (strided, fixed, longformer, bigbird, xl).
struct BlockPlan {
    std::shared_ptr<const BlockLayout> layout;  // the very layout passed to block_sparse_attention
    std::vector<int> perm;                      // (H·n) slot → position when some heads ran permuted; empty otherwise
};

/// BigBird's random key blocks of head 0.
struct RandomBlocks {
    int block_rows = 0;     // nb
    int per_row = 0;        // r
    std::vector<int> head0; // (nb, r) key block per query block row, −1 = none left to draw
};

/// Reformer's hashing, per round.
struct LshBuckets {
    int rounds = 0;                              // R
    int buckets = 1;                             // n_b
    int chunk_len = 0;                           // c
    std::vector<std::vector<int>> bucket_q;      // per round (H·n): bucket of each query position
    std::vector<std::vector<int>> perm_q;        // per round (H·n): sorted slot → query position
    std::vector<std::vector<int>> bucket_k;      // per round, keys; empty with shared QK (keys are the queries)
    std::vector<std::vector<int>> perm_k;        // per round, keys; empty with shared QK
    Tensor3 rotations;                           // (R, d, n_b/2) random rotations; no columns when n_b = 1
    /// The keys' buckets of round r (the queries' with shared QK).
    const std::vector<int>& keys_bucket(int r) const { return bucket_k.empty() ? bucket_q[r] : bucket_k[r]; }
};

/// Linformer's sequence projections as run (set when the matrix is materialised).
struct Projections {
    std::optional<Tensor3> E;  // (H|1, k, n) key projection
    std::optional<Tensor3> F;  // (H|1, k, n) value projection
    std::optional<Tensor3> R;  // (H|1, k, n) Theorem 1's JL matrix (projection = jl)
};

/// Performer's random features.
struct FeatureMaps {
    Tensor3 omega;                // (1, m, d) the drawn feature directions
    std::optional<Tensor3> phi_Q; // (H, n, f) φ(Q), when the matrix is materialised
    std::optional<Tensor3> phi_K; // (H, n, f) φ(K)
};

/// A matrix the Matrices panel shows beside P̃ with the same shape (FNet's S_n next to C_n).
struct DisplayMatrix {
    std::string title;  // what it is, e.g. "S_n = sin(2πij/n): imaginary part of the DFT"
    Tensor3 matrix;     // (H, n, n)
};

/// Everything a variant decided beside O: the typed parts above plus what every family may report.
struct Structure {
    std::optional<ReasonMask> mask;          // per-cell reasons (when the matrix is materialised)
    std::optional<double> density;           // allowed cells / (n² or n(n+1)/2)
    std::optional<Tensor3> allowed_lse;      // (H, n, 1) log Σ_allowed exp(s·q·k): mass recall
    std::shared_ptr<const Tensor3> lse;      // (H, n, 1) flash: the L = m + log ℓ its pass keeps, so that its O and L
                                             // can stand as the exact reference (ReferenceCache::adopt)
    std::shared_ptr<const Tensor3> picture;  // (H, s, s) max-pooled P̃ drawn inside the run's own pass
                                             // (RunOptions::picture_size), when the variant can
    int64_t rows_without_keys = 0;           // query rows (over all heads) whose allowed set is empty: their O is 0
                                             // (set by note_rows_without_keys; a variant that explains its own sets
                                             // it first)
    std::vector<std::string> notes;          // e.g. "n = 976 padded to 1024 (block 64)"
    std::string matrix_title;                // what P̃ is when it is not an attention matrix (FNet)
    std::optional<BlockPlan> blocks;         // masked family
    std::optional<RandomBlocks> random_blocks;  // bigbird
    std::optional<LshBuckets> lsh;           // lsh
    std::optional<Projections> projections;  // linformer
    std::optional<FeatureMaps> features;     // performer
    std::vector<DisplayMatrix> display_matrices;  // fnet
};

}  // namespace attnscope

#include "core/backend/interface/backend.h"

#include <omp.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "core/backend/interface/lsh_rules.h"
#include "core/cpu_isa.h"

namespace attnscope {

namespace {

/// Throws Error unless `mod` can run on H heads: a finite positive soft-cap, ALiBi slopes for these heads.
void validate_score_mod(const ScoreMod& mod, int H, const char* primitive) {
    if (mod.kind == ScoreModKind::Softcap && !(std::isfinite(mod.cap) && mod.cap > 0))
        throw Error(std::string(primitive) + ": soft-cap c = " + std::to_string(mod.cap) + " must be finite and > 0");
    if (mod.kind == ScoreModKind::Alibi && mod.heads != H)
        throw Error(std::string(primitive) + ": ALiBi slopes are for " + std::to_string(mod.heads) +
                    " heads but the call has " + std::to_string(H) + " (internal: set ScoreMod::heads)");
}

/// Checks K, V (m keys), O and lse against Q's heads, rows and widths, then the score modifier; `what` names the
/// primitive in the messages.
void validate_attention_operands(const Tensor3& Q, const Tensor3& K, const Tensor3& V, const Tensor3& O,
                                 const Tensor3* lse, int m, const ScoreMod& mod, const char* what) {
    const int H = Q.heads(), n = Q.rows(), dv = V.cols();
    require_shape(K, H, m, Q.cols(), "K");
    require_shape(V, H, m, dv, "V");
    require_shape(O, H, n, dv, "O");
    if (lse) require_shape(*lse, H, n, 1, "lse");
    validate_score_mod(mod, H, what);
}

}  // namespace

GemmShape validate_gemm(const Tensor3& A, bool ta, const Tensor3& B, bool tb, const Tensor3& C) {
    const int H = C.heads();
    if ((A.heads() != H && A.heads() != 1) || (B.heads() != H && B.heads() != 1))
        throw Error("gemm: A " + A.shape_string() + " and B " + B.shape_string() + " must have " + std::to_string(H) +
                    " heads (or 1, broadcast) like C " + C.shape_string());
    const int r = ta ? A.cols() : A.rows(), k = ta ? A.rows() : A.cols();
    const int kb = tb ? B.cols() : B.rows(), c = tb ? B.rows() : B.cols();
    if (k != kb || r != C.rows() || c != C.cols())
        throw Error("gemm: op(A) is " + std::to_string(r) + "×" + std::to_string(k) + ", op(B) is " + std::to_string(kb) +
                    "×" + std::to_string(c) + " and C is " + C.shape_string() + ": inner or outer sizes differ");
    return {r, k, c};
}

int tiled_attention_padded_rows(int tile_rows) {
    // Must agree with cpu_flash_tile.h's padded_rows (this file is built with the same flags).
    return (tile_rows + kSimdLanes - 1) / kSimdLanes * kSimdLanes;
}

int64_t tiled_attention_scratch_bytes(int tile_rows, int tile_cols, int m, int d, int dv, int pooled_cols) {
    // Mirrors cpu_dense_attention.cpp's Scratch: one set per OpenMP thread.
    const int64_t br = tiled_attention_padded_rows(tile_rows), bc = std::min(tile_cols, m);
    return int64_t(sizeof(float)) * omp_get_max_threads() * br * (d + bc + dv + 4 + std::max(pooled_cols, 0));
}

int64_t block_sparse_scratch_bytes(int block, int d, int dv) {
    // Mirrors cpu_block_sparse.cpp's Scratch: one set per OpenMP thread, rows padded as the flash tile kernel needs.
    const int64_t b = tiled_attention_padded_rows(block), cols = std::max(block, (kBlockSparseChunkCols / block) * block);
    return int64_t(sizeof(float)) * omp_get_max_threads() * (b * d + b * cols + cols * d + cols * dv + b * dv + 4 * b);
}

void validate_dense_attention(const DenseAttentionArgs& a) {
    if (!a.Q || !a.K || !a.V || !a.O) throw Error("dense attention needs Q, K, V and O");
    const int H = a.Q->heads(), n = a.Q->rows(), m = a.K->rows();
    validate_attention_operands(*a.Q, *a.K, *a.V, *a.O, a.lse, m, a.score_mod, "dense attention");
    if (a.P) require_shape(*a.P, H, n, m, "P");
    if (a.pooled) {
        const Tensor3& p = *a.pooled;
        if (p.heads() != H || p.rows() < 1 || p.rows() > n || p.cols() < 1 || p.cols() > m)
            throw Error("dense attention: the pooled picture is " + p.shape_string() + " but must be (H = " +
                        std::to_string(H) + ", sr, sc) with 1 ≤ sr ≤ n = " + std::to_string(n) + " and 1 ≤ sc ≤ m = " +
                        std::to_string(m) + ": allocate it with min(n, size) rows and min(m, size) columns");
    }
    if (a.causal && m != n)
        throw Error("causal dense attention needs as many keys as queries (n = " + std::to_string(n) +
                    ", m = " + std::to_string(m) + ")");
    if (a.tile_rows < 1 || a.tile_cols < 1) throw Error("attention tiles must have at least one row and column");
}

std::string cutlass_refusal(const DenseAttentionArgs& a) {
    const int d = a.Q->cols(), dv = a.V->cols();
    if (a.precision == AttentionPrecision::Tf32)
        return "CUTLASS's attention kernel has no single-pass TF32 form (its fp32 runs 3×TF32, about fp32's "
               "accuracy): use precision fp32 with kernel cutlass, or precision tf32 with kernel own";
    if (a.score_mod.kind != ScoreModKind::None)
        return "CUTLASS's attention kernel takes no score modifier: use kernel own for score_mod " +
               std::string(a.score_mod.kind == ScoreModKind::Alibi ? "alibi" : "softcap");
    if (d > 128 || dv > 128 || d % 8 != 0 || dv % 8 != 0)
        return "CUTLASS's attention kernel takes head dims up to 128 in multiples of 8 (d = " + std::to_string(d) +
               ", dv = " + std::to_string(dv) + "): use kernel own for these head dims";
    if (int64_t(std::max(a.Q->rows(), a.K->rows())) * std::max(d, dv) > int64_t(INT32_MAX))
        return "CUTLASS's attention kernel indexes a head with 32-bit strides: n·d must stay below 2³¹; use kernel own";
    if (a.Q->heads() > 65535)
        return "CUTLASS's attention kernel runs at most 65535 heads per call (got " + std::to_string(a.Q->heads()) +
               "): use kernel own";
    return "";
}

void validate_cutlass_attention(const DenseAttentionArgs& a) {
    validate_dense_attention(a);
    if (const std::string why = cutlass_refusal(a); !why.empty()) throw Error(why);
}

DenseKernel dense_kernel_to_run(const DenseAttentionArgs& a) {
    if (a.kernel != DenseKernel::Best) return a.kernel;
    return cutlass_refusal(a).empty() ? DenseKernel::Cutlass : DenseKernel::Own;
}

void validate_block_sparse_attention(const BlockSparseAttentionArgs& a) {
    if (!a.Q || !a.K || !a.V || !a.O || !a.layout) throw Error("block-sparse attention needs Q, K, V, O and a layout");
    const int H = a.Q->heads(), n = a.Q->rows();
    validate_attention_operands(*a.Q, *a.K, *a.V, *a.O, a.lse, n, a.score_mod, "block-sparse attention");
    const BlockLayout& L = *a.layout;
    if (L.n != n) throw Error("block layout is for n = " + std::to_string(L.n) + " but the input has n = " + std::to_string(n));
    if (L.block < 1) throw Error("block layout has block size " + std::to_string(L.block) + ": it must be ≥ 1");
    if (L.heads != 1 && L.heads != H)
        throw Error("block layout has " + std::to_string(L.heads) + " heads; it must have 1 (shared) or H = " + std::to_string(H));
    const int nb = L.block_rows();
    if (static_cast<int64_t>(L.row_ptr.size()) != static_cast<int64_t>(L.heads) * (nb + 1) ||
        L.col_idx.size() != L.mask_idx.size() || (L.row_ptr.empty() ? 0 : L.row_ptr.back()) != L.stored_blocks())
        throw Error("block layout arrays are inconsistent (row_ptr, col_idx, mask_idx sizes disagree)");
    const int64_t mask_count =
        static_cast<int64_t>(L.masks.size()) / (static_cast<int64_t>(L.block) * block_words_per_row(L.block));
    for (size_t k = 0; k < L.col_idx.size(); ++k)
        if (L.col_idx[k] < 0 || L.col_idx[k] >= nb || L.mask_idx[k] >= mask_count)
            throw Error("block layout stores block " + std::to_string(L.col_idx[k]) + " with mask " +
                        std::to_string(L.mask_idx[k]) + ", outside its " + std::to_string(nb) + " blocks or " +
                        std::to_string(mask_count) + " masks");
}

int64_t vertical_slash_scratch_bytes(int H, int n, int64_t columns, int d, int dv) {
    // Mirrors cpu_vertical_slash.cpp: gathered columns, membership and row state once, tile scratch per OpenMP thread.
    const int64_t r = kVerticalSlashRows, c = kBlockSparseChunkCols;
    return int64_t(sizeof(float)) * (columns * (d + dv) + 3ll * H * n + omp_get_max_threads() * (r * d + r * c + 2 * r));
}

void validate_vertical_slash_attention(const VerticalSlashAttentionArgs& a) {
    if (!a.Q || !a.K || !a.V || !a.O || !a.columns || !a.offsets)
        throw Error("vertical-slash attention needs Q, K, V, O, columns and offsets");
    const int H = a.Q->heads(), n = a.Q->rows();
    validate_attention_operands(*a.Q, *a.K, *a.V, *a.O, a.lse, n, a.score_mod, "vertical-slash attention");
    if (int64_t(a.columns->size()) != H || int64_t(a.offsets->size()) != H)
        throw Error("vertical-slash attention needs one column list and one offset list per head (H = " +
                    std::to_string(H) + "), got " + std::to_string(a.columns->size()) + " and " +
                    std::to_string(a.offsets->size()));
    for (int h = 0; h < H; ++h) {
        const std::vector<int>& cols = (*a.columns)[size_t(h)];
        const std::vector<int>& offs = (*a.offsets)[size_t(h)];
        for (size_t k = 0; k < cols.size(); ++k)
            if (cols[k] < 0 || cols[k] >= n || (k > 0 && cols[k] <= cols[k - 1]))
                throw Error("vertical-slash attention: head " + std::to_string(h) + "'s columns must ascend strictly "
                            "inside [0, " + std::to_string(n) + "); column " + std::to_string(k) + " is " +
                            std::to_string(cols[k]));
        for (size_t k = 0; k < offs.size(); ++k)
            if (offs[k] < 0 || (k > 0 && offs[k] <= offs[k - 1]))
                throw Error("vertical-slash attention: head " + std::to_string(h) + "'s offsets must ascend strictly "
                            "from 0; offset " + std::to_string(k) + " is " + std::to_string(offs[k]));
    }
}

void validate_lsh_hash(const LshHashArgs& a) {
    if (!a.X || !a.buckets || !a.perm) throw Error("lsh_hash: X, buckets and perm are required");
    if (a.rounds < 1) throw Error("lsh_hash: rounds = " + std::to_string(a.rounds) + ": choose at least 1");
    if (a.n_buckets < 1 || (a.n_buckets > 1 && a.n_buckets % 2 != 0))
        throw Error("lsh_hash: n_buckets = " + std::to_string(a.n_buckets) + " must be 1 or even");
    if (a.n_buckets > 1) {
        if (!a.rotations) throw Error("lsh_hash: rotations are required when n_buckets > 1");
        require_shape(*a.rotations, a.rounds, a.X->cols(), a.n_buckets / 2, "lsh_hash rotations");
    }
}

void validate_lsh_combine(const LshCombineArgs& a) {
    if (!a.O_rounds || !a.lse_rounds || !a.O) throw Error("lsh_combine: O_rounds, lse_rounds and O are required");
    const int R = a.O_rounds->heads(), H = a.O->heads(), n = a.O->rows(), dv = a.O->cols();
    require_shape(*a.O_rounds, R, H * n, dv, "lsh_combine O_rounds");
    require_shape(*a.lse_rounds, R, H * n, 1, "lsh_combine lse_rounds");
    if (a.lse) require_shape(*a.lse, H, n, 1, "lsh_combine lse");
}

void validate_fft2_real(const Tensor3& X) {
    if (X.heads() == 0 || X.rows() == 0 || X.cols() == 0)
        throw Error("FFT of an empty tensor " + X.shape_string() + ": give n ≥ 1 and c ≥ 1");
}

void validate_pooled_view(int size) {
    if (size < 1) throw Error("pooled view size must be at least 1");
}

void validate_lsh_attention(const LshAttentionArgs& a) {
    if (!a.Q || !a.K || !a.V || !a.perm_q || !a.perm_k || !a.lse_rounds || (!a.O_rounds && !a.O))
        throw Error("lsh_attention: Q, K, V, perm_q, perm_k, lse_rounds and O_rounds or O are required");
    const int H = a.Q->heads(), n = a.Q->rows(), d = a.Q->cols(), dv = a.V->cols(), R = a.rounds;
    if (a.chunk_len < 1 || a.look_back < 0 || R < 1)
        throw Error("lsh_attention: chunk_len ≥ 1, look_back ≥ 0 and rounds ≥ 1 are required");
    if (R > kMaxLshRounds)
        throw Error("lsh_attention: rounds = " + std::to_string(R) + " > " + std::to_string(kMaxLshRounds));
    require_shape(*a.K, H, n, d, "lsh_attention K");
    require_shape(*a.V, H, n, dv, "lsh_attention V");
    if (a.O_rounds) require_shape(*a.O_rounds, R, H * n, dv, "lsh_attention O_rounds");
    if (a.O) require_shape(*a.O, H, n, dv, "lsh_attention O");
    require_shape(*a.lse_rounds, R, H * n, 1, "lsh_attention lse_rounds");
    const size_t expected = size_t(R) * H * n;
    if (a.perm_q->size() != expected || a.perm_k->size() != expected)
        throw Error("lsh_attention: perm_q/perm_k must hold R·H·n = " + std::to_string(expected) + " positions");
}

int feature_map_columns(FeatureMap map, int m, int d, bool prepend_one) {
    const int extra = prepend_one ? 1 : 0;
    switch (map) {
        case FeatureMap::FavorPositive:
        case FeatureMap::FavorRelu: return m + extra;
        case FeatureMap::FavorHyperbolic:
        case FeatureMap::FavorTrig: return 2 * m + extra;
        case FeatureMap::EluPlusOne:
        case FeatureMap::SoftmaxRows:
        case FeatureMap::SoftmaxPositions:
        case FeatureMap::L2Normalise: return d + extra;
    }
    return d + extra;
}

namespace {

/// Checks X and ω of a feature map and returns the columns of φ(X).
int checked_feature_columns(const FeatureMapArgs& a) {
    if (!a.X) throw Error("feature map needs X");
    const int H = a.X->heads(), d = a.X->cols();
    int m = 0;
    if (is_favor(a.map)) {
        if (!a.omega) throw Error("FAVOR feature maps need the random features ω (m, d)");
        if ((a.omega->heads() != 1 && a.omega->heads() != H) || a.omega->cols() != d || a.omega->rows() < 1)
            throw Error("ω has shape " + a.omega->shape_string() + " but (1 or " + std::to_string(H) + ", m ≥ 1, " +
                        std::to_string(d) + ") is required");
        m = a.omega->rows();
    }
    return feature_map_columns(a.map, m, d, a.prepend_one);
}

}  // namespace

void validate_feature_map(const FeatureMapArgs& a) {
    if (!a.X || !a.out) throw Error("feature map needs X and out");
    require_shape(*a.out, a.X->heads(), a.X->rows(), checked_feature_columns(a), "φ(X)");
}

void validate_linear_attention(const LinearAttentionArgs& a) {
    if (!a.phi_Q || !a.phi_K || !a.V || !a.O) throw Error("linear attention needs φ(Q), φ(K), V and O");
    const int H = a.phi_Q->heads(), n = a.phi_Q->rows(), f = a.phi_Q->cols(), dv = a.V->cols();
    if (a.phi_K->heads() != H || a.phi_K->cols() != f)
        throw Error("φ(K) has shape " + a.phi_K->shape_string() + " but (" + std::to_string(H) + ", m, " +
                    std::to_string(f) + ") is required (same heads and feature count as φ(Q))");
    require_shape(*a.V, H, a.phi_K->rows(), dv, "V");
    require_shape(*a.O, H, n, dv, "O");
    if (a.denom) require_shape(*a.denom, H, n, 1, "denominator");
    if (a.causal && a.phi_K->rows() != n)
        throw Error("causal linear attention needs as many keys as queries (n = " + std::to_string(n) +
                    ", m = " + std::to_string(a.phi_K->rows()) + ")");
    if (a.chunk < 1) throw Error("linear attention chunk must be ≥ 1");
    if (a.z_eps_first < 0 || a.z_eps_first > f) throw Error("z_eps_first must lie in [0, f]");
}

int validate_kernel_attention(const KernelAttentionArgs& a) {
    const FeatureMapArgs &q = a.q_map, &k = a.k_map;
    const LinearAttentionArgs& la = a.attention;
    if (!q.X || !k.X || !la.V || !la.O) throw Error("kernel attention needs Q, K, V and O");
    const int f = checked_feature_columns(q), fk = checked_feature_columns(k);
    const int H = q.X->heads(), n = q.X->rows(), m = k.X->rows(), dv = la.V->cols();
    if (fk != f)
        throw Error("kernel attention: φ_q gives " + std::to_string(f) + " features but φ_k gives " + std::to_string(fk) +
                    ": both maps must produce the same number of columns");
    require_shape(*k.X, H, m, q.X->cols(), "K");
    require_shape(*la.V, H, m, dv, "V");
    require_shape(*la.O, H, n, dv, "O");
    if (la.denom) require_shape(*la.denom, H, n, 1, "denominator");
    if (la.causal && m != n)
        throw Error("causal kernel attention needs as many keys as queries (n = " + std::to_string(n) + ", m = " +
                    std::to_string(m) + ")");
    if (la.chunk < 1) throw Error("linear attention chunk must be ≥ 1");
    if (la.z_eps_first < 0 || la.z_eps_first > f) throw Error("z_eps_first must lie in [0, f]");
    return f;
}

ResidentGemmSample Backend::time_resident_gemm(int size, GemmPrecision precision, Tensor3* result) {
    (void)size, (void)result;
    throw Error(std::string("the resident ") + gemm_precision_name(precision) + " GEMM roof needs a device: the " +
                name() + " backend has none (its roof is the host SGEMM; use --backend cuda on a machine with a GPU)");
}

void Backend::kernel_attention(const KernelAttentionArgs& a) {
    const int f = validate_kernel_attention(a);
    const int H = a.q_map.X->heads();
    Tensor3 phi_Q(H, a.q_map.X->rows(), f), phi_K(H, a.k_map.X->rows(), f);
    FeatureMapArgs q = a.q_map, k = a.k_map;
    q.out = &phi_Q, k.out = &phi_K;
    feature_map(q);
    feature_map(k);
    LinearAttentionArgs la = a.attention;
    la.phi_Q = &phi_Q, la.phi_K = &phi_K;
    linear_attention(la);
}

}  // namespace attnscope

namespace attnscope {

int validate_singular_values(const SingularValuesArgs& a) {
    if (!a.M || !a.S) throw Error("singular values need the matrix M and the output S");
    const Tensor3& M = *a.M;
    if (a.head < -1 || a.head >= M.heads())
        throw Error("singular values: head " + std::to_string(a.head) + " does not exist: choose 0 ≤ head < " +
                    std::to_string(M.heads()) + " or -1 for all heads");
    if (M.heads() == 0 || M.rows() == 0 || M.cols() == 0)
        throw Error("singular values: the matrix " + M.shape_string() + " is empty");
    if (a.top_k < 0) throw Error("singular values: top_k = " + std::to_string(a.top_k) + ": choose 0 (exact) or ≥ 1");
    if (a.top_k > 0 && (a.oversample < 0 || a.power_iterations < 0))
        throw Error("randomized SVD: oversample and power_iterations must be ≥ 0");
    const int k = std::min(M.rows(), M.cols());
    return a.top_k == 0 ? k : std::min(a.top_k, k);
}

}  // namespace attnscope

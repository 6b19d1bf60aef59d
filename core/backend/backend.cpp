#include "backend.h"

namespace attnscope {

void validate_dense_attention(const DenseAttentionArgs& a) {
    if (!a.Q || !a.K || !a.V || !a.O) throw Error("dense attention needs Q, K, V and O");
    const int H = a.Q->heads(), n = a.Q->rows(), d = a.Q->cols(), m = a.K->rows(), dv = a.V->cols();
    require_shape(*a.K, H, m, d, "K");
    require_shape(*a.V, H, m, dv, "V");
    require_shape(*a.O, H, n, dv, "O");
    if (a.lse) require_shape(*a.lse, H, n, 1, "lse");
    if (a.P) require_shape(*a.P, H, n, m, "P");
    if (a.causal && m != n)
        throw Error("causal dense attention needs as many keys as queries (n = " + std::to_string(n) +
                    ", m = " + std::to_string(m) + ")");
    if (a.tile_rows < 1 || a.tile_cols < 1) throw Error("attention tiles must have at least one row and column");
}

// [SECTION] block-sparse
void validate_block_sparse_attention(const BlockSparseAttentionArgs& a) {
    if (!a.Q || !a.K || !a.V || !a.O || !a.layout) throw Error("block-sparse attention needs Q, K, V, O and a layout");
    const int H = a.Q->heads(), n = a.Q->rows(), d = a.Q->cols(), dv = a.V->cols();
    require_shape(*a.K, H, n, d, "K");
    require_shape(*a.V, H, n, dv, "V");
    require_shape(*a.O, H, n, dv, "O");
    if (a.lse) require_shape(*a.lse, H, n, 1, "lse");
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

}  // namespace attnscope

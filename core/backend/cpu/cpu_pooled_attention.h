// attnscope — the max-pooled picture of P made inside the CPU dense attention pass (DenseAttentionArgs::pooled).
// The largest probability among a bin's cells of row i is exp(max_{j∈bin} s_ij − lse_i), so a query tile keeps, per
// query, the running max of its (modified, masked) scores in each column bin while it walks the key tiles, and folds
// exp(bin max − lse) into the picture once its lse is final. The bin maxima are held TRANSPOSED like the vector
// tile's scores: one row of `stride` floats per column bin, one entry per query of the tile. Query tiles and row bins
// need not align, so two tasks may raise the same cell of the picture: the fold is an atomic max.
#pragma once
#include "core/tensor.h"

namespace attnscope {

/// Raises binmax (sc, stride) with score tile s (rows = queries of the tile, cols = keys j0 … j0 + cols − 1 of m,
/// masked cells −inf): binmax[b][r] = max(binmax[b][r], max of s[r][·] over the tile's keys in column bin b).
void pooled_bin_max(ConstMatView s, int j0, int m, int sc, float* binmax, int stride);

/// Folds a finished query tile (queries i0 … i0 + rows − 1 of n, log-sum-exp lse[r]) into head h of pooled
/// (H, sr, sc), which starts at 0: cell (rowbin(i0 + r), b) = max(itself, exp(binmax[b][r] − lse[r])), atomically
/// where another tile shares the row bin; a bin max of −inf (no allowed cell) adds nothing. `vector`: reduce with the
/// vector tile kernel (flash_tile::bin_exp_max; lse then holds `stride` floats), in builds that have it.
void pooled_fold_tile(const float* binmax, int stride, const float* lse, int i0, int rows, int n, Tensor3& pooled,
                      int h, bool vector);

/// pooled (H, sr, sc) from materialised probabilities P (H, n, m) whose masked cells are 0: every bin's largest cell.
void pooled_from_probabilities(const Tensor3& P, Tensor3& pooled);

}  // namespace attnscope

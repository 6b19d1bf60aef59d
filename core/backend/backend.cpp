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

}  // namespace attnscope

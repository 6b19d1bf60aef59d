#include "core/variants/kernel_common.h"

#include <omp.h>

#include <algorithm>

#include "core/backend/shared/feature_maps.h"

namespace attnscope {

Tensor3 kernel_effective_matrix(Backend& backend, const Tensor3& phi_Q, const Tensor3& phi_K, const Tensor3* denom,
                                bool causal) {
    const int H = phi_Q.heads(), n = phi_Q.rows(), m = phi_K.rows();
    Tensor3 P(H, n, m);
    backend.gemm(phi_Q, false, phi_K, true, 1.0f, 0.0f, P);
#pragma omp parallel for collapse(2) schedule(static)
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) {
            const float D = denom ? denom->at(h, i, 0) : 1.0f;
            float* row = P.head_data(h) + static_cast<int64_t>(i) * m;
            for (int j = 0; j < m; ++j) row[j] = causal && j > i ? 0.0f : fmap::safe_divide(row[j], D);
        }
    return P;
}

double linear_attention_flops(int H, int n, int f, int dv, bool causal) {
    // φKᵀV and φQ·S: 2·n·f·dv each; z and D: 2·n·f each.
    double per_head = 4.0 * n * f * dv + 4.0 * n * f;
    // Causal chunks add the masked c×c block (φQφKᵀ) and its product with V.
    if (causal) per_head += 2.0 * n * kLinearAttentionChunk * (f + dv);
    return H * per_head;
}

double kernel_bytes(const Heads& h, int f, bool features_materialised) {
    return 4.0 * h.heads() * h.n() * (2.0 * h.d() + 2.0 * h.dv() + (features_materialised ? 2.0 * f : 0.0) + 1.0);
}

int64_t kernel_peak_bytes(int heads, int n, int d, int dv, int f) {
    const int64_t H = heads, T = omp_get_max_threads();
    // O (H, n, dv) and D (H, n, 1) are the only n-sized buffers. The rest is bounded: per-head column statistics
    // of both maps (H, 2, d); segment sums and the running or total [S | z] (≤ T + 1 per head, f × (dv + 1) each,
    // twice); per-thread feature blocks of ≤ 256 rows (pass 1) or two causal chunks.
    const int64_t sums = H * (2 * T + 1) * int64_t(f) * (dv + 1);
    const int64_t blocks = T * int64_t(f) * (256 + 2 * std::max(256, kLinearAttentionChunk));
    return int64_t(sizeof(float)) * (H * n * (int64_t(dv) + 1) + 4 * H * d + sums + blocks);
}

void note_zero_denominators(const Tensor3& denom, Structure& structure) {
    int64_t zero = 0;
    for (int64_t k = 0; k < denom.size(); ++k) zero += denom.data()[k] == 0.0f;
    if (zero > 0)
        structure.notes.push_back(std::to_string(zero) + " row(s) had D = 0 (no feature overlap with any key): their "
                                  "output is 0; use more features or another kind");
}

}  // namespace attnscope

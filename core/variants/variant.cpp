#include "variant.h"

namespace attnscope {

double exact_attention_flops(int heads, int n, int d, int dv, bool causal) {
    const double cells = causal ? 0.5 * n * (n + 1.0) : double(n) * n;
    return heads * cells * 2.0 * (d + dv);
}

double Variant::estimate_flops(int heads, int n, int d, int dv, const Params& resolved) const {
    return exact_attention_flops(heads, n, d, dv, resolved.get_or("causal", 0) != 0);
}

int64_t Variant::estimate_peak_bytes(int heads, int n, int d, int dv, const Params&) const {
    // n×n scores + O, plus room for a few (n, d)-sized intermediates (projections, features, sorted copies).
    constexpr int64_t kSlackBytes = 16ll << 20;
    const int64_t floats = int64_t(heads) * n * (int64_t(n) + 2ll * d + 2ll * dv);
    return floats * int64_t(sizeof(float)) + kSlackBytes;
}

}  // namespace attnscope

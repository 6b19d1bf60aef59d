// attnscope — per-element math of the kernel feature maps φ, shared by the CPU backend and CUDA kernels.
// FAVOR+ (Choromanski 2021) kinds take the projection p = ωᵢᵀx̂ (x̂ = d^-¼·x) and h = ‖x̂‖²/2 of a row;
// the exp kinds subtract a stabiliser `stab` (the largest exponent of the row for queries, of the whole
// head for keys) so no feature exceeds `ratio` and nothing overflows; it cancels in D⁻¹.
// The element functions are templates over T: a kernel calls them with float, the CPU backend with Eigen
// arrays (a row or block at a time) so the same formula runs SIMD-vectorised; exp, sin, cos and abs are
// found for both (std:: for float, Eigen's array functions by argument-dependent lookup). Every formula is
// branch-free so it vectorises (relu(x) = (x + |x|)/2 is exact in floating point).
#pragma once
#include <cmath>

#include "core/backend/shared/hd.h"

namespace attnscope::fmap {

/// Which FAVOR+ estimator (mirrors FeatureMap's FAVOR values; kept separate so kernels need no backend.h).
enum class FavorKind {
    Positive,    // m^-½·exp(p − h − stab)
    Hyperbolic,  // (2m)^-½·exp(±p − h − stab)
    Trig,        // m^-½·exp(h − stab)·(sin p, cos p)
    Relu,        // m^-½·max(p, 0)
};

/// The normalising constant of a FAVOR kind with m random features: m^-½, or (2m)^-½ for hyperbolic.
ATTNSCOPE_HD float favor_ratio(FavorKind kind, int m) {
    return kind == FavorKind::Hyperbolic ? 1.0f / sqrtf(2.0f * static_cast<float>(m))
                                         : 1.0f / sqrtf(static_cast<float>(m));
}

/// h = ‖x̂‖²/2 from ‖x‖² and the scale of x̂ = x_scale·x.
ATTNSCOPE_HD float favor_half_sq_norm(float sq_norm, float x_scale) { return 0.5f * x_scale * x_scale * sq_norm; }

/// max(x, 0), branch-free and exact: (x + |x|)/2.
template <class T>
ATTNSCOPE_HD auto relu(const T& x) {
    using std::abs;
    return (x + abs(x)) * 0.5f;
}

/// Exponent of a positive feature, p − h (its max over c, and over rows for keys, is the stabiliser).
template <class T>
ATTNSCOPE_HD auto favor_positive_exponent(const T& p, float h) { return p - h; }

/// Largest exponent of the two hyperbolic features of p, |p| − h.
template <class T>
ATTNSCOPE_HD auto favor_hyperbolic_exponent(const T& p, float h) {
    using std::abs;
    return abs(p) - h;
}
// Trig's exponent is h itself (one per row); relu has none.

/// Positive (SM⁺) feature, and the "+" half of hyperbolic: ratio·exp(p − h − stab).
template <class T>
ATTNSCOPE_HD auto favor_positive(const T& p, float h, float stab, float ratio) {
    using std::exp;
    return exp(p - (h + stab)) * ratio;
}

/// The "−" half of hyperbolic: ratio·exp(−p − h − stab).
template <class T>
ATTNSCOPE_HD auto favor_negative(const T& p, float h, float stab, float ratio) {
    using std::exp;
    return exp(-p - (h + stab)) * ratio;
}

/// Trig (SM^trig) sine feature: ratio·exp(h − stab)·sin p (may be negative).
template <class T>
ATTNSCOPE_HD auto favor_trig_sin(const T& p, float h, float stab, float ratio) {
    using std::sin;
    return sin(p) * (ratio * expf(h - stab));
}

/// Trig (SM^trig) cosine feature: ratio·exp(h − stab)·cos p (may be negative).
template <class T>
ATTNSCOPE_HD auto favor_trig_cos(const T& p, float h, float stab, float ratio) {
    using std::cos;
    return cos(p) * (ratio * expf(h - stab));
}

/// Generalised ReLU feature: ratio·max(p, 0).
template <class T>
ATTNSCOPE_HD auto favor_relu(const T& p, float ratio) { return relu(p) * ratio; }

/// Katharopoulos' φ(x) = elu(x) + 1 = max(x, 0) + exp(min(x, 0)): x + 1 for x > 0, exp(x) otherwise.
template <class T>
ATTNSCOPE_HD auto elu_plus_one(const T& x) {
    using std::exp;
    return relu(x) + exp(x - relu(x));
}

/// One softmax term exp(x − max)·inv_sum (max and 1/Σ of the row or column being normalised; on the CPU also
/// arrays of per-column max and 1/Σ).
template <class T, class M = float, class S = float>
ATTNSCOPE_HD auto softmax_term(const T& x, const M& max, const S& inv_sum) {
    using std::exp;
    return exp(x - max) * inv_sum;
}

/// 1/‖x‖ from ‖x‖², 0 for a zero row (it stays zero rather than NaN).
ATTNSCOPE_HD float inv_l2_norm(float sq_norm) { return sq_norm > 0.0f ? 1.0f / sqrtf(sq_norm) : 0.0f; }

/// x/D for the final normalisation, 0 when D = 0 (no feature overlap: the row's output stays 0, not NaN).
/// Divides rather than multiplying by 1/D: a subnormal D would make 1/D overflow to inf.
ATTNSCOPE_HD float safe_divide(float x, float denom) { return denom != 0.0f ? x / denom : 0.0f; }

}  // namespace attnscope::fmap

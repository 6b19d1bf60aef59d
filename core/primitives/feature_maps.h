// attnscope — per-element math of the kernel feature maps φ, shared by the CPU backend and CUDA kernels.
// FAVOR+ (Choromanski 2021) kinds take the projection p = ωᵢᵀx̂ (x̂ = d^-¼·x) and h = ‖x̂‖²/2 of a row;
// the exp kinds subtract a stabiliser `stab` (the largest exponent of the row for queries, of the whole
// head for keys) so no feature exceeds `ratio` and nothing overflows; it cancels in D⁻¹.
// Index: [SECTION] FAVOR, [SECTION] elementwise maps, [SECTION] linear attention.
#pragma once
#include <cmath>

#include "hd.h"

namespace attnscope::fmap {

// [SECTION] FAVOR

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

/// The largest exponent feature c contributes (the stabiliser is the max of this over c, and over rows for keys).
/// Relu has no exponent (returns 0).
ATTNSCOPE_HD float favor_exponent(FavorKind kind, float p, float h) {
    switch (kind) {
        case FavorKind::Positive: return p - h;
        case FavorKind::Hyperbolic: return fabsf(p) - h;
        case FavorKind::Trig: return h;
        case FavorKind::Relu: return 0.0f;
    }
    return 0.0f;
}

/// Positive (SM⁺) feature, and the "+" half of hyperbolic: ratio·exp(p − h − stab).
ATTNSCOPE_HD float favor_positive(float p, float h, float stab, float ratio) { return ratio * expf(p - h - stab); }

/// The "−" half of hyperbolic: ratio·exp(−p − h − stab).
ATTNSCOPE_HD float favor_negative(float p, float h, float stab, float ratio) { return ratio * expf(-p - h - stab); }

/// Trig (SM^trig) sine feature: ratio·exp(h − stab)·sin p (may be negative).
ATTNSCOPE_HD float favor_trig_sin(float p, float h, float stab, float ratio) { return ratio * expf(h - stab) * sinf(p); }

/// Trig (SM^trig) cosine feature: ratio·exp(h − stab)·cos p (may be negative).
ATTNSCOPE_HD float favor_trig_cos(float p, float h, float stab, float ratio) { return ratio * expf(h - stab) * cosf(p); }

/// Generalised ReLU feature: ratio·max(p, 0).
ATTNSCOPE_HD float favor_relu(float p, float ratio) { return p > 0.0f ? ratio * p : 0.0f; }

// [SECTION] elementwise maps

/// Katharopoulos' φ(x) = elu(x) + 1: x + 1 for x > 0, exp(x) otherwise (always > 0).
ATTNSCOPE_HD float elu_plus_one(float x) { return x > 0.0f ? x + 1.0f : expf(x); }

/// One softmax term exp(x − max)·inv_sum (max and 1/Σ of the row or column being normalised).
ATTNSCOPE_HD float softmax_term(float x, float max, float inv_sum) { return expf(x - max) * inv_sum; }

/// 1/‖x‖ from ‖x‖², 0 for a zero row (it stays zero rather than NaN).
ATTNSCOPE_HD float inv_l2_norm(float sq_norm) { return sq_norm > 0.0f ? 1.0f / sqrtf(sq_norm) : 0.0f; }

// [SECTION] linear attention

/// x/D for the final normalisation, 0 when D = 0 (no feature overlap: the row's output stays 0, not NaN).
/// Divides rather than multiplying by 1/D: a subnormal D would make 1/D overflow to inf.
ATTNSCOPE_HD float safe_divide(float x, float denom) { return denom != 0.0f ? x / denom : 0.0f; }

}  // namespace attnscope::fmap

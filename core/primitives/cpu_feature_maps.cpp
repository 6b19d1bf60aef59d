// attnscope — feature maps φ on the CPU (performer, linear, efficient, taylor).
// FAVOR kinds run in two passes over (head × row block) tasks: the projection x̂·ωᵀ is written straight into
// the output (one GEMM per block) with each row's ‖x̂‖²/2 and largest exponent; then, once the stabiliser
// is known (per row for queries, per head for keys), every feature is finished in place by the
// feature_maps.h functions the CUDA kernels use.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "cpu_primitives.h"
#include "feature_maps.h"

namespace attnscope {

namespace {

using StridedView = Eigen::Map<MatrixRM, 0, Eigen::OuterStride<>>;
constexpr int kRowsPerTask = 128;

fmap::FavorKind favor_kind(FeatureMap map) {
    switch (map) {
        case FeatureMap::FavorHyperbolic: return fmap::FavorKind::Hyperbolic;
        case FeatureMap::FavorTrig: return fmap::FavorKind::Trig;
        case FeatureMap::FavorRelu: return fmap::FavorKind::Relu;
        default: return fmap::FavorKind::Positive;
    }
}

/// Pointer to the first feature (after the optional leading 1) of row i of head h.
float* feature_row(Tensor3& out, int h, int i, int offset) {
    return out.head_data(h) + static_cast<int64_t>(i) * out.cols() + offset;
}

void favor_map(const FeatureMapArgs& a) {
    const Tensor3& X = *a.X;
    const Tensor3& omega = *a.omega;
    Tensor3& out = *a.out;
    const int H = X.heads(), n = X.rows(), m = omega.rows(), cols = out.cols();
    const int offset = a.prepend_one ? 1 : 0;
    const fmap::FavorKind kind = favor_kind(a.map);
    const float ratio = fmap::favor_ratio(kind, m);
    Tensor3 half(H, n, 1), row_max(H, n, 1);  // h_i = ‖x̂_i‖²/2 and max_c exponent_ic
    const int blocks = (n + kRowsPerTask - 1) / kRowsPerTask;

    // Pass 1: projections p = x̂·ωᵀ into the output, per-row h and largest exponent.
#pragma omp parallel for schedule(dynamic)
    for (int task = 0; task < H * blocks; ++task) {
        const int h = task / blocks, i0 = (task % blocks) * kRowsPerTask, rows = std::min(kRowsPerTask, n - i0);
        StridedView proj(feature_row(out, h, i0, offset), rows, m, Eigen::OuterStride<>(cols));
        proj.noalias() = (a.x_scale * X.head(h).middleRows(i0, rows)) * omega.head(omega.heads() == 1 ? 0 : h).transpose();
        for (int r = 0; r < rows; ++r) {
            const float hr = fmap::favor_half_sq_norm(X.head(h).row(i0 + r).squaredNorm(), a.x_scale);
            float best = -INFINITY;
            for (int c = 0; c < m; ++c) best = std::max(best, fmap::favor_exponent(kind, proj(r, c), hr));
            half.at(h, i0 + r, 0) = hr;
            row_max.at(h, i0 + r, 0) = best;
        }
    }

    // Keys share one stabiliser per head: a per-key shift would reweight keys and not cancel in D⁻¹.
    std::vector<float> head_max(H, 0.0f);
    if (!a.is_query)
        for (int h = 0; h < H; ++h) head_max[h] = row_max.head(h).maxCoeff();

    // Pass 2: finish every feature in place.
#pragma omp parallel for schedule(static)
    for (int task = 0; task < H * blocks; ++task) {
        const int h = task / blocks, i0 = (task % blocks) * kRowsPerTask, rows = std::min(kRowsPerTask, n - i0);
        for (int r = 0; r < rows; ++r) {
            const int i = i0 + r;
            float* f = feature_row(out, h, i, offset);
            const float hr = half.at(h, i, 0);
            const float stab = kind == fmap::FavorKind::Relu ? 0.0f : (a.is_query ? row_max.at(h, i, 0) : head_max[h]);
            // Ascending c: p_c is read before column c (and c + m, which holds no projection) is written.
            for (int c = 0; c < m; ++c) {
                const float p = f[c];
                switch (kind) {
                    case fmap::FavorKind::Positive: f[c] = fmap::favor_positive(p, hr, stab, ratio) + a.add; break;
                    case fmap::FavorKind::Hyperbolic:
                        f[c] = fmap::favor_positive(p, hr, stab, ratio) + a.add;
                        f[m + c] = fmap::favor_negative(p, hr, stab, ratio) + a.add;
                        break;
                    case fmap::FavorKind::Trig:
                        f[c] = fmap::favor_trig_sin(p, hr, stab, ratio) + a.add;
                        f[m + c] = fmap::favor_trig_cos(p, hr, stab, ratio) + a.add;
                        break;
                    case fmap::FavorKind::Relu: f[c] = fmap::favor_relu(p, ratio) + a.add; break;
                }
            }
            if (a.prepend_one) f[-1] = 1.0f;
        }
    }
}

void row_map(const FeatureMapArgs& a) {
    const Tensor3& X = *a.X;
    Tensor3& out = *a.out;
    const int H = X.heads(), n = X.rows(), d = X.cols(), offset = a.prepend_one ? 1 : 0;
#pragma omp parallel for schedule(static)
    for (int64_t row = 0; row < int64_t(H) * n; ++row) {
        const int h = static_cast<int>(row / n), i = static_cast<int>(row % n);
        const float* x = X.head_data(h) + static_cast<int64_t>(i) * d;
        float* f = feature_row(out, h, i, offset);
        if (a.map == FeatureMap::EluPlusOne) {
            for (int c = 0; c < d; ++c) f[c] = fmap::elu_plus_one(x[c]) + a.add;
        } else if (a.map == FeatureMap::SoftmaxRows) {
            float mx = -INFINITY, sum = 0.0f;
            for (int c = 0; c < d; ++c) mx = std::max(mx, x[c]);
            for (int c = 0; c < d; ++c) sum += std::exp(x[c] - mx);
            const float inv = 1.0f / sum;
            for (int c = 0; c < d; ++c) f[c] = fmap::softmax_term(x[c], mx, inv) + a.add;
        } else {  // L2Normalise
            float sq = 0.0f;
            for (int c = 0; c < d; ++c) sq += x[c] * x[c];
            const float inv = fmap::inv_l2_norm(sq);
            for (int c = 0; c < d; ++c) f[c] = x[c] * inv + a.add;
        }
        if (a.prepend_one) f[-1] = 1.0f;
    }
}

void softmax_positions(const FeatureMapArgs& a) {
    const Tensor3& X = *a.X;
    Tensor3& out = *a.out;
    const int H = X.heads(), n = X.rows(), d = X.cols(), offset = a.prepend_one ? 1 : 0;
    // Per head: column max, then column Σ exp, then the terms; rows are walked in order (row-major).
#pragma omp parallel for schedule(static)
    for (int h = 0; h < H; ++h) {
        const ConstMatView x = X.head(h);
        const Eigen::RowVectorXf mx = x.colwise().maxCoeff();
        Eigen::RowVectorXf sum = Eigen::RowVectorXf::Zero(d);
        for (int i = 0; i < n; ++i) sum.array() += (x.row(i) - mx).array().exp();
        const Eigen::RowVectorXf inv = sum.cwiseInverse();
        for (int i = 0; i < n; ++i) {
            float* f = feature_row(out, h, i, offset);
            for (int c = 0; c < d; ++c) f[c] = fmap::softmax_term(x(i, c), mx[c], inv[c]) + a.add;
            if (a.prepend_one) f[-1] = 1.0f;
        }
    }
}

}  // namespace

void cpu_feature_map(const FeatureMapArgs& a) {
    validate_feature_map(a);
    if (a.X->rows() == 0) return;
    if (is_favor(a.map)) favor_map(a);
    else if (a.map == FeatureMap::SoftmaxPositions) softmax_positions(a);
    else row_map(a);
}

}  // namespace attnscope

// attnscope — feature maps φ on the CPU (performer, linear, efficient, taylor).
// FAVOR kinds run in two passes over (head × row block) tasks: the projection x̂·ωᵀ is written straight into
// the output (one GEMM per block) with each row's ‖x̂‖²/2 and largest exponent; then, once the stabiliser
// is known (per row for queries, per head for keys), every feature is finished in place by the
// feature_maps.h functions the CUDA kernels use.
// GCC 12 reports its own AVX-512 shift intrinsic as "used uninitialized" when Eigen's vectorised sin/cos
// (trig features) inline it: GCC bug 105593, the one CMakeLists.txt already silences for -Wmaybe-uninitialized.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "cpu_primitives.h"
#include "feature_maps.h"

namespace attnscope {

namespace {

using StridedView = Eigen::Map<MatrixRM, 0, Eigen::OuterStride<>>;
using RowArray = Eigen::Map<Eigen::ArrayXf>;
using ConstRowArray = Eigen::Map<const Eigen::ArrayXf>;
constexpr int kRowsPerTask = 512;  // large enough to amortise packing ω in each GEMM

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
            const auto p = proj.row(r).array();
            float best = 0.0f;
            switch (kind) {
                case fmap::FavorKind::Positive: best = fmap::favor_positive_exponent(p, hr).maxCoeff(); break;
                case fmap::FavorKind::Hyperbolic: best = fmap::favor_hyperbolic_exponent(p, hr).maxCoeff(); break;
                case fmap::FavorKind::Trig: best = hr; break;
                case fmap::FavorKind::Relu: break;
            }
            half.at(h, i0 + r, 0) = hr;
            row_max.at(h, i0 + r, 0) = best;
        }
    }

    // Keys share one stabiliser per head: a per-key shift would reweight keys and not cancel in D⁻¹.
    std::vector<float> head_max(H, 0.0f);
    if (!a.is_query)
        for (int h = 0; h < H; ++h) head_max[h] = row_max.head(h).maxCoeff();

    // Pass 2: finish every feature in place, one row at a time as a SIMD array expression.
#pragma omp parallel for schedule(static)
    for (int task = 0; task < H * blocks; ++task) {
        const int h = task / blocks, i0 = (task % blocks) * kRowsPerTask, rows = std::min(kRowsPerTask, n - i0);
        for (int r = 0; r < rows; ++r) {
            const int i = i0 + r;
            float* f = feature_row(out, h, i, offset);
            RowArray first(f, m), second(f + m, m);  // second half only for hyperbolic and trig
            const float hr = half.at(h, i, 0);
            const float stab = a.is_query ? row_max.at(h, i, 0) : head_max[h];
            // second is computed from first (the projections) before first is overwritten.
            switch (kind) {
                case fmap::FavorKind::Positive: first = fmap::favor_positive(first, hr, stab, ratio) + a.add; break;
                case fmap::FavorKind::Hyperbolic:
                    second = fmap::favor_negative(first, hr, stab, ratio) + a.add;
                    first = fmap::favor_positive(first, hr, stab, ratio) + a.add;
                    break;
                case fmap::FavorKind::Trig:
                    second = fmap::favor_trig_cos(first, hr, stab, ratio) + a.add;
                    first = fmap::favor_trig_sin(first, hr, stab, ratio) + a.add;
                    break;
                case fmap::FavorKind::Relu: first = fmap::favor_relu(first, ratio) + a.add; break;
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
        const ConstRowArray x(X.head_data(h) + static_cast<int64_t>(i) * d, d);
        RowArray f(feature_row(out, h, i, offset), d);
        if (a.map == FeatureMap::EluPlusOne) {
            f = fmap::elu_plus_one(x) + a.add;
        } else if (a.map == FeatureMap::SoftmaxRows) {
            const float mx = x.maxCoeff();
            const float inv = 1.0f / (x - mx).exp().sum();
            f = fmap::softmax_term(x, mx, inv) + a.add;
        } else {  // L2Normalise
            f = x * fmap::inv_l2_norm(x.matrix().squaredNorm()) + a.add;
        }
        if (a.prepend_one) f.data()[-1] = 1.0f;
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
        const Eigen::ArrayXf mx = x.colwise().maxCoeff().transpose().array();
        Eigen::ArrayXf sum = Eigen::ArrayXf::Zero(d);
        for (int i = 0; i < n; ++i) sum += (x.row(i).transpose().array() - mx).exp();
        const Eigen::ArrayXf inv = sum.inverse();
        for (int i = 0; i < n; ++i) {
            const ConstRowArray xi(X.head_data(h) + static_cast<int64_t>(i) * d, d);
            RowArray f(feature_row(out, h, i, offset), d);
            for (int c = 0; c < d; ++c) f[c] = fmap::softmax_term(xi[c], mx[c], inv[c]) + a.add;
            if (a.prepend_one) f.data()[-1] = 1.0f;
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

// attnscope — feature maps φ on the CPU (performer, linear, efficient, taylor).
// FAVOR kinds run in two passes over (head × row block) tasks: the projection x̂·ωᵀ is written straight into
// the output (one GEMM per block) with each row's ‖x̂‖²/2 and largest exponent; then, once the stabiliser
// is known (per row for queries, per head for keys), every feature is finished in place by the
// feature_maps.h functions the CUDA kernels use. The other maps run a block of rows at a time
// (feature_map_rows, cpu_feature_rows.h), the same code fused linear attention calls per block.
// GCC 12 reports its own AVX-512 shift intrinsic as "used uninitialized" when Eigen's vectorised sin/cos
// (trig features) inline it: GCC bug 105593, the one CMakeLists.txt already silences for -Wmaybe-uninitialized.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "core/backend/cpu/cpu_feature_rows.h"
#include "core/backend/cpu/cpu_primitives.h"
#include "core/backend/shared/feature_maps.h"

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

}  // namespace

bool feature_map_blockwise(FeatureMap map) { return !is_favor(map); }

Tensor3 feature_map_head_stats(const FeatureMapArgs& a) {
    if (a.map != FeatureMap::SoftmaxPositions) return {};
    const Tensor3& X = *a.X;
    const int H = X.heads(), n = X.rows(), d = X.cols();
    Tensor3 stats(H, 2, d);
    if (n == 0) return stats;
    // Per head: column max, then column Σ exp in row order (rows are contiguous in memory).
#pragma omp parallel for schedule(static)
    for (int h = 0; h < H; ++h) {
        const ConstMatView x = X.head(h);
        RowArray mx(stats.head_data(h), d), inv(stats.head_data(h) + d, d);
        mx = x.colwise().maxCoeff().transpose().array();
        inv.setZero();
        for (int i = 0; i < n; ++i) inv += (x.row(i).transpose().array() - mx).exp();
        inv = inv.inverse();
    }
    return stats;
}

void feature_map_rows(const FeatureMapArgs& a, const Tensor3& stats, int h, int r0, int rows, float* out,
                      int64_t stride) {
    const Tensor3& X = *a.X;
    const int d = X.cols(), offset = a.prepend_one ? 1 : 0;
    const ConstRowArray mx(a.map == FeatureMap::SoftmaxPositions ? stats.head_data(h) : nullptr, d);
    const ConstRowArray inv(a.map == FeatureMap::SoftmaxPositions ? stats.head_data(h) + d : nullptr, d);
    for (int r = 0; r < rows; ++r) {
        const ConstRowArray x(X.head_data(h) + static_cast<int64_t>(r0 + r) * d, d);
        float* row = out + r * stride;
        RowArray f(row + offset, d);
        switch (a.map) {
            case FeatureMap::EluPlusOne: f = fmap::elu_plus_one(x) + a.add; break;
            case FeatureMap::SoftmaxRows: {
                const float m = x.maxCoeff();
                f = fmap::softmax_term(x, m, 1.0f / (x - m).exp().sum()) + a.add;
                break;
            }
            case FeatureMap::SoftmaxPositions: f = fmap::softmax_term(x, mx, inv) + a.add; break;
            case FeatureMap::L2Normalise: f = x * fmap::inv_l2_norm(x.matrix().squaredNorm()) + a.add; break;
            default: throw Error("feature_map_rows: FAVOR maps are not blockwise (their keys share a stabiliser)");
        }
        if (a.prepend_one) row[0] = 1.0f;
    }
}

void cpu_feature_map(const FeatureMapArgs& a) {
    validate_feature_map(a);
    if (a.X->rows() == 0) return;
    if (is_favor(a.map)) return favor_map(a);
    const Tensor3 stats = feature_map_head_stats(a);
    Tensor3& out = *a.out;
    const int H = out.heads(), n = out.rows(), blocks = (n + kRowsPerTask - 1) / kRowsPerTask;
#pragma omp parallel for schedule(static)
    for (int task = 0; task < H * blocks; ++task) {
        const int h = task / blocks, i0 = (task % blocks) * kRowsPerTask;
        feature_map_rows(a, stats, h, i0, std::min(kRowsPerTask, n - i0), out.head_data(h) + int64_t(i0) * out.cols(),
                         out.cols());
    }
}

}  // namespace attnscope

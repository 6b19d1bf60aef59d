// attnscope — linear attention O_i = φQ_i·S / D_i on the CPU, never with an n×n matrix.
// Each head's positions are cut into segments so both cores work even with one head (a parallel scan):
// pass 1 sums S = Σ φK_jV_jᵀ and z = Σ φK_j per segment; bidirectional runs then use the head total,
// causal runs an exclusive prefix over segments and walks each segment chunk by chunk: inside a chunk the
// masked c×c block is quadratic, across chunks the running (S, z) carries the prefix — the RNN view of
// Katharopoulos 2020 with c rows per step.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "cpu_primitives.h"
#include "feature_maps.h"

namespace attnscope {

namespace {

constexpr int kRowsPerTask = 256;

struct Segments {
    int count = 1;   // segments per head
    int length = 0;  // rows per segment (a multiple of the chunk for causal runs)
    int begin(int s) const { return s * length; }
    int end(int s, int n) const { return std::min(n, (s + 1) * length); }
};

Segments plan_segments(int H, int n, int chunk, bool causal) {
    const int threads = omp_get_max_threads();
    Segments seg;
    const int wanted = H >= threads ? 1 : (threads + H - 1) / H;
    int length = (n + wanted - 1) / wanted;
    if (causal) length = ((length + chunk - 1) / chunk) * chunk;
    seg.length = std::max(1, length);
    seg.count = (n + seg.length - 1) / seg.length;
    return seg;
}

/// z_eps on the feature columns c ≥ z_eps_first, 0 before (Taylor leaves its constant column alone).
Eigen::RowVectorXf z_offset(const LinearAttentionArgs& a, int f) {
    Eigen::RowVectorXf v = Eigen::RowVectorXf::Zero(f);
    for (int c = a.z_eps_first; c < f; ++c) v[c] = a.z_eps;
    return v;
}

/// Pass 1: S_part[h·segs + s] = φK_sᵀV_s and z_part = Σ rows of φK_s, for segments [0, last).
void segment_sums(const LinearAttentionArgs& a, const Segments& seg, int last, Tensor3& S_part, Tensor3& z_part) {
    const int H = a.phi_K->heads(), n = a.phi_K->rows();
#pragma omp parallel for schedule(dynamic)
    for (int task = 0; task < H * last; ++task) {
        const int h = task / last, s = task % last;
        const int j0 = seg.begin(s), rows = seg.end(s, n) - j0;
        const auto k = a.phi_K->head(h).middleRows(j0, rows);
        S_part.head(h * seg.count + s).noalias() = k.transpose() * a.V->head(h).middleRows(j0, rows);
        z_part.head(h * seg.count + s) = k.colwise().sum();
    }
}

void bidirectional(const LinearAttentionArgs& a) {
    const int H = a.phi_Q->heads(), n = a.phi_Q->rows(), f = a.phi_Q->cols(), dv = a.V->cols();
    const Segments seg = plan_segments(H, a.phi_K->rows(), a.chunk, false);
    Tensor3 S_part(H * seg.count, f, dv), z_part(H * seg.count, 1, f);
    segment_sums(a, seg, seg.count, S_part, z_part);
    Tensor3 S(H, f, dv), z(H, 1, f);
    const Eigen::RowVectorXf offset = z_offset(a, f);
    for (int h = 0; h < H; ++h) {
        for (int s = 0; s < seg.count; ++s) {
            S.head(h) += S_part.head(h * seg.count + s);
            z.head(h) += z_part.head(h * seg.count + s);
        }
        z.head(h) += offset;
    }
    const int blocks = (n + kRowsPerTask - 1) / kRowsPerTask;
#pragma omp parallel for schedule(dynamic)
    for (int task = 0; task < H * blocks; ++task) {
        const int h = task / blocks, i0 = (task % blocks) * kRowsPerTask, rows = std::min(kRowsPerTask, n - i0);
        const auto q = a.phi_Q->head(h).middleRows(i0, rows);
        auto out = a.O->head(h).middleRows(i0, rows);
        out.noalias() = q * S.head(h);
        const Eigen::VectorXf D = q * z.head(h).transpose();
        for (int r = 0; r < rows; ++r) {
            const float denom = a.normalise ? D[r] + a.d_eps : 1.0f;
            for (int c = 0; c < dv; ++c) out(r, c) = fmap::safe_divide(out(r, c), denom);
            if (a.denom) a.denom->at(h, i0 + r, 0) = denom;
        }
    }
}

void causal(const LinearAttentionArgs& a) {
    const int H = a.phi_Q->heads(), n = a.phi_Q->rows(), f = a.phi_Q->cols(), dv = a.V->cols();
    const Segments seg = plan_segments(H, n, a.chunk, true);
    // start[h·segs + s] = Σ over segments before s (exclusive prefix), built from the pass-1 sums.
    Tensor3 S_start(H * seg.count, f, dv), z_start(H * seg.count, 1, f);
    if (seg.count > 1) {
        Tensor3 S_part(H * seg.count, f, dv), z_part(H * seg.count, 1, f);
        segment_sums(a, seg, seg.count - 1, S_part, z_part);
        for (int h = 0; h < H; ++h)
            for (int s = 1; s < seg.count; ++s) {
                S_start.head(h * seg.count + s) = S_start.head(h * seg.count + s - 1) + S_part.head(h * seg.count + s - 1);
                z_start.head(h * seg.count + s) = z_start.head(h * seg.count + s - 1) + z_part.head(h * seg.count + s - 1);
            }
    }
    const Eigen::RowVectorXf offset = z_offset(a, f);
#pragma omp parallel for schedule(dynamic)
    for (int task = 0; task < H * seg.count; ++task) {
        const int h = task / seg.count, s = task % seg.count;
        MatView S = S_start.head(task);
        MatView z = z_start.head(task);  // (1, f) running Σ φK_j
        MatrixRM A(a.chunk, a.chunk);
        for (int c0 = seg.begin(s); c0 < seg.end(s, n); c0 += a.chunk) {
            const int rows = std::min(a.chunk, seg.end(s, n) - c0);
            const auto q = a.phi_Q->head(h).middleRows(c0, rows);
            const auto k = a.phi_K->head(h).middleRows(c0, rows);
            const auto v = a.V->head(h).middleRows(c0, rows);
            auto block = A.topLeftCorner(rows, rows);
            block.noalias() = q * k.transpose();
            block.triangularView<Eigen::StrictlyUpper>().setZero();
            auto out = a.O->head(h).middleRows(c0, rows);
            out.noalias() = q * S;
            out.noalias() += block * v;
            const Eigen::VectorXf D = q * (z + offset).transpose() + block.rowwise().sum();
            for (int r = 0; r < rows; ++r) {
                const float denom = a.normalise ? D[r] + a.d_eps : 1.0f;
                for (int c = 0; c < dv; ++c) out(r, c) = fmap::safe_divide(out(r, c), denom);
                if (a.denom) a.denom->at(h, c0 + r, 0) = denom;
            }
            S.noalias() += k.transpose() * v;
            z += k.colwise().sum();
        }
    }
}

}  // namespace

void cpu_linear_attention(const LinearAttentionArgs& a) {
    validate_linear_attention(a);
    if (a.phi_Q->rows() == 0) return;
    if (a.causal) causal(a);
    else bidirectional(a);
}

}  // namespace attnscope

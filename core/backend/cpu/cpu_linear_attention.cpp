// attnscope — linear attention O_i = φQ_i·S / D_i on the CPU, never with an n×n matrix.
// Each head's positions are cut into segments so both cores work even with one head (a parallel scan):
// pass 1 sums S = Σ φK_jV_jᵀ and z = Σ φK_j per segment; bidirectional runs then use the head total,
// causal runs an exclusive prefix over segments and walks each segment chunk by chunk: inside a chunk the
// masked c×c block is quadratic, across chunks the running (S, z) carries the prefix — the RNN view of
// Katharopoulos 2020 with c rows per step.
// Every pass reads φ a block of rows at a time through a FeatureSource: views of materialised φ(Q), φ(K)
// (linear_attention), or a blockwise feature map computed per block into per-thread scratch
// (kernel_attention), so a fused run holds O and a few (f × dv) sums — φ(Q), φ(K) (H, n, f) never exist.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "core/backend/cpu/cpu_feature_rows.h"
#include "core/backend/cpu/cpu_primitives.h"
#include "core/backend/shared/feature_maps.h"

namespace attnscope {

namespace {

constexpr int kRowsPerTask = 256;

/// Rows of φ(Q) or φ(K): views of a materialised tensor, or a blockwise feature map computed into scratch.
class FeatureSource {
public:
    /// Materialised features (H, rows, f).
    explicit FeatureSource(const Tensor3& phi) : m_phi(&phi), m_rows(phi.rows()), m_cols(phi.cols()) {}
    /// φ of map.X computed on demand (a blockwise map); stats from feature_map_head_stats, f = its columns.
    FeatureSource(const FeatureMapArgs& map, const Tensor3& stats, int f)
        : m_map(&map), m_stats(&stats), m_rows(map.X->rows()), m_cols(f) {}
    int rows() const { return m_rows; }
    int cols() const { return m_cols; }
    /// True when block() writes into its scratch (callers then provide rows·f floats per thread).
    bool computed() const { return m_phi == nullptr; }
    /// Rows [r0, r0 + count) of head h, (count, f): in place, or written into scratch (≥ count·f floats).
    ConstMatView block(int h, int r0, int count, float* scratch) const {
        if (m_phi) return ConstMatView(m_phi->head_data(h) + int64_t(r0) * m_cols, count, m_cols);
        feature_map_rows(*m_map, *m_stats, h, r0, count, scratch, m_cols);
        return ConstMatView(scratch, count, m_cols);
    }

private:
    const Tensor3* m_phi = nullptr;
    const FeatureMapArgs* m_map = nullptr;
    const Tensor3* m_stats = nullptr;
    int m_rows = 0, m_cols = 0;
};

/// Per-thread scratch for a computed source: (T, rows, f), empty for a materialised one; tracked like every
/// buffer of a run.
Tensor3 source_scratch(const FeatureSource& src, int rows) {
    return src.computed() ? Tensor3(omp_get_max_threads(), rows, src.cols()) : Tensor3();
}

/// This thread's scratch pointer (nullptr for a materialised source).
float* thread_scratch(Tensor3& scratch) {
    return scratch.empty() ? nullptr : scratch.head_data(omp_get_thread_num());
}

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

/// Pass 1: S_part[h·segs + s] = φK_sᵀV_s and z_part = Σ rows of φK_s, for segments [0, last), a block of rows
/// at a time so computed features stay in cache.
void segment_sums(const LinearAttentionArgs& a, const FeatureSource& K, const Segments& seg, int last,
                  Tensor3& S_part, Tensor3& z_part) {
    const int H = a.V->heads();
    Tensor3 scratch = source_scratch(K, kRowsPerTask);
#pragma omp parallel for schedule(dynamic)
    for (int task = 0; task < H * last; ++task) {
        const int h = task / last, s = task % last;
        MatView S = S_part.head(h * seg.count + s);
        MatView z = z_part.head(h * seg.count + s);
        S.setZero(), z.setZero();
        for (int j0 = seg.begin(s); j0 < seg.end(s, K.rows()); j0 += kRowsPerTask) {
            const int rows = std::min(kRowsPerTask, seg.end(s, K.rows()) - j0);
            const ConstMatView k = K.block(h, j0, rows, thread_scratch(scratch));
            S.noalias() += k.transpose() * a.V->head(h).middleRows(j0, rows);
            z += k.colwise().sum();
        }
    }
}

/// Writes O rows = numerator / D (or the numerator when not normalising) and D; `num` (rows, dv + 1) holds
/// φQ·S in its first dv columns and the denominator without d_eps in the last.
void finish_rows(const LinearAttentionArgs& a, int h, int i0, const MatrixRM& num, int rows) {
    const int dv = a.V->cols();
    float* out = a.O->head_data(h) + static_cast<int64_t>(i0) * dv;
    for (int r = 0; r < rows; ++r) {
        const float denom = a.normalise ? num(r, dv) + a.d_eps : 1.0f;
        for (int c = 0; c < dv; ++c) out[int64_t(r) * dv + c] = fmap::safe_divide(num(r, c), denom);
        if (a.denom) a.denom->at(h, i0 + r, 0) = denom;
    }
}

// S is kept augmented as [S | z + z_eps] (f, dv + 1), so one GEMM φQ·[S | z] yields numerator and D together
// and φQ is read once.
void bidirectional(const LinearAttentionArgs& a, const FeatureSource& Q, const FeatureSource& K) {
    const int H = a.V->heads(), n = Q.rows(), f = Q.cols(), dv = a.V->cols();
    const Segments seg = plan_segments(H, K.rows(), a.chunk, false);
    Tensor3 S_part(H * seg.count, f, dv), z_part(H * seg.count, 1, f);
    segment_sums(a, K, seg, seg.count, S_part, z_part);
    Tensor3 S(H, f, dv + 1);
    const Eigen::RowVectorXf offset = z_offset(a, f);
    for (int h = 0; h < H; ++h) {
        MatView Sh = S.head(h);
        Sh.col(dv) = offset.transpose();
        for (int s = 0; s < seg.count; ++s) {
            Sh.leftCols(dv) += S_part.head(h * seg.count + s);
            Sh.col(dv) += z_part.head(h * seg.count + s).transpose();
        }
    }
    Tensor3 scratch = source_scratch(Q, kRowsPerTask);
    const int blocks = (n + kRowsPerTask - 1) / kRowsPerTask;
#pragma omp parallel for schedule(dynamic)
    for (int task = 0; task < H * blocks; ++task) {
        const int h = task / blocks, i0 = (task % blocks) * kRowsPerTask, rows = std::min(kRowsPerTask, n - i0);
        MatrixRM num(rows, dv + 1);
        num.noalias() = Q.block(h, i0, rows, thread_scratch(scratch)) * S.head(h);
        finish_rows(a, h, i0, num, rows);
    }
}

void causal(const LinearAttentionArgs& a, const FeatureSource& Q, const FeatureSource& K) {
    const int H = a.V->heads(), n = Q.rows(), f = Q.cols(), dv = a.V->cols();
    const Segments seg = plan_segments(H, n, a.chunk, true);
    // start[h·segs + s] = [Σ φK_jV_jᵀ | Σ φK_j + z_eps] over the segments before s (exclusive prefix).
    Tensor3 start(H * seg.count, f, dv + 1);
    const Eigen::RowVectorXf offset = z_offset(a, f);
    for (int t = 0; t < H * seg.count; ++t) start.head(t).col(dv) = offset.transpose();
    if (seg.count > 1) {
        Tensor3 S_part(H * seg.count, f, dv), z_part(H * seg.count, 1, f);
        segment_sums(a, K, seg, seg.count - 1, S_part, z_part);
        for (int h = 0; h < H; ++h)
            for (int s = 1; s < seg.count; ++s) {
                MatView cur = start.head(h * seg.count + s);
                cur = start.head(h * seg.count + s - 1);
                cur.leftCols(dv) += S_part.head(h * seg.count + s - 1);
                cur.col(dv) += z_part.head(h * seg.count + s - 1).transpose();
            }
    }
    Tensor3 q_scratch = source_scratch(Q, a.chunk), k_scratch = source_scratch(K, a.chunk);
#pragma omp parallel for schedule(dynamic)
    for (int task = 0; task < H * seg.count; ++task) {
        const int h = task / seg.count, s = task % seg.count;
        MatView S = start.head(task);  // running [S | z], (f, dv + 1)
        MatrixRM A(a.chunk, a.chunk), num(a.chunk, dv + 1);
        for (int c0 = seg.begin(s); c0 < seg.end(s, n); c0 += a.chunk) {
            const int rows = std::min(a.chunk, seg.end(s, n) - c0);
            const ConstMatView q = Q.block(h, c0, rows, thread_scratch(q_scratch));
            const ConstMatView k = K.block(h, c0, rows, thread_scratch(k_scratch));
            const auto v = a.V->head(h).middleRows(c0, rows);
            // Inside the chunk: the masked quadratic block (j ≤ i); before it: the running sums.
            auto block = A.topLeftCorner(rows, rows);
            block.noalias() = q * k.transpose();
            block.triangularView<Eigen::StrictlyUpper>().setZero();
            auto part = num.topRows(rows);
            part.noalias() = q * S;
            part.leftCols(dv).noalias() += block * v;
            part.col(dv) += block.rowwise().sum();
            finish_rows(a, h, c0, num, rows);
            S.leftCols(dv).noalias() += k.transpose() * v;
            S.col(dv) += k.colwise().sum().transpose();
        }
    }
}

void run(const LinearAttentionArgs& a, const FeatureSource& Q, const FeatureSource& K) {
    if (Q.rows() == 0) return;
    if (a.causal) causal(a, Q, K);
    else bidirectional(a, Q, K);
}

}  // namespace

void cpu_linear_attention(const LinearAttentionArgs& a) {
    validate_linear_attention(a);
    run(a, FeatureSource(*a.phi_Q), FeatureSource(*a.phi_K));
}

void cpu_kernel_attention(const KernelAttentionArgs& args) {
    const int f = validate_kernel_attention(args);
    if (!feature_map_blockwise(args.q_map.map) || !feature_map_blockwise(args.k_map.map))
        throw Error("kernel attention: FAVOR maps share a stabiliser over all rows and cannot be fused block by "
                    "block; CpuBackend::kernel_attention materialises them (Backend::kernel_attention)");
    const Tensor3 q_stats = feature_map_head_stats(args.q_map), k_stats = feature_map_head_stats(args.k_map);
    run(args.attention, FeatureSource(args.q_map, q_stats, f), FeatureSource(args.k_map, k_stats, f));
}

}  // namespace attnscope

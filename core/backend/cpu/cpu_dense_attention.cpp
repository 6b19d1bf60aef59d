// attnscope — dense attention on the CPU.
// Two paths with one result: (1) tiled online softmax (FlashAttention): per (head, query tile) a task walks
// the key tiles, keeps running max/sum per row (online_softmax.h, the same bookkeeping the CUDA kernel uses)
// and never holds more than a Br×Bc score tile; (2) materialised: the probabilities are written to P.
// Tasks are (head × query tile) so both cores stay busy even with one head. A pooled picture of P is made in the same
// pass (cpu_pooled_attention.h: column-bin maxima of the scores per query tile, folded in once its lse is final).
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "core/backend/cpu/cpu_flash_tile.h"
#include "core/backend/cpu/cpu_primitives.h"
#include "core/backend/cpu/cpu_online_tile.h"
#include "core/backend/cpu/cpu_pooled_attention.h"
#include "core/backend/shared/online_softmax.h"

namespace attnscope {

namespace {

using RowVec = Eigen::Map<Eigen::VectorXf>;

/// Per-thread scratch, tracked like every other buffer of a run (tiled_attention_scratch_bytes mirrors it). The
/// vector kernel keeps the tile transposed with rows padded to whole vectors (Br′ = padded Br); the Eigen path uses
/// the same buffers untransposed. bins, only for a pooled picture with sc columns, is transposed in both paths.
struct Scratch {
    Tensor3 q, s, acc, stats, bins;  // (T, Br′, d), (T, Br′, Bc), (T, Br′, dv), (T, 4, Br′), (T, sc, Br′) or empty
    Scratch(int threads, int br, int bc, int d, int dv, int sc)
        : q(threads, br, d), s(threads, br, bc), acc(threads, br, dv), stats(threads, 4, br) {
        if (sc > 0) bins = Tensor3::uninitialized(threads, sc, br);
    }
};

/// This thread's column-bin maxima for a new query tile of `stride` lanes: all −inf (no score seen); null without
/// a pooled picture.
float* start_bins(const DenseAttentionArgs& a, Scratch& w, int tid, int stride) {
    if (!a.pooled) return nullptr;
    float* bins = w.bins.head_data(tid);
    std::fill(bins, bins + int64_t(a.pooled->cols()) * stride, -INFINITY);
    return bins;
}

#if ATTNSCOPE_SIMD
/// One (head, query tile) task on the vector tile kernel (cpu_flash_tile.h): same result as tiled_task.
void vector_task(const DenseAttentionArgs& a, Scratch& w, int tid, int h, int i0) {
    const int n = a.Q->rows(), m = a.K->rows();
    flash_tile::Tile t;
    t.i0 = i0, t.rows = std::min(a.tile_rows, n - i0), t.brp = flash_tile::padded_rows(t.rows);
    t.d = a.Q->cols(), t.dv = a.V->cols();
    t.qt = w.q.head_data(tid), t.st = w.s.head_data(tid), t.ot = w.acc.head_data(tid);
    float* stats = w.stats.head_data(tid);
    const int stride = w.stats.cols();
    t.m = stats, t.l = stats + stride, t.tmax = stats + 2 * stride, t.sum = stats + 3 * stride;

    const flash_tile::FlushSubnormals flush;  // subnormal weights would cost an assist per FMA (see the class)
    flash_tile::begin(t, a.Q->head_data(h), a.scale);
    float* bins = start_bins(a, w, tid, t.brp);
    const int key_end = a.causal ? std::min(m, i0 + t.rows) : m;
    for (int j0 = 0; j0 < key_end; j0 += a.tile_cols) {
        const int cols = std::min(a.tile_cols, key_end - j0);
        flash_tile::scores(t, a.K->head_data(h), j0, cols, a.causal, a.score_mod, h);
        if (bins)
            flash_tile::softmax_bin_max(t, j0, cols, a.causal, m, a.pooled->cols(), bins);
        else
            flash_tile::softmax(t, j0, cols, a.causal);
        flash_tile::accumulate(t, a.V->head_data(h), j0, cols, a.causal);
    }
    flash_tile::finish(t, a.O->head_data(h), a.lse ? a.lse->head_data(h) : nullptr);
    if (bins) {
        for (int r = 0; r < t.rows; ++r) t.sum[r] = online_softmax_lse({t.m[r], t.l[r]});  // t.sum is free now
        pooled_fold_tile(bins, t.brp, t.sum, i0, t.rows, n, *a.pooled, h, true);
    }
}
#else
// No vector ISA: cpu_dense_attention runs tiled_task for CpuKernels::Vector too.
#endif

/// Sets cells of a diagonal tile to `value` where key j0+c lies after query i0+r.
void fill_causal_tile(MatView s, int i0, int j0, float value) {
    for (int r = 0; r < s.rows(); ++r) {
        const int first_masked = std::max(0, i0 + r - j0 + 1);
        for (int c = first_masked; c < s.cols(); ++c) s(r, c) = value;
    }
}

// The portable path: builds without a vector ISA and CpuKernels::Portable run it.
void tiled_task(const DenseAttentionArgs& a, Scratch& w, int tid, int h, int i0) {
    const int n = a.Q->rows(), m = a.K->rows(), d = a.Q->cols(), dv = a.V->cols();
    const int rows = std::min(a.tile_rows, n - i0);
    MatView q(w.q.head_data(tid), rows, d);
    MatView acc(w.acc.head_data(tid), rows, dv);
    float* stats = w.stats.head_data(tid);
    OnlineTileRows st{RowVec(stats, rows), RowVec(stats + a.tile_rows, rows), RowVec(stats + 2 * a.tile_rows, rows),
                      RowVec(stats + 3 * a.tile_rows, rows)};

    q.noalias() = a.scale * a.Q->head(h).middleRows(i0, rows);
    acc.setZero();
    st.run_max.setConstant(-INFINITY);
    st.run_sum.setZero();
    const int bin_stride = w.bins.cols();
    float* bins = start_bins(a, w, tid, bin_stride);

    const int key_end = a.causal ? std::min(m, i0 + rows) : m;
    for (int j0 = 0; j0 < key_end; j0 += a.tile_cols) {
        const int cols = std::min(a.tile_cols, key_end - j0);
        MatView s(w.s.head_data(tid), rows, cols);
        s.noalias() = q * a.K->head(h).middleRows(j0, cols).transpose();
        apply_score_mod_columns(s, a.score_mod, h, i0, 0, cols, j0);
        const bool diagonal = a.causal && j0 + cols - 1 > i0;
        if (diagonal) fill_causal_tile(s, i0, j0, -INFINITY);
        if (bins) pooled_bin_max(ConstMatView(s.data(), rows, cols), j0, m, a.pooled->cols(), bins, bin_stride);
        online_tile_exp(s, st);
        // Vectorised exp clamps −inf to a tiny positive number; masked cells must weigh exactly 0.
        if (diagonal) fill_causal_tile(s, i0, j0, 0.0f);
        online_tile_accumulate(s, a.V->head(h).middleRows(j0, cols), acc, st);
    }

    MatView out(a.O->head_data(h) + static_cast<int64_t>(i0) * dv, rows, dv);
    for (int r = 0; r < rows; ++r) {
        const OnlineSoftmaxRow row{st.run_max[r], st.run_sum[r]};
        out.row(r) = acc.row(r) * online_softmax_inv_sum(row);
        if (a.lse) a.lse->at(h, i0 + r, 0) = online_softmax_lse(row);
        if (bins) st.shift[r] = online_softmax_lse(row);  // the pooled fold's lse (shift is free now)
    }
    if (bins) pooled_fold_tile(bins, bin_stride, st.shift.data(), i0, rows, n, *a.pooled, h, false);
}

void materialised_task(const DenseAttentionArgs& a, int h, int i0, int rows) {
    const int m = a.K->rows(), dv = a.V->cols();
    MatView p(a.P->head_data(h) + static_cast<int64_t>(i0) * m, rows, m);
    p.noalias() = (a.scale * a.Q->head(h).middleRows(i0, rows)) * a.K->head(h).transpose();
    apply_score_mod_columns(p, a.score_mod, h, i0, 0, m, 0);
    for (int r = 0; r < rows; ++r) {
        const int allowed = a.causal ? i0 + r + 1 : m;
        auto row = p.row(r);
        const float row_max = row.head(allowed).maxCoeff();
        row.head(allowed) = (row.head(allowed).array() - row_max).exp();
        if (allowed < m) row.tail(m - allowed).setZero();
        const float sum = row.head(allowed).sum();
        row.head(allowed) /= sum;
        if (a.lse) a.lse->at(h, i0 + r, 0) = row_max + std::log(sum);
    }
    MatView out(a.O->head_data(h) + static_cast<int64_t>(i0) * dv, rows, dv);
    out.noalias() = p * a.V->head(h);
}

}  // namespace

void cpu_dense_attention(const DenseAttentionArgs& a, [[maybe_unused]] CpuKernels kernels) {
    validate_dense_attention(a);
    const int H = a.Q->heads(), n = a.Q->rows();
    if (n == 0) return;
    if (a.P) {
        constexpr int kRowsPerTask = 32;
        const int tiles = (n + kRowsPerTask - 1) / kRowsPerTask;
#pragma omp parallel for schedule(dynamic)
        for (int task = 0; task < H * tiles; ++task) {
            const int h = task / tiles, i0 = (task % tiles) * kRowsPerTask;
            materialised_task(a, h, i0, std::min(kRowsPerTask, n - i0));
        }
        if (a.pooled) pooled_from_probabilities(*a.P, *a.pooled);
        return;
    }
    const int tiles = (n + a.tile_rows - 1) / a.tile_rows;
    Scratch scratch(omp_get_max_threads(), tiled_attention_padded_rows(a.tile_rows), std::min(a.tile_cols, a.K->rows()),
                    a.Q->cols(), a.V->cols(), a.pooled ? a.pooled->cols() : 0);
    // Probabilities are ≥ 0: 0 is the neutral start of the tasks' atomic max (and the value of a bin with no cell).
    if (a.pooled) std::fill(a.pooled->data(), a.pooled->data() + a.pooled->size(), 0.0f);
    // Causal tiles near the end cost the most: hand them out first.
#pragma omp parallel for schedule(dynamic)
    for (int task = 0; task < H * tiles; ++task) {
        const int h = task / tiles, t = a.causal ? tiles - 1 - task % tiles : task % tiles;
#if ATTNSCOPE_SIMD
        if (kernels == CpuKernels::Vector) {
            vector_task(a, scratch, omp_get_thread_num(), h, t * a.tile_rows);
            continue;
        }
#else
        // (no vector kernel in this build: see vector_task)
#endif
        tiled_task(a, scratch, omp_get_thread_num(), h, t * a.tile_rows);
    }
}

}  // namespace attnscope

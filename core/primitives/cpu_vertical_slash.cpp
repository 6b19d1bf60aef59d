// attnscope — vertical-slash attention on the CPU (MInference's kept key columns and diagonals).
// Work is the kept cells, where the block-sparse primitive scored every cell of each 16×16 block a line touches
// (~25× more). Rows keep one online softmax (cpu_online_tile.h) across two passes, its accumulator in O:
//  - vertical, per (head, block of R = kVerticalSlashRows rows): the kept columns are gathered once per head into a
//    contiguous copy of their keys and values, so a row block is one GEMM against the columns ≤ its last row (the
//    causal cut only bites the columns inside the block);
//  - slash: diagonal o meets a row block in the contiguous keys i0 − o … i1 − 1 − o, one key per query, so its scores
//    are row-wise dot products and its values row-wise multiply-adds, vectorised over d and dv; a diagonal cell on a
//    kept column is skipped (scored as vertical). The pass walks (query segment, key segment) pairs so the keys a
//    segment's diagonals read stay cached (see kSegment).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu_online_tile.h"
#include "cpu_primitives.h"
#include "online_softmax.h"

namespace attnscope {

namespace {

using RowVec = Eigen::Map<Eigen::VectorXf>;

/// Kept cells × (d + dv) from which the kernel runs in parallel (as block-sparse: below it a region costs more).
constexpr int64_t kParallelWork = int64_t(1) << 23;

/// Per-thread tile scratch, tracked like every other buffer of a run (vertical_slash_scratch_bytes() mirrors it).
struct Scratch {
    Tensor3 q, s, stats;  // (T, R, d), (T, R, C), (T, 2, R): scaled queries, scores, rescale and shift
    Scratch(int threads, int d)
        : q(threads, kVerticalSlashRows, d), s(threads, kVerticalSlashRows, kBlockSparseChunkCols), stats(threads, 2, kVerticalSlashRows) {}
};

/// Keys per segment of the diagonal pass. A diagonal reads one key per query, so streaming every diagonal past a row
/// block reloads K and V once per diagonal; walking (query segment, key segment) pairs instead keeps one segment of
/// keys and one of queries (≈ 8192 × 0.5 KB each at d = dv = 64) in the last-level cache while all the diagonals
/// that join them run.
constexpr int kSegment = 8192;
static_assert(kSegment % kVerticalSlashRows == 0, "row blocks must not straddle a segment");

/// The kept columns of every head gathered into contiguous rows (head h's start at first[h]), and which positions are
/// kept columns, so a diagonal can skip the cells already scored as vertical.
struct GatheredColumns {
    Tensor3 k, v;                 // (1, Σ_h V_h, d), (1, Σ_h V_h, dv)
    std::vector<int64_t> first;   // (H + 1) start row of each head
    Tensor3 is_column;            // (H, n, 1) 1 where position j is a kept column of head h (floats: tracked scratch)
};

GatheredColumns gather_columns(const VerticalSlashAttentionArgs& a) {
    const int H = a.Q->heads(), n = a.Q->rows();
    GatheredColumns g;
    g.first.assign(size_t(H) + 1, 0);
    for (int h = 0; h < H; ++h) g.first[size_t(h) + 1] = g.first[size_t(h)] + int64_t((*a.columns)[size_t(h)].size());
    const int total = int(g.first.back());
    g.k = Tensor3(1, total, a.K->cols()), g.v = Tensor3(1, total, a.V->cols()), g.is_column = Tensor3(H, n, 1);
    for (int h = 0; h < H; ++h) {
        const std::vector<int>& cols = (*a.columns)[size_t(h)];
        for (size_t c = 0; c < cols.size(); ++c) {
            const int64_t row = g.first[size_t(h)] + int64_t(c);
            g.k.head(0).row(row) = a.K->head(h).row(cols[c]);
            g.v.head(0).row(row) = a.V->head(h).row(cols[c]);
            g.is_column.at(h, cols[c], 0) = 1.0f;
        }
    }
    return g;
}

/// The score modifier on a tile whose column c is key cols[c] (gathered columns): ALiBi per cell, soft-cap at once.
void apply_score_mod_gathered(MatView s, const ScoreMod& mod, int h, int i0, const int* cols) {
    if (mod.kind == ScoreModKind::None) return;
    if (mod.kind == ScoreModKind::Softcap) {
        s.array() = mod.cap * (s.array() / mod.cap).tanh();
        return;
    }
    for (int r = 0; r < s.rows(); ++r)
        for (int c = 0; c < s.cols(); ++c) s(r, c) = apply_score_mod(mod, h, i0 + r, cols[c], s(r, c));
}

/// The score modifier on a tile whose column t is diagonal offs[t] (key i − offs[t]): ALiBi subtracts one constant
/// per column (|i − j| = o), soft-cap at once.
void apply_score_mod_diagonals(MatView s, const ScoreMod& mod, int h, const int* offs) {
    if (mod.kind == ScoreModKind::None) return;
    if (mod.kind == ScoreModKind::Softcap) {
        s.array() = mod.cap * (s.array() / mod.cap).tanh();
        return;
    }
    const float slope = alibi_slope(h, mod.heads);
    for (int t = 0; t < s.cols(); ++t) s.col(t).array() -= slope * float(offs[t]);
}

/// Sets the causal cells of a gathered-column tile to `value`: column c (key cols[c]) is allowed from row cols[c] − i0.
void mask_future_columns(MatView s, int i0, const int* cols, float value) {
    for (int c = 0; c < s.cols(); ++c)
        if (cols[c] > i0) s.col(c).head(std::min<int>(s.rows(), cols[c] - i0)).setConstant(value);
}

/// A row block's running softmax: acc in the rows of O (normalised at the end), m and l in the per-head state
/// (H, 2, n), rescale, shift and the scaled queries (filled by the part that needs them) in the thread's scratch.
struct BlockRows {
    int h, i0, rows;
    MatView q, acc;
    OnlineTileRows st;
};

BlockRows block_rows(const VerticalSlashAttentionArgs& a, Tensor3& state, Scratch& w, int tid, int h, int I) {
    const int n = a.Q->rows(), d = a.Q->cols(), dv = a.V->cols(), R = kVerticalSlashRows;
    const int i0 = I * R, rows = std::min(R, n - i0);
    float* m = state.head_data(h) + i0;
    float* stats = w.stats.head_data(tid);
    BlockRows b{h, i0, rows, MatView(w.q.head_data(tid), rows, d),
                MatView(a.O->head_data(h) + int64_t(i0) * dv, rows, dv),
                OnlineTileRows{RowVec(m, rows), RowVec(m + n, rows), RowVec(stats, rows), RowVec(stats + R, rows)}};
    return b;
}

/// Vertical part of a row block (starting its running softmax): the kept columns ≤ its last row, C at a time, one
/// GEMM each.
void vertical_part(const VerticalSlashAttentionArgs& a, const GatheredColumns& g, BlockRows& b, float* s_scratch) {
    const int last = b.i0 + b.rows - 1, C = kBlockSparseChunkCols;
    b.q.noalias() = a.scale * a.Q->head(b.h).middleRows(b.i0, b.rows);
    b.acc.setZero();
    b.st.run_max.setConstant(-INFINITY);
    b.st.run_sum.setZero();
    const std::vector<int>& cols = (*a.columns)[size_t(b.h)];
    const int kept = int(std::upper_bound(cols.begin(), cols.end(), last) - cols.begin());
    for (int c0 = 0; c0 < kept; c0 += C) {
        const int width = std::min(C, kept - c0);
        const int64_t row0 = g.first[size_t(b.h)] + c0;
        MatView s(s_scratch, b.rows, width);
        s.noalias() = b.q * g.k.head(0).middleRows(row0, width).transpose();
        apply_score_mod_gathered(s, a.score_mod, b.h, b.i0, cols.data() + c0);
        mask_future_columns(s, b.i0, cols.data() + c0, -INFINITY);
        online_tile_exp(s, b.st);
        // Vectorised exp may turn −inf into a tiny positive number; forbidden cells must weigh exactly 0.
        mask_future_columns(s, b.i0, cols.data() + c0, 0.0f);
        online_tile_accumulate(s, g.v.head(0).middleRows(row0, width), b.acc, b.st);
    }
}

/// Diagonal part of a row block restricted to keys [k0, k1): the kept diagonals that reach those keys from the block,
/// C at a time; diagonal o reads the contiguous keys i − o of the block's rows i with i − o in [k0, k1).
void diagonal_part(const VerticalSlashAttentionArgs& a, const GatheredColumns& g, BlockRows& b, int k0, int k1,
                   float* s_scratch) {
    const int last = b.i0 + b.rows - 1, C = kBlockSparseChunkCols;
    const std::vector<int>& offs = (*a.offsets)[size_t(b.h)];
    // i − o ∈ [k0, k1) for some i in [i0, last] ⇔ o ∈ [i0 − k1 + 1, last − k0].
    const int t_begin = int(std::lower_bound(offs.begin(), offs.end(), b.i0 - k1 + 1) - offs.begin());
    const int t_end = int(std::upper_bound(offs.begin(), offs.end(), last - k0) - offs.begin());
    if (t_begin >= t_end) return;  // most (query segment, key segment) pairs of a block have no diagonal
    b.q.noalias() = a.scale * a.Q->head(b.h).middleRows(b.i0, b.rows);
    const ConstMatView K = a.K->head(b.h), V = a.V->head(b.h);
    const float* is_column = g.is_column.head_data(b.h);
    // Rows [first, end) of diagonal o have their key inside [k0, k1).
    auto first = [&](int o) { return std::clamp(o + k0 - b.i0, 0, b.rows); };
    auto end = [&](int o) { return std::clamp(o + k1 - b.i0, 0, b.rows); };
    auto mask = [&](MatView s, const int* o, float value) {
        for (int t = 0; t < s.cols(); ++t) {
            const int r0 = first(o[t]), r1 = end(o[t]);
            s.col(t).head(r0).setConstant(value);
            s.col(t).tail(b.rows - r1).setConstant(value);
            for (int r = r0; r < r1; ++r)
                if (is_column[b.i0 + r - o[t]] != 0.0f) s(r, t) = value;  // scored as vertical
        }
    };
    for (int t0 = t_begin; t0 < t_end; t0 += C) {
        const int width = std::min(C, t_end - t0);
        const int* o = offs.data() + t0;
        MatView s(s_scratch, b.rows, width);
        for (int t = 0; t < width; ++t) {
            const int r0 = first(o[t]), count = end(o[t]) - r0;
            s.col(t).setZero();  // cells outside are masked below; zero keeps the modifier finite
            s.col(t).segment(r0, count) =
                (b.q.middleRows(r0, count).array() * K.middleRows(b.i0 + r0 - o[t], count).array()).rowwise().sum();
        }
        apply_score_mod_diagonals(s, a.score_mod, b.h, o);
        mask(s, o, -INFINITY);
        online_tile_exp(s, b.st);
        mask(s, o, 0.0f);
        online_tile_rescale(s, b.acc, b.st);
        for (int t = 0; t < width; ++t) {
            const int r0 = first(o[t]), count = end(o[t]) - r0;
            b.acc.middleRows(r0, count).noalias() +=
                s.col(t).segment(r0, count).asDiagonal() * V.middleRows(b.i0 + r0 - o[t], count);
        }
    }
}

}  // namespace

void cpu_vertical_slash_attention(const VerticalSlashAttentionArgs& a) {
    validate_vertical_slash_attention(a);
    const int H = a.Q->heads(), n = a.Q->rows(), d = a.Q->cols(), dv = a.V->cols();
    if (n == 0) return;
    const GatheredColumns g = gather_columns(a);
    int64_t lines = 0;  // an upper bound of the kept cells is lines × n
    for (int h = 0; h < H; ++h) lines += int64_t((*a.columns)[size_t(h)].size() + (*a.offsets)[size_t(h)].size());
    const bool parallel = lines * n * (d + dv) >= kParallelWork;
    const int threads = parallel ? omp_get_max_threads() : 1;
    Scratch scratch(threads, d);
    Tensor3 state(H, 2, n);  // running max and sum of every row, kept across the passes
    const int nb = (n + kVerticalSlashRows - 1) / kVerticalSlashRows;
    const int per_segment = kSegment / kVerticalSlashRows, segments = (n + kSegment - 1) / kSegment;
#pragma omp parallel if (parallel)
    {
#pragma omp for schedule(dynamic)
        for (int task = 0; task < H * nb; ++task) {
            BlockRows b = block_rows(a, state, scratch, omp_get_thread_num(), task / nb, task % nb);
            vertical_part(a, g, b, scratch.s.head_data(omp_get_thread_num()));
        }
        // Diagonals by (query segment A, key segment B ≤ A) pairs; each cell's key lies in exactly one B.
        for (int A = 0; A < segments; ++A)
            for (int B = 0; B <= A; ++B) {
                const int first = A * per_segment, blocks = std::min(nb, first + per_segment) - first;
#pragma omp for schedule(dynamic)
                for (int task = 0; task < H * blocks; ++task) {
                    BlockRows b = block_rows(a, state, scratch, omp_get_thread_num(), task / blocks, first + task % blocks);
                    diagonal_part(a, g, b, B * kSegment, std::min(n, (B + 1) * kSegment), scratch.s.head_data(omp_get_thread_num()));
                }
            }
#pragma omp for schedule(static)
        for (int row = 0; row < H * n; ++row) {
            const int h = row / n, i = row % n;
            const OnlineSoftmaxRow r{state.at(h, 0, i), state.at(h, 1, i)};
            a.O->head(h).row(i) *= online_softmax_inv_sum(r);
            if (a.lse) a.lse->at(h, i, 0) = online_softmax_lse(r);
        }
    }
}

}  // namespace attnscope

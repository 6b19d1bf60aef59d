// attnscope — vertical-slash attention on the CPU (MInference's kept key columns and diagonals).
// Work is the kept cells, where the block-sparse primitive scored every cell of each 16×16 block a line touches
// (~25× more). One task per (head, block of R = kVerticalSlashRows rows) runs the row block's online softmax
// (cpu_online_tile.h), its accumulator in O, through two parts:
//  - vertical: the kept columns are gathered once per head into a contiguous copy of their keys and values, so a row
//    block is one GEMM against the columns ≤ its last row (the causal cut only bites the columns inside the block);
//  - slash: diagonal o meets a row block in the contiguous keys i0 − o … i1 − 1 − o, one key per query, so there is no
//    product to share: vector builds run cpu_slash_block.h (one vector of diagonals at a time), others row-wise dot products
//    and multiply-adds. A diagonal cell on a kept column is skipped (scored as vertical).
// Random diagonals lie ~n/S apart, so a key row is reused only by diagonals far apart in time: K and V stream from
// the last-level cache once per diagonal. Walking (query segment, key segment) pairs to keep them in a smaller cache
// measured slower (docs/PERFORMANCE.kernels.md, vertical-slash), so the blocks simply run in order.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/backend/cpu/cpu_flash_tile.h"
#include "core/backend/cpu/cpu_online_tile.h"
#include "core/backend/cpu/cpu_primitives.h"
#include "core/backend/cpu/cpu_slash_block.h"
#include "core/backend/shared/online_softmax.h"

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

static_assert(kBlockSparseChunkCols >= 2 * slash_block::kDiagonals, "the slash kernel's scores and keys fit the score scratch");

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

/// Vertical part of a row block (starting its running softmax; b.q holds the scaled queries): the kept columns ≤ its
/// last row, C at a time, one GEMM each.
void vertical_part(const VerticalSlashAttentionArgs& a, const GatheredColumns& g, BlockRows& b, float* s_scratch) {
    const int last = b.i0 + b.rows - 1, C = kBlockSparseChunkCols;
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

/// The portable diagonal part (builds without a vector ISA, CpuKernels::Portable): the block's diagonals C at a time as
/// score tiles whose column t holds the row-wise dot products of diagonal o_t.
void diagonal_part_tiles(const VerticalSlashAttentionArgs& a, const GatheredColumns& g, BlockRows& b, int t_begin,
                         int t_end, float* s_scratch) {
    const int C = kBlockSparseChunkCols;
    const std::vector<int>& offs = (*a.offsets)[size_t(b.h)];
    const ConstMatView K = a.K->head(b.h), V = a.V->head(b.h);
    const float* is_column = g.is_column.head_data(b.h);
    // Diagonal o reaches a key (i − o ≥ 0) from the block's rows [first(o), rows).
    auto first = [&](int o) { return std::clamp(o - b.i0, 0, b.rows); };
    auto mask = [&](MatView s, const int* o, float value) {
        for (int t = 0; t < s.cols(); ++t) {
            const int r0 = first(o[t]);
            s.col(t).head(r0).setConstant(value);
            for (int r = r0; r < b.rows; ++r)
                if (is_column[b.i0 + r - o[t]] != 0.0f) s(r, t) = value;  // scored as vertical
        }
    };
    for (int t0 = t_begin; t0 < t_end; t0 += C) {
        const int width = std::min(C, t_end - t0);
        const int* o = offs.data() + t0;
        MatView s(s_scratch, b.rows, width);
        for (int t = 0; t < width; ++t) {
            const int r0 = first(o[t]), count = b.rows - r0;
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
            const int r0 = first(o[t]), count = b.rows - r0;
            b.acc.middleRows(r0, count).noalias() +=
                s.col(t).segment(r0, count).asDiagonal() * V.middleRows(b.i0 + r0 - o[t], count);
        }
    }
}

#if ATTNSCOPE_SIMD
/// diagonal_part on the vector kernel: diagonals [0, t_end) of the head, slash_block::kDiagonals per call.
void diagonal_vector(const VerticalSlashAttentionArgs& a, const GatheredColumns& g, BlockRows& b, int t_end,
                     float* s_scratch) {
    const std::vector<int>& offs = (*a.offsets)[size_t(b.h)];
    const flash_tile::FlushSubnormals flush;  // weights below 2^−126 would cost an assist per FMA
    slash_block::Block lines;
    lines.i0 = b.i0, lines.rows = b.rows, lines.q = b.q.data(), lines.acc = b.acc.data();
    lines.m = b.st.run_max.data(), lines.l = b.st.run_sum.data();
    for (int t = 0; t < t_end; t += slash_block::kDiagonals) {
        lines.offs = offs.data() + t, lines.count = std::min(slash_block::kDiagonals, t_end - t);
        slash_block::fold(lines, a.K->head_data(b.h), a.V->head_data(b.h), a.Q->cols(), a.V->cols(),
                         g.is_column.head_data(b.h), a.score_mod, b.h, s_scratch);
    }
}
#else
// No vector ISA: diagonal_part runs diagonal_part_tiles for CpuKernels::Vector too.
#endif

/// Diagonal part of a row block (after its vertical part): every kept diagonal o ≤ its last row, a vector of them at a
/// time on the vector kernel (cpu_slash_block.h), else as diagonal_part_tiles.
void diagonal_part(const VerticalSlashAttentionArgs& a, const GatheredColumns& g, BlockRows& b, float* s_scratch,
                   [[maybe_unused]] CpuKernels kernels) {
    const std::vector<int>& offs = (*a.offsets)[size_t(b.h)];
    const int t_end = int(std::upper_bound(offs.begin(), offs.end(), b.i0 + b.rows - 1) - offs.begin());
#if ATTNSCOPE_SIMD
    if (kernels == CpuKernels::Vector) {
        diagonal_vector(a, g, b, t_end, s_scratch);
        return;
    }
#else
    // (no vector kernel in this build: see diagonal_vector)
#endif
    diagonal_part_tiles(a, g, b, 0, t_end, s_scratch);
}


}  // namespace

void cpu_vertical_slash_attention(const VerticalSlashAttentionArgs& a, CpuKernels kernels) {
    validate_vertical_slash_attention(a);
    const int H = a.Q->heads(), n = a.Q->rows(), d = a.Q->cols(), dv = a.V->cols();
    if (n == 0) return;
    const GatheredColumns g = gather_columns(a);
    int64_t lines = 0;  // an upper bound of the kept cells is lines × n
    for (int h = 0; h < H; ++h) lines += int64_t((*a.columns)[size_t(h)].size() + (*a.offsets)[size_t(h)].size());
    const bool parallel = lines * n * (d + dv) >= kParallelWork;
    const int threads = parallel ? omp_get_max_threads() : 1;
    Scratch scratch(threads, d);
    Tensor3 state(H, 2, n);  // running max and sum of every row
    const int nb = (n + kVerticalSlashRows - 1) / kVerticalSlashRows;
#pragma omp parallel for schedule(dynamic) if (parallel)
    for (int task = 0; task < H * nb; ++task) {
        const int tid = omp_get_thread_num(), h = task / nb;
        BlockRows b = block_rows(a, state, scratch, tid, h, task % nb);
        b.q.noalias() = a.scale * a.Q->head(h).middleRows(b.i0, b.rows);
        vertical_part(a, g, b, scratch.s.head_data(tid));
        diagonal_part(a, g, b, scratch.s.head_data(tid), kernels);
        for (int r = 0; r < b.rows; ++r) {
            const OnlineSoftmaxRow row{b.st.run_max[r], b.st.run_sum[r]};
            b.acc.row(r) *= online_softmax_inv_sum(row);
            if (a.lse) a.lse->at(h, b.i0 + r, 0) = online_softmax_lse(row);
        }
    }
}

}  // namespace attnscope

// attnscope — block-sparse attention on the CPU.
// One task per (head, query block I): it walks only the key blocks the layout stores for I, in chunks of
// up to kBlockSparseChunkCols columns, trimmed to the columns between their first and last allowed cell (a band's
// outer blocks are half forbidden). With a vector ISA a chunk is a run of consecutive stored blocks read in place as one
// key tile of the flash tile kernel (cpu_flash_tile.h), its forbidden cells written −inf into the transposed scores;
// otherwise (and for CpuKernels::Portable) a scattered chunk is gathered into scratch and scored by two Eigen GEMMs.
// Rows keep FlashAttention's running max and sum (online_softmax.h, the same bookkeeping the CUDA kernel uses), so
// work and memory are proportional to the stored blocks, never to n².
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

#include "core/backend/interface/block_layout.h"
#include "core/backend/cpu/cpu_flash_tile.h"
#include "core/backend/cpu/cpu_primitives.h"
#include "core/backend/cpu/cpu_online_tile.h"
#include "core/backend/shared/online_softmax.h"

namespace attnscope {

namespace {

using RowVec = Eigen::Map<Eigen::VectorXf>;

/// Scored cells × (d + dv) from which the kernel runs in parallel.
constexpr int64_t kParallelWork = int64_t(1) << 23;

/// Per-thread scratch, tracked like every other buffer of a run (block_sparse_scratch_bytes() mirrors it).
struct Scratch {
    Tensor3 q, s, k, v, acc, stats;  // (T, b, d), (T, b, C), (T, C, d), (T, C, dv), (T, b, dv), (T, 4, b)
    Scratch(int threads, int b, int cols, int d, int dv)
        : q(threads, b, d),
          s(threads, b, cols),
          k(threads, cols, d),
          v(threads, cols, dv),
          acc(threads, b, dv),
          stats(threads, 4, b) {}
};

/// Calls fill(r, c0, c1) for every run [c0, c1) of cells of row r < rows that stored block `k`'s bitmask forbids, in
/// the block's column range [0, cols). Walks the runs of zero bits word by word, so mostly-allowed blocks and band
/// edges (one contiguous run per row) cost little.
template <class Fill>
void for_forbidden_runs(const BlockLayoutView& L, int k, int rows, int cols, Fill&& fill) {
    if (L.mask_idx[k] < 0) return;
    const uint64_t* bits = L.masks + static_cast<int64_t>(L.mask_idx[k]) * L.block * L.words_per_row;
    for (int r = 0; r < rows; ++r)
        for (int w = 0; w < L.words_per_row; ++w) {
            const int valid = cols - w * 64;
            if (valid <= 0) break;
            const uint64_t in_range = valid >= 64 ? ~0ull : (1ull << valid) - 1;
            for (uint64_t forbidden = ~bits[r * L.words_per_row + w] & in_range; forbidden;) {
                const int start = std::countr_zero(forbidden);
                const uint64_t from_start = forbidden >> start;
                const int len = ~from_start == 0 ? 64 - start : std::countr_zero(~from_start);
                forbidden = start + len >= 64 ? 0 : forbidden & ~(((uint64_t(1) << len) - 1) << start);
                fill(r, w * 64 + start, w * 64 + start + len);
            }
        }
}

/// Sets the cells of stored block `k` that its bitmask forbids to `value`; block column c is column off + c of s
/// (off may be negative when the chunk starts inside this block: columns outside s are left alone).
void fill_masked(const BlockLayoutView& L, int k, MatView s, int off, int cols, float value) {
    for_forbidden_runs(L, k, int(s.rows()), cols, [&](int r, int c0, int c1) {
        c0 = std::max(0, off + c0), c1 = std::min<int>(int(s.cols()), off + c1);
        if (c0 < c1) std::fill(s.data() + static_cast<int64_t>(r) * s.cols() + c0, s.data() + static_cast<int64_t>(r) * s.cols() + c1, value);
    });
}

/// Block columns [first, last) of stored block `k` that hold an allowed cell in any of the first `rows` rows:
/// a band's outer blocks are often half forbidden, and scoring only this range saves their dead columns.
std::pair<int, int> allowed_column_range(const BlockLayoutView& L, int k, int rows, int cols) {
    if (L.mask_idx[k] < 0) return {0, cols};
    const uint64_t* bits = L.masks + static_cast<int64_t>(L.mask_idx[k]) * L.block * L.words_per_row;
    int first = cols, last = 0;
    for (int w = 0; w < L.words_per_row; ++w) {
        const int valid = cols - w * 64;
        if (valid <= 0) break;
        uint64_t any = 0;
        for (int r = 0; r < rows; ++r) any |= bits[r * L.words_per_row + w];
        any &= valid >= 64 ? ~0ull : (1ull << valid) - 1;
        if (!any) continue;
        first = std::min(first, w * 64 + std::countr_zero(any));
        last = std::max(last, w * 64 + 64 - std::countl_zero(any));
    }
    return first < last ? std::pair{first, last} : std::pair{0, 0};
}

#if ATTNSCOPE_SIMD
/// Sets the cells of stored block `k` that its bitmask forbids to −inf in the transposed score tile of t: block column
/// c is tile column off + c (columns outside [0, cols) are left alone), block row r is lane r.
void mask_transposed(const BlockLayoutView& L, int k, const flash_tile::Tile& t, int off, int ext, int cols) {
    for_forbidden_runs(L, k, t.rows, ext, [&](int r, int c0, int c1) {
        c0 = std::max(0, off + c0), c1 = std::min(cols, off + c1);
        for (int c = c0; c < c1; ++c) t.st[static_cast<ptrdiff_t>(c) * t.brp + r] = -INFINITY;
    });
}

/// block_row_task on the vector flash tile kernel (cpu_flash_tile.h): each run of consecutive stored blocks is one
/// key tile read in place, trimmed to its allowed columns, scored raw, masked by the blocks' bitmasks, then folded
/// like a flash tile. Non-consecutive blocks start a new tile instead of being gathered.
void vector_block_row_task(const BlockSparseAttentionArgs& a, const BlockLayoutView& L, Scratch& w, int tid, int h,
                           int I) {
    const int n = L.n, b = L.block;
    flash_tile::Tile t;
    t.i0 = I * b, t.rows = block_extent(n, b, I), t.brp = flash_tile::padded_rows(t.rows);
    t.d = a.Q->cols(), t.dv = a.V->cols();
    t.qt = w.q.head_data(tid), t.st = w.s.head_data(tid), t.ot = w.acc.head_data(tid);
    float* stats = w.stats.head_data(tid);
    const int stride = w.stats.cols();
    t.m = stats, t.l = stats + stride, t.tmax = stats + 2 * stride, t.sum = stats + 3 * stride;
    const int chunk_cap = std::max(b, (kBlockSparseChunkCols / b) * b);

    const flash_tile::FlushSubnormals flush;  // subnormal weights would cost an assist per FMA (see the class)
    flash_tile::begin(t, a.Q->head_data(h), a.scale);
    const int begin = layout_row_begin(L, h, I), end = layout_row_end(L, h, I);
    for (int k0 = begin; k0 < end;) {
        int k1 = k0 + 1, cols = block_extent(n, b, L.col_idx[k0]);
        while (k1 < end && L.col_idx[k1] == L.col_idx[k1 - 1] + 1 && cols + block_extent(n, b, L.col_idx[k1]) <= chunk_cap)
            cols += block_extent(n, b, L.col_idx[k1++]);
        const int last_ext = block_extent(n, b, L.col_idx[k1 - 1]);
        const auto first_range = allowed_column_range(L, k0, t.rows, block_extent(n, b, L.col_idx[k0]));
        const auto last_range = allowed_column_range(L, k1 - 1, t.rows, last_ext);
        const int lo = first_range.first, hi = k1 - 1 == k0 ? first_range.second : cols - last_ext + last_range.second;
        if (lo < hi) {
            const int j0 = L.col_idx[k0] * b + lo;
            flash_tile::raw_scores(t, a.K->head_data(h), j0, hi - lo, a.score_mod, h);
            for (int k = k0, off = -lo; k < k1; off += block_extent(n, b, L.col_idx[k]), ++k)
                mask_transposed(L, k, t, off, block_extent(n, b, L.col_idx[k]), hi - lo);
            flash_tile::tile_max(t, hi - lo);
            flash_tile::softmax(t, j0, hi - lo, false);
            flash_tile::accumulate(t, a.V->head_data(h), j0, hi - lo, false);
        }
        k0 = k1;
    }
    flash_tile::finish(t, a.O->head_data(h), a.lse ? a.lse->head_data(h) : nullptr);
}
#else
// No vector ISA: cpu_block_sparse_attention runs block_row_task for CpuKernels::Vector too.
#endif

/// One (head, query block I) task on Eigen products (builds without a vector ISA, CpuKernels::Portable).
void block_row_task(const BlockSparseAttentionArgs& a, const BlockLayoutView& L, Scratch& w, int tid, int h, int I) {
    const int n = L.n, b = L.block, d = a.Q->cols(), dv = a.V->cols();
    const int i0 = I * b, rows = block_extent(n, b, I);
    const int chunk_cap = std::max(b, (kBlockSparseChunkCols / b) * b);
    MatView q(w.q.head_data(tid), rows, d);
    MatView acc(w.acc.head_data(tid), rows, dv);
    float* stats = w.stats.head_data(tid);
    OnlineTileRows st{RowVec(stats, rows), RowVec(stats + b, rows), RowVec(stats + 2 * b, rows),
                      RowVec(stats + 3 * b, rows)};

    q.noalias() = a.scale * a.Q->head(h).middleRows(i0, rows);
    acc.setZero();
    st.run_max.setConstant(-INFINITY);
    st.run_sum.setZero();

    const int begin = layout_row_begin(L, h, I), end = layout_row_end(L, h, I);
    for (int k0 = begin; k0 < end;) {
        // A chunk: as many stored blocks as fit in chunk_cap columns.
        int k1 = k0, cols = 0;
        bool contiguous = true, masked = false;
        while (k1 < end && cols + block_extent(n, b, L.col_idx[k1]) <= chunk_cap) {
            if (k1 > k0 && L.col_idx[k1] != L.col_idx[k1 - 1] + 1) contiguous = false;
            masked = masked || L.mask_idx[k1] >= 0;
            cols += block_extent(n, b, L.col_idx[k1]);
            ++k1;
        }
        // Contiguous chunks score only the columns between the first and the last allowed one.
        int lo = 0, hi = cols;
        if (contiguous && masked) {
            const int last_ext = block_extent(n, b, L.col_idx[k1 - 1]);
            const auto first_range = allowed_column_range(L, k0, rows, block_extent(n, b, L.col_idx[k0]));
            const auto last_range = allowed_column_range(L, k1 - 1, rows, last_ext);
            lo = first_range.first;
            hi = k1 - 1 == k0 ? first_range.second : cols - last_ext + last_range.second;
            if (lo >= hi) {  // nothing allowed for these rows
                k0 = k1;
                continue;
            }
        }
        const int j0 = L.col_idx[k0] * b + lo;
        const float* kp = a.K->head(h).data() + static_cast<int64_t>(j0) * d;
        const float* vp = a.V->head(h).data() + static_cast<int64_t>(j0) * dv;
        if (!contiguous) {
            MatView kg(w.k.head_data(tid), cols, d), vg(w.v.head_data(tid), cols, dv);
            for (int k = k0, off = 0; k < k1; ++k) {
                const int J = L.col_idx[k], ext = block_extent(n, b, J);
                kg.middleRows(off, ext) = a.K->head(h).middleRows(J * b, ext);
                vg.middleRows(off, ext) = a.V->head(h).middleRows(J * b, ext);
                off += ext;
            }
            kp = kg.data(), vp = vg.data();
        }
        ConstMatView kc(kp, hi - lo, d), vc(vp, hi - lo, dv);
        MatView s(w.s.head_data(tid), rows, hi - lo);
        s.noalias() = q * kc.transpose();
        if (contiguous)
            apply_score_mod_columns(s, a.score_mod, h, i0, 0, hi - lo, j0);
        else
            for (int k = k0, off = 0; k < k1; off += block_extent(n, b, L.col_idx[k]), ++k)
                apply_score_mod_columns(s, a.score_mod, h, i0, off, off + block_extent(n, b, L.col_idx[k]),
                                        L.col_idx[k] * b);
        if (masked)
            for (int k = k0, off = -lo; k < k1; off += block_extent(n, b, L.col_idx[k]), ++k)
                fill_masked(L, k, s, off, block_extent(n, b, L.col_idx[k]), -INFINITY);
        online_tile_exp(s, st);
        // Vectorised exp may turn −inf into a tiny positive number; forbidden cells must weigh exactly 0.
        if (masked)
            for (int k = k0, off = -lo; k < k1; off += block_extent(n, b, L.col_idx[k]), ++k)
                fill_masked(L, k, s, off, block_extent(n, b, L.col_idx[k]), 0.0f);
        online_tile_accumulate(s, vc, acc, st);
        k0 = k1;
    }

    MatView out(a.O->head_data(h) + static_cast<int64_t>(i0) * dv, rows, dv);
    for (int r = 0; r < rows; ++r) {
        const OnlineSoftmaxRow row{st.run_max[r], st.run_sum[r]};
        out.row(r) = acc.row(r) * online_softmax_inv_sum(row);
        if (a.lse) a.lse->at(h, i0 + r, 0) = online_softmax_lse(row);
    }
}

}  // namespace

void cpu_block_sparse_attention(const BlockSparseAttentionArgs& a, [[maybe_unused]] CpuKernels kernels) {
    validate_block_sparse_attention(a);
    const BlockLayoutView L = a.layout->view();
    const int H = a.Q->heads(), nb = L.block_rows;
    if (L.n == 0) return;
    const int cols = std::max(L.block, (kBlockSparseChunkCols / L.block) * L.block);
    Scratch scratch(omp_get_max_threads(), tiled_attention_padded_rows(L.block), cols, a.Q->cols(), a.V->cols());
    // Tiny layouts (≲ 0.1 ms of work) run on one thread: a parallel region would cost more than it saves.
    const int64_t scored = a.layout->stored_blocks() * (H / a.layout->heads) * int64_t(L.block) * L.block;
    const bool parallel = scored * (a.Q->cols() + a.V->cols()) >= kParallelWork;
    // Runs of 8 consecutive query blocks per grab: each thread then reads Q and writes O in sequential stretches the
    // hardware prefetcher follows, where one block per grab interleaves the threads (docs/PERFORMANCE.md, "Measured
    // reasons in the code").
#pragma omp parallel for schedule(dynamic, 8) if (parallel)
    for (int task = 0; task < H * nb; ++task) {
#if ATTNSCOPE_SIMD
        if (kernels == CpuKernels::Vector) {
            vector_block_row_task(a, L, scratch, omp_get_thread_num(), task / nb, task % nb);
            continue;
        }
#else
        // (no vector kernel in this build: see vector_block_row_task)
#endif
        block_row_task(a, L, scratch, omp_get_thread_num(), task / nb, task % nb);
    }
}

}  // namespace attnscope

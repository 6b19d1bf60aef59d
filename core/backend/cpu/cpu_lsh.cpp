// attnscope — Reformer LSH attention on the CPU: hash (gemm with the rotation + argmax), counting sort by
// bucket, chunked attention with look-back, round combination. The per-cell rules and the round maths come
// from core/backend/interface/lsh_rules.h, the header the CUDA kernels include too.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "core/backend/cpu/cpu_primitives.h"
#include "core/backend/interface/lsh_rules.h"

namespace attnscope {

namespace {

/// Slot → chunk index for every position: chunk[(r·H + h)·n + position] = slot / c.
std::vector<int> chunk_of_position(const std::vector<int>& perm, int rounds, int H, int n, int chunk_len) {
    std::vector<int> chunk(perm.size());
    for (int64_t rh = 0; rh < int64_t(rounds) * H; ++rh)
        for (int s = 0; s < n; ++s) chunk[rh * n + perm[rh * n + s]] = s / chunk_len;
    return chunk;
}

/// Per-thread buffers of one chunk task, tracked like every other buffer of a run.
struct ChunkScratch {
    Tensor3 q, k, v, s, o;  // (T, c, d), (T, w, d), (T, w, dv), (T, c, w), (T, c, dv); w = keys of the chunk set
    std::vector<std::vector<int>> keys;        // (T, w) key positions of the task
    std::vector<std::vector<int>> key_chunks;  // (T, R·w) chunk of each key in every round
    std::vector<std::vector<int>> counts;      // (T, w) rounds attending (query, key)
    ChunkScratch(int threads, int c, int w, int d, int dv)
        : q(threads, c, d), k(threads, w, d), v(threads, w, dv), s(threads, c, w), o(threads, c, dv), keys(threads),
          key_chunks(threads),
          counts(threads) {}
};

}  // namespace

void cpu_lsh_hash(const LshHashArgs& a) {
    validate_lsh_hash(a);
    const int H = a.X->heads(), n = a.X->rows(), d = a.X->cols(), R = a.rounds, nb = a.n_buckets;
    a.buckets->assign(size_t(R) * H * n, 0);
    a.perm->assign(size_t(R) * H * n, 0);
    const int half = nb / 2;
#pragma omp parallel for collapse(2) schedule(dynamic)
    for (int r = 0; r < R; ++r)
        for (int h = 0; h < H; ++h) {
            int* bucket = a.buckets->data() + (int64_t(r) * H + h) * n;
            if (nb > 1) {
                constexpr int kRowsPerBlock = 256;
                MatrixRM xr(std::min(kRowsPerBlock, n), half);
                ConstMatView rot(a.rotations->head_data(r), d, half);
                for (int i0 = 0; i0 < n; i0 += kRowsPerBlock) {
                    const int rows = std::min(kRowsPerBlock, n - i0);
                    xr.topRows(rows).noalias() = a.X->head(h).middleRows(i0, rows) * rot;
                    for (int i = 0; i < rows; ++i) bucket[i0 + i] = lsh_argmax_bucket(xr.row(i).data(), nb);
                }
            }
            // Counting sort by bucket keeps positions ascending inside a bucket: the order of key bucket·n + i.
            std::vector<int> start(nb + 1, 0);
            for (int i = 0; i < n; ++i) ++start[bucket[i] + 1];
            for (int b = 0; b < nb; ++b) start[b + 1] += start[b];
            int* perm = a.perm->data() + (int64_t(r) * H + h) * n;
            for (int i = 0; i < n; ++i) perm[start[bucket[i]]++] = i;
        }
}

void cpu_lsh_attention(const LshAttentionArgs& a) {
    validate_lsh_attention(a);
    const int H = a.Q->heads(), n = a.Q->rows(), d = a.Q->cols(), dv = a.V->cols(), R = a.rounds;
    const int c = a.chunk_len, L = a.look_back;
    if (n == 0) return;

    // Without O_rounds the rounds live here until they are combined into O.
    Tensor3 own_rounds;
    Tensor3& O_rounds = a.O_rounds ? *a.O_rounds : (own_rounds = Tensor3::uninitialized(R, H * n, dv));
    const int nc = lsh_num_chunks(n, c);
    const int attended = lsh_chunks_attended(L, nc);
    const int width = attended * std::min(c, n);
    const std::vector<int> chunk_q = chunk_of_position(*a.perm_q, R, H, n, c);
    const std::vector<int> chunk_k = a.perm_k == a.perm_q ? chunk_q : chunk_of_position(*a.perm_k, R, H, n, c);
    ChunkScratch w(omp_get_max_threads(), std::min(c, n), width, d, dv);
    float discount[kMaxLshRounds + 1];
    for (int count = 0; count <= kMaxLshRounds; ++count) discount[count] = lsh_duplicate_discount(count);

#pragma omp parallel for collapse(3) schedule(dynamic)
    for (int r = 0; r < R; ++r)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < nc; ++t) {
                const int tid = omp_get_thread_num();
                const int64_t base = (int64_t(r) * H + h) * n;
                const int* pq = a.perm_q->data() + base;
                const int* pk = a.perm_k->data() + base;
                const int q0 = t * c, rows = std::min(c, n - q0);
                std::vector<int>& keys = w.keys[tid];
                keys.clear();
                for (int b = 0; b < attended; ++b) {
                    const int kc = lsh_key_chunk(t, b, nc);
                    for (int s = kc * c; s < std::min(n, kc * c + c); ++s) keys.push_back(pk[s]);
                }
                const int cols = static_cast<int>(keys.size());
                MatView q(w.q.head_data(tid), rows, d);
                MatView k(w.k.head_data(tid), cols, d);
                MatView v(w.v.head_data(tid), cols, dv);
                MatView s(w.s.head_data(tid), rows, cols);
                for (int i = 0; i < rows; ++i) q.row(i) = a.Q->head(h).row(pq[q0 + i]);
                for (int j = 0; j < cols; ++j) k.row(j) = a.K->head(h).row(keys[j]), v.row(j) = a.V->head(h).row(keys[j]);
                s.noalias() = (a.scale * q) * k.transpose();
                // Duplicate counts: the chunk of every key in every round, gathered once per task, so the per-row
                // loop below runs over contiguous ints.
                std::vector<int>& key_chunks = w.key_chunks[tid];
                std::vector<int>& counts = w.counts[tid];
                counts.assign(cols, 1);  // one round: every pair counted once (discount 0)
                if (R > 1) {
                    key_chunks.resize(size_t(R) * cols);
                    for (int r2 = 0; r2 < R; ++r2)
                        for (int j = 0; j < cols; ++j) key_chunks[size_t(r2) * cols + j] = chunk_k[(int64_t(r2) * H + h) * n + keys[j]];
                }
                for (int i = 0; i < rows; ++i) {
                    const int qi = pq[q0 + i];
                    if (R > 1) {
                        std::fill(counts.begin(), counts.end(), 0);
                        for (int r2 = 0; r2 < R; ++r2) {
                            const int cq = chunk_q[(int64_t(r2) * H + h) * n + qi];
                            const int* kc = key_chunks.data() + size_t(r2) * cols;
                            for (int j = 0; j < cols; ++j) counts[j] += lsh_chunk_attends(cq, kc[j], L, nc) ? 1 : 0;
                        }
                    }
                    // Branch-free over the row (selects, a table lookup), so it vectorises: this loop and the
                    // counts above ran scalar at ~40% of the primitive's time.
                    float* row = &s(i, 0);
                    const int* key = keys.data();
                    const int* count = counts.data();
                    for (int j = 0; j < cols; ++j) {
                        const float score = lsh_cell_score(row[j], a.self_mask && key[j] == qi, discount[count[j]]);
                        row[j] = a.causal && key[j] > qi ? -INFINITY : score;
                    }
                    const float row_max = s.row(i).maxCoeff();
                    float& lse = a.lse_rounds->at(r, h * n + qi, 0);
                    if (row_max == -INFINITY) {
                        s.row(i).setZero();  // nothing allowed: the row's output is 0
                        lse = -INFINITY;
                        continue;
                    }
                    // Vectorised exp, then causally masked cells (−inf) are set to exactly 0 (the SIMD exp may map
                    // −inf to a tiny positive number).
                    auto e = s.row(i).array();
                    e = (e - row_max).exp();
                    if (a.causal)
                        for (int j = 0; j < cols; ++j)
                            if (keys[j] > qi) e[j] = 0.0f;
                    const float sum = e.sum();
                    e *= 1.0f / sum;
                    lse = row_max + std::log(sum);
                }
                // One product for the whole chunk, then scatter the rows back to their positions.
                MatView o(w.o.head_data(tid), rows, dv);
                o.noalias() = s * v;
                for (int i = 0; i < rows; ++i)
                    Eigen::Map<Eigen::RowVectorXf>(O_rounds.head_data(r) + (int64_t(h) * n + pq[q0 + i]) * dv, dv) = o.row(i);
            }
    if (a.O) {
        LshCombineArgs combine;
        combine.O_rounds = &O_rounds, combine.lse_rounds = a.lse_rounds, combine.O = a.O;
        cpu_lsh_combine(combine);
    }
}

void cpu_lsh_combine(const LshCombineArgs& a) {
    validate_lsh_combine(a);
    const int R = a.O_rounds->heads(), H = a.O->heads(), n = a.O->rows(), dv = a.O->cols();
    const int64_t rows = int64_t(H) * n;
#pragma omp parallel for schedule(static)
    for (int64_t row = 0; row < rows; ++row) {
        const LshRoundsNorm norm = lsh_rounds_norm(a.lse_rounds->data() + row, R, rows);
        Eigen::Map<Eigen::RowVectorXf> o(a.O->data() + row * dv, dv);
        o.setZero();
        for (int r = 0; r < R; ++r) {
            const float weight = lsh_round_weight(a.lse_rounds->data()[r * rows + row], norm);
            if (weight != 0.0f) o += weight * Eigen::Map<const Eigen::RowVectorXf>(a.O_rounds->head_data(r) + row * dv, dv);
        }
        if (a.lse) a.lse->data()[row] = lsh_rounds_lse(norm);
    }
}

}  // namespace attnscope

// attnscope — the math of Reformer's LSH attention (Kitaev et al. 2020) shared by the CPU backend and the CUDA
// kernels: the angular hash, the chunk/look-back geometry of the sorted sequence, the per-cell score rules
// (causal, self-mask, duplicate discount) and the log-sum-exp combination of hash rounds.
//
// Geometry: in round r the positions are sorted by key bucket·n + position (stable by position); slot s
// belongs to chunk ⌊s/c⌋ of ⌈n/c⌉ chunks (the last one is shorter when c ∤ n: the padding slots are simply
// absent). Chunk t attends to the chunks t, t−1, …, t−look_back taken modulo the chunk count (the look-back
// wraps around), each chunk at most once.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/backend/shared/hd.h"

namespace attnscope {

/// Score of a token attending to itself under shared-QK (Kitaev 2020 §3: only when nothing else is possible).
constexpr float kLshSelfScore = -1e5f;
/// Most hash rounds a run may combine (the `rounds` parameter's upper bound).
constexpr int kMaxLshRounds = 16;

/// Bucket from the projections xR (n_b/2 values): argmax over [xR; −xR], ties to the lowest index, so every
/// backend picks the same bucket. 0 when n_buckets = 1 (nothing to project).
ATTNSCOPE_HD int lsh_argmax_bucket(const float* xr, int n_buckets) {
    if (n_buckets <= 1) return 0;
    const int half = n_buckets / 2;
    int best_pos = 0, best_neg = 0;
    for (int b = 1; b < half; ++b) {
        if (xr[b] > xr[best_pos]) best_pos = b;
        if (-xr[b] > -xr[best_neg]) best_neg = b;
    }
    // The positive half precedes the negated half in [xR; −xR], so it wins ties.
    return xr[best_pos] >= -xr[best_neg] ? best_pos : half + best_neg;
}

/// Sort key of a position: bucket·n + position (unique, so any sort is stable).
ATTNSCOPE_HD int64_t lsh_sort_key(int bucket, int position, int n) {
    return static_cast<int64_t>(bucket) * n + position;
}

/// Number of chunks of length c over n sorted slots (the last one may be shorter).
ATTNSCOPE_HD int lsh_num_chunks(int n, int chunk_len) { return (n + chunk_len - 1) / chunk_len; }

/// How many distinct chunks a chunk attends to: itself plus look_back previous ones, at most all chunks.
ATTNSCOPE_HD int lsh_chunks_attended(int look_back, int num_chunks) {
    return look_back + 1 < num_chunks ? look_back + 1 : num_chunks;
}

/// The b-th chunk attended by chunk t (b = 0 is t itself), wrapping around the start.
ATTNSCOPE_HD int lsh_key_chunk(int t, int b, int num_chunks) { return ((t - b) % num_chunks + num_chunks) % num_chunks; }

/// True when a query in chunk cq attends to the keys of chunk ck.
ATTNSCOPE_HD bool lsh_chunk_attends(int cq, int ck, int look_back, int num_chunks) {
    if (look_back + 1 >= num_chunks) return true;
    // Both indices lie in [0, num_chunks): one conditional add replaces a modulo (this runs for every cell × round).
    const int back = cq - ck;
    return (back < 0 ? back + num_chunks : back) <= look_back;
}

/// The duplicate discount log(count), where count = number of rounds whose sets hold the same (query, key)
/// pair (Kitaev 2020 §3): subtracting it makes the round combination sum each pair once.
ATTNSCOPE_HD float lsh_duplicate_discount(int count) { return count > 1 ? logf(static_cast<float>(count)) : 0.0f; }

/// Score of an allowed cell: the scaled dot product, or kLshSelfScore for a self pair under the self-mask,
/// minus the duplicate discount.
ATTNSCOPE_HD float lsh_cell_score(float scaled_dot, bool masked_self, float discount) {
    return (masked_self ? kLshSelfScore : scaled_dot) - discount;
}

/// Normaliser of the round combination: max_r L_r and Σ_r exp(L_r − max). Weights are formed from the
/// differences L_r − max, never from an absolute log-sum-exp: under the self-mask L_r sits near −1e5, where a
/// float's spacing (~0.008) would otherwise perturb every weight by up to 1%.
struct LshRoundsNorm {
    float max;  // max_r L_r (−inf when every round is empty)
    float sum;  // Σ_r exp(L_r − max)
};

/// The normaliser of `rounds` values spaced `stride` apart.
ATTNSCOPE_HD LshRoundsNorm lsh_rounds_norm(const float* lse, int rounds, int64_t stride) {
    float m = -INFINITY;
    for (int r = 0; r < rounds; ++r) m = lse[r * stride] > m ? lse[r * stride] : m;
    if (m == -INFINITY) return {m, 0.0f};
    float sum = 0.0f;
    for (int r = 0; r < rounds; ++r) sum += expf(lse[r * stride] - m);
    return {m, sum};
}

/// logsumexp_r L_r; −inf when every round is empty.
ATTNSCOPE_HD float lsh_rounds_lse(const LshRoundsNorm& norm) {
    return norm.max == -INFINITY ? -INFINITY : norm.max + logf(norm.sum);
}

/// Weight of round r in O = Σ_r O_r·exp(L_r − logsumexp_r L_r); 0 for an empty round or an empty row.
ATTNSCOPE_HD float lsh_round_weight(float round_lse, const LshRoundsNorm& norm) {
    return (round_lse == -INFINITY || norm.max == -INFINITY) ? 0.0f : expf(round_lse - norm.max) / norm.sum;
}

}  // namespace attnscope

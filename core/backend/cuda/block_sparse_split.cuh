// attnscope — splitting the long rows of a block-sparse layout across thread blocks. The block-sparse kernel gives
// each query block one thread block, which walks that row's stored blocks one after the other; when a few rows hold
// far more blocks than the rest (BigBird's global query blocks hold every key block), those few thread blocks run
// long after the others have finished, and the launch takes as long as its longest row. Here such a row is cut into
// parts of a bounded number of stored blocks, each part runs as its own work item and writes its O (normalised by its
// own sum) and lse to a partial slot, and block_sparse_combine_kernel merges a row's parts by their log-sum-exp:
// O = Σ_s exp(L_s − L)·O_s with L = log Σ_s exp(L_s), which is the softmax over the union of the parts' cells.
// A layout whose rows are even is not split. Included by block_sparse_attention.cu and by the CPU emulation tests.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/backend/cuda/block_sparse_attention.cuh"

namespace attnscope::cuda {

/// The work items of one block-sparse launch and the rows whose parts are combined afterwards.
struct BlockSparseWork {
    std::vector<int> item_row, item_part, item_slot;      // per work item (BlockSparseParams)
    std::vector<int> split_row, split_slot, split_parts;  // per split query block: its first slot and part count
    int part_blocks = 0;                                  // stored blocks per part
    int slots = 0;                                        // partial slots, Σ split_parts
};

/// The work of layout L: parts of at most part_blocks stored blocks (by default twice the mean row, at least 8),
/// counted on the longest of the layout heads' rows; split rows' items come first so they start first.
inline BlockSparseWork plan_block_sparse_work(const BlockLayout& L, int part_blocks = 0) {
    const int nb = L.block_rows();
    BlockSparseWork w;
    if (part_blocks <= 0) {
        const double mean = double(L.col_idx.size()) / double(std::max(1, L.heads * nb));
        part_blocks = std::max(8, int(std::ceil(2.0 * mean)));
    }
    w.part_blocks = part_blocks;
    std::vector<int> parts_of(size_t(nb), 1);
    for (int I = 0; I < nb; ++I) {
        int longest = 0;
        for (int h = 0; h < L.heads; ++h) {
            const size_t at = size_t(h) * (nb + 1) + I;
            longest = std::max(longest, L.row_ptr[at + 1] - L.row_ptr[at]);
        }
        parts_of[size_t(I)] = std::max(1, (longest + part_blocks - 1) / part_blocks);
    }
    for (int I = 0; I < nb; ++I) {
        if (parts_of[size_t(I)] == 1) continue;
        w.split_row.push_back(I), w.split_slot.push_back(w.slots), w.split_parts.push_back(parts_of[size_t(I)]);
        for (int part = 0; part < parts_of[size_t(I)]; ++part)
            w.item_row.push_back(I), w.item_part.push_back(part), w.item_slot.push_back(w.slots + part);
        w.slots += parts_of[size_t(I)];
    }
    for (int I = 0; I < nb; ++I)
        if (parts_of[size_t(I)] == 1) w.item_row.push_back(I), w.item_part.push_back(0), w.item_slot.push_back(-1);
    return w;
}

/// Threads per block of the combination.
constexpr int kBlockSparseCombineThreads = 256;

/// One output cell of the softmax over the union of `parts` partial results, part k with log-sum-exp lse_of(k) and O
/// (normalised by its own sum) o_of(k) in this thread's column: O[col] = Σ_k exp(L_k − L)·O_k for col < dv, else the
/// lse L = log Σ_k exp(L_k) (when lse is given). A part that allows nothing (L_k = −inf) weighs 0; when every part
/// does, O = 0 and lse = −inf, as the kernels write for such a row.
template <class LseOf, class OOf>
__device__ __forceinline__ void merge_partial_rows(int parts, LseOf lse_of, OOf o_of, int col, int dv, float* O_row,
                                                   float* lse) {
    float top = -INFINITY;
    for (int part = 0; part < parts; ++part) top = fmaxf(top, lse_of(part));
    if (top == -INFINITY) {
        if (col < dv) O_row[col] = 0.0f;
        else if (lse) *lse = -INFINITY;
        return;
    }
    float sum = 0.0f, acc = 0.0f;
    for (int part = 0; part < parts; ++part) {
        const float weight = expf(lse_of(part) - top);
        sum += weight;
        if (col < dv && weight > 0.0f) acc += weight * o_of(part);
    }
    if (col < dv) O_row[col] = acc / sum;
    else if (lse) *lse = top + logf(sum);
}

/// O and lse of every split query block from its parts' partial slots (p.O_partial, p.lse_partial): one thread per
/// (split, head, row of the block, column of O or the lse as column dv), merged by merge_partial_rows.
__global__ void block_sparse_combine_kernel(BlockSparseParams p, const int* split_row, const int* split_slot,
                                            const int* split_parts, int splits) {
    const int b = p.layout.block, n = p.layout.n, dv = p.dv, H = p.heads;
    const int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= int64_t(splits) * H * b * (dv + 1)) return;
    const int col = int(t % (dv + 1));
    int64_t rest = t / (dv + 1);
    const int r = int(rest % b);
    rest /= b;
    const int h = int(rest % H), s = int(rest / H);
    const int i = split_row[s] * b + r;
    if (i >= n) return;
    const int first = split_slot[s];
    const auto partial_row = [&](int part) { return (int64_t(first + part) * H + h) * b + r; };
    const int64_t row = int64_t(h) * n + i;
    merge_partial_rows(
        split_parts[s], [&](int part) { return p.lse_partial[partial_row(part)]; },
        [&](int part) { return p.O_partial[partial_row(part) * dv + col]; }, col, dv, p.O + row * dv,
        p.lse ? p.lse + row : nullptr);
}

}  // namespace attnscope::cuda

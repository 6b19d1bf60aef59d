// attnscope — layouts of a vertical-slash call (VerticalSlashAttentionArgs' kept columns and diagonals):
//  - the BSR blocks (block_layout.h) that hold exactly the allowed cells, built in O(kept cells), not per block cell;
//    the vslash variant shows it in the block view;
//  - the key ranges each block of query rows gathers, as MInference's kernel walks them, and the split of the diagonals
//    into runs (gathered as ranges) and isolated ones (walked cell by cell): the CUDA kernel's plan
//    (core/backend/cuda/vertical_slash_attention.cuh).
#pragma once
#include <cstdint>
#include <vector>

#include "core/backend/interface/block_layout.h"

namespace attnscope {

/// The layout (blocks of `block`, one layout head per list) whose allowed cells are, for head h and query i, the kept
/// columns j ∈ columns[h], j ≤ i, and the kept diagonals j = i − o ≥ 0, o ∈ offsets[h] (lists as validated by
/// validate_vertical_slash_attention).
BlockLayout vertical_slash_layout(int n, int block, const std::vector<std::vector<int>>& columns,
                                  const std::vector<std::vector<int>>& offsets);

/// The keys every block of query rows gathers: per (head, row block), ascending disjoint ranges, never adjacent
/// (touching ranges are merged), whose union is exactly the keys with at least one allowed cell in the block's rows.
struct VerticalSlashRanges {
    int rows = 0;                 // query rows per block (the last block may be shorter)
    int row_blocks = 0;           // ⌈n / rows⌉
    std::vector<int> ptr;         // (heads · row_blocks + 1): ranges of (h, block B) are [ptr[h·row_blocks + B], next)
    std::vector<int> start;       // first key of each range
    std::vector<int> length;      // keys in each range (≥ 1)
    /// Keys gathered over all blocks (what the kernel scores per row of a full block).
    int64_t keys() const;
};

/// The ranges for blocks of `rows` query rows: a kept column c ≤ the block's last row is the range {c}; a kept
/// diagonal o ≤ the last row meets the block's rows i0 … i1 in the keys max(0, i0 − o) … i1 − o. A diagonal thus
/// costs a run of `rows` keys per block, and diagonals near each other share theirs, as in MInference's kernel.
VerticalSlashRanges vertical_slash_ranges(int n, int rows, const std::vector<std::vector<int>>& columns,
                                          const std::vector<std::vector<int>>& offsets);

/// Kept diagonals per head, parted by how a kernel reaches their keys (each list ascending, together the input's).
struct DiagonalSplit {
    std::vector<std::vector<int>> runs;      // in runs of ≥ min_run consecutive offsets: gathered as key ranges
    std::vector<std::vector<int>> isolated;  // the rest: one key per row, walked cell by cell
};

/// Parts each head's ascending offsets into maximal runs o, o + 1, …: runs of at least `min_run` offsets go to
/// `runs`, shorter ones to `isolated`.
DiagonalSplit split_diagonals(const std::vector<std::vector<int>>& offsets, int min_run);

/// Everything a vertical-slash kernel reads beside Q, K, V (host arrays, uploaded as they are).
struct VerticalSlashKernelPlan {
    VerticalSlashRanges ranges;      // of the kept columns and the run diagonals, per block of `rows` query rows
    std::vector<uint8_t> is_column;  // (H, n) 1 where key j is a kept column of head h
    std::vector<uint8_t> is_run;     // (H, n) 1 where o < n is a run diagonal of head h
    std::vector<int> isolated_ptr;   // (H + 1): head h's isolated diagonals are isolated[isolated_ptr[h] …]
    std::vector<int> isolated;       // isolated diagonals below n, ascending per head
};

/// The kernel's plan for rows-row blocks: diagonals in runs of ≥ min_run gathered as key ranges, the rest isolated;
/// diagonals at or past n keep nothing and are dropped.
VerticalSlashKernelPlan vertical_slash_kernel_plan(int n, int rows, const std::vector<std::vector<int>>& columns,
                                                   const std::vector<std::vector<int>>& offsets, int min_run);

}  // namespace attnscope

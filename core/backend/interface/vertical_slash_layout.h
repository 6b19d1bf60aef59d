// attnscope — the block-sparse layout of a vertical-slash call: the BSR blocks (block_layout.h) that hold exactly the
// cells VerticalSlashAttentionArgs allows. A backend without a line kernel (CUDA) runs the primitive through it and the
// block-sparse kernel; the vslash variant shows it in the block view. Built in O(kept cells), not per block cell.
#pragma once
#include <vector>

#include "core/backend/interface/block_layout.h"

namespace attnscope {

/// The layout (blocks of `block`, one layout head per list) whose allowed cells are, for head h and query i, the kept
/// columns j ∈ columns[h], j ≤ i, and the kept diagonals j = i − o ≥ 0, o ∈ offsets[h] (lists as validated by
/// validate_vertical_slash_attention).
BlockLayout vertical_slash_layout(int n, int block, const std::vector<std::vector<int>>& columns,
                                  const std::vector<std::vector<int>>& offsets);

}  // namespace attnscope

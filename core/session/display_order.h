// attnscope — the order in which matrix views lay out positions on both axes: by position, by an LSH round's
// sorted order (bucket, then position: Reformer's block-diagonal picture) or by the input's groups. One owner
// for the GUI's views, the session file's "order" key and `attnscope figure --order`.
#pragma once
#include <string>
#include <vector>

#include "core/heads.h"
#include "core/variants/structure.h"

namespace attnscope {

/// The order in which the matrix views lay out positions (both axes).
enum class DisplayOrder {
    Positions,   // 0 … n − 1
    LshBuckets,  // the sorted order of an lsh run's round (bucket, then position): Reformer's picture
    Groups,      // by the input's groups (the clustered scenario's clusters), positions ascending inside a group
};

/// The session file's word for an order: "positions", "lsh" or "clusters".
const char* display_order_name(DisplayOrder order);

/// Parses those words (and the CLI's "natural" for positions, "bucket" for lsh); throws Error naming `where` and
/// listing them.
DisplayOrder parse_display_order(const std::string& text, const std::string& where);

/// Display slot → position per head (H·n) for `order`: round `round` of the first of `lsh` that has that round, or
/// the heads' groups; empty for the positions' own order or when the order's source is missing (no lsh run with
/// that round, no groups in the input).
std::vector<int> display_permutation(DisplayOrder order, int round, const Heads& heads, const std::vector<const LshBuckets*>& lsh);

}  // namespace attnscope

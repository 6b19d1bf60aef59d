// attnscope — the picture of P̃ above the materialise limit: a max-pooled (H, s, s) view computed row by row from
// Q and K, never holding the n×n matrix. It serves the views whose P̃ is a softmax of scale·q·k over a set of cells
// the run can name cheaply: every cell (full, flash; the causal triangle when causal) or the allowed cells of the
// block layout the masked family ran (longformer, bigbird, sink, vslash, …). At n = 65536 a dense view costs
// O(n²·d) (~5 s a head here), a masked one O(kept cells·d).
#pragma once
#include <functional>
#include <optional>

#include "core/heads.h"
#include "core/variants/variant.h"

namespace attnscope {

/// Whether streamed_view can draw `result`: full or flash, or a masked variant run in place with its layout kept, in
/// both cases without a score modifier. When not, `why` says what stands in the way.
bool can_stream_view(const RunResult& result, std::string& why);

/// The max-pooled (H, s, s) view of result's P̃ on x, s = min(n, size), bins as pooled_view's; what pooled_view of
/// the materialised P̃ would give (up to float rounding). Returns nullopt when `cancelled` turns true between rows.
std::optional<Tensor3> streamed_view(const RunResult& result, const Heads& x, int size,
                                     const std::function<bool()>& cancelled);

}  // namespace attnscope

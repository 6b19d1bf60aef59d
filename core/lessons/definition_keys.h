// attnscope — how many keys each query row of a masked variant keeps by the variant's own definition at a given n,
// written from the papers' rules (docs/VARIANTS.md), never from the variants' code: a lesson check compares it with
// what a run's mask counts, so a variant whose mask is wrong (a window one key too wide, a lost sink, a missing
// forced line) fails the check even where its mass stays below the topk ceiling.
#pragma once
#include <string>
#include <vector>

#include "core/variants/params.h"

namespace attnscope {

/// The keys row i may keep: exactly lo = hi for a fixed pattern; for the parts a pattern chooses from the input
/// (bigbird's random blocks, vslash's estimated lines) the range that choice can give.
struct KeyRange {
    int lo = 0, hi = 0;
};

/// The range of every row i < n (every head alike) for variant `id` with resolved params (causal as the run was). Throws
/// Error naming what it cannot state: a mask modifier, longformer's per-head dilation, an unknown masked variant.
std::vector<KeyRange> definition_keys(const std::string& id, const Params& resolved, bool causal, int n);

}  // namespace attnscope

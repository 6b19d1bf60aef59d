// attnscope — the rank bound of a low-rank variant's P̃: the budget at which the svd oracle is its ceiling.
#pragma once
#include "core/variants/variant.h"

namespace attnscope {

/// An upper bound of the rank of `run`'s P̃ on an input of head dim d — linformer k (P̃ = softmax(QK'ᵀ)·F with
/// F ∈ R^{k×n}), performer m features (2m for the hyperbolic and trigonometric maps), linear attention d — or 0
/// when the variant is none of these.
int rank_bound(const RunResult& run, int d);

}  // namespace attnscope

// attnscope — the seam through which a variant replaces a text model's attention in one layer (the what-ifs).
#pragma once
#include <functional>
#include <optional>

#include "core/heads.h"

namespace attnscope {

/// Replaces a layer's attention: given the layer's Heads (Q, K, V (H, n, dh), X = layer input (1, n, hidden)),
/// returns O (H, n, dh) (or (1, n, hidden) for a mixing of X), or nothing to keep the model's exact attention.
using AttentionHook = std::function<std::optional<Tensor3>(int layer, const Heads& heads)>;

}  // namespace attnscope

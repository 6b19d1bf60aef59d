// attnscope — bring-your-own tensors: Q, K, V a user captured from their own model.
// Two layouts are accepted (docs: README "Bring your own tensors"):
//   FILE.safetensors  tensors named q, k, v (or Q, K, V), float (F32/F16/BF16/F64); optional token strings
//                     as a JSON list in the metadata key "tokens";
//   FOLDER/           q.npy, k.npy, v.npy (little-endian f4/f8, C order); optional tokens.txt, one per line.
// Shapes: (n, d) for one head or (H, n, d); Q and K share their shape, V is (n, dv) or (H, n, dv).
#pragma once
#include <string>

#include "core/heads.h"

namespace attnscope {

/// Loads Q, K, V (and tokens) from `path`; throws Error on a missing tensor, bad shape, NaN/Inf, bad file.
/// Heads.source is "tensors:<path>".
Heads load_tensor_input(const std::string& path);

}  // namespace attnscope

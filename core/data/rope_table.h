// attnscope — RoPE's cos and sin per position and dimension pair: what the decoder rotates Q and K by, and what turns
// a rotated key a further δ positions (StreamingLLM's cache positions).
#pragma once
#include <vector>

#include "core/tensor.h"

namespace attnscope {

/// cos and sin of p · frequencies[i] for p = 0 … positions − 1: (positions, pairs) each.
struct RopeTable {
    MatrixRM cos, sin;
};

/// The table of `positions` positions for one angle per position step of each pair (LlamaDecoder::rope_frequencies).
RopeTable rope_table(const std::vector<double>& frequencies, int positions);

}  // namespace attnscope

// attnscope — score modifiers: what the attention primitives do to a logit x = s·q_i·k_j before the softmax.
// ALiBi (Press et al. 2022) adds a per-head linear distance penalty −m_h·|i − j| with the paper's slopes (alibi_slope);
// soft-capping (Gemma 2) squashes the logit to c·tanh(x/c) so no score exceeds ±c. The math is inline and
// ATTNSCOPE_HD so the CPU primitives and the CUDA kernels apply the very same function.
#pragma once
#include <cmath>

#include "core/backend/shared/hd.h"

namespace attnscope {

/// Which modifier a primitive applies to its logits.
enum class ScoreModKind : int {
    None = 0,     // x
    Alibi = 1,    // x − m_h·|i − j|
    Softcap = 2,  // c·tanh(x / c)
};

/// A score modifier with its parameters (trivially copyable: passed by value to kernels).
struct ScoreMod {
    ScoreModKind kind = ScoreModKind::None;
    float cap = 50.0f;  // c of the soft-cap (> 0)
    int heads = 1;      // H of the ALiBi slopes (attention heads of the call)
};

/// ALiBi's slope of head h (0-based) among H heads, as the paper's get_slopes: for H a power of two the geometric
/// sequence 2^(−8/H), 2^(−16/H), …, 2^(−8); otherwise, with c the largest power of two below H, the c slopes of c
/// heads followed by every other slope of 2c heads, 2^(−4/c), 2^(−12/c), … (the odd steps of the finer ladder).
ATTNSCOPE_HD float alibi_slope(int h, int heads) {
    int c = 1;
    while (2 * c <= heads) c *= 2;
    if (h < c) return exp2f(-8.0f * float(h + 1) / float(c));
    return exp2f(-4.0f * float(2 * (h - c) + 1) / float(c));
}

/// The modified logit of cell (i, j) of head h whose unmodified logit is x.
ATTNSCOPE_HD float apply_score_mod(const ScoreMod& mod, int h, int i, int j, float x) {
    if (mod.kind == ScoreModKind::Alibi) return x - alibi_slope(h, mod.heads) * fabsf(float(i - j));
    if (mod.kind == ScoreModKind::Softcap) return mod.cap * tanhf(x / mod.cap);
    return x;
}

}  // namespace attnscope

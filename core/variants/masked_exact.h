// attnscope — exact softmax attention restricted by a mask modifier (prefix-LM, document): what `full` and `flash`
// run when a mask modifier is on, and the modified exact model every masked variant is compared with. The dense
// primitive knows only the causal mask, so the kept cells go through the block-sparse primitive (the flash tile
// kernel) over the mask's 64-wide layout: blocks the mask empties are skipped, partial ones are bit-masked.
#pragma once
#include <optional>

#include "core/backend/interface/backend.h"
#include "core/heads.h"
#include "core/reason.h"
#include "core/variants/modifiers.h"

namespace attnscope {

/// The result of masked_exact_attention: O, L and the layout the primitive ran.
struct MaskedExact {
    Tensor3 O;           // (H, n, dv)
    Tensor3 lse;         // (H, n, 1) log Σ_kept exp(mod(s·q·k))
    BlockLayout layout;  // one layout head: the mask is the same for every head
};

/// Softmax attention over the cells `modifiers.mask` keeps (and j ≤ i when causal) with logits mod(s·q_i·k_j).
MaskedExact masked_exact_attention(const Heads& heads, float scale, bool causal, const Modifiers& modifiers,
                                   Backend& backend);

/// P of a masked_exact_attention run: exp(mod(s·q_i·k_j) − lse_i) on the kept cells, 0 elsewhere (H, n, n).
Tensor3 masked_exact_matrix(const Heads& heads, float scale, const Modifiers& modifiers, const MaskedExact& run);

/// Reasons of the kept cells (Dense) and the removed ones (None), every head alike.
ReasonMask masked_exact_reasons(int heads, int n, bool causal, const MaskMod& mask);

/// Share of the n² (or, when causal, n(n+1)/2) cells the mask keeps.
double masked_exact_density(const MaskedExact& run, bool causal);

}  // namespace attnscope

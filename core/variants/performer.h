// attnscope — `performer` (Choromanski et al. 2021, FAVOR+): the parts tests and the GUI reach directly.
#pragma once
#include <cstdint>

#include "core/variants/variant.h"

namespace attnscope {

/// How orthogonal rows of ω get their lengths.
enum class OmegaNorm {
    Chi,    // each row rescaled to the norm of a fresh d-dim Gaussian vector (χ(d)): the paper's default
    SqrtD,  // every row has length √d (the "regular" scaling)
};

/// The random features ω (1, m, d) for a seed: orthogonal Gaussian blocks (each the Q of a QR of a d×d
/// Gaussian, sign-fixed so it is Haar; the last block truncated) with row norms χ(d) or √d; or, when
/// orthogonal is off, i.i.d. N(0, I_d) rows (norm unused). Same arguments, same bits.
Tensor3 performer_omega(int m, int d, bool orthogonal, OmegaNorm norm, uint64_t seed);

/// Runs performer with resolved params; `omega` (1, m, d) replaces the seeded draw when given (tests, peers).
RunResult run_performer(const Heads& heads, const Params& params, const RunOptions& options, Backend& backend,
                        const Tensor3* omega = nullptr);

}  // namespace attnscope

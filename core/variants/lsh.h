// attnscope — `lsh` entry points beside the registered variant, so tests and peer comparisons can feed the
// random rotations in (e.g. the rotations another implementation drew) instead of the seeded ones.
#pragma once
#include "core/variants/variant.h"

namespace attnscope {

/// The seeded rotations of a resolved `lsh` parameter set: (R, d, n_b/2), entries N(0, 1) from
/// core/backend/shared/random.h (stream "LSH" + round); (R, d, 0) when n_b = 1.
Tensor3 lsh_rotations(const Params& params, int d);

/// Runs `lsh` with resolved params and the given rotations (R, d, n_b/2); throws Error on a shape mismatch.
RunResult lsh_run(const Heads& heads, const Params& params, const Tensor3& rotations, const RunOptions& options,
                  Backend& backend);

}  // namespace attnscope

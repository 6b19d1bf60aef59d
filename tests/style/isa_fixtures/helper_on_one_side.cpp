// Fixture of tests/style/isa_levels.py (compiled only by its --self-test): a helper defined for every build but used
// only on the AVX-512 side, the shape that once stopped an AVX2 build with -Werror=unused-function. The check must
// reject it at x86-64-v2 and v3 and accept it at v4.
#include "core/cpu_isa.h"

namespace {

/// A helper every build defines.
double thread_ns() { return 1.0; }

}  // namespace

/// Uses the helper on one side only.
double profile() {
#if ATTNSCOPE_SIMD_AVX512
    return thread_ns();
#elif ATTNSCOPE_SIMD_AVX2
    return 2.0;
#else
    return 0.0;
#endif
}

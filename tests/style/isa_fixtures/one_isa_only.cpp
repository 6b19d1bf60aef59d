// Fixture of tests/style/isa_branches.py (never compiled): an AVX-512 branch with no AVX2 branch beside it, which
// the rules must reject.
#include "core/cpu_isa.h"
#if ATTNSCOPE_SIMD_AVX512
int lanes() { return 16; }
#else
int lanes() { return 1; }
#endif

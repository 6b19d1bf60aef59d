// Fixture of tests/style/isa_branches.py (never compiled): a vector-only branch that says nothing of the build
// without a vector ISA, which the rules must reject.
#include "core/cpu_isa.h"
#if ATTNSCOPE_SIMD
int lanes() { return kSimdLanes; }
#endif

// Fixture of tests/style/isa_branches.py (never compiled): branches the rules must accept.
#include "core/cpu_isa.h"
#if ATTNSCOPE_SIMD_AVX512
int width() { return 512; }
#elif ATTNSCOPE_SIMD_AVX2
int width() { return 256; }
#else
int width() { return 0; }
#endif
#if ATTNSCOPE_SIMD
int vector_lanes() { return kSimdLanes; }
#else
// (nothing: callers test kSimdKernels first)
#endif

// attnscope — the vector operations the hand-written CPU kernels are written in, one set per ISA (core/cpu_isa.h):
// vec_avx512.h (16 float lanes) or vec_avx2.h (8 lanes), both in namespace attnscope::simd with the same names, so a
// kernel is written once and each build compiles it for its own ISA. Without a vector ISA this header declares
// nothing and the kernels' files compile to nothing (their callers run the portable Eigen paths).
// Include it first, before any header that may include <immintrin.h> (Eigen's): GCC 12's AVX-512 shuffle intrinsics
// start from _mm512_undefined_ps(), which -Wuninitialized reports once inlined (GCC bug 105593, fixed in 13), and
// the diagnostic state that counts is the one where <immintrin.h> is first read.
#pragma once
#include "core/cpu_isa.h"

#if ATTNSCOPE_SIMD
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#else
// No vector ISA: no intrinsics needed.
#endif

#if ATTNSCOPE_SIMD_AVX512
#include "core/backend/cpu/simd/vec_avx512.h"
#elif ATTNSCOPE_SIMD_AVX2
#include "core/backend/cpu/simd/vec_avx2.h"
#else
// No vector ISA: nothing to declare (kSimdKernels is false).
#endif

#if ATTNSCOPE_SIMD
namespace attnscope::simd {

/// log2(e): exp(x) = 2^(x·log2 e).
constexpr float kLog2e = 1.4426950408889634f;

static_assert(kLanes == kSimdLanes, "core/cpu_isa.h and the ISA's vector header must agree on the lane count");

/// The lanes l ∈ [lo, hi) (either bound may lie outside [0, kLanes)).
inline Mask lanes_between(int lo, int hi) { return mask_andnot(first_lanes(lo), first_lanes(hi)); }

}  // namespace attnscope::simd
#else
// No vector ISA: no helpers either.
#endif

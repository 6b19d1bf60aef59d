// attnscope — which x86 vector instruction set this build compiles the hand-written CPU kernels for.
// The build's -march decides (ATTNSCOPE_NATIVE: -march=native; -march=x86-64-v3 gives AVX2 + FMA everywhere). This is
// the only file that reads the compiler's ISA macros: every other file branches on the ATTNSCOPE_SIMD_* names below,
// and tests/style/isa_branches.py holds the code to that, so each ISA-specific branch has its counterparts in one place.
#pragma once

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#define ATTNSCOPE_SIMD_AVX512 1
#define ATTNSCOPE_SIMD_AVX2 0
#elif defined(__AVX2__) && defined(__FMA__)
#define ATTNSCOPE_SIMD_AVX512 0
#define ATTNSCOPE_SIMD_AVX2 1
#else
#define ATTNSCOPE_SIMD_AVX512 0
#define ATTNSCOPE_SIMD_AVX2 0
#endif
/// 1 when the build has a vector kernel ISA (core/backend/cpu/simd/vec.h), 0 when only the portable Eigen paths exist.
#define ATTNSCOPE_SIMD (ATTNSCOPE_SIMD_AVX512 || ATTNSCOPE_SIMD_AVX2)

namespace attnscope {

#if ATTNSCOPE_SIMD_AVX512
/// The vector ISA of the hand-written CPU kernels, as a reader names it.
constexpr const char* kCpuIsaName = "AVX-512";
/// Float lanes of one vector register of that ISA (1: no vector kernels).
constexpr int kSimdLanes = 16;
#elif ATTNSCOPE_SIMD_AVX2
/// The vector ISA of the hand-written CPU kernels, as a reader names it.
constexpr const char* kCpuIsaName = "AVX2";
/// Float lanes of one vector register of that ISA (1: no vector kernels).
constexpr int kSimdLanes = 8;
#else
/// The vector ISA of the hand-written CPU kernels, as a reader names it.
constexpr const char* kCpuIsaName = "none (portable Eigen kernels)";
/// Float lanes of one vector register of that ISA (1: no vector kernels).
constexpr int kSimdLanes = 1;
#endif

/// True when this build has the hand-written vector kernels (flash tiles, block-sparse, vslash diagonals, pooling).
constexpr bool kSimdKernels = ATTNSCOPE_SIMD;

}  // namespace attnscope

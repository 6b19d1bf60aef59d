// attnscope — the macro that lets one inline function compile for the host and for CUDA devices.
// Headers that use it hold math shared by the CPU backend and the kernels, so both run the same code.
#pragma once

#if defined(__CUDACC__)
#define ATTNSCOPE_HD __host__ __device__ __forceinline__
#else
#define ATTNSCOPE_HD inline
#endif

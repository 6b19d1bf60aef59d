// attnscope — the real part of the 2-D DFT on CUDA (FNet token mixing): cuFFT's batched r2c transform gives
// each head's half spectrum (n, c/2 + 1); fft_real_part_kernel expands it to the full n×c real part by the
// Hermitian symmetry of a real input's spectrum, F[i][j] = conj(F[−i][−j]), as the CPU (FFTW) path does.
// Included by fft.cu and by the CPU emulation tests; it defines a non-template kernel: one .cu only.
#pragma once
#include <cstdint>

#include "core/backend/cuda/common.cuh"

namespace attnscope::cuda {

/// Threads per block of fft_real_part_kernel.
constexpr int kFftThreads = 256;

/// y (H, n, c) = Re F from the half spectra (H, n, c/2 + 1) of interleaved (re, im) floats.
__global__ void fft_real_part_kernel(const float* spectrum, int H, int n, int c, float* y) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= int64_t(H) * n * c) return;
    const int half = c / 2 + 1;
    const int64_t h = idx / (int64_t(n) * c);
    const int i = int((idx / c) % n), j = int(idx % c);
    const int mirror_row = i == 0 ? 0 : n - i;
    // Re F[i][j] for j < half; Re F[−i][c − j] otherwise.
    const int64_t at = j < half ? int64_t(i) * half + j : int64_t(mirror_row) * half + (c - j);
    y[idx] = spectrum[2 * (h * int64_t(n) * half + at)];
}

}  // namespace attnscope::cuda

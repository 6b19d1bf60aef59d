// attnscope tests — a CPU stand-in for <mma.h> (WMMA) for the kernel emulation (see cuda_runtime.h beside this
// file): TF32 m16n16k8 fragments with fp32 accumulation, as the tensor-core flash kernel uses them.
// Every emulated thread holds the whole tile (the hardware spreads it over the warp in an unspecified way, so
// correct kernels never depend on which lane holds what); loads check WMMA's rules (32-byte aligned pointer,
// ldm a multiple of 4 for 32-bit elements) and throw when broken; TF32 operands keep only their top 19 bits, as
// the tensor cores read them; the product accumulates in fp32 with one rounding per multiply-add; a store is
// written once per warp between two warp barriers (it is a warp-collective operation).
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "core/backend/shared/half.h"
#include "cuda_runtime.h"

namespace nvcuda::wmma {

struct row_major {};
struct col_major {};
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
namespace precision {
struct tf32 {};
}  // namespace precision
enum layout_t { mem_row_major, mem_col_major };

/// cvt.rna.tf32.f32: round to the nearest value with a 10-bit mantissa, ties away from zero (inf/NaN kept).
inline float __float_to_tf32(float x) {
    uint32_t u = attnscope::float_bits(x);
    if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
    return attnscope::bits_float(u);
}

/// What the tensor cores read of a TF32 operand: the top 19 bits (sign, exponent, 10-bit mantissa).
inline float tf32_operand(float x) { return attnscope::bits_float(attnscope::float_bits(x) & 0xffffe000u); }

/// A WMMA fragment holding the whole tile: rows × cols of the operand it stands for.
template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment {
    static constexpr int rows = std::is_same_v<Use, matrix_b> ? K : M;
    static constexpr int cols = std::is_same_v<Use, matrix_a> ? K : N;
    static constexpr int num_elements = rows * cols;
    float x[num_elements];
};

namespace detail {
inline void check_pointer(const float* p, unsigned ldm) {
    if (reinterpret_cast<uintptr_t>(p) % 32 != 0) throw std::logic_error("WMMA pointer is not 32-byte aligned");
    if (ldm % 4 != 0) throw std::logic_error("WMMA ldm is not a multiple of 4 (32-bit elements)");
}
template <class Frag>
void load(Frag& f, const float* p, unsigned ldm, bool row_major_layout, bool tf32) {
    check_pointer(p, ldm);
    for (int r = 0; r < Frag::rows; ++r)
        for (int c = 0; c < Frag::cols; ++c) {
            const float v = row_major_layout ? p[size_t(r) * ldm + c] : p[r + size_t(c) * ldm];
            f.x[r * Frag::cols + c] = tf32 ? tf32_operand(v) : v;
        }
}
}  // namespace detail

/// Loads a matrix_a / matrix_b operand (layout from the fragment type).
template <class Use, int M, int N, int K, class T, class Layout>
void load_matrix_sync(fragment<Use, M, N, K, T, Layout>& f, const float* p, unsigned ldm) {
    static_assert(!std::is_same_v<Use, accumulator>, "accumulators are loaded with a layout_t");
    detail::load(f, p, ldm, std::is_same_v<Layout, row_major>, std::is_same_v<T, precision::tf32>);
}

/// Loads an accumulator with the given memory layout.
template <int M, int N, int K>
void load_matrix_sync(fragment<accumulator, M, N, K, float>& f, const float* p, unsigned ldm, layout_t layout) {
    detail::load(f, p, ldm, layout == mem_row_major, false);
}

/// Stores an accumulator: one write per warp (lane 0) between warp barriers, like the collective it is.
template <int M, int N, int K>
void store_matrix_sync(float* p, const fragment<accumulator, M, N, K, float>& f, unsigned ldm, layout_t layout) {
    detail::check_pointer(p, ldm);
    __syncwarp();
    if (threadIdx.x % 32 == 0)
        for (int r = 0; r < M; ++r)
            for (int c = 0; c < N; ++c)
                (layout == mem_row_major ? p[size_t(r) * ldm + c] : p[r + size_t(c) * ldm]) = f.x[r * N + c];
    __syncwarp();
}

template <class Use, int M, int N, int K, class T, class Layout>
void fill_fragment(fragment<Use, M, N, K, T, Layout>& f, float value) {
    for (float& v : f.x) v = value;
}

/// d = a·b + c with fp32 accumulation (d may be c).
template <int M, int N, int K, class T, class LA, class LB>
void mma_sync(fragment<accumulator, M, N, K, float>& d, const fragment<matrix_a, M, N, K, T, LA>& a,
              const fragment<matrix_b, M, N, K, T, LB>& b, const fragment<accumulator, M, N, K, float>& c) {
    float out[M * N];
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float acc = c.x[i * N + j];
            for (int k = 0; k < K; ++k) acc = std::fmaf(a.x[i * K + k], b.x[k * N + j], acc);
            out[i * N + j] = acc;
        }
    std::memcpy(d.x, out, sizeof out);
}

}  // namespace nvcuda::wmma

// attnscope — counter-based random numbers shared by host and device.
// A value depends only on (seed, stream, index), never on thread order, so a seed gives the same
// scenario, rotation or random block on every backend and every thread count.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/backend/shared/hd.h"

namespace attnscope::rng {

/// SplitMix64 finaliser: a bijective 64-bit mix with good avalanche.
ATTNSCOPE_HD uint64_t mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// 64 random bits for element `index` of stream `stream` under `seed`.
ATTNSCOPE_HD uint64_t bits(uint64_t seed, uint64_t stream, uint64_t index) {
    return mix64(mix64(seed ^ mix64(stream + 0x632BE59BD9B4E019ull)) + index);
}

/// Uniform in (0, 1): never 0, so log() is safe.
ATTNSCOPE_HD double uniform(uint64_t seed, uint64_t stream, uint64_t index) {
    return (static_cast<double>(bits(seed, stream, index) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/// Standard normal by Box–Muller on two uniforms drawn from the (2·index, 2·index+1) counters.
ATTNSCOPE_HD double normal(uint64_t seed, uint64_t stream, uint64_t index) {
    const double u1 = uniform(seed, stream, 2 * index);
    const double u2 = uniform(seed, stream, 2 * index + 1);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

/// Uniform integer in [0, bound) (bound > 0); the tiny modulo bias is irrelevant for layouts.
ATTNSCOPE_HD uint64_t below(uint64_t seed, uint64_t stream, uint64_t index, uint64_t bound) {
    return bits(seed, stream, index) % bound;
}

}  // namespace attnscope::rng

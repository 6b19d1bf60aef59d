// attnscope — the Gaussian sketch Ω of the randomized SVD, shared by the CPU (core/backend/cpu/svd.cpp) and the
// CUDA backend (core/backend/cuda/svd.cu), so a seed gives the same sketch and the same top-k estimate on both.
#pragma once
#include <cstdint>

#include "core/backend/shared/hd.h"
#include "core/backend/shared/random.h"

namespace attnscope {

/// Stream of core/backend/shared/random.h the sketch is drawn from ("SVD").
constexpr uint64_t kSvdSketchStream = 0x5356440000ull;

/// Entry (i, j) of the sketch Ω (cols, l) for `seed`: a standard normal, independent of storage order.
ATTNSCOPE_HD float svd_sketch_entry(uint64_t seed, int64_t i, int64_t j, int64_t l) {
    return static_cast<float>(rng::normal(seed, kSvdSketchStream, static_cast<uint64_t>(i * l + j)));
}

}  // namespace attnscope

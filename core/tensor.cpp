#include "core/tensor.h"

#include <algorithm>
#include <cmath>

#include "core/large_block_cache.h"

namespace attnscope {

Tensor3::Tensor3(int heads, int rows, int cols, float fill) : m_heads(heads), m_rows(rows), m_cols(cols) {
    if (heads < 0 || rows < 0 || cols < 0)
        throw Error("tensor shape (" + std::to_string(heads) + ", " + std::to_string(rows) + ", " +
                    std::to_string(cols) + ") has a negative size");
    const int64_t count = int64_t(heads) * rows * cols;
    m_data.resize(static_cast<size_t>(count));  // TrackingAllocator default-initialises: the fill below is the only pass
    float* data = m_data.data();
    // A large block's first touch costs a page fault and a kernel zeroing per page, paid by the thread that touches
    // it: filling on every core spreads that (an n = 16384 matrix is 1 GiB).
    constexpr int64_t kParallelFrom = int64_t(kLargeBlockBytes / sizeof(float));
    constexpr int64_t kChunk = int64_t(1) << 20;
#pragma omp parallel for schedule(static) if (count >= kParallelFrom)
    for (int64_t c0 = 0; c0 < count; c0 += kChunk) std::fill(data + c0, data + std::min(count, c0 + kChunk), fill);
}

Tensor3 Tensor3::uninitialized(int heads, int rows, int cols) {
    Tensor3 t;
    if (heads < 0 || rows < 0 || cols < 0) t = Tensor3(heads, rows, cols);  // throws the constructor's error
    t.m_heads = heads, t.m_rows = rows, t.m_cols = cols;
    t.m_data.resize(static_cast<size_t>(heads) * rows * cols);  // TrackingAllocator default-initialises: no fill
    return t;
}

std::string Tensor3::shape_string() const {
    return "(" + std::to_string(m_heads) + ", " + std::to_string(m_rows) + ", " + std::to_string(m_cols) + ")";
}

bool Tensor3::all_finite() const {
    for (float v : m_data)
        if (!std::isfinite(v)) return false;
    return true;
}

void require_shape(const Tensor3& t, int heads, int rows, int cols, const char* what) {
    if (t.heads() != heads || t.rows() != rows || t.cols() != cols)
        throw Error(std::string(what) + " has shape " + t.shape_string() + " but (" + std::to_string(heads) +
                    ", " + std::to_string(rows) + ", " + std::to_string(cols) + ") is required");
}

}  // namespace attnscope

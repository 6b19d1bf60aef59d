// attnscope — tensors: a stack of row-major matrices, one per head.
// Shapes follow one letter per dimension everywhere: H heads, n queries, m keys, d head dim, dv value dim.
// Storage is contiguous (H, rows, cols), 64-byte aligned and byte-tracked (memory.h), so the same buffer
// can be handed to a CUDA copy, an FFT plan or LAPACK without repacking.
#pragma once
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/memory.h"

namespace attnscope {

/// Row-major float matrix (the layout of every buffer in the project).
using MatrixRM = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// Mutable view of one head of a Tensor3.
using MatView = Eigen::Map<MatrixRM>;
/// Read-only view of one head of a Tensor3.
using ConstMatView = Eigen::Map<const MatrixRM>;

/// A (H, rows, cols) float tensor: H row-major matrices back to back.
class Tensor3 {
public:
    Tensor3() = default;
    /// Allocates (heads, rows, cols) filled with `fill`; throws Error on negative sizes.
    Tensor3(int heads, int rows, int cols, float fill = 0.0f);
    /// Allocates (heads, rows, cols) without filling it: for an output a primitive writes whole (every element), so
    /// the zeroing pass is not paid twice. Reading an element before it is written is a bug.
    static Tensor3 uninitialized(int heads, int rows, int cols);

    int heads() const { return m_heads; }
    int rows() const { return m_rows; }
    int cols() const { return m_cols; }
    /// Number of floats (H·rows·cols).
    int64_t size() const { return static_cast<int64_t>(m_data.size()); }
    bool empty() const { return m_data.empty(); }
    /// Bytes held by the buffer.
    int64_t bytes() const { return size() * static_cast<int64_t>(sizeof(float)); }

    float* data() { return m_data.data(); }
    const float* data() const { return m_data.data(); }
    /// Pointer to the first element of head h.
    float* head_data(int h) { return m_data.data() + static_cast<int64_t>(h) * m_rows * m_cols; }
    const float* head_data(int h) const { return m_data.data() + static_cast<int64_t>(h) * m_rows * m_cols; }
    /// Eigen view of head h, (rows, cols).
    MatView head(int h) { return MatView(head_data(h), m_rows, m_cols); }
    ConstMatView head(int h) const { return ConstMatView(head_data(h), m_rows, m_cols); }
    /// The plane that stands for head h: h itself, or 0 when the tensor holds one plane shared by every head (FNet
    /// on text mixes the layer input X, which the heads share).
    int plane_for(int h) const { return m_heads == 1 ? 0 : h; }

    float& at(int h, int i, int j) { return m_data[index(h, i, j)]; }
    float at(int h, int i, int j) const { return m_data[index(h, i, j)]; }

    /// "(H, rows, cols)" for messages.
    std::string shape_string() const;
    /// True when every element is finite (no NaN, no Inf).
    bool all_finite() const;

private:
    int64_t index(int h, int i, int j) const {
        return (static_cast<int64_t>(h) * m_rows + i) * m_cols + j;
    }
    int m_heads = 0, m_rows = 0, m_cols = 0;
    std::vector<float, TrackingAllocator<float>> m_data;
};

/// Throws Error unless `t` has the given shape; `what` names the tensor in the message.
void require_shape(const Tensor3& t, int heads, int rows, int cols, const char* what);

}  // namespace attnscope

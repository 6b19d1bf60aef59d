// attnscope — reader of NumPy .npy arrays: little-endian float32 or float64 in C order, format versions
// 1.0–3.0. Anything else (big-endian, integers, Fortran order, object arrays) is a clear Error.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace attnscope {

/// A .npy array converted to float.
struct NpyArray {
    std::vector<int64_t> shape;  // row-major dimensions
    std::vector<float> data;     // elements in C order
    std::string dtype;           // the file's descr, e.g. "<f4"

    /// "(a, b)" for messages.
    std::string shape_string() const;
};

/// Reads `path`; throws Error naming the file and what is unsupported or corrupt.
NpyArray read_npy(const std::string& path);

}  // namespace attnscope

// attnscope — a GGUF file read by ggml's own reader (gguf.cpp): its metadata keys and its tensors, dequantised to
// fp32 by ggml's type traits, with every failure turned into one sentence that says what is wrong and what is read.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"

struct gguf_context;

namespace attnscope {

class MappedFile;

/// Where one tensor's bytes lie and how they are stored.
struct GgufTensorInfo {
    std::string name;
    int type = 0;               // ggml_type
    std::vector<int64_t> dims;  // ggml order: dims[0] is the fastest-varying (a row's length)
    size_t offset = 0;          // from the start of the image
    size_t bytes = 0;
};

/// A parsed GGUF image: metadata and tensor table checked against the image's size, tensors readable as fp32.
class GgufFile {
public:
    /// Maps and parses `path`; throws Error naming the file (missing, not GGUF, truncated, corrupt).
    static std::shared_ptr<const GgufFile> open(const std::string& path);
    /// Parses an in-memory image (the fuzz target's entry); `name` stands for the file in messages. Throws Error.
    static std::shared_ptr<const GgufFile> parse(std::vector<uint8_t> bytes, const std::string& name);
    ~GgufFile();
    GgufFile(const GgufFile&) = delete;
    GgufFile& operator=(const GgufFile&) = delete;

    /// The file's name as messages use it.
    const std::string& name() const { return m_name; }
    /// ggml's parsed metadata (owned by this object).
    gguf_context* metadata() const { return m_ctx; }
    /// A string key, or nothing when absent; throws Error when present with another type.
    std::optional<std::string> string_value(const std::string& key) const;
    /// An integer key (any integer width), or nothing when absent; throws Error when present with another type.
    std::optional<int64_t> int_value(const std::string& key) const;
    /// A float key (f32 or f64, or an integer), or nothing when absent; throws Error for other types.
    std::optional<double> float_value(const std::string& key) const;
    /// Length of an array key, or nothing when absent or not an array.
    std::optional<size_t> array_size(const std::string& key) const;
    /// The tensor called `name`, or nullptr.
    const GgufTensorInfo* find_tensor(const std::string& name) const;
    /// Every tensor, in file order.
    const std::vector<GgufTensorInfo>& tensors() const { return m_tensors; }
    /// Tensor `name` dequantised to a row-major (dims[1], dims[0]) matrix (a vector is (1, dims[0])); throws Error when
    /// it is missing, its shape is not `rows` × `cols`, or ggml cannot dequantise its type.
    MatrixRM read_matrix(const std::string& name, int64_t rows, int64_t cols) const;
    /// A 1-D tensor of `size` values as a row vector; throws Error like read_matrix.
    Eigen::RowVectorXf read_vector(const std::string& name, int64_t size) const;

private:
    GgufFile() = default;
    static std::shared_ptr<const GgufFile> parse_image(std::shared_ptr<const void> owner, const uint8_t* data, size_t size,
                                                       const std::string& name);
    int64_t key_id(const std::string& key) const;

    std::string m_name;
    std::shared_ptr<const void> m_owner;  // the mapping or buffer the image lives in
    const uint8_t* m_data = nullptr;
    size_t m_size = 0;
    gguf_context* m_ctx = nullptr;
    std::vector<GgufTensorInfo> m_tensors;
};

/// Names of the tensor types ggml can dequantise, e.g. "F32, F16, BF16, Q4_0, …" (for messages and docs).
std::string dequantisable_type_names();

}  // namespace attnscope

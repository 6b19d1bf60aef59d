// attnscope — reader of the safetensors format: an 8-byte little-endian header length N, N bytes of JSON
// {"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}}, then the raw data.
// The file is memory-mapped; every offset is checked against the file size when the file is opened, so a
// truncated or corrupt file is a clear Error, never a crash.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/data/mapped_file.h"

namespace attnscope {

/// One tensor of a safetensors file.
struct SafetensorsEntry {
    std::string dtype;           // "F32", "F16", "BF16", "I64", ...
    std::vector<int64_t> shape;  // row-major dimensions
    size_t offset = 0;           // first byte, from the start of the file
    size_t bytes = 0;            // byte length (= elements × dtype size, checked)

    /// Number of elements (1 for a scalar of shape []).
    int64_t elements() const;
    /// "(a, b, c)" for messages.
    std::string shape_string() const;
};

/// An opened, validated safetensors file.
class SafetensorsFile {
public:
    /// Maps and validates `path`; throws Error (truncated file, oversized header, bad JSON, unknown dtype,
    /// offsets outside the data or not matching the shape).
    explicit SafetensorsFile(const std::string& path);

    /// True when a tensor `name` exists.
    bool contains(const std::string& name) const { return m_entries.count(name) > 0; }
    /// The entry of `name`; throws Error naming the file when it is absent.
    const SafetensorsEntry& entry(const std::string& name) const;
    /// Every tensor name, sorted.
    std::vector<std::string> names() const;
    /// The "__metadata__" string map (empty when absent).
    const std::map<std::string, std::string>& metadata() const { return m_metadata; }
    /// Converts tensor `name` to float; F32, F16, BF16 and F64 are accepted, other dtypes throw Error.
    std::vector<float> read_float(const std::string& name) const;
    const std::string& path() const { return m_file->path(); }

private:
    std::shared_ptr<MappedFile> m_file;
    std::map<std::string, SafetensorsEntry> m_entries;
    std::map<std::string, std::string> m_metadata;
};

/// Bytes per element of a safetensors dtype, or 0 when the dtype is unknown.
int safetensors_dtype_size(const std::string& dtype);

}  // namespace attnscope

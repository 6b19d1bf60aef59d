// attnscope — a read-only memory-mapped file (POSIX mmap), so multi-megabyte weight files are paged in
// on demand instead of copied.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace attnscope {

/// A whole file mapped read-only; the mapping lives as long as the object.
class MappedFile {
public:
    /// Maps `path`; throws Error naming the file when it cannot be opened or mapped.
    explicit MappedFile(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    /// First byte (nullptr for an empty file).
    const uint8_t* data() const { return m_data; }
    /// Size in bytes.
    size_t size() const { return m_size; }
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
    const uint8_t* m_data = nullptr;
    size_t m_size = 0;
};

}  // namespace attnscope

// attnscope tests — helpers for the text-path tests: temporary files and the installed model.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/data/text_input.h"
#include "core/data/text_model.h"

namespace attnscope::test {

/// A fresh folder under the system temp dir, removed when the object dies.
class TempDir {
public:
    explicit TempDir(const std::string& tag) {
        m_path = std::filesystem::temp_directory_path() /
                 ("attnscope-" + tag + "-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                  std::to_string(reinterpret_cast<uintptr_t>(this)));
        std::filesystem::create_directories(m_path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    std::string file(const std::string& name) const { return (m_path / name).string(); }
    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
};

/// Expects f() to throw an Error whose message contains `needle`.
inline void expect_error_containing(const std::function<void()>& f, const std::string& needle) {
    try {
        f();
        ADD_FAILURE() << "no error (expected '" << needle << "')";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

/// Writes raw bytes to `path`.
inline void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Little-endian bytes of a trivially copyable value.
template <class T>
std::string le_bytes(T v) {
    std::string s(sizeof(T), '\0');
    std::memcpy(s.data(), &v, sizeof(T));
    return s;
}

/// A safetensors file: 8-byte length (or `declared_len` when ≥ 0), the header, then `data`.
inline std::string safetensors_bytes(const std::string& header, const std::string& data, int64_t declared_len = -1) {
    const uint64_t len = declared_len >= 0 ? static_cast<uint64_t>(declared_len) : header.size();
    return le_bytes(len) + header + data;
}

/// Float values as raw little-endian F32 bytes.
inline std::string f32_bytes(const std::vector<float>& v) {
    std::string s;
    for (float x : v) s += le_bytes(x);
    return s;
}

/// A version-1.0 .npy file with the given descr, shape text (e.g. "(2, 3)") and raw data.
inline std::string npy_bytes(const std::string& descr, const std::string& shape, const std::string& data,
                             bool fortran = false) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                         ", 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    return std::string("\x93NUMPY\x01\x00", 8) + le_bytes(static_cast<uint16_t>(header.size())) + header + data;
}

/// The installed model folder, or empty when it is absent (the caller skips with the reason).
inline std::string installed_model_dir() {
    const std::string dir = default_model_dir();
    return std::filesystem::exists(std::filesystem::path(dir) / "model.safetensors") ? dir : std::string();
}

}  // namespace attnscope::test

/// Declares `dir` as the installed model folder, or skips the test with a visible reason.
#define ATTNSCOPE_MODEL_OR_SKIP(dir)                                                                              \
    const std::string dir = ::attnscope::test::installed_model_dir();                                            \
    if (dir.empty())                                                                                              \
    GTEST_SKIP() << "all-MiniLM-L6-v2 is not installed at " << ::attnscope::default_model_dir()                  \
                 << ": run scripts/setup.sh (or set ATTNSCOPE_MODEL_DIR)"

namespace attnscope::test {

/// The installed SmolLM2 GGUF file, or empty when it is absent (the caller skips with the reason).
inline std::string installed_decoder_path() {
    const std::string path = default_decoder_path();
    return std::filesystem::exists(path) ? path : std::string();
}

}  // namespace attnscope::test

#define ATTNSCOPE_DECODER_OR_SKIP(path)                                                                           \
    const std::string path = ::attnscope::test::installed_decoder_path();                                         \
    if (path.empty())                                                                                             \
    GTEST_SKIP() << "SmolLM2-135M-Instruct is not installed at " << ::attnscope::default_decoder_path()           \
                 << ": run scripts/setup.sh"

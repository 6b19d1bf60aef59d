// attnscope — helpers shared by the libFuzzer targets: the readers under test take paths, so an input is written
// to a per-process scratch folder first; a multi-part input is split at a separator line.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace attnscope::fuzz {

/// A scratch folder of this process (under $TMPDIR), created on first use and reused for every input.
inline const std::filesystem::path& scratch_dir() {
    static const std::filesystem::path dir = [] {
        std::filesystem::path p = std::filesystem::temp_directory_path() / ("attnscope-fuzz-" + std::to_string(getpid()));
        std::filesystem::create_directories(p);
        return p;
    }();
    return dir;
}

/// Writes `bytes` to scratch_dir()/name and returns the path.
inline std::string write_scratch(const std::string& name, std::string_view bytes) {
    const std::filesystem::path path = scratch_dir() / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
    return path.string();
}

/// The input as text.
inline std::string_view as_text(const uint8_t* data, size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

/// Splits the input at every occurrence of `separator` (e.g. "\n--\n"), so one input can hold several files.
inline std::vector<std::string_view> split_parts(std::string_view text, std::string_view separator) {
    std::vector<std::string_view> parts;
    size_t begin = 0;
    for (size_t at; (at = text.find(separator, begin)) != std::string_view::npos; begin = at + separator.size())
        parts.push_back(text.substr(begin, at - begin));
    parts.push_back(text.substr(begin));
    return parts;
}

/// Stops the fuzzer with a message when a property of an accepted input does not hold (a finding, not bad input).
#define ATTNSCOPE_FUZZ_REQUIRE(condition)                                                              \
    do {                                                                                             \
        if (!(condition)) {                                                                          \
            std::fprintf(stderr, "fuzz property failed: %s (%s:%d)\n", #condition, __FILE__, __LINE__); \
            std::abort();                                                                            \
        }                                                                                            \
    } while (0)

}  // namespace attnscope::fuzz

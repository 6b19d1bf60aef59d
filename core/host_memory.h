// attnscope — how much host memory a request may use, and the refusal when it would not fit. A run, an input or a
// reference whose estimate exceeds the limit is refused before anything is allocated, with a sentence naming
// the estimate and the limit, instead of an out-of-memory kill half-way (or a swap storm that freezes the GUI).
#pragma once
#include <cstdint>
#include <string>

namespace attnscope {

/// The "Key:   123 kB" field of a /proc file (e.g. "/proc/self/status", "VmRSS") in bytes, or -1 when absent.
int64_t proc_kb_field(const char* path, const std::string& key);
/// MemAvailable from /proc/meminfo in bytes, or -1 when unknown.
int64_t available_memory_bytes();
/// MemTotal from /proc/meminfo in bytes, or -1 when unknown.
int64_t total_memory_bytes();
/// What is left of the address-space limit (ulimit -v) above the process's current size, or -1 when unlimited.
int64_t address_space_headroom_bytes();

/// The bytes a new request may take: the smaller of MemAvailable and the address-space headroom (-1: unknown).
struct HostMemoryLimit {
    int64_t bytes = -1;    // the limit, or -1 when neither is known
    std::string source;    // "available memory (MemAvailable)" or "the address-space limit (ulimit -v)"
};
/// The current limit.
HostMemoryLimit host_memory_limit();

/// "" when `need_bytes` fits in `limit` (or the limit is unknown), else "<what> needs an estimated X of memory
/// but only Y are free (<source>): <advice>".
std::string host_memory_shortfall(int64_t need_bytes, const HostMemoryLimit& limit, const std::string& what,
                                  const std::string& advice);
/// Throws Error with host_memory_shortfall's sentence (against host_memory_limit()) when it is not empty.
void require_host_memory(int64_t need_bytes, const std::string& what, const std::string& advice);

}  // namespace attnscope

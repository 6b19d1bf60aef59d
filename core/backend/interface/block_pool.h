// attnscope — a caching allocator over a raw one (the CUDA backend's device memory, core/backend/cuda/common.cu):
// freed blocks are kept by size class and handed out again, so the runs of one shape after the first allocate
// nothing from the driver (cudaMalloc and cudaFree cost tens to hundreds of µs each, and cudaFree waits for the
// whole device). Not thread-safe: common.cu keeps one pool per thread.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>

namespace attnscope {

/// Freed blocks of a raw allocator, kept by size class for the next request of that class.
class BlockPool {
public:
    using RawAlloc = std::function<void*(size_t bytes)>;  // a new block, or nullptr when out of memory
    using RawFree = std::function<void(void* block)>;     // never throws
    /// A pool over `alloc` and `free`, empty, that caches at most `max_cached_bytes` (a block given back beyond
    /// that is freed at once: a thread that only frees, such as one that drops results made elsewhere, keeps little).
    BlockPool(RawAlloc alloc, RawFree free, size_t max_cached_bytes = SIZE_MAX);
    /// Frees every cached block (blocks still in use are the users' to give back first).
    ~BlockPool();
    BlockPool(const BlockPool&) = delete;
    BlockPool& operator=(const BlockPool&) = delete;

    /// The bytes a request of `bytes` really gets: a multiple of 512 B up to 1 MiB, of 2 MiB above (a large
    /// block is reused by any request of its 2 MiB class, so a sweep's neighbouring shapes share blocks).
    static size_t size_class(size_t bytes);
    /// A block of size_class(bytes): a cached one of that class, else a new one from the raw allocator; when that
    /// fails, every cached block is freed and it is asked once more. nullptr when it fails again (or bytes = 0).
    void* acquire(size_t bytes);
    /// Takes back a block of acquire(bytes) into the cache, or frees it when the cache is full (nullptr is
    /// ignored).
    void give_back(void* block, size_t bytes);
    /// Frees every cached block.
    void trim();
    /// Bytes in cached blocks, free for this pool's next requests.
    size_t cached_bytes() const { return m_cached_bytes; }

private:
    RawAlloc m_alloc;
    RawFree m_free;
    std::multimap<size_t, void*> m_cached;  // size class → free block
    size_t m_cached_bytes = 0;
    size_t m_max_cached_bytes;
};

// [SECTION] implementation (header-only: the CUDA library uses it without linking the core)

namespace block_pool_detail {
constexpr size_t kSmallGranule = 512;
constexpr size_t kSmallLimit = size_t(1) << 20;
constexpr size_t kLargeGranule = size_t(2) << 20;

inline size_t round_up(size_t bytes, size_t granule) { return (bytes + granule - 1) / granule * granule; }
}  // namespace block_pool_detail

inline BlockPool::BlockPool(RawAlloc alloc, RawFree free, size_t max_cached_bytes)
    : m_alloc(std::move(alloc)), m_free(std::move(free)), m_max_cached_bytes(max_cached_bytes) {}

inline BlockPool::~BlockPool() { trim(); }

inline size_t BlockPool::size_class(size_t bytes) {
    using namespace block_pool_detail;
    return bytes <= kSmallLimit ? round_up(bytes, kSmallGranule) : round_up(bytes, kLargeGranule);
}

inline void* BlockPool::acquire(size_t bytes) {
    if (bytes == 0) return nullptr;
    const size_t cls = size_class(bytes);
    if (const auto it = m_cached.find(cls); it != m_cached.end()) {
        void* block = it->second;
        m_cached.erase(it);
        m_cached_bytes -= cls;
        return block;
    }
    void* block = m_alloc(cls);
    if (!block && !m_cached.empty()) {
        trim();  // the cached blocks of other classes may be what the device lacks
        block = m_alloc(cls);
    }
    return block;
}

inline void BlockPool::give_back(void* block, size_t bytes) {
    if (!block) return;
    const size_t cls = size_class(bytes);
    if (m_cached_bytes + cls > m_max_cached_bytes) {
        m_free(block);
        return;
    }
    m_cached.emplace(cls, block);
    m_cached_bytes += cls;
}

inline void BlockPool::trim() {
    for (const auto& entry : m_cached) m_free(entry.second);
    m_cached.clear();
    m_cached_bytes = 0;
}

}  // namespace attnscope

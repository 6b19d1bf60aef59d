#include "core/large_block_cache.h"

#include <unistd.h>

#include <algorithm>
#include <deque>
#include <mutex>
#include <new>

namespace attnscope {

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCacheOn = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kCacheOn = false;
#else
constexpr bool kCacheOn = true;
#endif
#else
constexpr bool kCacheOn = true;
#endif

struct KeptBlock {
    void* p;
    std::size_t bytes;
};

struct Cache {
    std::mutex lock;
    std::deque<KeptBlock> blocks;  // oldest first
    std::size_t kept = 0;
};

Cache& cache() {
    static Cache* c = new Cache;  // never destroyed: blocks may be freed by static destructors after main
    return *c;
}

void free_block(const KeptBlock& b) { ::operator delete(b.p, std::align_val_t{64}); }

}  // namespace

std::size_t large_block_cap_bytes() {
    if (!kCacheOn) return 0;
    static const std::size_t cap = [] {
        const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
        const std::size_t two_gib = std::size_t(2) << 30;
        if (pages <= 0 || page <= 0) return two_gib;
        return std::min(two_gib, std::size_t(pages) * std::size_t(page) / 8);
    }();
    return cap;
}

void* large_block_take(std::size_t bytes) {
    if (!kCacheOn || bytes < kLargeBlockBytes) return nullptr;
    Cache& c = cache();
    std::lock_guard<std::mutex> guard(c.lock);
    // The newest first: its pages are the likeliest to be resident.
    for (auto it = c.blocks.rbegin(); it != c.blocks.rend(); ++it)
        if (it->bytes == bytes) {
            void* p = it->p;
            c.kept -= bytes;
            c.blocks.erase(std::next(it).base());
            return p;
        }
    return nullptr;
}

bool large_block_keep(void* p, std::size_t bytes) noexcept {
    if (!kCacheOn || bytes < kLargeBlockBytes || bytes > large_block_cap_bytes()) return false;
    std::deque<KeptBlock> evicted;
    try {
        Cache& c = cache();
        std::lock_guard<std::mutex> guard(c.lock);
        while (c.kept + bytes > large_block_cap_bytes()) {
            evicted.push_back(c.blocks.front());
            c.kept -= c.blocks.front().bytes;
            c.blocks.pop_front();
        }
        c.blocks.push_back({p, bytes});
        c.kept += bytes;
    } catch (...) {  // no memory for the bookkeeping (or a lock error): the caller frees p
        for (const KeptBlock& b : evicted) free_block(b);
        return false;
    }
    for (const KeptBlock& b : evicted) free_block(b);  // outside the lock: munmap of a GiB takes milliseconds
    return true;
}

std::size_t large_block_release_all() {
    std::deque<KeptBlock> all;
    std::size_t bytes = 0;
    {
        Cache& c = cache();
        std::lock_guard<std::mutex> guard(c.lock);
        all.swap(c.blocks);
        bytes = c.kept;
        c.kept = 0;
    }
    for (const KeptBlock& b : all) free_block(b);
    return bytes;
}

std::size_t large_block_kept_bytes() {
    Cache& c = cache();
    std::lock_guard<std::mutex> guard(c.lock);
    return c.kept;
}

}  // namespace attnscope

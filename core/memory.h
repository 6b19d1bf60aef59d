// attnscope — byte accounting for every buffer a run allocates.
// Tensors allocate through TrackingAllocator, so a benchmark can report the peak bytes a variant held
// (issue: "every allocation of a run goes through one tracking allocator") without guessing.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#include "core/large_block_cache.h"

namespace attnscope {

/// Process-wide counters of bytes held by tracked buffers.
struct MemoryCounters {
    std::atomic<int64_t> live{0};  // bytes currently held
    std::atomic<int64_t> peak{0};  // high-water mark of `live` since the last reset_peak()
};

/// The single counter set every TrackingAllocator reports to.
MemoryCounters& memory_counters();

/// Records an allocation of `bytes` (and raises the peak when needed).
void memory_note_alloc(int64_t bytes);
/// Records the release of `bytes`.
void memory_note_free(int64_t bytes);
/// Asks the kernel to back a large fresh block with huge pages (Linux THP "madvise" mode): its first touch
/// then costs one fault per 2 MiB instead of per 4 KiB. No-op for small blocks and elsewhere.
void memory_advise_large(void* p, std::size_t bytes);

/// Measures the peak of tracked bytes above the level at construction, over the scope's lifetime.
/// Scopes nest (a benchmark's scope around a variant's CostMeter): an inner scope restarts the high-water
/// mark and, when it ends, folds the outer scope's earlier peak back in, so the outer reading after the
/// inner scope is the true peak. Not for concurrent scopes on several threads.
class PeakMemoryScope {
public:
    PeakMemoryScope();
    ~PeakMemoryScope();
    PeakMemoryScope(const PeakMemoryScope&) = delete;
    PeakMemoryScope& operator=(const PeakMemoryScope&) = delete;
    /// Peak bytes held above the starting level so far (exact once every inner scope has ended).
    int64_t peak_bytes() const;

private:
    int64_t m_start;        // live bytes at construction
    int64_t m_outer_peak;   // the high-water mark an enclosing scope had reached at construction
};

/// std::allocator replacement that reports to memory_counters().
template <class T>
struct TrackingAllocator {
    using value_type = T;
    TrackingAllocator() noexcept = default;
    template <class U>
    TrackingAllocator(const TrackingAllocator<U>&) noexcept {}
    /// Memory for `count` elements: a kept large block of that size when there is one (large_block_cache.h).
    T* allocate(std::size_t count) {
        const std::size_t bytes = count * sizeof(T);
        void* p = large_block_take(bytes);
        if (!p) {
            // 64-byte alignment keeps SIMD loads aligned in every tile.
            try {
                p = ::operator new(bytes, std::align_val_t{64});
            } catch (const std::bad_alloc&) {
                if (large_block_release_all() == 0) throw;  // kept blocks go before an allocation fails
                p = ::operator new(bytes, std::align_val_t{64});
            }
            memory_advise_large(p, bytes);
        }
        memory_note_alloc(static_cast<int64_t>(bytes));
        return static_cast<T*>(p);
    }
    /// Releases it: a large block is kept for the next allocation of its size while the cache has room.
    void deallocate(T* p, std::size_t count) noexcept {
        const std::size_t bytes = count * sizeof(T);
        memory_note_free(static_cast<int64_t>(bytes));
        if (!large_block_keep(p, bytes)) ::operator delete(p, std::align_val_t{64});
    }
    /// Default-initialises (for floats: leaves the bytes as they are), so a vector resize() does not zero a buffer
    /// its owner is about to overwrite whole; assign(count, value) still fills.
    template <class U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    template <class U>
    bool operator==(const TrackingAllocator<U>&) const noexcept { return true; }
};

}  // namespace attnscope

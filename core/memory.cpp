#include "core/memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <cstdint>

namespace attnscope {

namespace {

/// Runs allocate and free buffers of tens of MiB on every call. glibc's default (dynamic) thresholds hand them
/// back to the kernel after each run (trim / munmap), so the next run pays a page fault per 4 KiB — a quarter
/// of a linear-attention run at n = 65536 and a superlinear time slope for every O(n) variant. Keeping up to
/// 1 GiB of freed heap for reuse and serving blocks below 32 MiB (glibc's cap) from the heap removes that.
bool keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    return true;
}

}  // namespace

MemoryCounters& memory_counters() {
    // Configured before the first tracked allocation (every one goes through here).
    [[maybe_unused]] static const bool configured = keep_freed_memory_for_reuse();
    static MemoryCounters counters;
    return counters;
}

void memory_note_alloc(int64_t bytes) {
    MemoryCounters& c = memory_counters();
    const int64_t now = c.live.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    int64_t seen = c.peak.load(std::memory_order_relaxed);
    while (now > seen && !c.peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
    }
}

void memory_note_free(int64_t bytes) { memory_counters().live.fetch_sub(bytes, std::memory_order_relaxed); }

void memory_advise_large(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Blocks of ≥ 32 MiB are fresh mmaps (see keep_freed_memory_for_reuse) that a run faults in again unless
    // large_block_cache.h kept one of its size, and the first touch costs about three times as much with 4 KiB
    // pages as with 2 MiB ones (docs/PERFORMANCE.md, "Measured reasons in the code"). Only the 2 MiB-aligned
    // interior can be advised.
    constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
    if (bytes < (std::size_t(32) << 20)) return;
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHuge - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)p, (void)bytes;
#endif
}

PeakMemoryScope::PeakMemoryScope() {
    MemoryCounters& c = memory_counters();
    m_start = c.live.load();
    m_outer_peak = c.peak.exchange(m_start);
}

PeakMemoryScope::~PeakMemoryScope() {
    MemoryCounters& c = memory_counters();
    int64_t seen = c.peak.load(std::memory_order_relaxed);
    while (m_outer_peak > seen && !c.peak.compare_exchange_weak(seen, m_outer_peak, std::memory_order_relaxed)) {
    }
}

int64_t PeakMemoryScope::peak_bytes() const { return memory_counters().peak.load() - m_start; }

}  // namespace attnscope

#include "memory.h"

namespace attnscope {

MemoryCounters& memory_counters() {
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

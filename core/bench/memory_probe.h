// attnscope — what the operating system says about memory: how much is available before a benchmark point
// allocates (so a point that would not fit is skipped, never an OOM), and the process's resident-set growth
// during a run (a cross-check of the tracked bytes: it also sees what does not go through Tensor3, such
// as Eigen's GEMM packing buffers and thread stacks). Linux /proc; other systems report "unknown" (-1).
#pragma once
#include <cstdint>

#include "core/host_memory.h"  // available_memory_bytes, total_memory_bytes

namespace attnscope {

/// The process's resident set now (/proc/self/statm), in bytes, or -1 when unknown.
int64_t resident_bytes();

/// Peak resident-set growth over a scope. Returns freed heap to the OS first (malloc_trim) and resets the
/// kernel's high-water mark (write "5" to /proc/self/clear_refs) so VmHWM − VmRSS(start) is the peak
/// growth of this scope; where the reset is refused it falls back to the growth of the resident set at
/// the time of reading (which misses memory freed before then).
class ResidentPeakProbe {
public:
    ResidentPeakProbe();
    /// Peak growth of the resident set in bytes since construction (-1 when unknown).
    int64_t peak_delta_bytes() const;
    /// True when the kernel's high-water mark was reset, i.e. peak_delta_bytes() is a true peak.
    bool exact_peak() const { return m_hwm_reset; }

private:
    int64_t m_start_rss = -1;
    bool m_hwm_reset = false;
};

}  // namespace attnscope

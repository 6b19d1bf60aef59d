// attnscope — measures the wall time and peak tracked memory of the compute part of a run.
// Variants start it before their fast path and stop it before any display-only extras (e.g. recomputing
// P for a heatmap), so reported cost is the cost of the algorithm, not of the visualisation.
#pragma once
#include <chrono>

#include "../memory.h"
#include "../variants/variant.h"

namespace attnscope {

/// Wall clock + peak bytes from construction to stop().
class CostMeter {
public:
    CostMeter() : m_start(std::chrono::steady_clock::now()) {}
    /// Writes elapsed milliseconds and peak bytes into `cost` (flops/bytes are left as they are).
    void stop(Cost& cost) const {
        cost.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start).count();
        cost.peak_bytes = m_memory.peak_bytes();
    }

private:
    PeakMemoryScope m_memory;
    std::chrono::steady_clock::time_point m_start;
};

}  // namespace attnscope

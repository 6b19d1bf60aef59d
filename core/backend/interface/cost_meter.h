// attnscope — the cost of a run (Cost) and what measures it: the time and peak memory of its compute part.
// Variants start it before their fast path and stop it before any display-only extras (e.g. recomputing
// P for a heatmap), so reported cost is the cost of the algorithm, not of the visualisation.
// The clock is the backend's: wall clock on the CPU; on a device backend (CUDA) the CUDA-event time of the
// primitive calls plus the wall time of the host work between them, with the device's tracked peak bytes.
#pragma once
#include <algorithm>
#include <chrono>
#include <optional>

#include <cstdint>
#include <string>

#include "core/memory.h"
#include "core/backend/interface/backend.h"

namespace attnscope {

/// Analytic and measured cost of a run.
struct Cost {
    double flops = 0;        // analytic floating-point operations
    double bytes = 0;        // analytic bytes moved (inputs, outputs, intermediates)
    double time_ms = 0;      // measured time of the run: wall clock on the CPU; on a device (CUDA) the CUDA-event
                             // time of the device work plus the wall time of host work between primitive calls
    int64_t peak_bytes = 0;  // peak tracked host bytes held during the run (outputs included)
    // device measurement (CUDA backend; zeros and "wall" on the CPU)
    double wall_ms = 0;             // wall clock of the run on every backend
    double device_ms = 0;           // CUDA-event time of the primitive calls (device work, host fallbacks included)
    int64_t peak_device_bytes = 0;  // peak tracked device allocations during the run (core/backend/cuda/common.cuh)
    std::string clock = "wall";     // how time_ms was measured: "wall" or "cuda-events+host-wall"
};

/// Device time and peak device bytes of a backend over a scope (nothing on a backend without a device).
/// Scopes nest like PeakMemoryScope: an inner scope restarts the device high-water mark and folds the outer
/// scope's earlier peak back in when it ends. Not for concurrent scopes on several threads.
class DeviceMeter {
public:
    explicit DeviceMeter(Backend& backend) : m_backend(backend), m_start(backend.device_clock()) {
        if (m_backend.has_device()) m_backend.set_device_peak(m_start.live_bytes);
    }
    ~DeviceMeter() {
        if (!m_backend.has_device()) return;
        if (m_start.peak_bytes > m_backend.device_clock().peak_bytes) m_backend.set_device_peak(m_start.peak_bytes);
    }
    DeviceMeter(const DeviceMeter&) = delete;
    DeviceMeter& operator=(const DeviceMeter&) = delete;
    /// True when the backend has a device (the figures below are real).
    bool active() const { return m_backend.has_device(); }
    /// Device ms of the primitive calls since construction (CUDA events).
    double device_ms() const { return m_backend.device_clock().ms_total - m_start.ms_total; }
    /// Host wall ms spent inside primitive calls since construction (launches, copies, waits, host fallbacks).
    double call_wall_ms() const { return m_backend.device_clock().call_wall_ms_total - m_start.call_wall_ms_total; }
    /// The device run's time for a scope that took `wall_ms` of wall clock: the calls' device ms plus the host work
    /// between them by wall clock (host time inside the calls is replaced by their device time).
    double run_ms(double wall_ms) const { return device_ms() + std::max(0.0, wall_ms - call_wall_ms()); }
    /// Device ms of the host↔device copies inside those calls (each bracketed by its own event pair).
    double copy_ms() const { return m_backend.device_clock().copy_ms_total - m_start.copy_ms_total; }
    /// Bytes those copies moved.
    int64_t copy_bytes() const { return m_backend.device_clock().copy_bytes_total - m_start.copy_bytes_total; }
    /// Peak tracked device bytes above the level at construction.
    int64_t peak_device_bytes() const { return m_backend.device_clock().peak_bytes - m_start.live_bytes; }

private:
    Backend& m_backend;
    DeviceClock m_start;
};

/// Time + peak bytes (host, and device when the backend has one) from construction to stop().
class CostMeter {
public:
    /// Wall clock and host bytes only: for code that has no backend.
    CostMeter() : m_start(std::chrono::steady_clock::now()) {}
    /// The backend's clock: wall on the CPU, CUDA events for the device work on CUDA.
    explicit CostMeter(Backend& backend) : m_device(std::in_place, backend), m_start(std::chrono::steady_clock::now()) {}
    /// Writes time_ms, wall_ms, device_ms, peak_bytes, peak_device_bytes and clock into `cost` (flops/bytes are
    /// left as they are).
    void stop(Cost& cost) const {
        cost.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start).count();
        cost.peak_bytes = m_memory.peak_bytes();
        cost.time_ms = cost.wall_ms;
        cost.clock = "wall";
        if (m_device && m_device->active()) {
            cost.device_ms = m_device->device_ms();
            cost.peak_device_bytes = m_device->peak_device_bytes();
            // Host work between calls (planning, host-side math) by wall clock; the calls by their events.
            cost.time_ms = m_device->run_ms(cost.wall_ms);
            cost.clock = "cuda-events+host-wall";
        }
    }

private:
    PeakMemoryScope m_memory;
    std::optional<DeviceMeter> m_device;
    std::chrono::steady_clock::time_point m_start;
};

}  // namespace attnscope

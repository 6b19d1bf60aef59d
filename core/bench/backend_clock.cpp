#include "core/bench/backend_clock.h"

#include "core/backend/interface/cost_meter.h"
#include "core/format.h"

namespace attnscope {

double backend_work_ms(Backend& backend, const std::function<void()>& work) {
    if (!backend.has_device()) {
        const double start = work_cpu_ms();
        work();
        return work_cpu_ms() - start;
    }
    const DeviceMeter meter(backend);
    const double wall = wall_ms(work);
    return meter.run_ms(wall);
}

const char* backend_time_name(const Backend& backend) { return backend.has_device() ? "device time" : "CPU time"; }

PairedRatio paired_backend_ratio(Backend& backend, const std::function<void()>& a, const std::function<void()>& b,
                                 int runs) {
    return paired_ratio([&] { return backend_work_ms(backend, a); }, [&] { return backend_work_ms(backend, b); }, runs);
}

std::string paired_timing_note(const PairedRatio& t, const std::string& a, const std::string& b, const Backend& backend) {
    return a + " " + format_significant(t.a_median_ms, 3) + " ms, " + b + " " + format_significant(t.b_median_ms, 3) +
           " ms of " + backend_time_name(backend) + " (median of " + std::to_string(t.runs) +
           " alternating runs; per-pair ratio " + format_significant(t.ratio_min, 3) + "…" +
           format_significant(t.ratio_max, 3) + ")";
}

}  // namespace attnscope

#include "core/bench/backend_clock.h"

#include "core/backend/interface/cost_meter.h"

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

}  // namespace attnscope

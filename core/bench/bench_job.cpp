#include "core/bench/bench_job.h"

namespace attnscope {

void BenchJob::run(JobContext& ctx) {
    BenchCallbacks cb;
    cb.cancel_requested = [&ctx] {
        ctx.between_steps();
        return ctx.cancelled();
    };
    cb.on_progress = [this](const BenchProgress& p) {
        if (p.points_total > 0) set_progress(float(p.points_done) / float(p.points_total));
        std::lock_guard<std::mutex> lock(m_mutex);
        m_progress = p;
    };
    auto partial = std::make_shared<BenchReport>(bench_report_header(m_config, ctx.backend()));
    cb.on_point = [this, &partial](const BenchPoint& point) {
        // Copy-on-write: readers keep the snapshot they hold.
        auto next = std::make_shared<BenchReport>(*partial);
        next->points.push_back(point);
        partial = next;
        std::lock_guard<std::mutex> lock(m_mutex);
        m_report = next;
    };
    BenchReport final_report = run_bench(m_config, ctx.backend(), cb);
    std::lock_guard<std::mutex> lock(m_mutex);
    m_report = std::make_shared<const BenchReport>(std::move(final_report));
}

BenchProgress BenchJob::sweep_progress() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_progress;
}

std::shared_ptr<const BenchReport> BenchJob::report() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_report;
}

}  // namespace attnscope

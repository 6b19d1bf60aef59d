#include "bench_job.h"

namespace attnscope {

BenchJob::~BenchJob() {
    cancel();
    wait();
}

void BenchJob::wait() {
    if (m_thread.joinable()) m_thread.join();
}

void BenchJob::start(BenchConfig config, std::unique_ptr<Backend> backend) {
    cancel();
    wait();
    m_cancel = false;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_progress = {};
        m_report = std::make_shared<const BenchReport>();
        m_error.clear();
    }
    m_state = State::Running;
    m_thread = std::thread([this, config = std::move(config), backend = std::move(backend)]() mutable {
        run(std::move(config), std::move(backend));
    });
}

void BenchJob::run(BenchConfig config, std::unique_ptr<Backend> backend) {
    BenchCallbacks cb;
    cb.cancel_requested = [this] { return m_cancel.load(); };
    cb.on_progress = [this](const BenchProgress& p) {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_progress = p;
    };
    auto partial = std::make_shared<BenchReport>();
    cb.on_point = [this, &partial](const BenchPoint& point) {
        // Copy-on-write: readers keep the snapshot they hold.
        auto next = std::make_shared<BenchReport>(*partial);
        next->points.push_back(point);
        partial = next;
        std::lock_guard<std::mutex> lock(m_mutex);
        m_report = next;
    };
    try {
        BenchReport final_report = run_bench(config, *backend, cb);
        const bool cancelled = final_report.cancelled;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_report = std::make_shared<const BenchReport>(std::move(final_report));
        }
        m_state = cancelled ? State::Cancelled : State::Done;
    } catch (const std::exception& e) {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_error = e.what();
        }
        m_state = State::Failed;
    }
}

BenchProgress BenchJob::progress() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_progress;
}

std::shared_ptr<const BenchReport> BenchJob::report() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_report;
}

std::string BenchJob::error() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_error;
}

}  // namespace attnscope

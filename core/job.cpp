#include "core/job.h"

#include <new>

namespace attnscope {

const char* job_state_name(JobState state) {
    static const char* const names[] = {"queued", "running", "done", "cancelled", "failed"};
    return names[int(state)];
}

bool Job::finished() const {
    const JobState s = state();
    return s == JobState::Done || s == JobState::Cancelled || s == JobState::Failed;
}

std::string Job::error() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_error;
}

double Job::seconds() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_start == std::chrono::steady_clock::time_point{}) return 0;
    const auto end = finished() ? m_end : std::chrono::steady_clock::now();
    return std::chrono::duration<double>(end - m_start).count();
}

void Job::execute(JobContext& ctx) {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_start = std::chrono::steady_clock::now();
    }
    if (cancel_requested()) {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_end = m_start;
        m_state = JobState::Cancelled;
        return;
    }
    m_state = JobState::Running;
    JobState end = JobState::Done;
    std::string error;
    try {
        run(ctx);
        if (ctx.cancelled()) end = JobState::Cancelled;
    } catch (const std::bad_alloc&) {
        end = JobState::Failed, error = kind() + " ran out of memory: close other programs or choose smaller sizes";
    } catch (const std::exception& e) {
        end = JobState::Failed, error = e.what();
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    m_error = std::move(error);
    m_end = std::chrono::steady_clock::now();
    m_state = end;
}

}  // namespace attnscope

// attnscope — per-stage timers of a run batch (see stage_times.h).
#include "core/session/stage_times.h"

#include <time.h>

#include <chrono>

namespace attnscope {

namespace {
double wall_now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

StageClock::StageClock() { restart(); }

void StageClock::restart() {
    m_wall0 = wall_now_ms();
    m_cpu0 = thread_cpu_ms();
}

void StageClock::stop(const std::string& name, std::vector<StageTime>& out, bool reused) {
    const double w = wall_now_ms(), c = thread_cpu_ms();
    add_stage(out, StageTime{name, w - m_wall0, c - m_cpu0, reused});
    m_wall0 = w, m_cpu0 = c;
}

void StageClock::stop_into(StageTime& t) {
    const double w = wall_now_ms(), c = thread_cpu_ms();
    t.wall_ms += w - m_wall0, t.cpu_ms += c - m_cpu0;
    m_wall0 = w, m_cpu0 = c;
}

void add_stage(std::vector<StageTime>& stages, const StageTime& t) {
    for (StageTime& s : stages)
        if (s.name == t.name) {
            s.wall_ms += t.wall_ms, s.cpu_ms += t.cpu_ms, s.reused = s.reused && t.reused;
            return;
        }
    stages.push_back(t);
}

}  // namespace attnscope

#include "core/bench/timing.h"

#include <time.h>

#include <algorithm>
#include <numeric>

namespace attnscope {

double process_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

double work_cpu_ms() {
    double total = 0;
#pragma omp parallel reduction(+ : total)
    {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        total += double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
    }
    return total;
}

PairedRatio paired_ratio(const std::function<double()>& a, const std::function<double()>& b, int runs) {
    a(), b();  // warm-up: caches, page faults, thread-pool start-up
    std::vector<double> ta, tb, pair;
    for (int k = 0; k < std::max(1, runs); ++k) {
        ta.push_back(a());
        tb.push_back(b());
        pair.push_back(ta.back() > 0 ? tb.back() / ta.back() : 0.0);
    }
    PairedRatio r;
    r.a_median_ms = summarize_times(ta).median_ms, r.b_median_ms = summarize_times(tb).median_ms;
    r.ratio = r.a_median_ms > 0 ? r.b_median_ms / r.a_median_ms : 0.0;
    const TimingStats spread = summarize_times(pair);
    r.ratio_min = spread.min_ms, r.ratio_max = spread.max_ms;
    r.runs = static_cast<int>(ta.size());
    return r;
}

TimingStats summarize_times(const std::vector<double>& samples_ms) {
    TimingStats s;
    s.samples_ms = samples_ms;
    if (samples_ms.empty()) return s;
    std::vector<double> sorted = samples_ms;
    std::sort(sorted.begin(), sorted.end());
    const size_t k = sorted.size();
    s.median_ms = k % 2 ? sorted[k / 2] : 0.5 * (sorted[k / 2 - 1] + sorted[k / 2]);
    s.min_ms = sorted.front();
    s.max_ms = sorted.back();
    const double rank = 0.95 * double(k - 1);
    const size_t lo = size_t(rank);
    s.p95_ms = lo + 1 < k ? sorted[lo] + (rank - double(lo)) * (sorted[lo + 1] - sorted[lo]) : sorted[lo];
    s.mean_ms = std::accumulate(sorted.begin(), sorted.end(), 0.0) / double(k);
    return s;
}

TimingStats time_repeated(const std::function<double()>& run_once, const TimingPlan& plan,
                          const std::function<bool()>& should_stop, const std::function<void(int, int)>& on_run) {
    const int total = std::max(0, plan.warmup) + std::max(0, plan.runs);
    std::vector<double> samples;
    double warmup_ms = 0;
    int warmup_done = 0, done = 0;
    bool stopped = false;
    for (int call = 0; call < total; ++call) {
        if (should_stop && should_stop()) {
            stopped = true;
            break;
        }
        const double ms = run_once();
        if (call < plan.warmup) warmup_ms += ms, ++warmup_done;
        else samples.push_back(ms);
        ++done;
        if (on_run) on_run(done, total);
    }
    TimingStats s = summarize_times(samples);
    s.warmup_ms = warmup_ms;
    s.warmup = warmup_done;
    s.complete = !stopped && int(samples.size()) == std::max(0, plan.runs);
    return s;
}

std::vector<TimingStats> time_in_rounds(const std::vector<std::function<double()>>& runs, int rounds,
                                        const std::function<bool()>& proceed) {
    std::vector<std::vector<double>> samples(runs.size());
    // Each round starts one run later than the one before: the run after a heavy one finds cold caches, and a fixed
    // order would give that place (and its slowness) to the same run every round.
    for (size_t round = 0; round < size_t(std::max(0, rounds)); ++round)
        for (size_t i = 0; i < runs.size(); ++i) {
            const size_t k = (round + i) % runs.size();
            if (proceed && !proceed()) return {};
            samples[k].push_back(runs[k]());
        }
    std::vector<TimingStats> out;
    for (const std::vector<double>& s : samples) out.push_back(summarize_times(s));
    return out;
}

}  // namespace attnscope

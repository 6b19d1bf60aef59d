// attnscope — repeated wall-clock timing: warm-up runs, then the median of the timed runs with min and max.
// The clock is the caller's: `run_once` returns its own duration, so a fake can script the samples in tests
// and a real run can time exactly the part that matters (e.g. Variant::run without freeing the result).
#pragma once
#include <chrono>
#include <functional>
#include <vector>

namespace attnscope {

/// Summary of the timed runs of one benchmark point (warm-up runs excluded).
struct TimingStats {
    double median_ms = 0;             // median of samples (mean of the two middle ones for an even count)
    double min_ms = 0;                // fastest timed run
    double max_ms = 0;                // slowest timed run
    double mean_ms = 0;               // arithmetic mean of samples
    double p95_ms = 0;                // 95th percentile, linearly interpolated (so median ≤ p95 ≤ max always)
    double warmup_ms = 0;             // total duration of the warm-up runs
    int warmup = 0;                   // warm-up runs done
    std::vector<double> samples_ms;   // every timed run in order
    bool complete = false;            // false when stopped before all requested runs
};

/// How many runs to make.
struct TimingPlan {
    int warmup = 1;  // runs made and discarded first (caches, page faults, thread pool start-up)
    int runs = 5;    // timed runs summarised by the median
};

/// Median/p95/min/max/mean of `samples_ms` (may be empty: all zero). Sorting is done on a copy.
TimingStats summarize_times(const std::vector<double>& samples_ms);

/// Calls `run_once` plan.warmup + plan.runs times (it returns its own duration in ms) and summarises the
/// timed runs. `should_stop` (may be empty) is asked before each call; `on_run(done, total)` (may be empty)
/// after each call. Exceptions from run_once propagate.
TimingStats time_repeated(const std::function<double()>& run_once, const TimingPlan& plan,
                          const std::function<bool()>& should_stop = {},
                          const std::function<void(int, int)>& on_run = {});

/// Calls every `runs[i]` (it returns its own duration in ms) once per round for `rounds` rounds, round r starting at
/// run r mod size (so every run takes every place in a round), and summarises each one's samples; {} when `proceed`
/// (optional, asked before every call) says stop.
std::vector<TimingStats> time_in_rounds(const std::vector<std::function<double()>>& runs, int rounds,
                                        const std::function<bool()>& proceed = {});

/// Two workloads timed in alternation, so a slow phase of a shared machine hits both alike.
struct PairedRatio {
    double a_median_ms = 0, b_median_ms = 0;  // median time of one run of a and of b, on the caller's clock
    double ratio = 0;                         // b_median_ms / a_median_ms
    double ratio_min = 0, ratio_max = 0;      // spread of the per-pair ratios b_k / a_k
    int runs = 0;                             // timed pairs (after one warm-up of each)
};

/// Runs a, b, a, b, … (one warm-up of each first, then `runs` timed pairs; each returns the ms it measured) and
/// compares them: medians of each and the ratio of medians b/a, with the per-pair spread.
PairedRatio paired_ratio(const std::function<double()>& a, const std::function<double()>& b, int runs = 7);

/// CPU time consumed so far by the calling thread and the threads of the OpenMP team it starts, in ms (each one's
/// CLOCK_THREAD_CPUTIME_ID, read inside a parallel region of the default size: the team its work runs on).
double work_cpu_ms();

/// CPU time consumed so far by all threads of this process, in ms (CLOCK_PROCESS_CPUTIME_ID). On a shared
/// machine the CPU time of a run is a contention-robust companion to its wall time (spin-waits included).
double process_cpu_ms();

/// Wall-clock milliseconds taken by f().
template <class F>
double wall_ms(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace attnscope

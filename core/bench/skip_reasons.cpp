// attnscope — why a benchmark point is skipped before it runs: the memory it would need, the time budget it would
// exceed (see engine.h).
#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/bench/engine.h"
#include "core/format.h"

namespace attnscope {

namespace {

std::string seconds_text(double s) {
    std::ostringstream os;
    os.precision(3);
    os << s << " s";
    return os.str();
}

}  // namespace

std::string memory_skip_reason(int64_t need, int64_t available, const BenchConfig& c, const std::string& what) {
    if (available < 0) return "";
    const double usable = double(available) * (1.0 - c.memory_safety_fraction) - double(c.memory_safety_bytes);
    if (double(need) <= usable) return "";
    return what + " needs an estimated " + format_bytes(double(need)) + " but only " + format_bytes(std::max(0.0, usable)) +
           " may be used (" + format_bytes(double(available)) + " available, " +
           std::to_string(int(std::lround(c.memory_safety_fraction * 100))) + "% and " +
           format_bytes(double(c.memory_safety_bytes)) + " kept free); skipped before allocating";
}

std::string budget_skip_reason(const std::vector<const BenchPoint*>& earlier, int n, double budget_s,
                               const TimingPlan& plan, double flops_at_n) {
    if (budget_s <= 0 || earlier.empty()) return "";
    const BenchPoint& last = *earlier.back();
    double spent_ms = last.time.warmup_ms;
    for (double s : last.time.samples_ms) spent_ms += s;
    if (spent_ms > budget_s * 1e3)
        return "n = " + std::to_string(last.n) + " took " + seconds_text(spent_ms / 1e3) + " > budget " +
               seconds_text(budget_s) + " per point; larger n skipped (raise --budget-s to measure them)";
    double slope = 2.0;
    const char* source = "";
    if (flops_at_n > 0 && last.flops > 0 && n > last.n) {
        slope = std::clamp(std::log(flops_at_n / last.flops) / std::log(double(n) / last.n), 1.0, 3.0);
        source = ", the cost model's";
    }
    if (earlier.size() >= 2) {
        const BenchPoint& prev = *earlier[earlier.size() - 2];
        if (prev.time.median_ms > 0 && last.time.median_ms > 0 && last.n > prev.n)
            slope = std::log(last.time.median_ms / prev.time.median_ms) / std::log(double(last.n) / prev.n);
        slope = std::clamp(slope, 1.0, 3.0);
        source = ", measured";
    }
    const double per_run_ms = last.time.median_ms * std::pow(double(n) / last.n, slope);
    const double predicted_s = per_run_ms * (plan.warmup + plan.runs) / 1e3;
    if (predicted_s <= budget_s) return "";
    std::ostringstream os;
    os.precision(2);
    os << "predicted " << seconds_text(predicted_s) << " (" << plan.warmup + plan.runs << " runs, time ∝ n^" << slope
       << source << " from n = " << last.n << ") > budget " << seconds_text(budget_s) << " per point; skipped (raise --budget-s)";
    return os.str();
}

}  // namespace attnscope

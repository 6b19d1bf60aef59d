// attnscope — the benchmark engine: a sweep over variants and n that makes each input once, skips what will not
// fit or finish, and measures each point paired with the roof (see engine.h).
#include "core/bench/engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <new>
#include <set>
#include <sstream>

#include "core/memory.h"
#include "core/backend/interface/cost_meter.h"
#include "core/bench/memory_guard.h"
#include "core/variants/registry.h"
#include "core/bench/memory_probe.h"
#include "core/format.h"

namespace attnscope {

namespace {

std::string utc_now_iso() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

/// The roof a point's runs are paired with (none when pairing is off).
struct PairedRoof {
    RoofGemm* gemm = nullptr;
    RoofKind kind = RoofKind::Backend;
    std::string name;
};

/// Runs one measured point; fills timing, cost and memory or throws what the variant threw. With a roof, each
/// run (warm-ups included) comes right after one roof run.
void measure_point(const Variant& variant, const Heads& heads, const Params& resolved, const BenchConfig& config,
                   Backend& backend, const BenchCallbacks& cb, const std::function<void(int, int)>& on_run,
                   const PairedRoof& roof, BenchPoint& point) {
    // The plan (seeded draws, and Linformer's E, F from make_weights) is made here, like the inputs: not timed and
    // not in the peak, which measures what attention itself holds. A model would have them already.
    const std::unique_ptr<Plan> plan = variant.plan(heads, resolved, variant.make_weights(heads, resolved));
    std::optional<TimedExecution> last;
    std::vector<double> variant_ms, cpu_ms, wall_samples, device_samples, copy_samples, roof_wall, roof_cpu;
    int calls = 0;
    auto run_once = [&]() -> double {
        // Free the previous result outside the timed region and outside the memory scope.
        last.reset();
        if (roof.gemm) {
            const RoofSample s = roof.gemm->run(roof.kind);
            roof_wall.push_back(s.wall_ms), roof_cpu.push_back(s.cpu_ms);
        }
        const bool first = calls++ == 0;
        std::optional<ResidentPeakProbe> probe;
        if (first && config.rss_cross_check) probe.emplace();
        PeakMemoryScope scope;
        DeviceMeter device(backend);
        std::optional<TimedExecution> result;
        const double c0 = process_cpu_ms();
        // The algorithm alone: no analyse() (the metrics' bookkeeping) and no explain() (the views' matrices).
        const double wall = wall_ms([&] { result.emplace(execute_timed(variant, *plan, heads, backend)); });
        cpu_ms.push_back(process_cpu_ms() - c0);
        point.peak_bytes = std::max(point.peak_bytes, scope.peak_bytes());
        // On a device the sample is the backend's clock: CUDA events of the calls + wall clock of the host work.
        double ms = wall;
        if (device.active()) {
            ms = device.run_ms(wall);
            device_samples.push_back(device.device_ms());
            copy_samples.push_back(device.copy_ms());
            point.device_copy_bytes = device.copy_bytes();
            point.peak_device_bytes = std::max(point.peak_device_bytes, device.peak_device_bytes());
            point.clock = "cuda-events+host-wall";
        }
        wall_samples.push_back(wall);
        if (probe) {
            point.rss_peak_delta_bytes = probe->peak_delta_bytes();
            point.rss_exact_peak = probe->exact_peak();
        }
        variant_ms.push_back(result->cost.time_ms);
        point.variant_peak_bytes = std::max(point.variant_peak_bytes, result->cost.peak_bytes);
        last = std::move(result);
        return ms;
    };
    const TimingPlan timing = config.memory_only ? TimingPlan{0, 1} : config.plan;
    // On a device Q, K and V stay there across the point's runs (copied once, untimed), as a framework's tensors
    // would; O, and whatever a variant makes on the host, still cross in every run.
    const DeviceInputsScope resident(backend, {&heads.Q, &heads.K, &heads.V});
    point.time = time_repeated(run_once, timing, cb.cancel_requested, on_run);
    if (!last) return;
    point.flops = last->cost.flops;
    point.bytes = last->cost.bytes;
    point.output_bytes = last->execution->O.bytes();
    point.causal = plan->causal;
    // Variant's own timer: median of the timed runs only (the first entries are warm-ups).
    const size_t skip = std::min<size_t>(variant_ms.size(), point.time.warmup);
    point.variant_ms = summarize_times(std::vector<double>(variant_ms.begin() + skip, variant_ms.end())).median_ms;
    point.wall_median_ms = summarize_times(std::vector<double>(wall_samples.begin() + skip, wall_samples.end())).median_ms;
    if (!device_samples.empty())
        point.device_median_ms =
            summarize_times(std::vector<double>(device_samples.begin() + skip, device_samples.end())).median_ms;
    if (!copy_samples.empty())
        point.device_copy_median_ms =
            summarize_times(std::vector<double>(copy_samples.begin() + skip, copy_samples.end())).median_ms;
    point.cpu_ms = summarize_times(std::vector<double>(cpu_ms.begin() + skip, cpu_ms.end())).median_ms;
    if (roof.gemm && !config.memory_only && point.flops > 0) {
        auto timed = [skip](const std::vector<double>& v) {
            return std::vector<double>(v.begin() + std::min(skip, v.size()), v.end());
        };
        RoofShare share = paired_roof_share(point.flops, point.time.samples_ms, timed(cpu_ms), roof.gemm->flops(),
                                            timed(roof_wall), timed(roof_cpu));
        share.roof = roof.name;
        if (share.pairs > 0) point.roof_share = share;
    }
}

}  // namespace

// [SECTION] engine

BenchReport bench_report_header(const BenchConfig& c, const Backend& backend) {
    BenchReport report;
    report.date_utc = utc_now_iso();
    report.backend = backend.name();
    report.heads = c.heads, report.dim = c.dim, report.value_dim = c.value_dim > 0 ? c.value_dim : c.dim;
    report.data = scenario_id(c.data);
    report.plan = c.memory_only ? TimingPlan{0, 1} : c.plan;
    report.budget_s = c.budget_s;
    report.memory_only = c.memory_only;
    return report;
}

namespace {

/// The input Q, K, V of one n: made once, when the first variant at that n runs, and only if it fits.
struct InputAtN {
    std::optional<Heads> heads;
    std::string problem;   // why there is none ("" until tried, or when made)
    bool too_big = false;  // the problem is the memory guard's, not a failure
};

/// One sweep while it runs: the report being filled, the progress it reports and the roof each run is paired with.
class BenchSweep {
public:
    BenchSweep(const BenchConfig& config, Backend& backend, const BenchCallbacks& cb)
        : m_config(config), m_backend(backend), m_cb(cb), m_report(bench_report_header(config, backend)),
          m_dv(m_report.value_dim), m_total(static_cast<int>(config.ns.size() * config.variants.size())) {}

    BenchReport run();

private:
    void progress(const std::string& stage, double within) const;
    bool cancelled() const { return m_cb.cancel_requested && m_cb.cancel_requested(); }
    int64_t available_bytes() const {
        return m_config.available_bytes_override >= 0 ? m_config.available_bytes_override : available_memory_bytes();
    }
    /// Measures the machine's roofs (and holds the roof paired with each run) or only describes the machine.
    void machine_and_roof();
    /// Notes on what the figures mean on this system: no memory guard, a device's clock.
    void system_notes();
    /// Measures one variant at n, or says why not, into a finished point.
    void run_point(const BenchVariantSpec& spec, int n, InputAtN& input);
    /// The point's description before anything is run: its variant, shape and requested parameters.
    BenchPoint new_point(const BenchVariantSpec& spec, int n) const;
    /// Records the point with its status and reason, and tells the callbacks.
    void finish(BenchPoint& point, PointStatus status, std::string reason);
    /// Why the time budget skips this point ("" when it does not).
    std::string budget_skip(const Variant& variant, const BenchVariantSpec& spec, const BenchPoint& point);
    /// Makes the input of this n unless it was tried already; true when there is one.
    bool ensure_input(int n, int64_t input_bytes, InputAtN& input) const;
    /// Resolves the point's parameters on the input and estimates its peak memory; throws what the variant threw.
    void estimate_memory(const Variant& variant, const BenchVariantSpec& spec, const Heads& input, BenchPoint& point);
    /// Why the estimate does not fit in host (or device) memory ("" when it fits).
    std::string memory_shortfall(const Variant& variant, const BenchPoint& point) const;
    /// Times the point and finishes it: measured, or the failure, skip or cancellation the runs met.
    void measure(const Variant& variant, const Heads& input, BenchPoint& point);

    const BenchConfig& m_config;
    Backend& m_backend;
    const BenchCallbacks& m_cb;
    BenchReport m_report;
    const int m_dv;
    const int m_total;
    int m_done = 0;
    std::optional<RoofGemm> m_roof_gemm;  // held for the whole sweep: allocated once, outside every point's scope
    PairedRoof m_roof;
    std::map<std::string, std::vector<const BenchPoint*>> m_measured_by_label;
};

std::string point_name(const BenchPoint& point) { return point.label + " n=" + std::to_string(point.n); }

void BenchSweep::progress(const std::string& stage, double within) const {
    if (!m_cb.on_progress) return;
    BenchProgress p;
    p.points_done = m_done, p.points_total = m_total, p.stage = stage;
    p.fraction = m_total > 0 ? std::min(1.0, (m_done + within) / m_total) : 1.0;
    m_cb.on_progress(p);
}

void BenchSweep::machine_and_roof() {
    const BenchConfig& c = m_config;
    if (c.measure_machine && !cancelled()) {
        progress("machine: GEMM " + std::to_string(c.machine.gemm_size) + "² and triad", 0);
        m_report.machine = measure_machine(m_backend, c.machine);
        m_report.machine_measured = true;
        if (c.pair_roof && !c.memory_only) {
            m_roof_gemm.emplace(m_backend, c.machine.gemm_size);
            m_roof = {&*m_roof_gemm, m_report.machine.roof, m_report.machine.roof_name};
        }
    } else {
        m_report.machine = describe_machine(m_backend);
    }
}

void BenchSweep::system_notes() {
    if (m_config.available_bytes_override < 0 && available_memory_bytes() < 0)
        m_report.notes.push_back("MemAvailable is unknown on this system: the memory guard is off");
    if (m_backend.has_device())
        m_report.notes.push_back("device backend: time = CUDA events of the primitive calls + wall clock of the host work "
                                 "between them (wall_median_ms keeps the wall clock; device_copy_median_ms is the part of "
                                 "device_median_ms spent copying between host and device, the rest is the kernels and the "
                                 "gaps between them); memory.peak_device_bytes = tracked "
                                 "device allocations; estimates are also checked against free device memory");
}

BenchReport BenchSweep::run() {
    machine_and_roof();
    system_notes();
    m_report.points.reserve(m_total);  // pointers into points stay valid
    for (int n : m_config.ns) {
        InputAtN input;
        for (const BenchVariantSpec& spec : m_config.variants) run_point(spec, n, input);
    }
    fill_derived_figures(m_report);
    progress("done", 0);
    return std::move(m_report);
}

BenchPoint BenchSweep::new_point(const BenchVariantSpec& spec, int n) const {
    const BenchConfig& c = m_config;
    BenchPoint point;
    point.variant = spec.id;
    point.label = spec.label.empty() ? spec.id : spec.label;
    point.n = n, point.heads = c.heads, point.d = c.dim, point.dv = m_dv;
    point.params = spec.params;
    point.causal = spec.params.has("causal") && spec.params.get_bool("causal");
    point.input_bytes = input_bytes_for(c.heads, n, c.dim, m_dv);
    return point;
}

void BenchSweep::finish(BenchPoint& point, PointStatus status, std::string reason) {
    point.status = status;
    point.reason = std::move(reason);
    m_report.points.push_back(point);
    if (point.measured()) m_measured_by_label[point.label].push_back(&m_report.points.back());
    fill_derived_figures(m_report);  // cheap; lets on_point see ratios as they become known
    ++m_done;
    progress(point_name(point) + ": " + point_status_name(status), 0);
    if (m_cb.on_point) m_cb.on_point(m_report.points.back());
}

void BenchSweep::run_point(const BenchVariantSpec& spec, int n, InputAtN& input) {
    const Variant& variant = find_variant(spec.id);
    BenchPoint point = new_point(spec, n);
    if (cancelled()) {
        m_report.cancelled = true;
        finish(point, PointStatus::Cancelled, "cancelled before this point");
        return;
    }
    if (std::string why = budget_skip(variant, spec, point); !why.empty()) {
        finish(point, PointStatus::SkippedBudget, why);
        return;
    }
    if (!ensure_input(n, point.input_bytes, input)) {
        finish(point, input.too_big ? PointStatus::SkippedMemory : PointStatus::Failed, input.problem);
        return;
    }
    try {
        estimate_memory(variant, spec, *input.heads, point);
    } catch (const Error& e) {
        finish(point, PointStatus::Failed, e.what());
        return;
    }
    if (std::string why = memory_shortfall(variant, point); !why.empty()) {
        finish(point, PointStatus::SkippedMemory, why);
        return;
    }
    measure(variant, *input.heads, point);
}

std::string BenchSweep::budget_skip(const Variant& variant, const BenchVariantSpec& spec, const BenchPoint& point) {
    const BenchConfig& c = m_config;
    const int n = point.n;
    const TimingPlan plan = c.memory_only ? TimingPlan{0, 1} : c.plan;
    double flops_at_n = 0;  // the cost model's growth for the budget; a parameter error surfaces in the run
    try {
        flops_at_n = variant.estimate_flops(c.heads, n, c.dim, m_dv,
                                            variant.resolve(spec.params, Shape{c.heads, n, c.dim, m_dv}));
    } catch (const Error&) {
    }
    return budget_skip_reason(m_measured_by_label[point.label], n, c.budget_s, plan, flops_at_n);
}

bool BenchSweep::ensure_input(int n, int64_t input_bytes, InputAtN& input) const {
    const BenchConfig& c = m_config;
    if (!input.heads && input.problem.empty()) {
        input.problem = memory_skip_reason(input_bytes, available_bytes(), c, "the input Q, K, V");
        input.too_big = !input.problem.empty();
        if (!input.too_big) {
            progress("input n=" + std::to_string(n), 0);
            try {
                ScenarioSpec s;
                s.kind = c.data, s.n = n, s.heads = c.heads, s.dim = c.dim, s.value_dim = m_dv, s.seed = c.seed;
                input.heads = make_scenario(s);
            } catch (const Error& e) {
                input.problem = std::string("input: ") + e.what();
            } catch (const std::bad_alloc&) {
                input.problem = "input: out of memory while making Q, K, V";
            }
        }
    }
    return input.heads.has_value();
}

void BenchSweep::estimate_memory(const Variant& variant, const BenchVariantSpec& spec, const Heads& input,
                                 BenchPoint& point) {
    const BenchConfig& c = m_config;
    const int n = point.n;
    point.params = variant.resolve(spec.params, input.shape());
    point.causal = point.params.has("causal") && point.params.get_bool("causal");
    point.estimate_bytes = variant.estimate_peak_bytes(c.heads, n, c.dim, m_dv, point.params);
    point.estimate_is_default =
        point.estimate_bytes == variant.Variant::estimate_peak_bytes(c.heads, n, c.dim, m_dv, point.params);
    // Without an override, a point measured at a smaller n is a better guide than "an n×n matrix per
    // head": grow its measured peak quadratically (never an underestimate for a variant whose memory is
    // at most quadratic in n), and keep the smaller of the two.
    if (point.estimate_is_default) {
        const auto& seen = m_measured_by_label[point.label];
        if (!seen.empty() && seen.back()->n > 0 && seen.back()->n < n) {
            const double growth = double(n) / seen.back()->n;
            const auto extrapolated = static_cast<int64_t>(double(seen.back()->peak_bytes) * growth * growth);
            point.estimate_bytes = std::min(point.estimate_bytes, extrapolated);
        }
    }
}

std::string BenchSweep::memory_shortfall(const Variant& variant, const BenchPoint& point) const {
    const BenchConfig& c = m_config;
    if (std::string why = memory_skip_reason(point.estimate_bytes, available_bytes(), c, point.label); !why.empty()) {
        if (point.estimate_is_default) why += " (conservative default estimate: the variant does not override it)";
        return why;
    }
    // On a device backend the estimate must also fit in free device memory (checked before launch).
    return device_memory_shortfall(device_estimate_bytes(variant, c.heads, point.n, c.dim, m_dv, point.params), m_backend,
                                   point_name(point));
}

void BenchSweep::measure(const Variant& variant, const Heads& input, BenchPoint& point) {
    const std::string where = point_name(point);
    try {
        auto on_run = [&](int run, int runs) {
            progress(where + " run " + std::to_string(run) + "/" + std::to_string(runs), double(run) / runs);
        };
        measure_point(variant, input, point.params, m_config, m_backend, m_cb, on_run, m_roof, point);
    } catch (const DeviceMemoryError& e) {  // a primitive's own check before it allocated
        finish(point, PointStatus::SkippedMemory, e.what());
        return;
    } catch (const Error& e) {
        finish(point, PointStatus::Failed, e.what());
        return;
    } catch (const std::bad_alloc&) {
        finish(point, PointStatus::Failed, "out of memory during the run although the estimate fitted (estimate " +
                                               format_bytes(double(point.estimate_bytes)) + "): the variant's estimate is too low");
        return;
    }
    if (!point.time.complete) {
        m_report.cancelled = true;
        finish(point, PointStatus::Cancelled, "cancelled after " + std::to_string(point.time.samples_ms.size()) +
                                                  " timed runs");
        return;
    }
    finish(point, PointStatus::Measured, "");
}

}  // namespace

BenchReport run_bench(const BenchConfig& c, Backend& backend, const BenchCallbacks& cb) {
    validate_bench_config(c);
    return BenchSweep(c, backend, cb).run();
}

}  // namespace attnscope

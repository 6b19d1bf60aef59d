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

std::string seconds_text(double s) {
    std::ostringstream os;
    os.precision(3);
    os << s << " s";
    return os.str();
}

std::string utc_now_iso() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

int parse_positive(const std::string& token, const std::string& whole) {
    size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(token, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != token.size() || token.empty() || v < 1 || v > (1ll << 30))
        throw Error("n list '" + whole + "': '" + token +
                    "' is not a length in [1, 2^30]; use a list (1024,4096), a power-of-two range (1024:65536) or both");
    return static_cast<int>(v);
}

/// The measured `flash` / `full` point at this n and causality, if any.
const BenchPoint* find_reference(const BenchReport& report, const std::string& id, int n, bool causal) {
    for (const BenchPoint& p : report.points)
        if (p.variant == id && p.n == n && p.causal == causal && p.measured() && p.label == id) return &p;
    return nullptr;
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

RoofShare paired_roof_share(double flops, const std::vector<double>& run_wall_ms, const std::vector<double>& run_cpu_ms,
                            double roof_flops, const std::vector<double>& roof_wall_ms,
                            const std::vector<double>& roof_cpu_ms) {
    RoofShare r;
    const size_t pairs =
        std::min({run_wall_ms.size(), run_cpu_ms.size(), roof_wall_ms.size(), roof_cpu_ms.size()});
    if (pairs == 0 || flops <= 0 || roof_flops <= 0) return r;
    auto head = [pairs](const std::vector<double>& v) { return std::vector<double>(v.begin(), v.begin() + pairs); };
    // share = (flops / run_ms) / (roof_flops / roof_ms): the run's rate over the roof's rate.
    auto share = [&](double run_ms, double roof_ms) { return run_ms > 0 ? flops * roof_ms / (roof_flops * run_ms) : 0.0; };
    std::vector<double> per_wall, per_cpu;
    for (size_t k = 0; k < pairs; ++k) {
        per_wall.push_back(share(run_wall_ms[k], roof_wall_ms[k]));
        per_cpu.push_back(share(run_cpu_ms[k], roof_cpu_ms[k]));
    }
    const double run_wall = summarize_times(head(run_wall_ms)).median_ms, run_cpu = summarize_times(head(run_cpu_ms)).median_ms;
    const double roof_wall = summarize_times(head(roof_wall_ms)).median_ms, roof_cpu = summarize_times(head(roof_cpu_ms)).median_ms;
    r.pairs = static_cast<int>(pairs);
    r.roof_gflops = roof_wall > 0 ? roof_flops / (roof_wall * 1e6) : 0;
    r.roof_gflops_per_cpu = roof_cpu > 0 ? roof_flops / (roof_cpu * 1e6) : 0;
    r.wall = share(run_wall, roof_wall), r.cpu = share(run_cpu, roof_cpu);
    const TimingStats w = summarize_times(per_wall), c = summarize_times(per_cpu);
    r.wall_min = w.min_ms, r.wall_max = w.max_ms, r.cpu_min = c.min_ms, r.cpu_max = c.max_ms;
    return r;
}

// [SECTION] configuration

void validate_bench_config(const BenchConfig& c) {
    if (c.variants.empty()) throw Error("no variant to benchmark: pass --variants ID[,ID...] (see `attnscope variants`)");
    if (c.ns.empty()) throw Error("no sequence length to benchmark: pass --n (e.g. 1024:65536)");
    for (int n : c.ns)
        if (n < 1) throw Error("n = " + std::to_string(n) + " is not a sequence length: use n ≥ 1");
    if (!std::is_sorted(c.ns.begin(), c.ns.end()))
        throw Error("the n list must be ascending (the time budget skips larger n once a point is too slow)");
    if (c.heads < 1 || c.dim < 1 || c.value_dim < 0)
        throw Error("heads " + std::to_string(c.heads) + ", dim " + std::to_string(c.dim) + ", value dim " +
                    std::to_string(c.value_dim) + ": use heads ≥ 1, dim ≥ 1, value dim ≥ 0 (0 = dim)");
    if (c.plan.runs < 1 || c.plan.warmup < 0)
        throw Error("runs " + std::to_string(c.plan.runs) + ", warm-up " + std::to_string(c.plan.warmup) +
                    ": use at least 1 timed run (5 or more for a meaningful median) and warm-up ≥ 0");
    if (!(c.memory_safety_fraction >= 0 && c.memory_safety_fraction < 1))
        throw Error("memory safety fraction must be in [0, 1)");
    std::set<std::string> labels;
    for (const BenchVariantSpec& v : c.variants) {
        find_variant(v.id);  // throws with the registered ids
        const std::string label = v.label.empty() ? v.id : v.label;
        if (!labels.insert(label).second)
            throw Error("variant '" + label + "' is listed twice: give each sweep entry a distinct label");
    }
}

// [SECTION] points and report

const char* point_status_name(PointStatus s) {
    switch (s) {
        case PointStatus::Measured: return "measured";
        case PointStatus::SkippedMemory: return "skipped-memory";
        case PointStatus::SkippedBudget: return "skipped-budget";
        case PointStatus::Failed: return "failed";
        case PointStatus::Cancelled: return "cancelled";
    }
    return "unknown";
}

// [SECTION] helpers

std::vector<int> parse_n_list(const std::string& text) {
    std::vector<int> out;
    std::stringstream items(text);
    std::string item;
    while (std::getline(items, item, ',')) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (item.empty()) continue;
        const auto colon = item.find(':');
        if (colon == std::string::npos) {
            out.push_back(parse_positive(item, text));
            continue;
        }
        const int lo = parse_positive(item.substr(0, colon), text), hi = parse_positive(item.substr(colon + 1), text);
        if (lo > hi)
            throw Error("n range '" + item + "' runs backwards: write the smaller length first (e.g. 1024:65536)");
        for (long long n = lo; n <= hi; n *= 2) out.push_back(static_cast<int>(n));
    }
    if (out.empty())
        throw Error("n list '" + text + "' is empty: use a list (1024,4096), a power-of-two range (1024:65536) or both");
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

int64_t input_bytes_for(int heads, int n, int d, int dv) {
    // Q, K (H, n, d), V (H, n, dv) and the scenario's X = V of head 0, (1, n, dv).
    return int64_t(sizeof(float)) * n * (int64_t(heads) * (2ll * d + dv) + dv);
}

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

void fill_derived_figures(BenchReport& r) {
    const MachineFigures& m = r.machine;
    for (BenchPoint& p : r.points) {
        p.speedup_vs_flash.reset();
        p.memory_saving_vs_full.reset();
        p.memory_ref_estimated = false;
        if (!p.measured() || p.time.median_ms <= 0) continue;
        const double seconds = p.time.median_ms / 1e3;
        p.gflops = p.flops / seconds / 1e9;
        p.gbs = p.bytes / seconds / 1e9;
        p.intensity = p.bytes > 0 ? p.flops / p.bytes : 0;
        if (p.roof_share) {
            p.gemm_fraction = p.roof_share->wall, p.cpu_gemm_fraction = p.roof_share->cpu;
            p.roofline_gflops = std::min(p.roof_share->roof_gflops, p.intensity * m.triad_gbs);
            p.roofline_fraction = p.roofline_gflops > 0 ? p.gflops / p.roofline_gflops : 0;
        } else if (r.machine_measured && m.gemm_gflops > 0) {
            p.gemm_fraction = p.gflops / m.gemm_gflops;
            p.roofline_gflops = std::min(m.gemm_gflops, p.intensity * m.triad_gbs);
            p.roofline_fraction = p.roofline_gflops > 0 ? p.gflops / p.roofline_gflops : 0;
            if (m.gemm_gflops_per_cpu > 0 && p.cpu_ms > 0)
                p.cpu_gemm_fraction = p.flops / (p.cpu_ms * 1e6) / m.gemm_gflops_per_cpu;
        }
        if (const BenchPoint* flash = find_reference(r, "flash", p.n, p.causal))
            p.speedup_vs_flash = flash->time.median_ms / p.time.median_ms;
        if (p.peak_bytes > 0) {
            if (const BenchPoint* full = find_reference(r, "full", p.n, p.causal); full && full->peak_bytes > 0) {
                p.memory_saving_vs_full = double(full->peak_bytes) / double(p.peak_bytes);
            } else {
                // full's estimate is exact (O + P), so the saving is still meaningful where full was not run.
                for (const auto& v : all_variants())
                    if (v->info().id == "full") {
                        Params fp = default_params(v->info().params);
                        fp.set("causal", p.causal ? 1 : 0);
                        p.memory_saving_vs_full = double(v->estimate_peak_bytes(p.heads, p.n, p.d, p.dv, fp)) /
                                                  double(p.peak_bytes);
                        p.memory_ref_estimated = true;
                    }
            }
        }
    }
}

std::vector<SlopeFit> fit_slopes(const BenchReport& r, int n_min, int n_max) {
    std::vector<std::string> labels;
    for (const BenchPoint& p : r.points)
        if (std::find(labels.begin(), labels.end(), p.label) == labels.end()) labels.push_back(p.label);
    std::vector<SlopeFit> out;
    for (const std::string& label : labels) {
        std::vector<double> x, t, m;
        SlopeFit f;
        f.label = label;
        for (const BenchPoint& p : r.points) {
            if (p.label != label || !p.measured() || p.n < n_min || p.n > n_max || p.time.median_ms <= 0) continue;
            x.push_back(std::log(double(p.n)));
            t.push_back(std::log(p.time.median_ms));
            m.push_back(std::log(double(std::max<int64_t>(1, p.peak_bytes))));
            f.n_lo = f.n_lo ? std::min(f.n_lo, p.n) : p.n;
            f.n_hi = std::max(f.n_hi, p.n);
            f.max_spread = std::max(f.max_spread, (p.time.max_ms - p.time.min_ms) / p.time.median_ms);
        }
        f.points = static_cast<int>(x.size());
        if (f.points < 2 || f.n_lo == f.n_hi) continue;
        auto slope = [&](const std::vector<double>& y) {
            const double k = double(x.size());
            double sx = 0, sy = 0, sxx = 0, sxy = 0;
            for (size_t i = 0; i < x.size(); ++i) sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
            return (k * sxy - sx * sy) / (k * sxx - sx * sx);
        };
        f.time_slope = slope(t);
        f.memory_slope = slope(m);
        out.push_back(f);
    }
    return out;
}

std::string params_summary(const std::string& variant_id, const Params& params) {
    std::string s;
    const VariantInfo& info = find_variant(variant_id).info();
    const Params defaults = default_params(info.params);
    for (const ParamSpec& spec : info.params) {
        if (spec.auto_default || !params.has(spec.name)) continue;
        if (defaults.has(spec.name) && spec.kind != ParamKind::IntList && defaults.get(spec.name) == params.get(spec.name))
            continue;
        if (spec.kind == ParamKind::IntList && defaults.has(spec.name) &&
            defaults.get_list(spec.name) == params.get_list(spec.name))
            continue;
        s += (s.empty() ? "" : " ") + spec.name + "=" + params.value_text(spec);
    }
    return s;
}

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

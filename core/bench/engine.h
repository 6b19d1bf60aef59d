// attnscope — the benchmark engine: sweeps of registered variants over n, each point timed (warm-up, then
// median/min/max of ≥ 5 wall-clock runs), its analytic FLOPs and bytes taken from the variant's cost model,
// its peak tracked bytes measured (cross-checked by the resident-set growth), and the machine's own GEMM
// and bandwidth roofs measured in the same run so every figure is also a ratio. The GEMM roof is also run
// before every run of every point (roof, run, roof, run, …): a share of the roof is a ratio of paired medians,
// so a slow phase of a shared machine that hits the variant hits its roof too.
// Guards: a memory estimate is checked *before* anything is allocated (input, then each variant's
// estimate_peak_bytes), and a per-point time budget skips larger n once a point is (or would be) too slow;
// both say why. The CLI (`attnscope bench`) and the GUI's performance panel call run_bench(), the GUI on
// its worker thread with progress and cancellation callbacks.
//
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/backend/interface/backend.h"
#include "core/data/scenarios.h"
#include "core/variants/variant.h"
#include "core/bench/machine.h"
#include "core/bench/timing.h"

namespace attnscope {

/// One variant to sweep, with the user's parameter assignments.
struct BenchVariantSpec {
    std::string id;     // registered variant id
    Params params;      // validated values (auto defaults unset; resolved per n)
    std::string label;  // name in tables, unique per sweep, e.g. "linformer[k=256]"; the id when empty
};

/// Everything a sweep needs.
struct BenchConfig {
    std::vector<BenchVariantSpec> variants;  // what to measure, in table order
    std::vector<int> ns;                     // sequence lengths, ascending
    int heads = 8;                           // H
    int dim = 64;                            // d
    int value_dim = 0;                       // dv (0 = d)
    ScenarioKind data = ScenarioKind::Gaussian;  // input scenario (timing hardly depends on it)
    uint64_t seed = 0;                       // scenario seed
    TimingPlan plan{1, 5};                   // warm-up and timed runs per point
    double budget_s = 20;                    // per point; larger n of a variant are skipped past it (≤ 0: none).
                                             // It acts from a variant's second point on: start sweeps small.
    bool measure_machine = true;             // measure the GEMM and triad roofs first
    bool pair_roof = true;                   // and run the GEMM roof before every run of every point (needs
                                             // measure_machine; costs one roof GEMM per run)
    MachineOptions machine;                  // how to measure them
    int64_t available_bytes_override = -1;   // ≥ 0: use instead of MemAvailable (tests, "pretend less")
    double memory_safety_fraction = 0.15;    // keep this share of available memory free
    int64_t memory_safety_bytes = 512ll << 20;  // and at least this many bytes
    bool rss_cross_check = true;             // measure resident-set growth on the warm-up run
    bool memory_only = false;                // one cold run per point (memory figures; its time is no median)
};

/// Throws Error naming the bad field and what to do (no variants, n ≤ 0, runs < 1, ...).
void validate_bench_config(const BenchConfig& config);

/// What happened to one (variant, n) point.
enum class PointStatus {
    Measured,       // timed and measured
    SkippedMemory,  // the estimate would not fit in available memory; nothing was allocated
    SkippedBudget,  // an earlier point of this variant took (or this one would take) longer than the budget
    Failed,         // the variant threw (bad parameters for this n, refused size, ...)
    Cancelled,      // the caller cancelled before or during the point
};
/// "measured", "skipped-memory", "skipped-budget", "failed", "cancelled".
const char* point_status_name(PointStatus status);

/// A point's share of the compute roof, from roof runs interleaved with its own (roof, run, roof, run, …).
struct RoofShare {
    std::string roof;                 // which SGEMM ("openblas", "eigen", "cublas")
    int pairs = 0;                    // timed (roof, run) pairs
    double roof_gflops = 0;           // the roof's median wall GFLOP/s during this point
    double roof_gflops_per_cpu = 0;   // and its GFLOP per CPU-second
    double wall = 0;                  // the point's rate / the roof's, from the medians of the paired wall times
    double wall_min = 0, wall_max = 0;  // spread of the per-pair shares
    double cpu = 0;                   // the same in process CPU time (robust to other processes)
    double cpu_min = 0, cpu_max = 0;  // spread of the per-pair CPU-time shares
    /// A share above 100% cannot be a result: the roof ran slower than the machine can (a slow phase hit it).
    bool fault() const { return wall > 1.0 || cpu > 1.0; }
};

/// The paired share of `flops` per run against a roof of `roof_flops` per run, from samples taken in alternation
/// (pair k = roof_ms[k], run_ms[k]); pairs beyond the shorter list are ignored. Zero pairs when either is empty.
RoofShare paired_roof_share(double flops, const std::vector<double>& run_wall_ms, const std::vector<double>& run_cpu_ms,
                            double roof_flops, const std::vector<double>& roof_wall_ms,
                            const std::vector<double>& roof_cpu_ms);

/// One (variant, n) point: measurements, the variant's analytic cost and ratios to the machine.
struct BenchPoint {
    std::string variant;           // variant id
    std::string label;             // display label (unique in the sweep)
    int n = 0, heads = 0, d = 0, dv = 0;
    Params params;                 // resolved values used (user values only when not resolved)
    bool causal = false;           // the run was causal
    PointStatus status = PointStatus::Measured;
    std::string reason;            // why skipped/failed; empty when measured
    TimingStats time;              // execute_timed() of a plan made beforehand, warm-up excluded: wall clock on the CPU, on a
                                   // device CUDA events of the primitive calls + wall clock of the host work between
    double variant_ms = 0;         // median of execute_timed()'s CostMeter time (the backend's clock)
    double cpu_ms = 0;             // median process CPU time of a timed run (all threads; robust to sharing)
    double flops = 0;              // analytic FLOPs of one run (RunResult::cost.flops)
    double bytes = 0;              // analytic bytes moved by one run (RunResult::cost.bytes)
    int64_t input_bytes = 0;       // Q, K, V (and X) held before the run, not counted in peak_bytes
    int64_t estimate_bytes = 0;    // Variant::estimate_peak_bytes, checked before running
    bool estimate_is_default = false;  // the variant uses the conservative default estimate
    int64_t peak_bytes = 0;        // peak tracked bytes over the whole run() (outputs included)
    int64_t variant_peak_bytes = 0;    // the variant's own CostMeter peak (compute part only)
    int64_t output_bytes = 0;      // bytes of O
    int64_t rss_peak_delta_bytes = -1; // resident-set growth during the warm-up run (-1 unknown)
    bool rss_exact_peak = false;   // the kernel's high-water mark was reset, so the delta is a peak
    std::string clock = "wall";    // "wall" (CPU) or "cuda-events+host-wall" (device backend)
    double wall_median_ms = 0;     // median wall clock of the timed runs (= time.median_ms on the CPU)
    double device_median_ms = 0;   // median CUDA-event time of the primitive calls of a timed run (0 on the CPU)
    double device_copy_median_ms = 0;  // the part of it spent in host↔device copies (an event pair each; 0 on the
                                       // CPU); device_median_ms − this = the kernels and the idle gaps between them
    int64_t device_copy_bytes = 0;     // bytes those copies moved in one run
    int64_t peak_device_bytes = 0; // peak tracked device bytes over the whole run() (0 on the CPU)
    // Derived from the machine figures of the same run (fill_derived_figures).
    std::optional<RoofShare> roof_share;  // paired with the roof run before each run (pair_roof); else none
    double gflops = 0;             // flops / median time
    double gemm_fraction = 0;      // share of the GEMM roof: the paired wall share when roof_share, else gflops / the
                                   // roof measured at the start
    double cpu_gemm_fraction = 0;  // the same in CPU time: roof_share->cpu, else per CPU-second of the start's roof
    double gbs = 0;                // analytic bytes / median time, GB/s
    double intensity = 0;          // flops per byte (the roofline x axis)
    double roofline_gflops = 0;    // min(GEMM rate, intensity × triad bandwidth)
    double roofline_fraction = 0;  // gflops / roofline_gflops
    std::optional<double> speedup_vs_flash;       // flash median / this median (same n, same causality)
    std::optional<double> memory_saving_vs_full;  // full's peak / this peak (same n, same causality)
    bool memory_ref_estimated = false;            // full's peak is its (exact) estimate: full was not run
    /// Extra memory beyond the output: peak_bytes − output_bytes.
    int64_t extra_bytes() const { return peak_bytes - output_bytes; }
    bool measured() const { return status == PointStatus::Measured; }
};

/// A whole sweep: machine figures, the configuration summary and every point (skipped ones included).
struct BenchReport {
    std::string date_utc;            // ISO 8601, when the sweep started
    MachineFigures machine;          // roofs measured in this run (zeros when not measured)
    bool machine_measured = false;   // machine figures are real
    std::string backend;             // backend name
    int heads = 0, dim = 0, value_dim = 0;
    std::string data;                // scenario id
    TimingPlan plan;                 // runs per point
    double budget_s = 0;             // per-point budget
    bool memory_only = false;        // one cold run per point: memory figures only
    std::vector<BenchPoint> points;  // in (n, variant) order
    bool cancelled = false;          // the caller cancelled the sweep
    std::vector<std::string> notes;  // e.g. "MemAvailable unknown: memory guard off"
};

/// Progress of a sweep, for a progress bar.
struct BenchProgress {
    int points_done = 0, points_total = 0;  // points finished (any status) / all points
    std::string stage;                      // "machine: GEMM + triad", "flash n=4096 run 3/6", ...
    double fraction = 0;                    // 0..1 overall
};

/// Hooks for a caller on another thread (GUI worker) or a terminal; all may be empty.
struct BenchCallbacks {
    std::function<void(const BenchProgress&)> on_progress;  // called often; keep it cheap
    std::function<void(const BenchPoint&)> on_point;        // every finished point, in order
    std::function<bool()> cancel_requested;                 // polled between runs; true stops the sweep
};

/// Runs the sweep on `backend`. Throws Error only for a bad configuration (unknown variant, bad n list);
/// a point that fails or would not fit is recorded with its reason and the sweep goes on.
/// Peak bytes come from the process-wide tracked counters: nothing else should allocate tensors while it
/// runs (the GUI pauses its run worker while its performance panel sweeps).
BenchReport run_bench(const BenchConfig& config, Backend& backend, const BenchCallbacks& callbacks = {});

/// A report with the run's description (date, backend, shapes, plan) and no points yet: what run_bench() starts from.
BenchReport bench_report_header(const BenchConfig& config, const Backend& backend);

/// Parses "4096", "1024,2048", "1024:65536" (powers of two from the first to the last: each value
/// doubled until past the end) or a mix "512,1024:8192"; sorted, duplicates removed. Throws Error with the
/// accepted forms on anything else.
std::vector<int> parse_n_list(const std::string& text);

/// Bytes Q, K, V (and the scenario's X) of this shape take.
int64_t input_bytes_for(int heads, int n, int d, int dv);

/// Why `need_bytes` would not fit in `available_bytes` (< 0: unknown, always fits) after the safety
/// margin of `config`, or "" when it fits. `what` names the allocation in the message.
std::string memory_skip_reason(int64_t need_bytes, int64_t available_bytes, const BenchConfig& config,
                               const std::string& what);

/// Why a point at `n` should be skipped given the same label's earlier *measured* points (ascending n),
/// or "" to run it: an earlier point already took longer than the budget, or the time predicted from the
/// last point would exceed it. The growth exponent comes from the last two points; with one point, from the
/// variant's analytic FLOPs at n (`flops_at_n`, against the point's own) when given, else 2; clamped to [1, 3].
std::string budget_skip_reason(const std::vector<const BenchPoint*>& earlier, int n, double budget_s,
                               const TimingPlan& plan, double flops_at_n = 0);

/// Fills GFLOP/s, ratios to the machine and the speed-up / memory saving against flash / full.
void fill_derived_figures(BenchReport& report);

/// Least-squares slope of log(time) and log(peak bytes) against log(n) over one label's measured points.
struct SlopeFit {
    std::string label;        // the variant label
    int n_lo = 0, n_hi = 0;   // range of n actually fitted
    int points = 0;           // measured points used (a slope needs ≥ 2)
    double time_slope = 0;    // ≈ 2 for quadratic, ≈ 1 for linear variants
    double memory_slope = 0;  // same for the peak tracked bytes
    double max_spread = 0;    // largest (max − min) / median of the timed runs among the fitted points (noise)
};
/// One fit per label with ≥ 2 measured points in [n_min, n_max].
std::vector<SlopeFit> fit_slopes(const BenchReport& report, int n_min = 0, int n_max = 1 << 30);

/// "name=value" of the parameters that differ from the card's defaults (auto ones shown when set).
std::string params_summary(const std::string& variant_id, const Params& params);

}  // namespace attnscope

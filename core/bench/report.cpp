#include "core/bench/report.h"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "core/csv.h"

namespace attnscope {

namespace {

constexpr double kMiB = 1048576.0;

nlohmann::json optional_number(const std::optional<double>& v) {
    if (!v || !std::isfinite(*v)) return nullptr;
    return *v;
}

nlohmann::json params_json(const Params& p) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, value] : p.numbers()) j[name] = value;
    for (const auto& [name, value] : p.lists()) j[name] = value;
    return j;
}

std::string number_text(double v, int precision = 6) {
    if (!std::isfinite(v)) return "";
    std::ostringstream os;
    os << std::setprecision(precision) << v;
    return os.str();
}

std::string fixed(double v, int decimals) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(decimals) << v;
    return os.str();
}

/// A share of the roof as a percentage, or "fault" when it is above 100% (never a result).
std::string share_text(double share, bool fault) { return fault ? "fault" : fixed(100 * share, 1); }

nlohmann::json roof_share_json(const std::optional<RoofShare>& r) {
    if (!r) return nullptr;
    return {{"name", r->roof},         {"pairs", r->pairs},           {"roof_gflops", r->roof_gflops},
            {"roof_gflops_per_cpu_second", r->roof_gflops_per_cpu},
            {"share_wall", r->wall},   {"share_wall_min", r->wall_min}, {"share_wall_max", r->wall_max},
            {"share_cpu", r->cpu},     {"share_cpu_min", r->cpu_min},   {"share_cpu_max", r->cpu_max},
            {"fault", r->fault()}};
}

std::string params_text(const Params& p) {
    std::string s;
    for (const auto& [name, value] : p.numbers()) s += (s.empty() ? "" : " ") + name + "=" + number_text(value);
    for (const auto& [name, value] : p.lists()) {
        s += (s.empty() ? "" : " ") + name + "=";
        for (size_t i = 0; i < value.size(); ++i) s += (i ? ";" : "") + std::to_string(value[i]);
    }
    return s;
}

}  // namespace

nlohmann::json bench_report_to_json(const BenchReport& r) {
    const MachineFigures& m = r.machine;
    nlohmann::json machine = {{"measured", r.machine_measured},
                              {"cpu_model", m.cpu_model},
                              {"kernel_isa", m.kernel_isa},
                              {"blas_core", m.blas_core},
                              {"logical_cpus", m.logical_cpus},
                              {"threads", m.threads},
                              {"total_memory_bytes", m.total_memory_bytes},
                              {"backend", m.backend},
                              {"gemm", {{"size", m.gemm_size}, {"roof", m.roof_name}, {"backend_gemm", m.backend_gemm_name}, {"gflops", m.gemm_gflops},
                                        {"gflops_best", m.gemm_gflops_best}, {"gflops_per_cpu_second", m.gemm_gflops_per_cpu},
                                        {"backend_gflops", m.backend_gemm_gflops},
                                        {"backend_gflops_per_cpu_second", m.backend_gemm_gflops_per_cpu},
                                        {"openblas_gflops", m.openblas_gflops},
                                        {"openblas_gflops_per_cpu_second", m.openblas_gflops_per_cpu}}},
                              {"triad", {{"floats", m.triad_floats}, {"gbs", m.triad_gbs}, {"gbs_best", m.triad_gbs_best}}}};
    // On a device: cuBLAS on resident operands per precision, by CUDA events and by the host's wall clock.
    nlohmann::json device_roofs = nlohmann::json::array();
    for (const DeviceGemmRoof& d : m.device_gemm_roofs)
        device_roofs.push_back({{"precision", gemm_precision_name(d.precision)}, {"gflops", d.gflops},
                                {"wall_gflops", d.wall_gflops}});
    machine["gemm"]["device_resident"] = device_roofs;
    nlohmann::json points = nlohmann::json::array();
    for (const BenchPoint& p : r.points) {
        points.push_back({{"variant", p.variant},
                          {"label", p.label},
                          {"n", p.n},
                          {"heads", p.heads},
                          {"dim", p.d},
                          {"value_dim", p.dv},
                          {"causal", p.causal},
                          {"params", params_json(p.params)},
                          {"status", point_status_name(p.status)},
                          {"reason", p.reason},
                          {"time_ms",
                           {{"median", p.time.median_ms},
                            {"min", p.time.min_ms},
                            {"max", p.time.max_ms},
                            {"mean", p.time.mean_ms},
                            {"samples", p.time.samples_ms},
                            {"warmup_runs", p.time.warmup},
                            {"warmup_total", p.time.warmup_ms}}},
                          {"variant_ms", p.variant_ms},
                          {"cpu_ms", p.cpu_ms},
                          {"flops", p.flops},
                          {"bytes", p.bytes},
                          {"gflops", p.gflops},
                          {"gemm_fraction", p.gemm_fraction},
                          {"cpu_gemm_fraction", p.cpu_gemm_fraction},
                          {"roof", roof_share_json(p.roof_share)},
                          {"gbs", p.gbs},
                          {"intensity", p.intensity},
                          {"roofline_gflops", p.roofline_gflops},
                          {"roofline_fraction", p.roofline_fraction},
                          {"memory",
                           {{"peak_bytes", p.peak_bytes},
                            {"extra_bytes", p.extra_bytes()},
                            {"output_bytes", p.output_bytes},
                            {"input_bytes", p.input_bytes},
                            {"variant_peak_bytes", p.variant_peak_bytes},
                            {"estimate_bytes", p.estimate_bytes},
                            {"estimate_is_default", p.estimate_is_default},
                            {"rss_peak_delta_bytes", p.rss_peak_delta_bytes},
                            {"rss_exact_peak", p.rss_exact_peak},
                            {"peak_device_bytes", p.peak_device_bytes}}},
                          {"clock", p.clock},
                          {"wall_median_ms", p.wall_median_ms},
                          {"device_median_ms", p.device_median_ms},
                          {"device_copy_median_ms", p.device_copy_median_ms},
                          {"device_copy_bytes", p.device_copy_bytes},
                          {"speedup_vs_flash", optional_number(p.speedup_vs_flash)},
                          {"memory_saving_vs_full", optional_number(p.memory_saving_vs_full)},
                          {"memory_ref_estimated", p.memory_ref_estimated}});
    }
    nlohmann::json slopes = nlohmann::json::array();
    for (const SlopeFit& f : fit_slopes(r))
        slopes.push_back({{"label", f.label}, {"n_lo", f.n_lo}, {"n_hi", f.n_hi}, {"points", f.points},
                          {"time_slope", f.time_slope}, {"memory_slope", f.memory_slope}});
    return {{"schema", kBenchSchema},
            {"date_utc", r.date_utc},
            {"backend", r.backend},
            {"machine", machine},
            {"config",
             {{"heads", r.heads},
              {"dim", r.dim},
              {"value_dim", r.value_dim},
              {"data", r.data},
              {"warmup", r.plan.warmup},
              {"runs", r.plan.runs},
              {"budget_s", r.budget_s},
              {"memory_only", r.memory_only}}},
            {"points", points},
            {"slopes", slopes},
            {"cancelled", r.cancelled},
            {"notes", r.notes}};
}

const std::vector<std::string>& bench_csv_columns() {
    static const std::vector<std::string> columns = {
        "variant", "label", "n", "heads", "dim", "value_dim", "causal", "status", "median_ms", "min_ms", "max_ms",
        "mean_ms", "runs", "variant_ms", "cpu_ms", "flops", "bytes", "gflops", "gemm_fraction", "cpu_gemm_fraction",
        "gbs", "intensity",
        "roofline_fraction", "peak_bytes", "extra_bytes", "output_bytes", "estimate_bytes", "rss_peak_delta_bytes",
        "speedup_vs_flash", "memory_saving_vs_full", "machine_gemm_gflops", "machine_triad_gbs", "roof", "roof_pairs",
        "roof_share_wall_min", "roof_share_wall_max", "roof_share_cpu_min", "roof_share_cpu_max", "roof_fault", "params",
        "reason"};
    return columns;
}

std::string bench_report_to_csv(const BenchReport& r) {
    std::ostringstream os;
    const auto& columns = bench_csv_columns();
    os << csv_record(columns);
    for (const BenchPoint& p : r.points) {
        const bool m = p.measured();
        const std::vector<std::string> row = {
            p.variant, p.label, std::to_string(p.n), std::to_string(p.heads), std::to_string(p.d), std::to_string(p.dv),
            p.causal ? "1" : "0", point_status_name(p.status),
            m ? number_text(p.time.median_ms) : "", m ? number_text(p.time.min_ms) : "",
            m ? number_text(p.time.max_ms) : "", m ? number_text(p.time.mean_ms) : "",
            std::to_string(p.time.samples_ms.size()), m ? number_text(p.variant_ms) : "",
            m ? number_text(p.cpu_ms) : "", m ? number_text(p.flops) : "", m ? number_text(p.bytes) : "",
            m ? number_text(p.gflops) : "", m ? number_text(p.gemm_fraction) : "",
            m ? number_text(p.cpu_gemm_fraction) : "", m ? number_text(p.gbs) : "", m ? number_text(p.intensity) : "",
            m ? number_text(p.roofline_fraction) : "", m ? std::to_string(p.peak_bytes) : "",
            m ? std::to_string(p.extra_bytes()) : "", m ? std::to_string(p.output_bytes) : "",
            std::to_string(p.estimate_bytes), m ? std::to_string(p.rss_peak_delta_bytes) : "",
            p.speedup_vs_flash ? number_text(*p.speedup_vs_flash) : "",
            p.memory_saving_vs_full ? number_text(*p.memory_saving_vs_full) : "",
            number_text(r.machine.gemm_gflops), number_text(r.machine.triad_gbs),
            p.roof_share ? p.roof_share->roof : "", p.roof_share ? std::to_string(p.roof_share->pairs) : "",
            p.roof_share ? number_text(p.roof_share->wall_min) : "", p.roof_share ? number_text(p.roof_share->wall_max) : "",
            p.roof_share ? number_text(p.roof_share->cpu_min) : "", p.roof_share ? number_text(p.roof_share->cpu_max) : "",
            p.roof_share ? (p.roof_share->fault() ? "1" : "0") : "", params_text(p.params), p.reason};
        os << csv_record(row);
    }
    return os.str();
}

std::string format_bench_table(const BenchReport& r) {
    std::ostringstream os;
    const MachineFigures& m = r.machine;
    os << "machine: " << m.cpu_model << ", " << m.threads << " threads, " << m.backend << "; kernels compiled for "
       << m.kernel_isa << ", OpenBLAS core " << m.blas_core << "\n";
    bool paired = false;
    for (const BenchPoint& p : r.points) paired = paired || p.roof_share;
    if (r.machine_measured) {
        os << "roofs (this run): GEMM " << fixed(m.gemm_gflops, 1) << " GFLOP/s (" << m.roof_name << " SGEMM " << m.gemm_size
           << "², median; best " << fixed(m.gemm_gflops_best, 1) << "), triad " << fixed(m.triad_gbs, 1)
           << " GB/s (median; best " << fixed(m.triad_gbs_best, 1) << "); GEMM per CPU-second "
           << fixed(m.gemm_gflops_per_cpu, 1) << " GFLOP\n";
        if (m.openblas_gflops > 0)
            os << "GEMM roof = the faster per CPU-second of, timed in alternation: OpenBLAS " << fixed(m.openblas_gflops, 1)
               << " GFLOP/s (" << fixed(m.openblas_gflops_per_cpu, 1) << " per CPU-second), " << m.backend_gemm_name << " "
               << fixed(m.backend_gemm_gflops, 1) << " (" << fixed(m.backend_gemm_gflops_per_cpu, 1) << ")\n";
        if (!m.device_gemm_roofs.empty()) {
            os << "GEMM roof = cuBLAS on operands resident on the device, by CUDA events around the call alone:";
            for (const DeviceGemmRoof& d : m.device_gemm_roofs)
                os << " " << gemm_precision_name(d.precision) << " " << fixed(d.gflops, 1) << " GFLOP/s (host wall "
                   << fixed(d.wall_gflops, 1) << ")";
            os << "; " << m.backend_gemm_name << " on host tensors, copies included: " << fixed(m.backend_gemm_gflops, 1)
               << " GFLOP/s (wall)\n";
        }
        if (paired)
            os << "%GEMM / %cpu: the point's share of the roof, from the roof run before each of its runs (paired "
                  "medians, wall and process CPU time; spread below); above 100% = measurement fault, not a result\n";
    } else
        os << "roofs: not measured (--no-machine): ratios to the machine are left blank\n";
    os << "input " << r.data << ": H=" << r.heads << " d=" << r.dim << " dv=" << r.value_dim << "; ";
    if (r.memory_only)
        os << "MEMORY ONLY: one cold run per point, its time is not a median and not a benchmark";
    else
        os << r.plan.warmup << " warm-up + " << r.plan.runs << " timed runs per point (median [min, max])";
    os << "; budget " << r.budget_s << " s per point\n";
    os << std::left << std::setw(20) << "variant" << std::right << std::setw(7) << "n" << std::setw(12) << "ms"
       << std::setw(24) << "[min, max]" << std::setw(9) << "GFLOP/s" << std::setw(7) << "%GEMM" << std::setw(7) << "%cpu"
       << std::setw(7) << "%roof"
       << std::setw(10) << "peak MiB" << std::setw(10) << "extra MiB" << std::setw(9) << "RSS MiB" << std::setw(8)
       << "×flash" << std::setw(10) << "mem÷full" << "\n";
    for (const BenchPoint& p : r.points) {
        os << std::left << std::setw(20) << p.label << std::right << std::setw(7) << p.n;
        if (!p.measured()) {
            os << "  " << point_status_name(p.status) << ": " << p.reason << "\n";
            continue;
        }
        const std::string range = "[" + fixed(p.time.min_ms, 2) + ", " + fixed(p.time.max_ms, 2) + "]";
        os << std::setw(12) << fixed(p.time.median_ms, 2) << std::setw(24) << (" " + range) << std::setw(9) << fixed(p.gflops, 1)
           << std::setw(7) << (r.machine_measured ? share_text(p.gemm_fraction, p.roof_share && p.roof_share->fault()) : "-")
           << std::setw(7) << (r.machine_measured ? share_text(p.cpu_gemm_fraction, p.roof_share && p.roof_share->fault()) : "-")
           << std::setw(7)
           << (r.machine_measured ? fixed(100 * p.roofline_fraction, 1) : "-") << std::setw(10)
           << fixed(p.peak_bytes / kMiB, 2) << std::setw(10) << fixed(p.extra_bytes() / kMiB, 2) << std::setw(9)
           << (p.rss_peak_delta_bytes >= 0 ? fixed(p.rss_peak_delta_bytes / kMiB, 1) : "-") << std::setw(8)
           << (p.speedup_vs_flash ? fixed(*p.speedup_vs_flash, 2) : "-") << std::setw(10)
           << (p.memory_saving_vs_full ? fixed(*p.memory_saving_vs_full, 1) + (p.memory_ref_estimated ? "*" : "") : "-")
           << "\n";
    }
    if (paired) {
        os << "paired roof shares (wall [min, max]; CPU time [min, max]; pairs):\n";
        for (const BenchPoint& p : r.points) {
            if (!p.roof_share) continue;
            const RoofShare& s = *p.roof_share;
            os << "  " << std::left << std::setw(20) << p.label << std::right << std::setw(7) << p.n << "  wall "
               << share_text(s.wall, s.wall > 1.0) << "% [" << fixed(100 * s.wall_min, 1) << ", " << fixed(100 * s.wall_max, 1)
               << "]; CPU " << share_text(s.cpu, s.cpu > 1.0) << "% [" << fixed(100 * s.cpu_min, 1) << ", "
               << fixed(100 * s.cpu_max, 1) << "]; " << s.pairs << " pairs with " << s.roof << " at "
               << fixed(s.roof_gflops, 1) << " GFLOP/s";
            if (s.fault()) os << "  MEASUREMENT FAULT: a share above 100% means the roof ran slow; rerun on a quieter machine";
            os << "\n";
        }
    }
    const std::vector<SlopeFit> fits = fit_slopes(r);
    if (!fits.empty()) {
        os << "log–log slopes over the measured n (time, peak memory):";
        for (const SlopeFit& f : fits)
            os << "  " << f.label << " " << fixed(f.time_slope, 2) << ", " << fixed(f.memory_slope, 2) << " (n " << f.n_lo
               << "–" << f.n_hi << ")";
        os << "\n";
    }
    bool estimated = false;
    for (const BenchPoint& p : r.points) estimated = estimated || p.memory_ref_estimated;
    if (estimated) os << "* full not run at this n: its peak is its exact estimate (O + P), not a measurement\n";
    for (const std::string& note : r.notes) os << "note: " << note << "\n";
    return os.str();
}

}  // namespace attnscope

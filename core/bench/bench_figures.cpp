// attnscope — the figures derived from a benchmark's measured points: shares of the paired roof, rates, speed-ups
// against flash, memory savings against full and the fitted slopes (see engine.h).
#include <algorithm>
#include <cmath>

#include "core/bench/engine.h"
#include "core/variants/registry.h"

namespace attnscope {

namespace {

/// The measured `flash` / `full` point at this n and causality, if any.
const BenchPoint* find_reference(const BenchReport& report, const std::string& id, int n, bool causal) {
    for (const BenchPoint& p : report.points)
        if (p.variant == id && p.n == n && p.causal == causal && p.measured() && p.label == id) return &p;
    return nullptr;
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

}  // namespace attnscope

#include "core/bench/machine.h"

#include "core/bench/memory_probe.h"
#include "core/cpu_isa.h"

#include <omp.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

namespace attnscope {

namespace {

/// The resident product in every precision, `plan.runs` times each in alternation (after plan.warmup rounds).
std::vector<DeviceGemmRoof> measure_device_gemm_roofs(Backend& backend, int size, const TimingPlan& plan) {
    const double flops = 2.0 * double(size) * size * size;
    std::vector<DeviceGemmRoof> roofs;
    std::vector<std::vector<double>> device(std::size(kGemmPrecisions)), wall(std::size(kGemmPrecisions));
    for (int call = 0; call < plan.warmup + std::max(1, plan.runs); ++call)
        for (size_t p = 0; p < std::size(kGemmPrecisions); ++p) {
            const ResidentGemmSample s = backend.time_resident_gemm(size, kGemmPrecisions[p]);
            if (call >= plan.warmup) device[p].push_back(s.device_ms), wall[p].push_back(s.wall_ms);
        }
    auto rate = [&](const std::vector<double>& ms) {
        const double median = summarize_times(ms).median_ms;
        return median > 0 ? flops / (median * 1e6) : 0.0;
    };
    for (size_t p = 0; p < std::size(kGemmPrecisions); ++p)
        roofs.push_back({kGemmPrecisions[p], rate(device[p]), rate(wall[p])});
    return roofs;
}

}  // namespace

void measure_gemm_roof(Backend& backend, int size, const TimingPlan& plan, MachineFigures& m) {
    RoofGemm roof(backend, size);
    std::vector<RoofKind> kinds = {RoofKind::Backend};
    if (roof.has_openblas()) kinds.push_back(RoofKind::OpenBlas);
    if (roof.has_device_resident()) kinds.push_back(RoofKind::DeviceResident);
    std::vector<std::vector<RoofSample>> samples(kinds.size());
    for (int call = 0; call < plan.warmup + std::max(1, plan.runs); ++call)
        for (size_t k = 0; k < kinds.size(); ++k) {
            const RoofSample s = roof.run(kinds[k]);
            if (call >= plan.warmup) samples[k].push_back(s);
        }
    auto rate = [&](double ms) { return ms > 0 ? roof.flops() / (ms * 1e6) : 0.0; };
    struct Rates { double wall, best, cpu; };
    std::vector<Rates> rates;
    for (const auto& runs : samples) {
        std::vector<double> wall, cpu;
        for (const RoofSample& s : runs) wall.push_back(s.wall_ms), cpu.push_back(s.cpu_ms);
        const TimingStats w = summarize_times(wall);
        rates.push_back({rate(w.median_ms), rate(w.min_ms), rate(summarize_times(cpu).median_ms)});
    }
    // On the CPU, CPU time decides: another process delays a run without adding to its CPU time. A device's roof is
    // its own clock on resident operands: the host-tensor gemm's copies are not the device's pace.
    size_t best = 0;
    for (size_t k = 1; k < kinds.size(); ++k) {
        const bool device_roof = kinds[k] == RoofKind::DeviceResident;
        if (device_roof || (kinds[best] != RoofKind::DeviceResident && rates[k].cpu > rates[best].cpu)) best = k;
    }
    m.gemm_size = size;
    m.roof = kinds[best];
    m.roof_name = roof_kind_name(kinds[best], backend);
    m.gemm_gflops = rates[best].wall, m.gemm_gflops_best = rates[best].best, m.gemm_gflops_per_cpu = rates[best].cpu;
    m.backend_gemm_name = roof_kind_name(RoofKind::Backend, backend);
    m.backend_gemm_gflops = rates[0].wall, m.backend_gemm_gflops_per_cpu = rates[0].cpu;
    if (kinds.size() > 1 && kinds[1] == RoofKind::OpenBlas)
        m.openblas_gflops = rates[1].wall, m.openblas_gflops_per_cpu = rates[1].cpu;
    if (roof.has_device_resident()) m.device_gemm_roofs = measure_device_gemm_roofs(backend, size, plan);
}

double measure_triad_gbs(int64_t floats, const TimingPlan& plan, double* best_gbs) {
    if (floats < 1024) throw Error("triad of " + std::to_string(floats) + " elements is too small: use ≥ 1024");
    const int rows = static_cast<int>(std::min<int64_t>(floats, 1 << 30));
    Tensor3 a(1, rows, 1), b(1, rows, 1), c(1, rows, 1);
    float* pa = a.data();
    const float* pb = b.data();
    const float* pc = c.data();
    const float s = 3.0f;
    const int64_t count = a.size();
    // Tensor3 zero-fills on one thread; touch again in parallel so each thread's pages are warm.
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; ++i) pa[i] = 0.0f, b.data()[i] = 1.0f, c.data()[i] = 2.0f;
    const TimingStats t = time_repeated(
        [&] {
            return wall_ms([&] {
#pragma omp parallel for schedule(static)
                for (int64_t i = 0; i < count; ++i) pa[i] = pb[i] + s * pc[i];
            });
        },
        plan);
    const double bytes = 3.0 * sizeof(float) * double(count);
    if (best_gbs) *best_gbs = t.min_ms > 0 ? bytes / (t.min_ms * 1e6) : 0;
    return t.median_ms > 0 ? bytes / (t.median_ms * 1e6) : 0;
}

std::string cpu_model_name() {
    // A VM often shows only the brand ("AMD EPYC"); the family and model numbers still tell the generation apart
    // (family 25, model 17: Zen 4, whose AVX-512 runs on 256-bit units; family 23: Zen 2, AVX2 only).
    std::ifstream in("/proc/cpuinfo");
    std::string line, name, family, model;
    auto value = [](const std::string& l) {
        const auto colon = l.find(':');
        std::string v = colon == std::string::npos ? "" : l.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        return v;
    };
    while (std::getline(in, line) && (name.empty() || family.empty() || model.empty())) {
        if (name.empty() && line.rfind("model name", 0) == 0) name = value(line);
        else if (family.empty() && line.rfind("cpu family", 0) == 0) family = value(line);
        else if (model.empty() && line.rfind("model", 0) == 0 && line.rfind("model name", 0) != 0) model = value(line);
    }
    if (name.empty()) return "unknown CPU";
    return family.empty() || model.empty() ? name : name + " (family " + family + ", model " + model + ")";
}

MachineFigures describe_machine(Backend& backend) {
    MachineFigures m;
    m.backend = backend.description();
    m.threads = omp_get_max_threads();
    m.cpu_model = cpu_model_name();
    m.kernel_isa = kCpuIsaName;
    m.blas_core = openblas_core_name();
    m.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
    m.total_memory_bytes = attnscope::total_memory_bytes();
    return m;
}

MachineFigures measure_machine(Backend& backend, const MachineOptions& o) {
    MachineFigures m = describe_machine(backend);
    measure_gemm_roof(backend, o.gemm_size, o.plan, m);
    m.triad_floats = o.triad_floats;
    m.triad_gbs = measure_triad_gbs(o.triad_floats, o.plan, &m.triad_gbs_best);
    return m;
}

}  // namespace attnscope

#include "machine.h"

#include "memory_probe.h"

#include <omp.h>

#include <algorithm>
#include <fstream>
#include <thread>

namespace attnscope {

double measure_gemm_gflops(Backend& backend, int size, const TimingPlan& plan, double* best_gflops,
                           double* per_cpu_gflops) {
    if (size < 16) throw Error("GEMM size " + std::to_string(size) + " is too small to measure a rate: use ≥ 16");
    // Values in a narrow range keep the products away from denormals and overflow.
    Tensor3 A(1, size, size), B(1, size, size), C(1, size, size);
    for (int64_t k = 0; k < A.size(); ++k) {
        A.data()[k] = 0.5f + float(k % 7) * 0.01f;
        B.data()[k] = 0.25f - float(k % 5) * 0.01f;
    }
    std::vector<double> cpu_ms;
    const TimingStats t = time_repeated(
        [&] {
            const double c0 = process_cpu_ms();
            const double ms = wall_ms([&] { backend.gemm(A, false, B, false, 1.0f, 0.0f, C); });
            cpu_ms.push_back(process_cpu_ms() - c0);
            return ms;
        },
        plan);
    const double flops = 2.0 * double(size) * size * size;
    if (per_cpu_gflops) {
        const std::vector<double> timed(cpu_ms.begin() + std::min<size_t>(cpu_ms.size(), t.warmup), cpu_ms.end());
        const double median_cpu = summarize_times(timed).median_ms;
        *per_cpu_gflops = median_cpu > 0 ? flops / (median_cpu * 1e6) : 0;
    }
    if (best_gflops) *best_gflops = t.min_ms > 0 ? flops / (t.min_ms * 1e6) : 0;
    return t.median_ms > 0 ? flops / (t.median_ms * 1e6) : 0;
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
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                std::string name = line.substr(colon + 1);
                name.erase(0, name.find_first_not_of(" \t"));
                return name;
            }
        }
    return "unknown CPU";
}

MachineFigures describe_machine(Backend& backend) {
    MachineFigures m;
    m.backend = backend.description();
    m.threads = omp_get_max_threads();
    m.cpu_model = cpu_model_name();
    m.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
    m.total_memory_bytes = attnscope::total_memory_bytes();
    return m;
}

MachineFigures measure_machine(Backend& backend, const MachineOptions& o) {
    MachineFigures m = describe_machine(backend);
    m.gemm_size = o.gemm_size;
    m.gemm_gflops = measure_gemm_gflops(backend, o.gemm_size, o.plan, &m.gemm_gflops_best, &m.gemm_gflops_per_cpu);
    m.triad_floats = o.triad_floats;
    m.triad_gbs = measure_triad_gbs(o.triad_floats, o.plan, &m.triad_gbs_best);
    return m;
}

}  // namespace attnscope

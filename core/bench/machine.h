// attnscope — the machine's own figures, measured in the same run as the benchmark points, so a point can
// be shown as a ratio (a roofline point): a large square SGEMM through the backend's gemm (Eigen, all
// threads, on the CPU) for the compute roof, and a STREAM-like triad a = b + s·c for the bandwidth roof.
#pragma once
#include <cstdint>
#include <string>

#include "../backend/backend.h"
#include "timing.h"

namespace attnscope {

/// How hard to measure the machine (defaults take about a second on 2 cores).
struct MachineOptions {
    int gemm_size = 2048;           // N of the N×N·N×N SGEMM (2N³ flops)
    int64_t triad_floats = 1 << 24; // elements per triad array (3 arrays; far beyond the last-level cache)
    TimingPlan plan{1, 5};          // warm-up and timed runs of each measurement
};

/// Compute and bandwidth roofs plus a description of the host.
struct MachineFigures {
    double gemm_gflops = 0;          // median GFLOP/s of the SGEMM
    double gemm_gflops_best = 0;     // fastest run's GFLOP/s
    double gemm_gflops_per_cpu = 0;  // GFLOP per CPU-second of the process (median run): robust to sharing
    int gemm_size = 0;               // N used
    double triad_gbs = 0;            // median GB/s of the triad (3 × 4 bytes per element, STREAM counting)
    double triad_gbs_best = 0;       // fastest run's GB/s
    int64_t triad_floats = 0;        // elements per array used
    int threads = 0;                 // OpenMP threads the run used
    std::string cpu_model;           // "AMD EPYC ..." from /proc/cpuinfo
    int logical_cpus = 0;            // processors the OS shows
    int64_t total_memory_bytes = 0;  // MemTotal
    std::string backend;             // backend description
};

/// Median GFLOP/s of a size×size SGEMM through backend.gemm (one head, so the backend threads the product).
/// `per_cpu_gflops` (optional) receives GFLOP per CPU-second of the median-CPU run.
double measure_gemm_gflops(Backend& backend, int size, const TimingPlan& plan, double* best_gflops = nullptr,
                           double* per_cpu_gflops = nullptr);
/// Median GB/s of a parallel triad a[i] = b[i] + s·c[i] over `floats` elements (12 bytes per element).
double measure_triad_gbs(int64_t floats, const TimingPlan& plan, double* best_gbs = nullptr);
/// The host description only (CPU model, threads, memory, backend); roofs left at zero.
MachineFigures describe_machine(Backend& backend);
/// Both roofs and the host description.
MachineFigures measure_machine(Backend& backend, const MachineOptions& options);
/// The CPU model name from /proc/cpuinfo ("unknown CPU" when absent).
std::string cpu_model_name();

}  // namespace attnscope

// attnscope — the machine's own figures, measured in the same run as the benchmark points, so a point can
// be shown as a ratio (a roofline point): a large square SGEMM for the compute roof — the faster of the
// backend's gemm (Eigen on the CPU) and OpenBLAS's sgemm, timed in alternation so a slow phase of a shared
// machine hits both alike — and a STREAM-like triad a = b + s·c for the bandwidth roof.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/backend/interface/backend.h"
#include "core/bench/roof_gemm.h"
#include "core/bench/timing.h"

namespace attnscope {

/// How hard to measure the machine (defaults take about a second on 2 cores).
struct MachineOptions {
    int gemm_size = 2048;           // N of the N×N·N×N SGEMM (2N³ flops)
    int64_t triad_floats = 1 << 24; // elements per triad array (3 arrays; far beyond the last-level cache)
    TimingPlan plan{1, 5};          // warm-up and timed runs of each measurement
};

/// One device GEMM roof: cuBLAS on device-resident size×size operands in one precision (none without a device).
struct DeviceGemmRoof {
    GemmPrecision precision = GemmPrecision::Fp32;
    double gflops = 0;       // median GFLOP/s by CUDA events around the library call alone
    double wall_gflops = 0;  // median GFLOP/s by the host's wall clock of the same calls (launch and wait)
};

/// Compute and bandwidth roofs plus a description of the host.
struct MachineFigures {
    double gemm_gflops = 0;          // median GFLOP/s of the roof's SGEMM (the faster of the candidates)
    double gemm_gflops_best = 0;     // fastest run's GFLOP/s
    double gemm_gflops_per_cpu = 0;  // GFLOP per CPU-second of the process (median run): robust to sharing
    int gemm_size = 0;               // N used
    RoofKind roof = RoofKind::Backend;  // which SGEMM is the roof (the faster per CPU-second)
    std::string roof_name;           // "openblas", "eigen" or "cublas-resident"
    std::string backend_gemm_name;           // "eigen" or "cublas"
    double backend_gemm_gflops = 0;          // the backend's gemm on host tensors: median wall GFLOP/s (on a device its
                                             // copies count), measured in alternation with the other roofs
    double backend_gemm_gflops_per_cpu = 0;  // and per CPU-second
    double openblas_gflops = 0;              // OpenBLAS sgemm: median wall GFLOP/s (0 when not measured)
    double openblas_gflops_per_cpu = 0;      // and per CPU-second
    std::vector<DeviceGemmRoof> device_gemm_roofs;  // fp32, tf32, bf16 on the device; empty on the CPU
    double triad_gbs = 0;            // median GB/s of the triad (3 × 4 bytes per element, STREAM counting)
    double triad_gbs_best = 0;       // fastest run's GB/s
    int64_t triad_floats = 0;        // elements per array used
    int threads = 0;                 // OpenMP threads the run used
    std::string cpu_model;           // "AMD EPYC ..." from /proc/cpuinfo
    std::string kernel_isa;          // the ISA the CPU kernels were compiled for (core/cpu_isa.h): "AVX-512", "AVX2", …
    std::string blas_core;           // OpenBLAS's kernel set for this CPU (openblas_core_name)
    int logical_cpus = 0;            // processors the OS shows
    int64_t total_memory_bytes = 0;  // MemTotal
    std::string backend;             // backend description
};

/// Times the backend's gemm and OpenBLAS (CPU) or the device-resident cuBLAS SGEMM (device) in alternation on
/// size×size products and fills the gemm_* and roof fields of `m`. The CPU's roof is the faster per CPU-second; a
/// device's is the resident SGEMM by its own clock. On a device it then times the resident product in every
/// precision, in alternation, into device_gemm_roofs.
void measure_gemm_roof(Backend& backend, int size, const TimingPlan& plan, MachineFigures& m);
/// Median GB/s of a parallel triad a[i] = b[i] + s·c[i] over `floats` elements (12 bytes per element).
double measure_triad_gbs(int64_t floats, const TimingPlan& plan, double* best_gbs = nullptr);
/// The host description only (CPU model, threads, memory, backend); roofs left at zero.
MachineFigures describe_machine(Backend& backend);
/// Both roofs and the host description.
MachineFigures measure_machine(Backend& backend, const MachineOptions& options);
/// The CPU model name from /proc/cpuinfo with its family and model numbers ("unknown CPU" when absent).
std::string cpu_model_name();

}  // namespace attnscope

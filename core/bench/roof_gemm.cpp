#include "core/bench/roof_gemm.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>

#include "core/bench/timing.h"

namespace attnscope {

std::string roof_kind_name(RoofKind kind, const Backend& backend) {
    if (kind == RoofKind::OpenBlas) return "openblas";
    if (kind == RoofKind::DeviceResident) return "cublas-resident";
    return backend.has_device() ? "cublas" : "eigen";
}

std::string openblas_core_name() {
    const char* name = openblas_get_corename();
    return name ? name : "unknown";
}

RoofGemm::RoofGemm(Backend& backend, int size)
    : m_backend(backend), m_size(size), m_a(1, std::max(size, 1), std::max(size, 1)),
      m_b(1, std::max(size, 1), std::max(size, 1)), m_c(1, std::max(size, 1), std::max(size, 1)) {
    if (size < 16) throw Error("GEMM size " + std::to_string(size) + " is too small to measure a rate: use ≥ 16");
    // Values in a narrow range keep the products away from denormals and overflow.
    for (int64_t k = 0; k < m_a.size(); ++k) {
        m_a.data()[k] = 0.5f + float(k % 7) * 0.01f;
        m_b.data()[k] = 0.25f - float(k % 5) * 0.01f;
    }
}

bool RoofGemm::has_openblas() const { return !m_backend.has_device(); }

bool RoofGemm::has_device_resident() const { return m_backend.has_device(); }

void RoofGemm::run_openblas() {
    // OpenBLAS's own thread pool spins for a while after each call and would steal the cores from the OpenMP
    // threads of the variant that runs next; one single-threaded call per OpenMP thread, each on a band of rows
    // of C, uses the same micro-kernel with the same threads the variants use, and nothing lingers.
    const int before = openblas_get_num_threads();
    openblas_set_num_threads(1);
    const int n = m_size;
#pragma omp parallel
    {
        const int threads = omp_get_num_threads(), t = omp_get_thread_num();
        const int lo = int(int64_t(n) * t / threads), hi = int(int64_t(n) * (t + 1) / threads);
        if (hi > lo)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, hi - lo, n, n, 1.0f, m_a.data() + int64_t(lo) * n, n,
                        m_b.data(), n, 0.0f, m_c.data() + int64_t(lo) * n, n);
    }
    openblas_set_num_threads(before);
}

RoofSample RoofGemm::run(RoofKind kind) {
    if (kind == RoofKind::OpenBlas && !has_openblas())
        throw Error("the OpenBLAS roof is a CPU measurement: a device backend's roof is its own gemm");
    RoofSample s;
    const double c0 = process_cpu_ms();
    if (kind == RoofKind::DeviceResident) {
        // The device's own clock: the backend refuses this kind without a device, with its reason.
        s.wall_ms = m_backend.time_resident_gemm(m_size, GemmPrecision::Fp32).device_ms;
        s.cpu_ms = process_cpu_ms() - c0;
        return s;
    }
    s.wall_ms = wall_ms([&] {
        if (kind == RoofKind::OpenBlas) run_openblas();
        else m_backend.gemm(m_a, false, m_b, false, 1.0f, 0.0f, m_c);
    });
    s.cpu_ms = process_cpu_ms() - c0;
    return s;
}

}  // namespace attnscope

// attnscope — the compute roof: one large square SGEMM, run on demand so the bench can interleave it with the
// variant it measures (roof, variant, roof, …). On the CPU two implementations compete for the roof: the backend's
// own gemm (Eigen) and OpenBLAS's sgemm, which on AVX-512 machines runs well above Eigen's. A share is only as honest
// as its roof: the faster one is "the machine's best SGEMM". On a device the roof is cuBLAS on operands that stay on
// the device, timed by CUDA events (no copies); the backend's gemm on host tensors, copies included, is reported
// beside it.
#pragma once
#include <string>

#include "core/backend/interface/backend.h"
#include "core/tensor.h"

namespace attnscope {

/// Which SGEMM a roof run uses.
enum class RoofKind {
    Backend,   // backend.gemm: Eigen on the CPU backend, cuBLAS on a device backend
    OpenBlas,  // cblas_sgemm, one single-threaded call per OpenMP thread on a band of rows (CPU backend only)
    DeviceResident,  // Backend::time_resident_gemm in fp32: cuBLAS on device-resident operands (device backends only)
};

/// "openblas", "cublas-resident", or the backend's gemm name ("eigen" on the CPU, "cublas" on a device).
std::string roof_kind_name(RoofKind kind, const Backend& backend);

/// The kernel set OpenBLAS chose for this CPU ("Haswell", "SkylakeX", "Zen", …; OPENBLAS_CORETYPE overrides it): the
/// CPU roof is only comparable between runs that name the same one.
std::string openblas_core_name();

/// The time of one run, in ms.
struct RoofSample {
    double wall_ms = 0;  // the run's time: wall clock, or for DeviceResident the CUDA-event time of the product
    double cpu_ms = 0;   // CPU time of all threads of the process
};

/// A size×size · size×size SGEMM with fixed, well-scaled inputs, allocated once.
class RoofGemm {
public:
    /// Allocates A, B, C (3·size² floats); throws Error when size < 16.
    RoofGemm(Backend& backend, int size);
    /// Runs one product with `kind` and times it.
    RoofSample run(RoofKind kind);
    /// FLOPs of one product, 2·size³.
    double flops() const { return 2.0 * double(m_size) * m_size * m_size; }
    /// The OpenBLAS path exists for this backend (CPU only: a device roof is the device's own GEMM).
    bool has_openblas() const;
    /// The device-resident path exists for this backend (device backends only).
    bool has_device_resident() const;
    /// The matrix side.
    int size() const { return m_size; }
    /// C of the last run (for checking that both implementations compute the same product).
    const Tensor3& result() const { return m_c; }

private:
    void run_openblas();
    Backend& m_backend;
    int m_size;
    Tensor3 m_a, m_b, m_c;
};

}  // namespace attnscope

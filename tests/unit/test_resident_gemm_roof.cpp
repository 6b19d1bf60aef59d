// The device GEMM roof (Backend::time_resident_gemm, RoofKind::DeviceResident): a real product C = A·B of the fixed
// operands in each precision, checked against sums computed here from resident_gemm_operand; refused with its reason
// where there is no device, so the CPU's roof stays its host SGEMM. The device cases skip where no GPU exists.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "tests/unit/backend_suite.h"
#include "core/backend/interface/gemm_roof.h"
#include "core/bench/machine.h"
#include "core/bench/roof_gemm.h"
#include "core/backend/shared/half.h"
#include "core/error.h"

namespace attnscope {
namespace {

/// bf16 of x, rounded to nearest even (what __float2bfloat16 does for finite values), back as a float.
float to_bf16(float x) {
    uint32_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    return bf16_to_float(static_cast<uint16_t>(bits >> 16));
}

/// C[i][j] of an n×n resident product in double, from operands optionally rounded to bf16.
double expected_entry(int n, int i, int j, bool bf16) {
    double sum = 0;
    for (int k = 0; k < n; ++k) {
        float a = resident_gemm_operand(0, int64_t(i) * n + k), b = resident_gemm_operand(1, int64_t(k) * n + j);
        if (bf16) a = to_bf16(a), b = to_bf16(b);
        sum += double(a) * double(b);
    }
    return sum;
}

/// Largest relative error of C over a spread of entries (corners, diagonal, a stride through the rest).
double worst_relative_error(const Tensor3& C, int n, bool bf16_inputs) {
    double worst = 0;
    for (int i = 0; i < n; i += 37)
        for (int j : {0, i % n, n - 1, (i * 7 + 3) % n}) {
            const double want = expected_entry(n, i, j, bf16_inputs);
            worst = std::max(worst, std::abs(double(C.at(0, i, j)) - want) / std::abs(want));
        }
    return worst;
}

TEST(ResidentGemmRoof, CpuBackendRefusesWithItsReason) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, "cpu");
    try {
        backend->time_resident_gemm(64, GemmPrecision::Tf32);
        FAIL() << "the CPU backend timed a device GEMM";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("tf32"), std::string::npos) << m;
        EXPECT_NE(m.find("needs a device"), std::string::npos) << m;
        EXPECT_NE(m.find("--backend cuda"), std::string::npos) << m;
    }
    RoofGemm roof(*backend, 64);
    EXPECT_FALSE(roof.has_device_resident());
    EXPECT_THROW(roof.run(RoofKind::DeviceResident), Error);
}

TEST(ResidentGemmRoof, CpuMachineFiguresHaveNoDeviceRoofs) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, "cpu");
    MachineFigures m;
    measure_gemm_roof(*backend, 64, TimingPlan{0, 1}, m);
    EXPECT_TRUE(m.device_gemm_roofs.empty());
    EXPECT_TRUE(m.roof_name == "openblas" || m.roof_name == "eigen") << m.roof_name;
}

TEST(ResidentGemmRoof, DeviceProductIsAEqualsBInEveryPrecision) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, "cuda");
    const int n = 256;
    for (const GemmPrecision p : kGemmPrecisions) {
        Tensor3 C;
        const ResidentGemmSample s = backend->time_resident_gemm(n, p, &C);
        ASSERT_EQ(C.rows(), n);
        EXPECT_GT(s.device_ms, 0.0) << gemm_precision_name(p);
        EXPECT_GE(s.wall_ms, s.device_ms * 0.5) << gemm_precision_name(p);  // the host waited for the product
        const double exact = worst_relative_error(C, n, false);
        if (p == GemmPrecision::Fp32) {
            EXPECT_LT(exact, 1e-5);
        } else if (p == GemmPrecision::Tf32) {
            EXPECT_LT(exact, 2e-3);  // 10-bit mantissas, positive terms: no cancellation
        } else {
            // fp32 accumulation of bf16-rounded inputs: tight against those, visibly off the fp32 operands.
            EXPECT_LT(worst_relative_error(C, n, true), 1e-5);
            EXPECT_GT(exact, 1e-4);
        }
    }
}

TEST(ResidentGemmRoof, DeviceMachineFiguresUseTheResidentRoof) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, "cuda");
    MachineFigures m;
    measure_gemm_roof(*backend, 512, TimingPlan{1, 3}, m);
    EXPECT_EQ(m.roof, RoofKind::DeviceResident);
    EXPECT_EQ(m.roof_name, "cublas-resident");
    ASSERT_EQ(m.device_gemm_roofs.size(), std::size(kGemmPrecisions));
    for (const DeviceGemmRoof& d : m.device_gemm_roofs) EXPECT_GT(d.gflops, 0.0) << gemm_precision_name(d.precision);
    EXPECT_GT(m.backend_gemm_gflops, 0.0);  // the host-tensor gemm, copies included, still reported
}

}  // namespace
}  // namespace attnscope

// Every non-CPU backend against the CPU backend on the same inputs (ggml test-backend-ops style): dense
// attention (tiled and materialised, lse, P) over awkward shapes — n = 1, n not a multiple of any tile, m ≠ n,
// head dims that are not a kernel bucket, dv ≠ d, causal — plus gemm and the pooled view. The CPU backend is
// itself checked against hand-computed cases in test_dense_attention.cpp. Backends not present here skip.
#include <cmath>

#include "backend_suite.h"
#include "core/backend/cpu_backend.h"
#include "core/primitives/random.h"

namespace attnscope::test {
namespace {

Tensor3 random_tensor(int H, int n, int d, uint64_t seed, float scale = 1.0f) {
    Tensor3 t(H, n, d);
    for (int64_t k = 0; k < t.size(); ++k) t.data()[k] = scale * static_cast<float>(rng::normal(seed, 11, k));
    return t;
}

std::vector<std::string> other_backends() {
    std::vector<std::string> out;
    for (const std::string& b : suite_backends())
        if (b != "cpu") out.push_back(b);
    return out;
}

struct VsCpuCase {
    std::string backend;
    int H, n, m, d, dv;
    bool causal;
};

void PrintTo(const VsCpuCase& c, std::ostream* os) {
    *os << c.backend << " H=" << c.H << " n=" << c.n << " m=" << c.m << " d=" << c.d << " dv=" << c.dv
        << (c.causal ? " causal" : " bidirectional");
}

std::string vs_cpu_name(const testing::TestParamInfo<VsCpuCase>& info) {
    const VsCpuCase& c = info.param;
    return c.backend + "_H" + std::to_string(c.H) + "_n" + std::to_string(c.n) + "_m" + std::to_string(c.m) + "_d" +
           std::to_string(c.d) + "_dv" + std::to_string(c.dv) + (c.causal ? "_causal" : "_bidir");
}

class DenseVsCpu : public testing::TestWithParam<VsCpuCase> {};

TEST_P(DenseVsCpu, OutputsLseAndProbabilitiesMatchCpu) {
    const VsCpuCase c = GetParam();
    ATTNSCOPE_BACKEND_OR_SKIP(backend, c.backend);
    const double tolerance = 2e-5;  // both fp32; different summation orders and exp implementations
    std::cout << "[case] backend=" << c.backend << " vs cpu H=" << c.H << " n=" << c.n << " m=" << c.m << " d=" << c.d
              << " dv=" << c.dv << " causal=" << c.causal << " tol=" << tolerance << "\n";
    const Tensor3 Q = random_tensor(c.H, c.n, c.d, 1), K = random_tensor(c.H, c.m, c.d, 2),
                  V = random_tensor(c.H, c.m, c.dv, 3);
    CpuBackend cpu;
    for (bool materialise : {false, true}) {
        DenseAttentionArgs a;
        a.Q = &Q, a.K = &K, a.V = &V, a.scale = 1.0f / std::sqrt(float(c.d)), a.causal = c.causal;
        Tensor3 O_ref(c.H, c.n, c.dv), lse_ref(c.H, c.n, 1), P_ref(c.H, c.n, c.m);
        Tensor3 O(c.H, c.n, c.dv, NAN), lse(c.H, c.n, 1, NAN), P(c.H, c.n, c.m, NAN);  // NaN: unwritten cells fail
        a.O = &O_ref, a.lse = &lse_ref, a.P = materialise ? &P_ref : nullptr;
        cpu.dense_attention(a);
        a.O = &O, a.lse = &lse, a.P = materialise ? &P : nullptr;
        backend->dense_attention(a);
        ASSERT_TRUE(O.all_finite()) << "materialise=" << materialise;
        EXPECT_LE(rel_err(O, O_ref), tolerance) << "materialise=" << materialise;
        EXPECT_LE(rel_err(lse, lse_ref), tolerance) << "materialise=" << materialise;
        if (materialise) {
            EXPECT_LE(rel_err(P, P_ref), tolerance);
        }
    }
}

std::vector<VsCpuCase> vs_cpu_cases() {
    std::vector<VsCpuCase> out;
    for (const std::string& b : other_backends())
        for (bool causal : {false, true}) {
            // n = 1; n, m around the 64-row/64- or 32-column tiles; head dims inside, at and between buckets.
            for (int n : {1, 2, 63, 64, 65, 130, 333})
                for (int d : {1, 32, 64, 100, 128}) out.push_back({b, 2, n, n, d, d, causal});
            out.push_back({b, 3, 200, 200, 16, 96, causal});   // dv > d: bucket chosen by dv
            out.push_back({b, 3, 200, 200, 128, 8, causal});   // d > dv
            out.push_back({b, 1, 2048, 2048, 64, 64, causal});  // many key tiles
        }
    for (const std::string& b : other_backends()) {
        out.push_back({b, 2, 70, 150, 64, 64, false});  // more keys than queries
        out.push_back({b, 2, 150, 70, 32, 48, false});  // fewer keys than queries
    }
    return out;
}

INSTANTIATE_TEST_SUITE_P(OtherBackends, DenseVsCpu, testing::ValuesIn(vs_cpu_cases()), vs_cpu_name);

class PrimitivesVsCpu : public testing::TestWithParam<std::string> {};

TEST_P(PrimitivesVsCpu, GemmShapesAndBroadcastMatchCpu) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    CpuBackend cpu;
    struct Shape { int Ha, Hb, H, r, k, c; };
    for (const Shape s : {Shape{1, 1, 1, 1, 1, 1}, Shape{4, 1, 4, 33, 70, 5}, Shape{1, 3, 3, 64, 64, 64},
                          Shape{2, 2, 2, 129, 1, 77}, Shape{2, 2, 2, 5, 0, 6}})
        for (bool ta : {false, true})
            for (bool tb : {false, true})
                for (float beta : {0.0f, 0.5f}) {
                    std::cout << "[case] backend=" << GetParam() << " gemm Ha=" << s.Ha << " Hb=" << s.Hb << " r=" << s.r
                              << " k=" << s.k << " c=" << s.c << " ta=" << ta << " tb=" << tb << " beta=" << beta
                              << " tol=1e-5\n";
                    const Tensor3 A = ta ? random_tensor(s.Ha, s.k, s.r, 5) : random_tensor(s.Ha, s.r, s.k, 5);
                    const Tensor3 B = tb ? random_tensor(s.Hb, s.c, s.k, 6) : random_tensor(s.Hb, s.k, s.c, 6);
                    Tensor3 C_ref = random_tensor(s.H, s.r, s.c, 7), C = C_ref;
                    cpu.gemm(A, ta, B, tb, 1.5f, beta, C_ref);
                    backend->gemm(A, ta, B, tb, 1.5f, beta, C);
                    EXPECT_LE(rel_err(C, C_ref), 1e-5);
                }
}

TEST_P(PrimitivesVsCpu, PooledViewMatchesCpu) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    CpuBackend cpu;
    const Tensor3 M = random_tensor(3, 301, 257, 8);
    for (int size : {1, 7, 64, 300, 1000})
        for (PoolMode mode : {PoolMode::Max, PoolMode::Mean}) {
            std::cout << "[case] backend=" << GetParam() << " pooled 301x257 -> " << size
                      << (mode == PoolMode::Max ? " max" : " mean") << " tol=1e-6\n";
            Tensor3 ref, out;
            cpu.pooled_view(M, size, mode, ref);
            backend->pooled_view(M, size, mode, out);
            ASSERT_EQ(out.rows(), ref.rows());
            ASSERT_EQ(out.cols(), ref.cols());
            EXPECT_LE(rel_err(out, ref), 1e-6);
        }
}

// Head dims beyond the tiled kernel's buckets must give a clear Error, never a crash or a wrong result.
TEST_P(PrimitivesVsCpu, HugeHeadDimIsAClearErrorOrCorrect) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] backend=" << GetParam() << " flash with d = 200 (above the CUDA kernel's 128)\n";
    const Tensor3 Q = random_tensor(1, 40, 200, 9), K = random_tensor(1, 40, 200, 10), V = random_tensor(1, 40, 200, 11);
    Tensor3 O(1, 40, 200), O_ref(1, 40, 200);
    DenseAttentionArgs a;
    a.Q = &Q, a.K = &K, a.V = &V, a.O = &O_ref, a.scale = 0.07f;
    CpuBackend().dense_attention(a);
    a.O = &O;
    try {
        backend->dense_attention(a);
        EXPECT_LE(rel_err(O, O_ref), 2e-5);
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("--backend cpu"), std::string::npos) << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(OtherBackends, PrimitivesVsCpu, testing::ValuesIn(other_backends()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace attnscope::test

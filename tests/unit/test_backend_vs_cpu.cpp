// Every non-CPU backend against the CPU backend on the same inputs (ggml test-backend-ops style): dense
// attention (tiled and materialised, lse, P) over awkward shapes — n = 1, n not a multiple of any tile, m ≠ n,
// head dims that are not a kernel bucket, dv ≠ d, causal — plus gemm and the pooled view. The CPU backend is
// itself checked against hand-computed cases in test_dense_attention.cpp. Backends not present here skip.
#include <cmath>

#include "tests/unit/backend_suite.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/shared/random.h"
#include "core/backend/shared/half.h"

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
            out.push_back({b, 2, 130, 130, 200, 200, causal});  // head dims above 128: the wide (sliced) kernel
            out.push_back({b, 2, 100, 100, 24, 300, causal});   // dv above 128 only: three output slices
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
        for (PoolMode mode : {PoolMode::Max, PoolMode::Mean, PoolMode::SignedMaxAbs}) {
            std::cout << "[case] backend=" << GetParam() << " pooled 301x257 -> " << size << " mode " << int(mode)
                      << " tol=1e-6\n";
            Tensor3 ref, out;
            cpu.pooled_view(M, size, mode, ref);
            backend->pooled_view(M, size, mode, out);
            ASSERT_EQ(out.rows(), ref.rows());
            ASSERT_EQ(out.cols(), ref.cols());
            EXPECT_LE(rel_err(out, ref), 1e-6);
        }
}

// Head dims beyond the tiled kernel's buckets (the wide kernel on CUDA) must be correct or a clear Error,
// never a crash or a wrong result.
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

// Kernel attention in one call (a device keeps φ(Q), φ(K) where it made them) against the CPU's: the FAVOR maps with
// their random features, elu+1, the prepended 1 (Taylor), causal and not, m ≠ n, the denominators.
TEST_P(PrimitivesVsCpu, KernelAttentionMatchesCpu) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    CpuBackend cpu;
    struct Case { FeatureMap map; bool prepend_one, causal; int n, m; };
    for (const Case c : {Case{FeatureMap::FavorPositive, false, false, 130, 70}, Case{FeatureMap::FavorPositive, false, true, 200, 200},
                         Case{FeatureMap::FavorTrig, false, false, 64, 64}, Case{FeatureMap::EluPlusOne, false, true, 257, 257},
                         Case{FeatureMap::EluPlusOne, true, false, 33, 90}}) {
        std::cout << "[case] backend=" << GetParam() << " kernel_attention map=" << int(c.map) << " prepend_one="
                  << c.prepend_one << " causal=" << c.causal << " n=" << c.n << " m=" << c.m << " tol=2e-5\n";
        const int H = 2, d = 16, dv = 24, features = 32;
        const Tensor3 Q = random_tensor(H, c.n, d, 31), K = random_tensor(H, c.m, d, 32), V = random_tensor(H, c.m, dv, 33);
        const Tensor3 omega = random_tensor(1, features, d, 34);
        KernelAttentionArgs a;
        for (FeatureMapArgs* map : {&a.q_map, &a.k_map}) {
            map->omega = &omega, map->map = c.map, map->prepend_one = c.prepend_one;
            map->x_scale = std::pow(float(d), -0.25f);
        }
        a.q_map.X = &Q, a.q_map.is_query = true, a.k_map.X = &K, a.k_map.is_query = false;
        a.attention.V = &V, a.attention.causal = c.causal, a.attention.normalise = c.map != FeatureMap::FavorTrig;
        Tensor3 O_ref(H, c.n, dv), D_ref(H, c.n, 1), O(H, c.n, dv, NAN), D(H, c.n, 1, NAN);
        a.attention.O = &O_ref, a.attention.denom = &D_ref;
        cpu.kernel_attention(a);
        a.attention.O = &O, a.attention.denom = &D;
        backend->kernel_attention(a);
        ASSERT_TRUE(O.all_finite() && D.all_finite()) << "rows left unwritten";
        EXPECT_LE(rel_err(O, O_ref), 2e-5);
        EXPECT_LE(rel_err(D, D_ref), 2e-5);
    }
}

INSTANTIATE_TEST_SUITE_P(OtherBackends, PrimitivesVsCpu, testing::ValuesIn(other_backends()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

// [SECTION] tensor-core flash (precision = tf32)

class DenseTf32VsCpu : public testing::TestWithParam<VsCpuCase> {};

// TF32 inputs (10-bit mantissa) with fp32 accumulation: about 1e-3 relative, checked against the CPU's fp32. The
// same kernel runs emulated on the host (tests/emu) with the rounding emulated, where it stays under 2e-3.
TEST_P(DenseTf32VsCpu, OutputsAndLseWithinTf32Tolerance) {
    const VsCpuCase c = GetParam();
    ATTNSCOPE_BACKEND_OR_SKIP(backend, c.backend);
    const double tolerance = 3e-3;
    std::cout << "[case] backend=" << c.backend << " precision=tf32 vs cpu fp32 H=" << c.H << " n=" << c.n
              << " m=" << c.m << " d=" << c.d << " dv=" << c.dv << " causal=" << c.causal << " tol=" << tolerance << "\n";
    const Tensor3 Q = random_tensor(c.H, c.n, c.d, 1), K = random_tensor(c.H, c.m, c.d, 2),
                  V = random_tensor(c.H, c.m, c.dv, 3);
    DenseAttentionArgs a;
    a.Q = &Q, a.K = &K, a.V = &V, a.scale = 1.0f / std::sqrt(float(c.d)), a.causal = c.causal;
    Tensor3 O_ref(c.H, c.n, c.dv), lse_ref(c.H, c.n, 1), O(c.H, c.n, c.dv, NAN), lse(c.H, c.n, 1, NAN);
    a.O = &O_ref, a.lse = &lse_ref;
    CpuBackend().dense_attention(a);
    a.O = &O, a.lse = &lse, a.precision = AttentionPrecision::Tf32;
    backend->dense_attention(a);
    ASSERT_TRUE(O.all_finite());
    EXPECT_LE(rel_err(O, O_ref), tolerance);
    EXPECT_LE(rel_err(lse, lse_ref), tolerance);
}

std::vector<VsCpuCase> tf32_cases() {
    std::vector<VsCpuCase> out;
    for (const std::string& b : other_backends())
        for (bool causal : {false, true}) {
            for (int n : {1, 63, 130, 1000})
                for (int d : {16, 64, 128}) out.push_back({b, 2, n, n, d, d, causal});
            out.push_back({b, 2, 200, 200, 160, 160, causal});  // above 128: served by the fp32 kernel
        }
    for (const std::string& b : other_backends()) out.push_back({b, 2, 70, 150, 64, 48, false});
    return out;
}

INSTANTIATE_TEST_SUITE_P(OtherBackends, DenseTf32VsCpu, testing::ValuesIn(tf32_cases()), vs_cpu_name);

// [SECTION] CUTLASS's fused attention (kernel = cutlass)

/// Each entry of t rounded to 16 bits and back: the inputs CUTLASS's 16-bit kernels read.
Tensor3 rounded(const Tensor3& t, AttentionPrecision precision) {
    Tensor3 out = t;
    for (int64_t k = 0; k < out.size(); ++k) {
        const float x = out.data()[k];
        out.data()[k] = precision == AttentionPrecision::Bf16 ? bf16_to_float(float_to_bf16(x)) : f16_to_float(float_to_f16(x));
    }
    return out;
}

class DenseCutlassVsCpu : public testing::TestWithParam<VsCpuCase> {};

// fp32 runs 3×TF32 (about fp32's accuracy) against the CPU's fp32. bf16 and fp16 are checked against the CPU's fp32
// on the same rounded inputs, so what is left is the kernel's own 16-bit step (P rounded before P·V) and its
// summation order: about 2⁻⁸ and 2⁻¹¹ relative.
TEST_P(DenseCutlassVsCpu, OutputsAndLseMatchCpuInEachPrecision) {
    const VsCpuCase c = GetParam();
    ATTNSCOPE_BACKEND_OR_SKIP(backend, c.backend);
    const Tensor3 Q = random_tensor(c.H, c.n, c.d, 1), K = random_tensor(c.H, c.m, c.d, 2),
                  V = random_tensor(c.H, c.m, c.dv, 3);
    for (const auto& [precision, tolerance] : {std::pair{AttentionPrecision::Fp32, 2e-5},
                                               std::pair{AttentionPrecision::Bf16, 1.5e-2},
                                               std::pair{AttentionPrecision::Fp16, 2e-3}}) {
        std::cout << "[case] backend=" << c.backend << " kernel=cutlass precision=" << int(precision) << " H=" << c.H
                  << " n=" << c.n << " m=" << c.m << " d=" << c.d << " dv=" << c.dv << " causal=" << c.causal
                  << " tol=" << tolerance << "\n";
        const bool narrow = precision != AttentionPrecision::Fp32;
        const Tensor3 Qr = narrow ? rounded(Q, precision) : Q, Kr = narrow ? rounded(K, precision) : K,
                      Vr = narrow ? rounded(V, precision) : V;
        DenseAttentionArgs a;
        a.Q = &Qr, a.K = &Kr, a.V = &Vr, a.scale = 1.0f / std::sqrt(float(c.d)), a.causal = c.causal;
        Tensor3 O_ref(c.H, c.n, c.dv), lse_ref(c.H, c.n, 1), O(c.H, c.n, c.dv, NAN), lse(c.H, c.n, 1, NAN);
        a.O = &O_ref, a.lse = &lse_ref;
        CpuBackend().dense_attention(a);
        a.Q = &Q, a.K = &K, a.V = &V, a.O = &O, a.lse = &lse, a.kernel = DenseKernel::Cutlass, a.precision = precision;
        backend->dense_attention(a);
        ASSERT_TRUE(O.all_finite() && lse.all_finite()) << "an unwritten row or head";
        EXPECT_LE(rel_err(O, O_ref), tolerance);
        EXPECT_LE(rel_err(lse, lse_ref), tolerance);
    }
}

std::vector<VsCpuCase> cutlass_cases() {
    std::vector<VsCpuCase> out;
    for (const std::string& b : other_backends())
        for (bool causal : {false, true}) {
            for (int n : {1, 63, 130, 1000})
                for (int d : {32, 64, 128}) out.push_back({b, 3, n, n, d, d, causal});
            out.push_back({b, 2, 97, 97, 72, 72, causal});  // above 64: the 32 × 128 tiles; n not a multiple of 32
        }
    for (const std::string& b : other_backends()) out.push_back({b, 2, 70, 150, 64, 48, false});
    return out;
}

INSTANTIATE_TEST_SUITE_P(OtherBackends, DenseCutlassVsCpu, testing::ValuesIn(cutlass_cases()), vs_cpu_name);

TEST(CutlassAttention, RefusesWhatItCannotRunWithWhatToChange) {
    std::cout << "[case] validate_cutlass_attention: tf32, a score modifier, head dims, and a shape it takes\n";
    const Tensor3 Q = random_tensor(2, 16, 64, 1), K = random_tensor(2, 16, 64, 2), V = random_tensor(2, 16, 64, 3);
    Tensor3 O(2, 16, 64);
    DenseAttentionArgs a;
    a.Q = &Q, a.K = &K, a.V = &V, a.O = &O, a.kernel = DenseKernel::Cutlass;
    EXPECT_NO_THROW(validate_cutlass_attention(a));
    const auto message = [&](const DenseAttentionArgs& args) {
        try {
            validate_cutlass_attention(args);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    DenseAttentionArgs tf32 = a;
    tf32.precision = AttentionPrecision::Tf32;
    EXPECT_NE(message(tf32).find("precision tf32 with kernel own"), std::string::npos) << message(tf32);
    DenseAttentionArgs alibi = a;
    alibi.score_mod.kind = ScoreModKind::Alibi, alibi.score_mod.heads = 2;
    EXPECT_NE(message(alibi).find("use kernel own for score_mod alibi"), std::string::npos) << message(alibi);
    for (const int d : {60, 136}) {
        const Tensor3 Qd = random_tensor(2, 16, d, 1), Kd = random_tensor(2, 16, d, 2);
        DenseAttentionArgs wide = a;
        wide.Q = &Qd, wide.K = &Kd;
        EXPECT_NE(message(wide).find("up to 128 in multiples of 8 (d = " + std::to_string(d)), std::string::npos)
            << message(wide);
    }
    DenseAttentionArgs bf16 = a;
    bf16.precision = AttentionPrecision::Bf16;
    EXPECT_NO_THROW(validate_cutlass_attention(bf16));
}

// kernel best: CUTLASS's kernel wherever it takes the run, attnscope's own where it refuses, an explicit kernel as asked.
TEST(CutlassAttention, AutoRunsCutlassWhereItTakesTheRunElseOwn) {
    std::cout << "[case] dense_kernel_to_run: auto for fp32/bf16 d = 64, tf32, alibi, d = 136; own and cutlass kept\n";
    const Tensor3 Q = random_tensor(2, 16, 64, 1), K = random_tensor(2, 16, 64, 2), V = random_tensor(2, 16, 64, 3);
    const Tensor3 Qw = random_tensor(2, 16, 136, 1), Kw = random_tensor(2, 16, 136, 2);
    Tensor3 O(2, 16, 64);
    DenseAttentionArgs a;
    a.Q = &Q, a.K = &K, a.V = &V, a.O = &O, a.kernel = DenseKernel::Best;
    EXPECT_EQ(dense_kernel_to_run(a), DenseKernel::Cutlass);
    DenseAttentionArgs bf16 = a;
    bf16.precision = AttentionPrecision::Bf16;
    EXPECT_EQ(dense_kernel_to_run(bf16), DenseKernel::Cutlass);
    DenseAttentionArgs tf32 = a;
    tf32.precision = AttentionPrecision::Tf32;
    EXPECT_EQ(dense_kernel_to_run(tf32), DenseKernel::Own) << "tf32 is the own kernel's";
    DenseAttentionArgs alibi = a;
    alibi.score_mod.kind = ScoreModKind::Alibi, alibi.score_mod.heads = 2;
    EXPECT_EQ(dense_kernel_to_run(alibi), DenseKernel::Own);
    DenseAttentionArgs wide = a;
    wide.Q = &Qw, wide.K = &Kw;
    EXPECT_EQ(dense_kernel_to_run(wide), DenseKernel::Own);
    DenseAttentionArgs own = a, cutlass = wide;
    own.kernel = DenseKernel::Own, cutlass.kernel = DenseKernel::Cutlass;
    EXPECT_EQ(dense_kernel_to_run(own), DenseKernel::Own);
    EXPECT_EQ(dense_kernel_to_run(cutlass), DenseKernel::Cutlass) << "an explicit kernel is run (and validated) as asked";
}

// [SECTION] LSH attention primitive

struct LshVsCpuCase {
    std::string backend;
    int H, n, d, dv, R, n_buckets, chunk, look_back;
    bool shared, causal;
};

void PrintTo(const LshVsCpuCase& c, std::ostream* os) {
    *os << c.backend << " H=" << c.H << " n=" << c.n << " d=" << c.d << " dv=" << c.dv << " R=" << c.R
        << " nb=" << c.n_buckets << " c=" << c.chunk << " L=" << c.look_back << " shared=" << c.shared
        << " causal=" << c.causal;
}

class LshAttentionVsCpu : public testing::TestWithParam<LshVsCpuCase> {};

/// Relative error of an lse-like tensor where −inf marks rows with nothing allowed (must agree exactly).
double lse_rel_err(const Tensor3& got, const Tensor3& ref) {
    Tensor3 a = got, b = ref;
    for (int64_t k = 0; k < got.size(); ++k) {
        if (std::isinf(ref.data()[k]) || std::isinf(got.data()[k])) {
            if (got.data()[k] != ref.data()[k]) return INFINITY;
            a.data()[k] = b.data()[k] = 0.0f;
        }
    }
    return rel_err(a, b);
}

TEST_P(LshAttentionVsCpu, RoundsAndCombinationMatchCpu) {
    const LshVsCpuCase c = GetParam();
    ATTNSCOPE_BACKEND_OR_SKIP(backend, c.backend);
    const double tolerance = 2e-5;
    std::cout << "[case] backend=" << c.backend << " lsh_hash + lsh_attention + lsh_combine vs cpu H=" << c.H
              << " n=" << c.n << " d=" << c.d << " dv=" << c.dv << " R=" << c.R << " n_buckets=" << c.n_buckets
              << " chunk=" << c.chunk << " look_back=" << c.look_back << " shared_qk=" << c.shared
              << " causal=" << c.causal << " tol=" << tolerance << "\n";
    CpuBackend cpu;
    const Tensor3 Q = random_tensor(c.H, c.n, c.d, 21), V = random_tensor(c.H, c.n, c.dv, 23);
    const Tensor3 K = c.shared ? Q : random_tensor(c.H, c.n, c.d, 22);
    const Tensor3 rot = random_tensor(c.R, c.d, c.n_buckets / 2, 24), rot_k = random_tensor(c.R, c.d, c.n_buckets / 2, 25);
    // The orders from the CPU hash, so both backends attend over the very same sets.
    std::vector<int> buckets, perm_q, perm_k;
    LshHashArgs hash;
    hash.X = &Q, hash.rotations = &rot, hash.rounds = c.R, hash.n_buckets = c.n_buckets, hash.buckets = &buckets;
    hash.perm = &perm_q;
    cpu.lsh_hash(hash);
    hash.X = &K, hash.rotations = &rot_k, hash.perm = &perm_k;
    if (!c.shared) cpu.lsh_hash(hash);

    LshAttentionArgs a;
    a.Q = &Q, a.K = &K, a.V = &V, a.perm_q = &perm_q, a.perm_k = c.shared ? &perm_q : &perm_k, a.rounds = c.R;
    a.chunk_len = c.chunk, a.look_back = c.look_back, a.scale = 1.0f / std::sqrt(float(c.d)), a.causal = c.causal;
    a.self_mask = c.shared;
    Tensor3 O_ref(c.R, c.H * c.n, c.dv), L_ref(c.R, c.H * c.n, 1);
    Tensor3 O_r(c.R, c.H * c.n, c.dv, NAN), L_r(c.R, c.H * c.n, 1, NAN);
    a.O_rounds = &O_ref, a.lse_rounds = &L_ref;
    cpu.lsh_attention(a);
    a.O_rounds = &O_r, a.lse_rounds = &L_r;
    backend->lsh_attention(a);
    ASSERT_TRUE(O_r.all_finite());
    EXPECT_LE(rel_err(O_r, O_ref), tolerance);
    EXPECT_LE(lse_rel_err(L_r, L_ref), tolerance);

    Tensor3 O_comb_ref(c.H, c.n, c.dv), lse_ref(c.H, c.n, 1), O_comb(c.H, c.n, c.dv, NAN), lse(c.H, c.n, 1, NAN);
    LshCombineArgs comb;
    comb.O_rounds = &O_ref, comb.lse_rounds = &L_ref, comb.O = &O_comb_ref, comb.lse = &lse_ref;
    cpu.lsh_combine(comb);
    comb.O_rounds = &O_r, comb.lse_rounds = &L_r, comb.O = &O_comb, comb.lse = &lse;
    backend->lsh_combine(comb);
    EXPECT_LE(rel_err(O_comb, O_comb_ref), tolerance);
    EXPECT_LE(lse_rel_err(lse, lse_ref), tolerance);
}

std::vector<LshVsCpuCase> lsh_vs_cpu_cases() {
    std::vector<LshVsCpuCase> out;
    for (const std::string& b : other_backends()) {
        out.push_back({b, 2, 1, 8, 8, 2, 2, 4, 1, true, false});       // n = 1: the self pair only
        out.push_back({b, 4, 333, 64, 64, 4, 16, 32, 1, true, true});   // the Reformer setting, causal
        out.push_back({b, 2, 200, 32, 48, 3, 8, 100, 2, false, false}); // separate orders, chunk > 64, wrap
        out.push_back({b, 2, 50, 16, 16, 8, 4, 1, 3, false, true});     // chunk 1, causal rows with nothing allowed
        out.push_back({b, 2, 129, 100, 128, 2, 8, 16, 5, true, false}); // D = 128 bucket, look-back ≥ chunks
        out.push_back({b, 2, 90, 192, 256, 2, 4, 16, 1, true, false});  // head dims above 128: sliced kernel
        out.push_back({b, 1, 64, 16, 16, 16, 2, 8, 1, true, false});    // 16 rounds
    }
    return out;
}

INSTANTIATE_TEST_SUITE_P(OtherBackends, LshAttentionVsCpu, testing::ValuesIn(lsh_vs_cpu_cases()),
                         [](const testing::TestParamInfo<LshVsCpuCase>& info) {
                             const LshVsCpuCase& c = info.param;
                             return c.backend + "_H" + std::to_string(c.H) + "_n" + std::to_string(c.n) + "_d" +
                                    std::to_string(c.d) + "_R" + std::to_string(c.R) + "_c" + std::to_string(c.chunk) +
                                    (c.shared ? "_shared" : "_separate") + (c.causal ? "_causal" : "_bidir");
                         });

// [SECTION] block-sparse attention with head dims above 128

TEST_P(PrimitivesVsCpu, BlockSparseLargeHeadDimsMatchCpu) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    struct Shape { int H, n, b, d, dv; };
    for (const Shape sh : {Shape{2, 100, 16, 200, 64}, Shape{1, 70, 8, 32, 300}, Shape{2, 90, 70, 257, 129}}) {
        const double tolerance = 2e-5;
        std::cout << "[case] backend=" << GetParam() << " block-sparse H=" << sh.H << " n=" << sh.n << " b=" << sh.b
                  << " d=" << sh.d << " dv=" << sh.dv << " (every other block, diagonal blocks lower-triangular) tol="
                  << tolerance << "\n";
        // A layout with dense blocks (J ≡ I mod 2) and causal masks on the diagonal blocks.
        BlockLayout L;
        L.n = sh.n, L.block = sh.b, L.heads = 1;
        const int nb = L.block_rows();
        L.row_ptr.push_back(0);
        for (int I = 0; I < nb; ++I) {
            for (int J = 0; J <= I; ++J) {
                if ((I - J) % 2 != 0) continue;
                if (J == I) L.append_block(J, [](int r, int c) { return c <= r; });
                else L.append_block(J);
            }
            L.row_ptr.push_back(int(L.col_idx.size()));
        }
        const Tensor3 Q = random_tensor(sh.H, sh.n, sh.d, 31), K = random_tensor(sh.H, sh.n, sh.d, 32),
                      V = random_tensor(sh.H, sh.n, sh.dv, 33);
        BlockSparseAttentionArgs a;
        a.Q = &Q, a.K = &K, a.V = &V, a.layout = &L, a.scale = 1.0f / std::sqrt(float(sh.d));
        Tensor3 O_ref(sh.H, sh.n, sh.dv), lse_ref(sh.H, sh.n, 1), O(sh.H, sh.n, sh.dv, NAN), lse(sh.H, sh.n, 1, NAN);
        a.O = &O_ref, a.lse = &lse_ref;
        CpuBackend().block_sparse_attention(a);
        a.O = &O, a.lse = &lse;
        backend->block_sparse_attention(a);
        ASSERT_TRUE(O.all_finite());
        EXPECT_LE(rel_err(O, O_ref), tolerance);
        EXPECT_LE(rel_err(lse, lse_ref), tolerance);
    }
}

}  // namespace
}  // namespace attnscope::test

// The CUDA kernels of kernels/*.cuh run on the CPU through the emulation shim (tests/emu/include): the same
// source the GPU runs, compiled by the host compiler, every block's threads as std::threads with barriers for
// __syncthreads/__syncwarp/shuffles. Each case compares with the CPU backend and checks that no output cell
// is left unwritten (outputs start as NaN), that nothing is written outside the outputs (fenced by a sentinel)
// or past the launch's shared memory, and that unwritten shared memory is never read into a result (shared
// memory starts as NaN); built with AddressSanitizer, any out-of-bounds read of an input aborts the case.
// This runs where no GPU exists; it checks logic, indexing and synchronisation points, not speed.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "core/primitives/cpu_primitives.h"
#include "core/primitives/random.h"
#include "flash_attention.cuh"
#include "gemm.cuh"
#include "pooled_view.cuh"
#include "softmax_rows.cuh"

// Leak checking is not the point here and LeakSanitizer fails under some sandboxes (ptrace): keep only the
// address checks when this target is built with AddressSanitizer (the hook is ignored otherwise).
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

// The kernels' `extern __shared__ float smem[]` (one block runs at a time in the emulator).
namespace attnscope::cuda {
alignas(16) float smem[1 << 15];
}

namespace attnscope::test {
namespace {

using cuda::FlashParams;

constexpr std::size_t kFence = 256;           // floats of fence on each side of a buffer
constexpr float kOutputSentinel = -7777.0f;  // fence value of outputs: any write there is a bug

Tensor3 random_tensor(int H, int n, int d, uint64_t seed, float scale = 1.0f) {
    Tensor3 t(H, n, d);
    for (int64_t k = 0; k < t.size(); ++k) t.data()[k] = scale * static_cast<float>(rng::normal(seed, 13, k));
    return t;
}

/// A device-like buffer on the host with fences on both sides.
class Fenced {
public:
    /// Input: exactly the tensor's values (no fence), so AddressSanitizer, which this target is built with
    /// where available, reports any read past either end.
    explicit Fenced(const Tensor3& t) : m_data(t.data(), t.data() + t.size()) {}
    /// Output of `count` floats, all NaN (unwritten cells show), fenced by a sentinel on both sides.
    explicit Fenced(std::size_t count) : m_data(count + 2 * kFence, kOutputSentinel), m_fence(kFence) {
        std::fill(m_data.begin() + kFence, m_data.end() - kFence, NAN);
    }
    float* get() { return m_data.data() + m_fence; }
    /// True when no cell of the output fences was written.
    bool fences_intact() const {
        for (std::size_t i = 0; i < m_fence; ++i)
            if (m_data[i] != kOutputSentinel || m_data[m_data.size() - 1 - i] != kOutputSentinel) return false;
        return true;
    }
    Tensor3 to_tensor(int H, int rows, int cols) const {
        Tensor3 t(H, rows, cols);
        std::copy(m_data.begin() + m_fence, m_data.begin() + m_fence + t.size(), t.data());
        return t;
    }

private:
    std::vector<float> m_data;
    std::size_t m_fence = 0;
};

double rel_err(const Tensor3& a, const Tensor3& b) {
    double num = 0, den = 0;
    for (int64_t k = 0; k < b.size(); ++k) {
        const double diff = double(a.data()[k]) - double(b.data()[k]);
        num += diff * diff;
        den += double(b.data()[k]) * double(b.data()[k]);
    }
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

void reset_shared_arena() {
    cuda_emu::shared_arena = {cuda::smem, sizeof(cuda::smem) / sizeof(float), 0, 0};
}

// [SECTION] Flash kernel

struct FlashCase {
    int H, n, m, d, dv;
    bool causal;
    float q_scale = 1.0f;  // 1e4 for the huge-logit case
};

void PrintTo(const FlashCase& c, std::ostream* os) {
    *os << "H=" << c.H << " n=" << c.n << " m=" << c.m << " d=" << c.d << " dv=" << c.dv
        << (c.causal ? " causal" : " bidirectional") << " q_scale=" << c.q_scale;
}

class FlashKernelEmulated : public testing::TestWithParam<FlashCase> {};

TEST_P(FlashKernelEmulated, MatchesCpuBackendWithinBounds) {
    const FlashCase c = GetParam();
    const double tolerance = 2e-5;
    std::cout << "[case] emulated flash_attention_kernel H=" << c.H << " n=" << c.n << " m=" << c.m << " d=" << c.d
              << " dv=" << c.dv << " causal=" << c.causal << " q_scale=" << c.q_scale << " tol=" << tolerance << "\n";
    const Tensor3 Q = random_tensor(c.H, c.n, c.d, 1, c.q_scale), K = random_tensor(c.H, c.m, c.d, 2),
                  V = random_tensor(c.H, c.m, c.dv, 3);
    const float scale = 1.0f / std::sqrt(float(c.d));

    Tensor3 O_ref(c.H, c.n, c.dv), lse_ref(c.H, c.n, 1);
    DenseAttentionArgs a;
    a.Q = &Q, a.K = &K, a.V = &V, a.O = &O_ref, a.lse = &lse_ref, a.scale = scale, a.causal = c.causal;
    cpu_dense_attention(a);

    Fenced dQ(Q), dK(K), dV(V), dO(std::size_t(O_ref.size())), dL(std::size_t(lse_ref.size()));
    const FlashParams p{dQ.get(), dK.get(), dV.get(), dO.get(), dL.get(), c.n, c.m, c.d, c.dv, scale, c.causal};
    reset_shared_arena();
    const bool served = cuda::with_flash_bucket(std::max(c.d, c.dv), [&]<int D, int BC>() {
        std::cout << "  instantiation D=" << D << " BC=" << BC << "\n";
        const dim3 grid(unsigned(cuda::ceil_div(c.n, cuda::kFlashBr)), unsigned(c.H));
        const std::size_t smem_bytes = std::size_t(cuda::flash_smem_floats(D, BC)) * sizeof(float);
        cuda_emu::launch(grid, dim3(cuda::kFlashThreads), smem_bytes,
                         [&] { cuda::flash_attention_kernel<D, BC>(p); });
    });
    ASSERT_TRUE(served);

    const Tensor3 O = dO.to_tensor(c.H, c.n, c.dv), lse = dL.to_tensor(c.H, c.n, 1);
    EXPECT_TRUE(O.all_finite()) << "an output cell was left unwritten or became NaN/Inf";
    EXPECT_TRUE(lse.all_finite());
    EXPECT_TRUE(dO.fences_intact()) << "O written out of bounds";
    EXPECT_TRUE(dL.fences_intact()) << "lse written out of bounds";
    EXPECT_EQ(cuda_emu::shared_arena.overruns, 0u) << "shared memory written past the launch's dynamic size";
    EXPECT_LE(rel_err(O, O_ref), tolerance);
    EXPECT_LE(rel_err(lse, lse_ref), tolerance);
}

std::vector<FlashCase> flash_cases() {
    std::vector<FlashCase> out;
    for (bool causal : {false, true}) {
        // n = 1, around the 64-row tile and the 64/32-column key tiles; head dims inside, at and between buckets.
        for (int n : {1, 2, 63, 65, 130})
            for (int d : {1, 32, 33, 64, 100, 128}) out.push_back({2, n, n, d, d, causal});
        out.push_back({1, 100, 100, 16, 96, causal});  // dv > d: the bucket follows dv
        out.push_back({1, 100, 100, 128, 8, causal});  // d > dv
        out.push_back({2, 97, 97, 16, 16, causal, 1e4f});   // huge logits stay finite
        out.push_back({2, 97, 97, 16, 16, causal, -1e4f});
    }
    out.push_back({2, 70, 150, 64, 64, false});  // more keys than queries
    out.push_back({2, 150, 70, 32, 48, false});  // fewer keys than queries
    return out;
}

INSTANTIATE_TEST_SUITE_P(Cuda, FlashKernelEmulated, testing::ValuesIn(flash_cases()),
                         [](const testing::TestParamInfo<FlashCase>& info) {
                             const FlashCase& c = info.param;
                             return "H" + std::to_string(c.H) + "_n" + std::to_string(c.n) + "_m" + std::to_string(c.m) +
                                    "_d" + std::to_string(c.d) + "_dv" + std::to_string(c.dv) +
                                    (c.causal ? "_causal" : "_bidir") +
                                    (c.q_scale == 1.0f ? "" : (c.q_scale > 0 ? "_huge" : "_hugeneg"));
                         });

// [SECTION] Row softmax of the materialised path

TEST(SoftmaxRowsKernelEmulated, MatchesCpuMaterialisedProbabilities) {
    struct Case { int H, n, m; bool causal; };
    for (const Case c : {Case{2, 1, 1, false}, Case{2, 1, 1, true}, Case{2, 7, 7, true}, Case{3, 33, 33, false},
                         Case{2, 100, 100, true}, Case{2, 20, 77, false}})
    {
        std::cout << "[case] emulated softmax_rows_kernel H=" << c.H << " n=" << c.n << " m=" << c.m
                  << " causal=" << c.causal << " tol=1e-5\n";
        const Tensor3 Q = random_tensor(c.H, c.n, 24, 4), K = random_tensor(c.H, c.m, 24, 5),
                      V = random_tensor(c.H, c.m, 8, 6);
        const float scale = 0.3f;
        Tensor3 O_ref(c.H, c.n, 8), P_ref(c.H, c.n, c.m), lse_ref(c.H, c.n, 1);
        DenseAttentionArgs a;
        a.Q = &Q, a.K = &K, a.V = &V, a.O = &O_ref, a.P = &P_ref, a.lse = &lse_ref, a.scale = scale, a.causal = c.causal;
        cpu_dense_attention(a);

        // S = s·Q·Kᵀ, as cuBLAS leaves it for the kernel.
        Tensor3 S(c.H, c.n, c.m);
        for (int h = 0; h < c.H; ++h) S.head(h).noalias() = scale * Q.head(h) * K.head(h).transpose();
        Fenced dS(S), dL(std::size_t(c.H) * c.n);
        const int64_t rows = int64_t(c.H) * c.n;
        reset_shared_arena();
        cuda_emu::launch(dim3(unsigned(cuda::ceil_div(rows, cuda::kSoftmaxWarps))),
                         dim3(cuda::kSoftmaxWarps * cuda::kWarpSize), 0,
                         [&] { cuda::softmax_rows_kernel(dS.get(), dL.get(), rows, c.n, c.m, c.causal); });
        const Tensor3 P = dS.to_tensor(c.H, c.n, c.m), lse = dL.to_tensor(c.H, c.n, 1);
        EXPECT_TRUE(P.all_finite());
        EXPECT_TRUE(dL.fences_intact());
        EXPECT_LE(rel_err(P, P_ref), 1e-5);
        EXPECT_LE(rel_err(lse, lse_ref), 1e-5);
        if (c.causal) {
            for (int h = 0; h < c.H; ++h)
                for (int i = 0; i + 1 < c.n; ++i) {
                    EXPECT_EQ(P.head(h).row(i).tail(c.m - i - 1).cwiseAbs().maxCoeff(), 0.0f);
                }
        }
    }
}

// [SECTION] Pooled view

TEST(PooledViewKernelEmulated, MatchesCpuPooledView) {
    const Tensor3 M = random_tensor(2, 37, 29, 7);
    for (int size : {1, 5, 29, 100})
        for (PoolMode mode : {PoolMode::Max, PoolMode::Mean}) {
            std::cout << "[case] emulated pooled_view_kernel 37x29 -> " << size
                      << (mode == PoolMode::Max ? " max" : " mean") << " exact\n";
            Tensor3 ref;
            cpu_pooled_view(M, size, mode, ref);
            Fenced dM(M), dOut(std::size_t(ref.size()));
            const int64_t pixels = ref.size();
            reset_shared_arena();
            cuda_emu::launch(dim3(unsigned(cuda::ceil_div(pixels, 256))), dim3(256), 0, [&] {
                cuda::pooled_view_kernel(dM.get(), M.heads(), M.rows(), M.cols(), ref.rows(), ref.cols(),
                                         mode == PoolMode::Max, dOut.get());
            });
            const Tensor3 out = dOut.to_tensor(ref.heads(), ref.rows(), ref.cols());
            EXPECT_TRUE(dOut.fences_intact());
            // Same bins, same order of additions: equal to the last bit.
            for (int64_t k = 0; k < ref.size(); ++k) EXPECT_EQ(out.data()[k], ref.data()[k]) << "pixel " << k;
        }
}

// [SECTION] Row-major GEMM mapped onto column-major cuBLAS

/// What cublasSgemmStridedBatched computes, by its documented column-major definition; also checks the
/// leading-dimension rules cuBLAS enforces.
void column_major_reference(const cuda::ColumnMajorGemm& g, float alpha, float beta, float* C, int batch) {
    const bool nf = g.op_first == CUBLAS_OP_N, ns = g.op_second == CUBLAS_OP_N;
    ASSERT_GE(g.ld_first, std::max(1, nf ? g.m : g.k));
    ASSERT_GE(g.ld_second, std::max(1, ns ? g.k : g.n));
    ASSERT_GE(g.ldc, std::max(1, g.m));
    for (int b = 0; b < batch; ++b) {
        const float* X = g.first + b * g.stride_first;
        const float* Y = g.second + b * g.stride_second;
        float* Cb = C + b * g.stride_c;
        for (int j = 0; j < g.n; ++j)
            for (int i = 0; i < g.m; ++i) {
                double sum = 0;
                for (int l = 0; l < g.k; ++l) {
                    const float x = nf ? X[i + l * g.ld_first] : X[l + i * g.ld_first];
                    const float y = ns ? Y[l + j * g.ld_second] : Y[j + l * g.ld_second];
                    sum += double(x) * y;
                }
                Cb[i + j * g.ldc] = float(alpha * sum + beta * Cb[i + j * g.ldc]);
            }
    }
}

TEST(GemmColumnMajorMapping, MatchesCpuGemmForAllTransposesAndBroadcasts) {
    struct Shape { int Ha, Hb, H, r, k, c; };
    for (const Shape s : {Shape{1, 1, 1, 1, 1, 1}, Shape{3, 1, 3, 17, 9, 5}, Shape{1, 2, 2, 4, 33, 70},
                          Shape{2, 2, 2, 64, 64, 3}})
        for (bool ta : {false, true})
            for (bool tb : {false, true}) {
                std::cout << "[case] gemm mapping Ha=" << s.Ha << " Hb=" << s.Hb << " r=" << s.r << " k=" << s.k
                          << " c=" << s.c << " ta=" << ta << " tb=" << tb << " tol=1e-5\n";
                const Tensor3 A = ta ? random_tensor(s.Ha, s.k, s.r, 8) : random_tensor(s.Ha, s.r, s.k, 8);
                const Tensor3 B = tb ? random_tensor(s.Hb, s.c, s.k, 9) : random_tensor(s.Hb, s.k, s.c, 9);
                Tensor3 C_ref = random_tensor(s.H, s.r, s.c, 10), C = C_ref;
                cpu_gemm(A, ta, B, tb, 1.5f, 0.5f, C_ref);
                const cuda::ColumnMajorGemm g = cuda::row_major_as_column_major(
                    {A.data(), A.heads(), A.rows(), A.cols()}, ta, {B.data(), B.heads(), B.rows(), B.cols()}, tb, s.r, s.c);
                column_major_reference(g, 1.5f, 0.5f, C.data(), s.H);
                EXPECT_LE(rel_err(C, C_ref), 1e-5);
            }
}

}  // namespace
}  // namespace attnscope::test

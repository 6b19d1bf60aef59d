// The CUDA kernels of core/backend/cuda/*.cuh run on the CPU through the emulation shim (tests/emu/include): the same
// source the GPU runs, compiled by the host compiler, every block's threads as std::threads with barriers for
// __syncthreads/__syncwarp/shuffles. Each case compares with the CPU backend and checks that no output cell
// is left unwritten (outputs start as NaN), that nothing is written outside the outputs (fenced by a sentinel)
// or past the launch's shared memory, and that unwritten shared memory is never read into a result (shared
// memory starts as NaN); built with AddressSanitizer, any out-of-bounds read of an input aborts the case.
// This runs where no GPU exists; it checks logic, indexing and synchronisation points, not speed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <iostream>
#include <string>
#include <vector>

#include "core/backend/cpu/cpu_primitives.h"
#include "core/backend/shared/random.h"
#include "core/backend/cuda/block_sparse_attention.cuh"
#include "core/backend/cuda/block_sparse_gather.cuh"
#include "core/backend/cuda/block_sparse_split.cuh"
#include "core/backend/cuda/feature_maps.cuh"
#include "core/backend/cuda/fft.cuh"
#include "core/backend/cuda/flash_attention.cuh"
#include "core/backend/cuda/flash_attention_tc.cuh"
#include "core/backend/cuda/flash_attention_wide.cuh"
#include "core/backend/cuda/gemm.cuh"
#include "core/backend/cuda/linear_attention.cuh"
#include "core/backend/cuda/lsh.cuh"
#include "core/backend/cuda/lsh_attention.cuh"
#include "core/backend/cuda/pooled_view.cuh"
#include "core/backend/cuda/softmax_rows.cuh"
#include "core/backend/cuda/vertical_slash_attention.cuh"
#include "core/backend/interface/vertical_slash_layout.h"

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

/// The checks every attention kernel's outputs pass: every O cell written and finite, nothing written past
/// the output buffers (named `o_name`, `lse_name` in the messages) or past the launch's shared memory.
void expect_written_in_bounds(const Tensor3& O, const Fenced& dO, const Fenced& dL, const char* o_name = "O",
                              const char* lse_name = "lse") {
    EXPECT_TRUE(O.all_finite()) << "an output cell was left unwritten or became NaN/Inf";
    EXPECT_TRUE(dO.fences_intact()) << o_name << " written out of bounds";
    EXPECT_TRUE(dL.fences_intact()) << lse_name << " written out of bounds";
    EXPECT_EQ(cuda_emu::shared_arena.overruns, 0u) << "shared memory written past the launch's dynamic size";
}

// [SECTION] Flash kernel

struct FlashCase {
    int H, n, m, d, dv;
    bool causal;
    float q_scale = 1.0f;  // 1e4 for the huge-logit case
    ScoreMod mod{};        // ALiBi or soft-cap: the kernel applies the same modifier as the CPU backend
};

/// "_alibi" / "_softcap" for a case's modifier ("" without one).
std::string mod_suffix(const ScoreMod& mod) {
    return mod.kind == ScoreModKind::Alibi ? "_alibi" : mod.kind == ScoreModKind::Softcap ? "_softcap" : "";
}

void PrintTo(const FlashCase& c, std::ostream* os) {
    *os << "H=" << c.H << " n=" << c.n << " m=" << c.m << " d=" << c.d << " dv=" << c.dv
        << (c.causal ? " causal" : " bidirectional") << " q_scale=" << c.q_scale;
}

/// One dense case set up for a flash-family kernel: random Q, K, V, the CPU backend's O and lse, fenced
/// device-like copies and the FlashParams pointing at them (shared memory reset for the launch).
struct DenseCaseRun {
    explicit DenseCaseRun(const FlashCase& c)
        : c(c), Q(random_tensor(c.H, c.n, c.d, 1, c.q_scale)), K(random_tensor(c.H, c.m, c.d, 2)),
          V(random_tensor(c.H, c.m, c.dv, 3)), O_ref(c.H, c.n, c.dv), lse_ref(c.H, c.n, 1), dQ(Q), dK(K), dV(V),
          dO(std::size_t(O_ref.size())), dL(std::size_t(lse_ref.size())) {
        const float scale = 1.0f / std::sqrt(float(c.d));
        DenseAttentionArgs a;
        a.Q = &Q, a.K = &K, a.V = &V, a.O = &O_ref, a.lse = &lse_ref, a.scale = scale, a.causal = c.causal;
        a.score_mod = c.mod;
        cpu_dense_attention(a);
        p = FlashParams{dQ.get(), dK.get(), dV.get(), dO.get(), dL.get(), c.n, c.m, c.d, c.dv, scale, c.causal, c.mod};
        reset_shared_arena();
    }
    /// The kernel's O (H, n, dv) and lse (H, n, 1) after the launch.
    Tensor3 O() const { return dO.to_tensor(c.H, c.n, c.dv); }
    Tensor3 lse() const { return dL.to_tensor(c.H, c.n, 1); }
    /// The in-bounds checks plus finite lse (dense rows always have an allowed key).
    void expect_written_in_bounds() const {
        attnscope::test::expect_written_in_bounds(O(), dO, dL);
        EXPECT_TRUE(lse().all_finite());
    }

    FlashCase c;
    Tensor3 Q, K, V, O_ref, lse_ref;
    Fenced dQ, dK, dV, dO, dL;
    FlashParams p{};
};

class FlashKernelEmulated : public testing::TestWithParam<FlashCase> {};

TEST_P(FlashKernelEmulated, MatchesCpuBackendWithinBounds) {
    const FlashCase c = GetParam();
    const double tolerance = 2e-5;
    std::cout << "[case] emulated flash_attention_kernel H=" << c.H << " n=" << c.n << " m=" << c.m << " d=" << c.d
              << " dv=" << c.dv << " causal=" << c.causal << " q_scale=" << c.q_scale << " tol=" << tolerance << "\n";
    DenseCaseRun run(c);
    const FlashParams& p = run.p;
    const bool served = cuda::with_flash_bucket(std::max(c.d, c.dv), [&]<int D, int BC>() {
        std::cout << "  instantiation D=" << D << " BC=" << BC << "\n";
        const dim3 grid(unsigned(cuda::ceil_div(c.n, cuda::kFlashBr)), unsigned(c.H));
        const std::size_t smem_bytes = std::size_t(cuda::flash_smem_floats(D, BC)) * sizeof(float);
        cuda_emu::launch(grid, dim3(cuda::kFlashThreads), smem_bytes,
                         [&] { cuda::flash_attention_kernel<D, BC>(p); });
    });
    ASSERT_TRUE(served);

    const Tensor3 O = run.O(), lse = run.lse();
    run.expect_written_in_bounds();
    EXPECT_LE(rel_err(O, run.O_ref), tolerance);
    EXPECT_LE(rel_err(lse, run.lse_ref), tolerance);
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
        // Score modifiers: ALiBi's per-head distance penalty, and a soft-cap that bites (logits up to ~±20, c = 5).
        out.push_back({3, 97, 97, 32, 32, causal, 1.0f, ScoreMod{ScoreModKind::Alibi, 50.0f, 3}});
        out.push_back({2, 97, 97, 32, 32, causal, 4.0f, ScoreMod{ScoreModKind::Softcap, 5.0f, 2}});
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
                                    (c.q_scale == 1.0f || c.mod.kind != ScoreModKind::None
                                         ? ""
                                         : (c.q_scale > 0 ? "_huge" : "_hugeneg")) +
                                    mod_suffix(c.mod);
                         });

// [SECTION] Wide flash kernel (head dims above 128)

class FlashWideKernelEmulated : public testing::TestWithParam<FlashCase> {};

TEST_P(FlashWideKernelEmulated, MatchesCpuBackendWithinBounds) {
    const FlashCase c = GetParam();
    const double tolerance = 2e-5;
    constexpr int D = cuda::kMaxFlashHeadDim, BC = 32;
    const unsigned slices = unsigned(cuda::attention_output_slices(true, c.dv));
    std::cout << "[case] emulated flash_attention_wide_kernel H=" << c.H << " n=" << c.n << " m=" << c.m << " d=" << c.d
              << " dv=" << c.dv << " causal=" << c.causal << " output slices=" << slices << " tol=" << tolerance << "\n";
    DenseCaseRun run(c);
    const FlashParams& p = run.p;
    const dim3 grid(unsigned(cuda::ceil_div(c.n, cuda::kFlashBr)), unsigned(c.H), slices);
    cuda_emu::launch(grid, dim3(cuda::kFlashThreads), std::size_t(cuda::flash_smem_floats(D, BC)) * sizeof(float),
                     [&] { cuda::flash_attention_wide_kernel<D, BC>(p); });

    const Tensor3 O = run.O(), lse = run.lse();
    run.expect_written_in_bounds();
    EXPECT_LE(rel_err(O, run.O_ref), tolerance);
    EXPECT_LE(rel_err(lse, run.lse_ref), tolerance);
}

std::vector<FlashCase> flash_wide_cases() {
    std::vector<FlashCase> out;
    for (bool causal : {false, true}) {
        out.push_back({2, 1, 1, 200, 200, causal});
        out.push_back({2, 70, 70, 129, 129, causal});   // one feature past the bucket: two slices of each kind
        out.push_back({1, 65, 65, 300, 40, causal});    // three feature slices, one output slice
        out.push_back({1, 40, 40, 24, 260, causal});    // one feature slice, three output slices
        out.push_back({2, 50, 50, 160, 160, causal, 1e4f});  // huge logits stay finite
    }
    out.push_back({2, 30, 90, 256, 130, false});  // more keys than queries
    return out;
}

INSTANTIATE_TEST_SUITE_P(Cuda, FlashWideKernelEmulated, testing::ValuesIn(flash_wide_cases()),
                         [](const testing::TestParamInfo<FlashCase>& info) {
                             const FlashCase& c = info.param;
                             return "H" + std::to_string(c.H) + "_n" + std::to_string(c.n) + "_m" + std::to_string(c.m) +
                                    "_d" + std::to_string(c.d) + "_dv" + std::to_string(c.dv) +
                                    (c.causal ? "_causal" : "_bidir") + (c.q_scale == 1.0f ? "" : "_huge");
                         });

// [SECTION] Tensor-core (TF32) flash kernel

TEST(Tf32Emulation, RoundsToTenMantissaBitsNearestTiesAway) {
    std::cout << "[case] __float_to_tf32 emulation: exact values kept, nearest rounding, ties away from zero\n";
    using nvcuda::wmma::__float_to_tf32;
    const float ulp = std::ldexp(1.0f, -10);  // TF32 spacing in [1, 2)
    EXPECT_EQ(__float_to_tf32(1.0f), 1.0f);
    EXPECT_EQ(__float_to_tf32(1.0f + ulp), 1.0f + ulp);
    EXPECT_EQ(__float_to_tf32(1.0f + 0.25f * ulp), 1.0f);          // below half: down
    EXPECT_EQ(__float_to_tf32(1.0f + 0.75f * ulp), 1.0f + ulp);    // above half: up
    EXPECT_EQ(__float_to_tf32(1.0f + 0.5f * ulp), 1.0f + ulp);     // tie: away from zero
    EXPECT_EQ(__float_to_tf32(-1.0f - 0.5f * ulp), -1.0f - ulp);
    EXPECT_EQ(__float_to_tf32(2.0f - 0.25f * ulp), 2.0f);           // carry into the exponent
    EXPECT_TRUE(std::isinf(__float_to_tf32(INFINITY)));
    EXPECT_TRUE(std::isnan(__float_to_tf32(NAN)));
    for (int k = 0; k < 1000; ++k) {  // relative error at most half a TF32 ulp
        const float x = float(rng::normal(5, 1, uint64_t(k))) * 100.0f;
        EXPECT_LE(std::abs(__float_to_tf32(x) - x), std::ldexp(std::abs(x), -11) * 1.0001f) << x;
    }
}

class FlashTf32KernelEmulated : public testing::TestWithParam<FlashCase> {};

// The TF32 tolerance claim: O and lse within 2e-3 (relative Frobenius) of the fp32 CPU backend for unit-normal
// inputs at s = 1/√d; the error must also be above fp32 level, which shows the operands really were rounded.
TEST_P(FlashTf32KernelEmulated, WithinTf32ToleranceOfCpuBackend) {
    const FlashCase c = GetParam();
    const double tolerance = 2e-3, fp32_level = 1e-6;
    std::cout << "[case] emulated flash_attention_tf32_kernel (WMMA emulated) H=" << c.H << " n=" << c.n << " m=" << c.m
              << " d=" << c.d << " dv=" << c.dv << " causal=" << c.causal << " tol=" << tolerance << "\n";
    DenseCaseRun run(c);
    const FlashParams& p = run.p;
    const bool served = cuda::with_flash_bucket(std::max(c.d, c.dv), [&]<int D, int BC>() {
        std::cout << "  instantiation D=" << D << " BC=" << BC << "\n";
        const dim3 grid(unsigned(cuda::ceil_div(c.n, cuda::kFlashBr)), unsigned(c.H));
        const std::size_t smem_bytes = std::size_t(cuda::flash_tf32_smem_floats(D, BC)) * sizeof(float);
        cuda_emu::launch(grid, dim3(cuda::kFlashThreads), smem_bytes,
                         [&] { cuda::flash_attention_tf32_kernel<D, BC>(p); });
    });
    ASSERT_TRUE(served);

    const Tensor3 O = run.O(), lse = run.lse();
    run.expect_written_in_bounds();
    const double err_o = rel_err(O, run.O_ref), err_l = rel_err(lse, run.lse_ref);
    std::cout << "  relative error vs fp32: O " << err_o << ", lse " << err_l << "\n";
    EXPECT_LE(err_o, tolerance);
    EXPECT_LE(err_l, tolerance);
    EXPECT_GT(err_o, fp32_level) << "no TF32 rounding visible: is the fp32 path running?";
}

std::vector<FlashCase> flash_tf32_cases() {
    std::vector<FlashCase> out;
    for (bool causal : {false, true}) {
        for (int n : {2, 65, 130})
            for (int d : {16, 64, 100, 128}) out.push_back({2, n, n, d, d, causal});
        out.push_back({1, 100, 100, 16, 96, causal});  // dv > d
        out.push_back({1, 100, 100, 128, 8, causal});  // d > dv
    }
    out.push_back({2, 70, 150, 64, 64, false});  // more keys than queries
    out.push_back({2, 150, 70, 32, 48, false});  // fewer keys than queries
    return out;
}

INSTANTIATE_TEST_SUITE_P(Cuda, FlashTf32KernelEmulated, testing::ValuesIn(flash_tf32_cases()),
                         [](const testing::TestParamInfo<FlashCase>& info) {
                             const FlashCase& c = info.param;
                             return "H" + std::to_string(c.H) + "_n" + std::to_string(c.n) + "_m" + std::to_string(c.m) +
                                    "_d" + std::to_string(c.d) + "_dv" + std::to_string(c.dv) +
                                    (c.causal ? "_causal" : "_bidir");
                         });

// [SECTION] Block-sparse kernel

struct BlockSparseCase {
    int H, n, b, d, dv;
    int layout_heads;     // 1 (shared by every head) or H
    double keep;          // probability that a block is stored
    double masked;        // probability that a stored block carries an in-block bitmask
    double empty_row;     // probability that a query block stores nothing (masked-out rows)
    ScoreMod mod{};       // score modifier applied by both the CPU backend and the kernel
};

void PrintTo(const BlockSparseCase& c, std::ostream* os) {
    *os << "H=" << c.H << " n=" << c.n << " b=" << c.b << " d=" << c.d << " dv=" << c.dv
        << " layout_heads=" << c.layout_heads << " keep=" << c.keep << " masked=" << c.masked;
}

/// A random BSR layout: each block kept with probability `keep` (sorted columns), some bitmasked with random
/// bits (and some bitmask rows all zero, so single rows are masked out), some block rows empty.
BlockLayout random_layout(const BlockSparseCase& c, uint64_t seed) {
    BlockLayout L;
    L.n = c.n, L.block = c.b, L.heads = c.layout_heads;
    const int nb = L.block_rows(), words = block_words_per_row(c.b);
    uint64_t draw = 0;
    int masks = 0;
    for (int h = 0; h < c.layout_heads; ++h) {
        L.row_ptr.push_back(int(L.col_idx.size()));
        for (int I = 0; I < nb; ++I) {
            const bool empty = rng::uniform(seed, 21, draw++) < c.empty_row;
            for (int J = 0; J < nb; ++J) {
                if (empty || rng::uniform(seed, 22, draw++) >= c.keep) continue;
                L.col_idx.push_back(J);
                if (rng::uniform(seed, 23, draw++) < c.masked) {
                    L.mask_idx.push_back(masks++);
                    for (int r = 0; r < c.b; ++r) {
                        const bool dead_row = rng::uniform(seed, 24, draw++) < 0.15;
                        for (int w = 0; w < words; ++w) L.masks.push_back(dead_row ? 0 : rng::bits(seed, 25, draw++));
                    }
                } else {
                    L.mask_idx.push_back(-1);
                }
            }
            L.row_ptr.push_back(int(L.col_idx.size()));
        }
    }
    return L;
}

/// The kernel's O and lse (fenced device-like buffers) against the CPU backend's: written in bounds, O within
/// `tolerance`, lse = −inf exactly where the CPU's is (rows with nothing allowed), the rest within `tolerance`.
void expect_matches_cpu(const Fenced& dO, const Fenced& dL, const Tensor3& O_ref, const Tensor3& lse_ref, double tolerance) {
    const Tensor3 O = dO.to_tensor(O_ref.heads(), O_ref.rows(), O_ref.cols());
    const Tensor3 lse = dL.to_tensor(lse_ref.heads(), lse_ref.rows(), 1);
    expect_written_in_bounds(O, dO, dL);
    EXPECT_LE(rel_err(O, O_ref), tolerance);
    Tensor3 lse_f = lse, lse_ref_f = lse_ref;
    int masked_rows = 0;
    for (int64_t k = 0; k < lse.size(); ++k) {
        ASSERT_FALSE(std::isnan(lse.data()[k])) << "lse " << k << " unwritten or NaN";
        ASSERT_EQ(std::isinf(lse.data()[k]), std::isinf(lse_ref.data()[k])) << "lse " << k;
        if (std::isinf(lse_ref.data()[k])) lse_f.data()[k] = lse_ref_f.data()[k] = 0.0f, ++masked_rows;
    }
    std::cout << "  rows with nothing allowed: " << masked_rows << "\n";
    EXPECT_LE(rel_err(lse_f, lse_ref_f), tolerance);
}

class BlockSparseKernelEmulated : public testing::TestWithParam<BlockSparseCase> {};

TEST_P(BlockSparseKernelEmulated, MatchesCpuBackendOnRandomLayouts) {
    const BlockSparseCase c = GetParam();
    const double tolerance = 2e-5;
    const BlockLayout L = random_layout(c, 99 + uint64_t(c.n) * 7 + uint64_t(c.b));
    std::cout << "[case] emulated block_sparse_attention_kernel H=" << c.H << " n=" << c.n << " b=" << c.b
              << " d=" << c.d << " dv=" << c.dv << " layout_heads=" << c.layout_heads << " keep=" << c.keep
              << " masked=" << c.masked << " empty_row=" << c.empty_row << " stored=" << L.stored_blocks()
              << " tol=" << tolerance << "\n";
    const Tensor3 Q = random_tensor(c.H, c.n, c.d, 31), K = random_tensor(c.H, c.n, c.d, 32),
                  V = random_tensor(c.H, c.n, c.dv, 33);
    const float scale = 1.0f / std::sqrt(float(c.d));

    Tensor3 O_ref(c.H, c.n, c.dv), lse_ref(c.H, c.n, 1);
    BlockSparseAttentionArgs a;
    a.Q = &Q, a.K = &K, a.V = &V, a.layout = &L, a.scale = scale, a.O = &O_ref, a.lse = &lse_ref;
    a.score_mod = c.mod;
    cpu_block_sparse_attention(a);

    // The layout arrays as the kernel sees them: exact-size copies, so AddressSanitizer catches stray reads.
    const std::vector<int> row_ptr = L.row_ptr, col_idx = L.col_idx, mask_idx = L.mask_idx;
    const std::vector<uint64_t> masks = L.masks;
    BlockLayoutView view = L.view();
    view.row_ptr = row_ptr.data(), view.col_idx = col_idx.data(), view.mask_idx = mask_idx.data();
    view.masks = masks.data();
    Fenced dQ(Q), dK(K), dV(V);
    // Once with one work item per query block, once with every row longer than 2 stored blocks cut into parts of 2
    // (block_sparse_split.cuh), whose partial results block_sparse_combine_kernel merges.
    for (const int part_blocks : {0, 2}) {
        const cuda::BlockSparseWork work = cuda::plan_block_sparse_work(L, part_blocks > 0 ? part_blocks : 1 << 30);
        std::cout << "  work: " << work.item_row.size() << " items, " << work.split_row.size() << " rows split into "
                  << work.slots << " parts of " << work.part_blocks << " stored blocks\n";
        Fenced dO(std::size_t(O_ref.size())), dL(std::size_t(lse_ref.size()));
        const std::size_t partial_rows = std::size_t(work.slots) * c.H * c.b;
        Fenced dOP(std::max<std::size_t>(1, partial_rows * c.dv)), dLP(std::max<std::size_t>(1, partial_rows));
        cuda::BlockSparseParams p{dQ.get(), dK.get(), dV.get(), dO.get(), dL.get(), view, c.d, c.dv, scale, c.mod};
        if (work.slots > 0) {
            p.item_row = work.item_row.data(), p.item_part = work.item_part.data(), p.item_slot = work.item_slot.data();
            p.item_count = int(work.item_row.size()), p.part_blocks = work.part_blocks, p.heads = c.H;
            p.O_partial = dOP.get(), p.lse_partial = dLP.get();
        }
        reset_shared_arena();
        cuda::with_attention_bucket(std::max(c.d, c.dv), [&]<int D, int BC, bool kSliced>() {
            const unsigned slices = unsigned(cuda::attention_output_slices(kSliced, c.dv));
            std::cout << "  instantiation D=" << D << " BC=" << BC << " sliced=" << kSliced << " output slices=" << slices
                      << "\n";
            const std::size_t smem_bytes = std::size_t(cuda::block_sparse_smem_floats(D, BC)) * sizeof(float);
            const unsigned items = unsigned(work.slots > 0 ? p.item_count : view.block_rows);
            cuda_emu::launch(dim3(items, unsigned(c.H), slices), dim3(cuda::kFlashThreads), smem_bytes,
                             [&] { cuda::block_sparse_attention_kernel<D, BC, kSliced>(p); });
        });
        if (work.slots > 0) {
            const int splits = int(work.split_row.size());
            const int64_t threads = int64_t(splits) * c.H * c.b * (c.dv + 1);
            cuda_emu::launch(dim3(unsigned(cuda::ceil_div(threads, cuda::kBlockSparseCombineThreads))),
                             dim3(cuda::kBlockSparseCombineThreads), 0, [&] {
                                 cuda::block_sparse_combine_kernel(p, work.split_row.data(), work.split_slot.data(),
                                                                   work.split_parts.data(), splits);
                             });
            EXPECT_TRUE(dOP.fences_intact() && dLP.fences_intact()) << "a part wrote outside its partial slots";
        }

        expect_matches_cpu(dO, dL, O_ref, lse_ref, tolerance);
    }
    // The route by key block (block_sparse_gather.cuh), taken here whether or not it pays: each key block's gathered
    // rows into partial slots, merged per query by block_sparse_gathered_combine_kernel.
    const cuda::BlockSparseGatherPlan plan = cuda::plan_block_sparse_gather(L);
    std::cout << "  gathered: " << plan.rows() << " rows in " << plan.items() << " items (pays: "
              << cuda::gather_pays(L, plan) << ")\n";
    const std::size_t slots = std::size_t(plan.rows()) * (L.heads == 1 ? c.H : 1);
    Fenced dO(std::size_t(O_ref.size())), dL(std::size_t(lse_ref.size()));
    Fenced dOP(std::max<std::size_t>(1, slots * c.dv)), dLP(std::max<std::size_t>(1, slots));
    cuda::BlockSparseParams p{dQ.get(), dK.get(), dV.get(), dO.get(), dL.get(), view, c.d, c.dv, scale, c.mod};
    p.heads = c.H, p.O_partial = dOP.get(), p.lse_partial = dLP.get();
    const cuda::BlockSparseGatherParams g{plan.item_first.data(), plan.item_block.data(), plan.item_head.data(),
                                          plan.row_query.data(),  plan.row_entry.data(),  plan.query_ptr.data(),
                                          plan.query_rows.data()};
    reset_shared_arena();
    if (plan.items() > 0)
        cuda::with_attention_bucket(std::max(c.d, c.dv), [&]<int D, int BC, bool kSliced>() {
            const std::size_t smem_bytes = std::size_t(cuda::block_sparse_gathered_smem_floats(D, BC)) * sizeof(float);
            cuda_emu::launch(dim3(unsigned(plan.items()), unsigned(L.heads == 1 ? c.H : 1),
                                  unsigned(cuda::attention_output_slices(kSliced, c.dv))),
                             dim3(cuda::kFlashThreads), smem_bytes, [&] { cuda::block_sparse_gathered_kernel<D, BC, kSliced>(p, g); });
        });
    const int64_t threads = int64_t(c.H) * c.n * (c.dv + 1);
    cuda_emu::launch(dim3(unsigned(cuda::ceil_div(threads, cuda::kBlockSparseCombineThreads))),
                     dim3(cuda::kBlockSparseCombineThreads), 0, [&] { cuda::block_sparse_gathered_combine_kernel(p, g); });
    EXPECT_TRUE(dOP.fences_intact() && dLP.fences_intact()) << "a gathered row wrote outside its partial slot";
    expect_matches_cpu(dO, dL, O_ref, lse_ref, tolerance);
}

std::vector<BlockSparseCase> block_sparse_cases() {
    return {
        {2, 64, 16, 32, 32, 1, 0.5, 0.3, 0.1},     // shared layout, n a multiple of b
        {2, 100, 16, 32, 32, 2, 0.5, 0.5, 0.2},    // per-head layout, partial last block
        {2, 37, 1, 16, 24, 1, 0.3, 0.5, 0.1},      // b = 1: tiles gather scattered single keys
        {3, 45, 7, 64, 40, 3, 0.6, 0.4, 0.2},      // odd b, per head, dv ≠ d
        {1, 200, 96, 64, 64, 1, 0.9, 0.5, 0.0},    // b > 64: query sub-tiles, blocks spanning key tiles
        {2, 130, 70, 100, 128, 2, 0.8, 0.5, 0.0},  // b > 64 with 2 mask words per row, D = 128 bucket
        {2, 50, 10, 8, 8, 1, 1.0, 0.0, 0.0},       // every block stored and dense: plain attention
        {2, 40, 8, 16, 16, 2, 0.5, 1.0, 0.5},      // every block masked, many empty rows
        {1, 1, 4, 32, 32, 1, 1.0, 0.0, 0.0},       // n = 1 smaller than b
        {2, 30, 8, 16, 16, 1, 0.0, 0.0, 0.0},      // nothing stored: O = 0, lse = −inf everywhere
        // Head dims above 128: the sliced kernel (feature slices for the scores, value columns over blockIdx.z).
        {2, 45, 8, 200, 72, 1, 0.6, 0.4, 0.1},     // d > 128, dv ≤ 128: two feature slices, one output slice
        {1, 70, 16, 24, 300, 1, 0.7, 0.3, 0.1},    // dv > 128: three output slices, one feature slice
        {2, 90, 70, 257, 129, 2, 0.8, 0.5, 0.0},   // both past a slice edge, b > 64 (two query sub-tiles)
        // Score modifiers on scattered and masked blocks: the kernel must see each column's real key position.
        {3, 100, 16, 32, 32, 3, 0.5, 0.5, 0.1, ScoreMod{ScoreModKind::Alibi, 50.0f, 3}},
        {2, 100, 16, 32, 32, 1, 0.5, 0.5, 0.1, ScoreMod{ScoreModKind::Softcap, 0.5f, 2}},
    };
}

INSTANTIATE_TEST_SUITE_P(Cuda, BlockSparseKernelEmulated, testing::ValuesIn(block_sparse_cases()),
                         [](const testing::TestParamInfo<BlockSparseCase>& info) {
                             const BlockSparseCase& c = info.param;
                             return "H" + std::to_string(c.H) + "_n" + std::to_string(c.n) + "_b" +
                                    std::to_string(c.b) + "_d" + std::to_string(c.d) + "_dv" + std::to_string(c.dv) +
                                    "_lh" + std::to_string(c.layout_heads) + "_i" + std::to_string(info.index) +
                                    mod_suffix(c.mod);
                         });

// [SECTION] Vertical-slash kernel

struct VerticalSlashCase {
    int H, n, d, dv;
    double p_col, p_off;  // probability that a column, an offset of [0, n + 8), is kept
    bool band;            // offsets 0 … 19 all kept: a run of neighbours, gathered as one key range per row block
    ScoreMod mod{};
};

void PrintTo(const VerticalSlashCase& c, std::ostream* os) {
    *os << "H=" << c.H << " n=" << c.n << " d=" << c.d << " dv=" << c.dv << " p_col=" << c.p_col << " p_off=" << c.p_off;
}

class VerticalSlashKernelEmulated : public testing::TestWithParam<VerticalSlashCase> {};

TEST_P(VerticalSlashKernelEmulated, MatchesCpuLinePrimitive) {
    const VerticalSlashCase c = GetParam();
    const double tolerance = 2e-5;
    const uint64_t seed = 500 + uint64_t(c.n) * 3 + uint64_t(c.H);
    std::vector<std::vector<int>> columns(std::size_t(c.H)), offsets(std::size_t(c.H));
    for (int h = 0; h < c.H; ++h) {
        for (int j = 0; j < c.n; ++j)
            if (rng::uniform(seed, 60 + h, uint64_t(j)) < c.p_col) columns[std::size_t(h)].push_back(j);
        for (int o = 0; o < c.n + 8; ++o)
            if (o == 0 || (c.band && o < 20) || rng::uniform(seed, 90 + h, uint64_t(o)) < c.p_off)
                offsets[std::size_t(h)].push_back(o);
    }
    std::cout << "[case] emulated vertical_slash_attention_kernel H=" << c.H << " n=" << c.n << " d=" << c.d
              << " dv=" << c.dv << " p_col=" << c.p_col << " p_off=" << c.p_off << (c.band ? " band" : "")
              << " tol=" << tolerance << "\n";
    const Tensor3 Q = random_tensor(c.H, c.n, c.d, 41), K = random_tensor(c.H, c.n, c.d, 42),
                  V = random_tensor(c.H, c.n, c.dv, 43);
    const float scale = 1.0f / std::sqrt(float(c.d));

    // The expectation is the CPU backend's line primitive (cpu_vertical_slash.cpp), whose own tests check it against
    // the definition; the kernel shares no code with it beyond the online-softmax step.
    Tensor3 O_ref(c.H, c.n, c.dv), lse_ref(c.H, c.n, 1);
    VerticalSlashAttentionArgs a;
    a.Q = &Q, a.K = &K, a.V = &V, a.columns = &columns, a.offsets = &offsets, a.scale = scale, a.score_mod = c.mod;
    a.O = &O_ref, a.lse = &lse_ref;
    cpu_vertical_slash_attention(a);

    // Every diagonal gathered as key ranges (min run 1), every one walked cell by cell, and the kernel's own split.
    for (const int min_run : {1, 1 << 30, cuda::kVerticalSlashMinRun}) {
        // The very plan the backend uploads (vertical_slash_attention.cu).
        VerticalSlashKernelPlan plan = vertical_slash_kernel_plan(c.n, cuda::kFlashBr, columns, offsets, min_run);
        const VerticalSlashRanges& ranges = plan.ranges;
        std::cout << "  min run " << min_run << ": " << ranges.start.size() << " key ranges (" << ranges.keys()
                  << " keys), " << plan.isolated.size() << " isolated diagonals\n";
        plan.isolated.push_back(-1);  // a sentinel past the last head's list, so the vector is never empty
        Fenced dQ(Q), dK(K), dV(V), dO(std::size_t(O_ref.size())), dL(std::size_t(lse_ref.size()));
        cuda::VerticalSlashParams p{};
        p.Q = dQ.get(), p.K = dK.get(), p.V = dV.get(), p.O = dO.get(), p.lse = dL.get();
        p.range_ptr = ranges.ptr.data(), p.range_start = ranges.start.data(), p.range_length = ranges.length.data();
        p.is_column = plan.is_column.data(), p.is_run = plan.is_run.data();
        p.isolated_ptr = plan.isolated_ptr.data(), p.isolated = plan.isolated.data();
        p.n = c.n, p.d = c.d, p.dv = c.dv, p.scale = scale, p.mod = c.mod;
        reset_shared_arena();
        cuda::with_attention_bucket(std::max(c.d, c.dv), [&]<int D, int BC, bool kSliced>() {
            const unsigned slices = unsigned(cuda::attention_output_slices(kSliced, c.dv));
            std::cout << "  instantiation D=" << D << " BC=" << BC << " sliced=" << kSliced << " output slices="
                      << slices << "\n";
            const std::size_t smem_bytes = std::size_t(cuda::vertical_slash_smem_floats(D, BC)) * sizeof(float);
            cuda_emu::launch(dim3(unsigned(ranges.row_blocks), unsigned(c.H), slices), dim3(cuda::kFlashThreads),
                             smem_bytes, [&] { cuda::vertical_slash_attention_kernel<D, BC, kSliced>(p); });
        });
        SCOPED_TRACE("min run " + std::to_string(min_run));
        expect_matches_cpu(dO, dL, O_ref, lse_ref, tolerance);
    }
}

std::vector<VerticalSlashCase> vertical_slash_cases() {
    return {
        {2, 100, 32, 32, 0.1, 0.1, false},       // scattered lines, partial last row block
        {1, 1, 16, 16, 0.5, 0.5, false},         // n = 1
        {3, 200, 64, 40, 0.05, 0.3, true},       // a band of 20 diagonals and random ones (short runs), dv ≠ d
        {2, 130, 100, 128, 0.3, 0.02, false},    // many columns (several key tiles of them), D = 128 bucket
        {2, 150, 16, 16, 0.0, 0.05, false},      // no columns at all
        {1, 90, 8, 8, 1.0, 0.0, false},          // every column: causal attention, the diagonal once
        {1, 100, 16, 16, 0.1, 1.0, false},       // every diagonal: one run, causal attention again
        {2, 70, 200, 72, 0.1, 0.2, false},       // d > 128: the sliced kernel
        {1, 80, 24, 300, 0.1, 0.2, true},        // dv > 128: three output slices
        {2, 120, 32, 32, 0.1, 0.1, false, ScoreMod{ScoreModKind::Alibi, 50.0f, 2}},
        {2, 120, 32, 32, 0.1, 0.1, true, ScoreMod{ScoreModKind::Softcap, 0.5f, 2}},
    };
}

INSTANTIATE_TEST_SUITE_P(Cuda, VerticalSlashKernelEmulated, testing::ValuesIn(vertical_slash_cases()),
                         [](const testing::TestParamInfo<VerticalSlashCase>& info) {
                             const VerticalSlashCase& c = info.param;
                             return "H" + std::to_string(c.H) + "_n" + std::to_string(c.n) + "_d" + std::to_string(c.d) +
                                    "_dv" + std::to_string(c.dv) + "_i" + std::to_string(info.index) + mod_suffix(c.mod);
                         });

// [SECTION] LSH hashing and round combination

TEST(LshKernelsEmulated, BucketsAndSortedOrderMatchCpuHash) {
    struct Case { int H, n, d, R, nb; };
    for (const Case c : {Case{2, 1, 8, 1, 2}, Case{2, 37, 16, 3, 8}, Case{1, 130, 64, 4, 32}, Case{3, 50, 5, 2, 1},
                         Case{2, 64, 32, 16, 64}})
    {
        std::cout << "[case] emulated lsh_bucket_kernel + lsh_perm_kernel H=" << c.H << " n=" << c.n << " d=" << c.d
                  << " R=" << c.R << " n_buckets=" << c.nb << " exact\n";
        const Tensor3 X = random_tensor(c.H, c.n, c.d, 41);
        const Tensor3 rot = random_tensor(c.R, c.d, std::max(1, c.nb / 2), 42);
        std::vector<int> buckets_ref, perm_ref;
        LshHashArgs a;
        a.X = &X, a.rotations = &rot, a.rounds = c.R, a.n_buckets = c.nb, a.buckets = &buckets_ref, a.perm = &perm_ref;
        cpu_lsh_hash(a);

        // What cuBLAS leaves for the kernel: XR_r = X·R_r, (R, H·n, nb/2).
        const int half = c.nb / 2;
        const int64_t total = int64_t(c.R) * c.H * c.n;
        Tensor3 XR(c.R, c.H * c.n, std::max(1, half));
        if (half > 0)
            for (int r = 0; r < c.R; ++r)
                for (int h = 0; h < c.H; ++h)
                    XR.head(r).middleRows(h * c.n, c.n).noalias() = X.head(h) * rot.head(r);
        const std::vector<float> xr(XR.data(), XR.data() + (half > 0 ? XR.size() : 0));
        std::vector<int> buckets(std::size_t(total), -1), perm(std::size_t(total), -1);
        std::vector<uint64_t> keys(static_cast<std::size_t>(total));
        reset_shared_arena();
        const dim3 grid(unsigned(cuda::ceil_div(total, cuda::kLshThreads)));
        cuda_emu::launch(grid, dim3(cuda::kLshThreads), 0, [&] {
            cuda::lsh_bucket_kernel(half > 0 ? xr.data() : nullptr, total, c.n, c.nb, buckets.data(), keys.data());
        });
        std::sort(keys.begin(), keys.end());  // stands in for cub::DeviceRadixSort::SortKeys
        cuda_emu::launch(grid, dim3(cuda::kLshThreads), 0,
                         [&] { cuda::lsh_perm_kernel(keys.data(), total, c.n, perm.data()); });
        EXPECT_EQ(buckets, buckets_ref);
        EXPECT_EQ(perm, perm_ref);
    }
}

TEST(LshKernelsEmulated, RoundCombinationMatchesCpu) {
    struct Case { int R, H, n, dv; };
    for (const Case c : {Case{1, 1, 1, 1}, Case{4, 2, 33, 16}, Case{16, 3, 10, 7}, Case{3, 2, 5, 0}}) {
        std::cout << "[case] emulated lsh_combine_kernel R=" << c.R << " H=" << c.H << " n=" << c.n << " dv=" << c.dv
                  << " tol=1e-6\n";
        const Tensor3 O_rounds = random_tensor(c.R, c.H * c.n, c.dv, 43);
        Tensor3 lse_rounds = random_tensor(c.R, c.H * c.n, 1, 44, 3.0f);
        // Empty rounds (−inf), one row empty in every round, and self-mask-sized logs near −1e5.
        for (int64_t k = 0; k < lse_rounds.size(); k += 5) lse_rounds.data()[k] = -INFINITY;
        for (int r = 0; r < c.R; ++r) lse_rounds.at(r, 0, 0) = -INFINITY;
        for (int64_t k = 3; k < lse_rounds.size(); k += 7) lse_rounds.data()[k] -= 1e5f;
        Tensor3 O_ref(c.H, c.n, c.dv), lse_ref(c.H, c.n, 1);
        LshCombineArgs a;
        a.O_rounds = &O_rounds, a.lse_rounds = &lse_rounds, a.O = &O_ref, a.lse = &lse_ref;
        cpu_lsh_combine(a);
        Fenced dOR(O_rounds), dLR(lse_rounds), dO(std::size_t(O_ref.size())), dL(std::size_t(lse_ref.size()));
        const int64_t rows = int64_t(c.H) * c.n;
        reset_shared_arena();
        cuda_emu::launch(dim3(unsigned(cuda::ceil_div(rows * std::max(c.dv, 1), cuda::kLshThreads))), dim3(cuda::kLshThreads), 0,
                         [&] { cuda::lsh_combine_kernel(dOR.get(), dLR.get(), c.R, rows, c.dv, dO.get(), dL.get()); });
        const Tensor3 O = dO.to_tensor(c.H, c.n, c.dv), lse = dL.to_tensor(c.H, c.n, 1);
        EXPECT_TRUE(O.all_finite());
        EXPECT_TRUE(dO.fences_intact());
        EXPECT_TRUE(dL.fences_intact());
        EXPECT_LE(rel_err(O, O_ref), 1e-6);
        for (int64_t k = 0; k < lse.size(); ++k) {
            if (std::isinf(lse_ref.data()[k])) EXPECT_EQ(lse.data()[k], lse_ref.data()[k]) << "row " << k;
            else EXPECT_NEAR(lse.data()[k], lse_ref.data()[k], 1e-6 * std::max(1.0f, std::abs(lse_ref.data()[k])));
        }
    }
}

// [SECTION] LSH chunked attention

struct LshAttentionCase {
    int H, n, d, dv, R, n_buckets, chunk, look_back;
    bool shared, causal;
};

void PrintTo(const LshAttentionCase& c, std::ostream* os) {
    *os << "H=" << c.H << " n=" << c.n << " d=" << c.d << " dv=" << c.dv << " R=" << c.R << " nb=" << c.n_buckets
        << " c=" << c.chunk << " L=" << c.look_back << " shared=" << c.shared << " causal=" << c.causal;
}

class LshAttentionEmulated : public testing::TestWithParam<LshAttentionCase> {};

/// Compares an lse-like tensor where −inf marks empty rows: both −inf together, else within tolerance.
void expect_lse_close(const Tensor3& got, const Tensor3& ref, double tolerance, const char* what) {
    Tensor3 a = got, b = ref;
    int empty = 0;
    for (int64_t k = 0; k < got.size(); ++k) {
        ASSERT_FALSE(std::isnan(got.data()[k])) << what << " " << k << " unwritten or NaN";
        ASSERT_EQ(std::isinf(got.data()[k]), std::isinf(ref.data()[k])) << what << " " << k;
        if (std::isinf(ref.data()[k])) a.data()[k] = b.data()[k] = 0.0f, ++empty;
    }
    std::cout << "  " << what << ": rows with nothing allowed: " << empty << "\n";
    EXPECT_LE(rel_err(a, b), tolerance) << what;
}

TEST_P(LshAttentionEmulated, MatchesCpuBackend) {
    const LshAttentionCase c = GetParam();
    const double tolerance = 2e-5;
    std::cout << "[case] emulated lsh_chunk_kernel + lsh_attention_kernel H=" << c.H << " n=" << c.n << " d=" << c.d
              << " dv=" << c.dv << " R=" << c.R << " n_buckets=" << c.n_buckets << " chunk=" << c.chunk
              << " look_back=" << c.look_back << " shared_qk=" << c.shared << " causal=" << c.causal
              << " tol=" << tolerance << "\n";
    const Tensor3 Q = random_tensor(c.H, c.n, c.d, 81), V = random_tensor(c.H, c.n, c.dv, 83);
    const Tensor3 K = c.shared ? Q : random_tensor(c.H, c.n, c.d, 82);
    const Tensor3 rot = random_tensor(c.R, c.d, c.n_buckets / 2, 84), rot_k = random_tensor(c.R, c.d, c.n_buckets / 2, 85);
    std::vector<int> buckets, perm_q, perm_k;
    LshHashArgs hash;
    hash.X = &Q, hash.rotations = &rot, hash.rounds = c.R, hash.n_buckets = c.n_buckets, hash.buckets = &buckets;
    hash.perm = &perm_q;
    cpu_lsh_hash(hash);
    if (!c.shared) {
        hash.X = &K, hash.rotations = &rot_k, hash.perm = &perm_k;
        cpu_lsh_hash(hash);
    }
    const std::vector<int>& pk_ref = c.shared ? perm_q : perm_k;

    LshAttentionArgs a;
    a.Q = &Q, a.K = &K, a.V = &V, a.perm_q = &perm_q, a.perm_k = &pk_ref, a.rounds = c.R, a.chunk_len = c.chunk;
    a.look_back = c.look_back, a.scale = 1.0f / std::sqrt(float(c.d)), a.causal = c.causal, a.self_mask = c.shared;
    Tensor3 O_ref(c.R, c.H * c.n, c.dv), L_ref(c.R, c.H * c.n, 1);
    a.O_rounds = &O_ref, a.lse_rounds = &L_ref;
    cpu_lsh_attention(a);

    // The device's view: exact-size copies of the orders (AddressSanitizer catches stray reads), chunk maps
    // from the emulated lsh_chunk_kernel, starting at −1 so an unwritten entry shows.
    const int64_t total = int64_t(c.R) * c.H * c.n;
    const std::vector<int> dPq = perm_q, dPk = pk_ref;
    std::vector<int> chunk_q(std::size_t(total), -1), chunk_k(std::size_t(total), -1);
    reset_shared_arena();
    const dim3 map_grid(unsigned(cuda::ceil_div(total, cuda::kLshChunkThreads)));
    cuda_emu::launch(map_grid, dim3(cuda::kLshChunkThreads), 0,
                     [&] { cuda::lsh_chunk_kernel(dPq.data(), total, c.n, c.chunk, chunk_q.data()); });
    cuda_emu::launch(map_grid, dim3(cuda::kLshChunkThreads), 0,
                     [&] { cuda::lsh_chunk_kernel(dPk.data(), total, c.n, c.chunk, chunk_k.data()); });
    const int nc = lsh_num_chunks(c.n, c.chunk);
    for (int64_t k = 0; k < total; ++k) {
        ASSERT_TRUE(chunk_q[std::size_t(k)] >= 0 && chunk_q[std::size_t(k)] < nc) << "query chunk map entry " << k;
        ASSERT_TRUE(chunk_k[std::size_t(k)] >= 0 && chunk_k[std::size_t(k)] < nc) << "key chunk map entry " << k;
    }

    Fenced dQ(Q), dK(K), dV(V), dO(std::size_t(O_ref.size())), dL(std::size_t(L_ref.size()));
    cuda::LshAttentionParams p{};
    p.Q = dQ.get(), p.K = dK.get(), p.V = dV.get(), p.perm_q = dPq.data(), p.perm_k = dPk.data();
    p.chunk_q = chunk_q.data(), p.chunk_k = chunk_k.data(), p.O_rounds = dO.get(), p.lse_rounds = dL.get();
    p.H = c.H, p.n = c.n, p.d = c.d, p.dv = c.dv, p.rounds = c.R, p.chunk_len = c.chunk, p.look_back = c.look_back;
    p.scale = a.scale, p.causal = c.causal, p.self_mask = c.shared;
    cuda::with_attention_bucket(std::max(c.d, c.dv), [&]<int D, int BC, bool kSliced>() {
        const unsigned slices = unsigned(cuda::attention_output_slices(kSliced, c.dv));
        std::cout << "  instantiation D=" << D << " BC=" << BC << " sliced=" << kSliced << " output slices=" << slices
                  << "\n";
        const std::size_t smem_bytes = std::size_t(cuda::lsh_attention_smem_floats(D, BC, c.R)) * sizeof(float);
        const dim3 grid(unsigned(lsh_num_chunks(c.n, c.chunk)), unsigned(c.H), unsigned(c.R) * slices);
        cuda_emu::launch(grid, dim3(cuda::kFlashThreads), smem_bytes,
                         [&] { cuda::lsh_attention_kernel<D, BC, kSliced>(p); });
    });

    const Tensor3 O = dO.to_tensor(c.R, c.H * c.n, c.dv), L = dL.to_tensor(c.R, c.H * c.n, 1);
    expect_written_in_bounds(O, dO, dL, "O_rounds", "lse_rounds");
    EXPECT_LE(rel_err(O, O_ref), tolerance);
    expect_lse_close(L, L_ref, tolerance, "lse_rounds");
}

std::vector<LshAttentionCase> lsh_attention_cases() {
    return {
        {2, 37, 16, 16, 1, 4, 8, 1, true, false},     // one round: no duplicate counts, shared QK self-mask
        {2, 100, 32, 24, 3, 8, 16, 2, true, true},    // causal, look-back 2 wrapping, dv ≠ d
        {2, 70, 16, 16, 2, 4, 64, 1, false, false},   // separate Q/K orders (no self-mask), last chunk short
        {1, 230, 8, 8, 2, 8, 100, 1, true, false},    // chunk > 64: two query sub-tiles, chunks span key tiles
        {2, 40, 16, 8, 4, 2, 16, 5, true, false},     // look_back ≥ chunk count: every chunk once
        {2, 20, 8, 8, 2, 4, 1, 3, false, true},       // chunk 1: scattered single keys; causal empty rows
        {2, 1, 8, 8, 3, 2, 4, 1, true, false},        // n = 1: only the self pair
        {1, 50, 8, 8, 16, 4, 8, 1, true, true},       // 16 rounds: the largest chunk maps in shared memory
        {1, 60, 64, 128, 2, 4, 16, 1, false, false},  // D = 128 bucket (BC = 32)
        {2, 45, 200, 150, 2, 4, 16, 1, true, false},  // head dims above 128: the sliced kernel
    };
}

INSTANTIATE_TEST_SUITE_P(Cuda, LshAttentionEmulated, testing::ValuesIn(lsh_attention_cases()),
                         [](const testing::TestParamInfo<LshAttentionCase>& info) {
                             const LshAttentionCase& c = info.param;
                             return "H" + std::to_string(c.H) + "_n" + std::to_string(c.n) + "_d" + std::to_string(c.d) +
                                    "_R" + std::to_string(c.R) + "_c" + std::to_string(c.chunk) + "_L" +
                                    std::to_string(c.look_back) + (c.shared ? "_shared" : "_separate") +
                                    (c.causal ? "_causal" : "_bidir");
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
        for (PoolMode mode : {PoolMode::Max, PoolMode::Mean, PoolMode::SignedMaxAbs}) {
            std::cout << "[case] emulated pooled_view_kernel 37x29 -> " << size << " mode " << int(mode) << " exact\n";
            Tensor3 ref;
            cpu_pooled_view(M, size, mode, ref);
            Fenced dM(M), dOut(std::size_t(ref.size()));
            const int64_t pixels = ref.size();
            reset_shared_arena();
            cuda_emu::launch(dim3(unsigned(cuda::ceil_div(pixels, 256))), dim3(256), 0, [&] {
                cuda::pooled_view_kernel(dM.get(), M.heads(), M.rows(), M.cols(), ref.rows(), ref.cols(),
                                         mode, dOut.get());
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
                // cuBLAS does not read C when beta = 0 (scratch may hold anything).
                Cb[i + j * g.ldc] = float(alpha * sum + (beta == 0.0f ? 0.0 : beta * Cb[i + j * g.ldc]));
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

// [SECTION] Linear attention (the pipeline of linear_attention.cuh with a host GEMM)

/// Threads per block of EmulatedOps::launch (DeviceOps uses kOpsThreads = 256 too).
constexpr int kEmuOpsThreads = 256;

/// The Ops of the composed pipelines (core/backend/cuda/device_ops.cuh) on the host: the GEMM computes exactly the
/// column-major call cuBLAS would get (row_major_as_column_major + its documented definition), launches run
/// on the emulator, scratch starts as NaN so an unwritten cell poisons the result.
class EmulatedOps {
public:
    void gemm(const cuda::DeviceMatrices& A, bool ta, const cuda::DeviceMatrices& B, bool tb, float alpha, float beta,
              float* C, int batch, int r, int c) {
        const int k = ta ? A.rows : A.cols;
        if (k == 0) {
            for (int64_t e = 0; e < int64_t(batch) * r * c; ++e) C[e] = beta == 0.0f ? 0.0f : C[e] * beta;
            return;
        }
        column_major_reference(cuda::row_major_as_column_major(A, ta, B, tb, r, c), alpha, beta, C, batch);
    }
    template <class... KArgs, class... Args>
    void launch(int64_t threads, void (*kernel)(KArgs...), Args... args) {
        if (threads <= 0) return;
        cuda_emu::launch(dim3(unsigned(cuda::ceil_div(threads, kEmuOpsThreads))), dim3(kEmuOpsThreads), 0,
                         [&] { kernel(KArgs(args)...); });
    }
    template <class... KArgs, class... Args>
    void launch_shared(int blocks, int threads, std::size_t smem_bytes, void (*kernel)(KArgs...), Args... args) {
        if (blocks <= 0) return;
        cuda_emu::launch(dim3(unsigned(blocks)), dim3(unsigned(threads)), smem_bytes, [&] { kernel(KArgs(args)...); });
    }
    float* scratch(std::size_t count, const char*) {
        m_buffers.emplace_back(count, NAN);
        return m_buffers.back().data();
    }

private:
    std::deque<std::vector<float>> m_buffers;
};

struct LinearCase {
    int H, n, f, dv;
    bool causal, normalise;
    int chunk;
    float d_eps, z_eps;
    int z_eps_first;
    int m = -1;  // keys; −1: as many as queries
};

class LinearAttentionEmulated : public testing::TestWithParam<LinearCase> {};

TEST_P(LinearAttentionEmulated, MatchesCpuBackend) {
    const LinearCase c = GetParam();
    const int m = c.m < 0 ? c.n : c.m;
    const double tolerance = 1e-5;
    std::cout << "[case] emulated linear attention pipeline H=" << c.H << " n=" << c.n << " f=" << c.f << " dv=" << c.dv
              << " causal=" << c.causal << " normalise=" << c.normalise << " chunk=" << c.chunk << " d_eps=" << c.d_eps
              << " z_eps=" << c.z_eps << " z_eps_first=" << c.z_eps_first << " tol=" << tolerance << "\n";
    // Positive features like the maps produce (elu + 1 of normals), so D is far from 0.
    Tensor3 phi_Q = random_tensor(c.H, c.n, c.f, 51), phi_K = random_tensor(c.H, m, c.f, 52);
    for (Tensor3* t : {&phi_Q, &phi_K})
        for (int64_t e = 0; e < t->size(); ++e) t->data()[e] = fmap::elu_plus_one(t->data()[e]);
    const Tensor3 V = random_tensor(c.H, m, c.dv, 53);
    Tensor3 O_ref(c.H, c.n, c.dv), D_ref(c.H, c.n, 1);
    LinearAttentionArgs a;
    a.phi_Q = &phi_Q, a.phi_K = &phi_K, a.V = &V, a.causal = c.causal, a.normalise = c.normalise, a.d_eps = c.d_eps;
    a.z_eps = c.z_eps, a.z_eps_first = c.z_eps_first, a.chunk = c.chunk, a.O = &O_ref, a.denom = &D_ref;
    cpu_linear_attention(a);

    cuda::LinearAttentionShape s;
    s.H = c.H, s.n = c.n, s.m = m, s.f = c.f, s.dv = c.dv, s.causal = c.causal, s.normalise = c.normalise, s.d_eps = c.d_eps;
    s.z_eps = c.z_eps, s.z_eps_first = c.z_eps_first, s.chunk = c.chunk;
    Fenced dQ(phi_Q), dK(phi_K), dV(V), dO(std::size_t(O_ref.size())), dD(std::size_t(D_ref.size()));
    reset_shared_arena();
    EmulatedOps ops;
    cuda::run_linear_attention(ops, s, dQ.get(), dK.get(), dV.get(), dO.get(), dD.get());
    const Tensor3 O = dO.to_tensor(c.H, c.n, c.dv), D = dD.to_tensor(c.H, c.n, 1);
    EXPECT_TRUE(O.all_finite()) << "an output cell was left unwritten or became NaN/Inf";
    EXPECT_TRUE(D.all_finite());
    EXPECT_TRUE(dO.fences_intact());
    EXPECT_TRUE(dD.fences_intact());
    EXPECT_LE(rel_err(O, O_ref), tolerance);
    EXPECT_LE(rel_err(D, D_ref), tolerance);
}

std::vector<LinearCase> linear_cases() {
    std::vector<LinearCase> out;
    for (bool causal : {false, true}) {
        out.push_back({2, 1, 4, 3, causal, true, 4, 0.0f, 0.0f, 0});
        out.push_back({2, 37, 16, 8, causal, true, 8, 0.0f, 0.0f, 0});      // n not a multiple of the chunk
        out.push_back({1, 64, 9, 5, causal, true, 16, 1e-6f, 0.5f, 1});    // d_eps, z_eps from column 1 (Taylor)
        out.push_back({3, 50, 12, 7, causal, false, 64, 0.0f, 0.0f, 0});   // not normalised; chunk > n
        out.push_back({1, 33, 6, 4, causal, true, 1, 0.0f, 0.0f, 0});      // chunk 1: pure prefix scan
    }
    out.push_back({2, 20, 8, 6, false, true, 64, 0.0f, 0.0f, 0, 45});  // more keys than queries
    out.push_back({2, 45, 8, 6, false, true, 64, 0.0f, 0.0f, 0, 7});   // fewer keys than queries
    return out;
}

INSTANTIATE_TEST_SUITE_P(Cuda, LinearAttentionEmulated, testing::ValuesIn(linear_cases()),
                         [](const testing::TestParamInfo<LinearCase>& info) {
                             const LinearCase& c = info.param;
                             return "H" + std::to_string(c.H) + "_n" + std::to_string(c.n) + "_m" + std::to_string(c.m < 0 ? c.n : c.m) + "_f" +
                                    std::to_string(c.f) + "_dv" + std::to_string(c.dv) +
                                    (c.causal ? "_causal" : "_bidir") + "_c" + std::to_string(c.chunk) + "_i" +
                                    std::to_string(info.index);
                         });

// [SECTION] Feature maps

TEST(FeatureMapKernelsEmulated, EveryMapMatchesCpu) {
    const FeatureMap maps[] = {FeatureMap::FavorPositive, FeatureMap::FavorHyperbolic, FeatureMap::FavorTrig,
                               FeatureMap::FavorRelu,     FeatureMap::EluPlusOne,      FeatureMap::SoftmaxRows,
                               FeatureMap::SoftmaxPositions, FeatureMap::L2Normalise};
    struct Shape { int H, n, d, m, omega_heads; };
    for (const Shape sh : {Shape{2, 1, 4, 3, 1}, Shape{2, 37, 16, 24, 2}, Shape{1, 70, 64, 5, 1}})
        for (const FeatureMap map : maps)
            for (const bool is_query : {true, false})
                for (const bool prepend_one : {false, true}) {
                    const float add = prepend_one ? 0.0f : 1e-3f;
                    std::cout << "[case] emulated feature map " << int(map) << " H=" << sh.H << " n=" << sh.n
                              << " d=" << sh.d << " m=" << sh.m << " omega_heads=" << sh.omega_heads
                              << " query=" << is_query << " prepend_one=" << prepend_one << " add=" << add
                              << " tol=2e-5\n";
                    Tensor3 X = random_tensor(sh.H, sh.n, sh.d, 71);
                    X.data()[0] = 0.0f;  // a zero-ish first row for L2 normalisation edge
                    const Tensor3 omega = random_tensor(sh.omega_heads, sh.m, sh.d, 72);
                    const float x_scale = std::pow(float(sh.d), -0.25f);
                    Tensor3 ref(sh.H, sh.n, feature_map_columns(map, sh.m, sh.d, prepend_one));
                    FeatureMapArgs a;
                    a.X = &X, a.omega = &omega, a.map = map, a.x_scale = x_scale, a.is_query = is_query, a.add = add;
                    a.prepend_one = prepend_one, a.out = &ref;
                    cpu_feature_map(a);

                    cuda::FeatureMapShape s;
                    s.H = sh.H, s.n = sh.n, s.d = sh.d, s.cols = ref.cols(), s.offset = prepend_one ? 1 : 0, s.add = add;
                    Fenced dX(X), dW(omega), dOut(std::size_t(ref.size()));
                    reset_shared_arena();
                    EmulatedOps ops;
                    if (is_favor(map)) {
                        cuda::run_favor_map(ops, s, dX.get(), dW.get(), sh.omega_heads, sh.m, x_scale, is_query,
                                            static_cast<fmap::FavorKind>(int(map)), dOut.get());
                    } else if (map == FeatureMap::SoftmaxPositions) {
                        ops.launch(int64_t(s.H) * s.d, cuda::softmax_positions_kernel, dX.get(), s, dOut.get());
                    } else {
                        const cuda::RowMapKind kind = map == FeatureMap::EluPlusOne    ? cuda::RowMapKind::EluPlusOne
                                                      : map == FeatureMap::SoftmaxRows ? cuda::RowMapKind::SoftmaxRows
                                                                                       : cuda::RowMapKind::L2Normalise;
                        ops.launch(int64_t(s.H) * s.n, cuda::row_map_kernel, dX.get(), s, kind, dOut.get());
                    }
                    const Tensor3 out = dOut.to_tensor(ref.heads(), ref.rows(), ref.cols());
                    EXPECT_TRUE(out.all_finite()) << "a feature was left unwritten or became NaN/Inf";
                    EXPECT_TRUE(dOut.fences_intact());
                    EXPECT_EQ(cuda_emu::shared_arena.overruns, 0u);
                    EXPECT_LE(rel_err(out, ref), 2e-5);
                }
}

// [SECTION] FFT: Hermitian expansion of cuFFT's half spectrum

TEST(FftRealPartKernelEmulated, ExpandsHalfSpectrumLikeCpuFft) {
    struct Case { int H, n, c; };
    for (const Case s : {Case{1, 1, 1}, Case{2, 5, 4}, Case{2, 8, 7}, Case{3, 6, 16}, Case{1, 13, 9}}) {
        std::cout << "[case] emulated fft_real_part_kernel H=" << s.H << " n=" << s.n << " c=" << s.c << " tol=1e-5\n";
        const Tensor3 X = random_tensor(s.H, s.n, s.c, 61);
        Tensor3 Y_ref;
        cpu_fft2_real(X, Y_ref);
        // The half spectrum cuFFT's r2c returns (n, c/2 + 1) per head, by the DFT's definition in double.
        const int half = s.c / 2 + 1;
        std::vector<float> spectrum(std::size_t(s.H) * s.n * half * 2);
        for (int h = 0; h < s.H; ++h)
            for (int u = 0; u < s.n; ++u)
                for (int v = 0; v < half; ++v) {
                    double re = 0, im = 0;
                    for (int i = 0; i < s.n; ++i)
                        for (int j = 0; j < s.c; ++j) {
                            const double angle = -2.0 * M_PI * (double(u) * i / s.n + double(v) * j / s.c);
                            re += X.at(h, i, j) * std::cos(angle);
                            im += X.at(h, i, j) * std::sin(angle);
                        }
                    const std::size_t at = (std::size_t(h) * s.n + u) * half + v;
                    spectrum[2 * at] = float(re), spectrum[2 * at + 1] = float(im);
                }
        Fenced dY(std::size_t(X.size()));
        reset_shared_arena();
        cuda_emu::launch(dim3(unsigned(cuda::ceil_div(X.size(), cuda::kFftThreads))), dim3(cuda::kFftThreads), 0,
                         [&] { cuda::fft_real_part_kernel(spectrum.data(), s.H, s.n, s.c, dY.get()); });
        const Tensor3 Y = dY.to_tensor(s.H, s.n, s.c);
        EXPECT_TRUE(Y.all_finite());
        EXPECT_TRUE(dY.fences_intact());
        EXPECT_LE(rel_err(Y, Y_ref), 1e-5);
    }
}

}  // namespace
}  // namespace attnscope::test

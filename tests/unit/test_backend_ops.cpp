// The backend seam in one list: for every compute method of Backend (core/backend/interface/backend.h), cases small enough
// to compute by hand, run on every backend (CUDA cases skip where no device exists). The larger randomized
// comparisons against the CPU live beside the primitives they stress (test_backend_vs_cpu.cpp, …); this list is
// what a new backend must pass first and what a new primitive must add to (a test below reads the interface).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/unit/backend_suite.h"
#include "core/backend/interface/backend.h"
#include "core/backend/interface/backend_primitives.h"

namespace attnscope {
namespace {

using test::backend_test_name;
using test::kernel_suite_backends;
using test::suite_backends;

/// A (H, rows, cols) tensor from its values in row-major order.
Tensor3 tensor(int H, int rows, int cols, std::initializer_list<float> values) {
    Tensor3 t(H, rows, cols);
    EXPECT_EQ(int64_t(values.size()), t.size()) << "test tensor written with the wrong number of values";
    int64_t k = 0;
    for (float v : values) t.data()[k++] = v;
    return t;
}

/// Every value of `got` within `tol` of `want` (same shape).
void expect_values(const Tensor3& got, std::initializer_list<float> want, double tol, const std::string& what) {
    ASSERT_EQ(got.size(), int64_t(want.size())) << what;
    int64_t k = 0;
    for (float w : want) {
        const float g = got.data()[k];
        if (std::isinf(w)) EXPECT_EQ(g, w) << what << " element " << k;
        else EXPECT_NEAR(g, w, tol) << what << " element " << k;
        ++k;
    }
}

// fp32 sums of a few terms: a few ulps of values of order 1–100.
constexpr double kTol = 1e-5;

struct OpCase {
    std::string op;    // the Backend method it covers
    std::string name;  // what the case shows
    std::function<void(Backend&)> check;
};

std::vector<OpCase> op_cases() {
    const float ln3 = std::log(3.0f), ln4 = std::log(4.0f), ln2 = std::log(2.0f);
    std::vector<OpCase> c;
    c.push_back({"gemm", "AB_ABt_and_alpha_beta", [](Backend& b) {
                     const Tensor3 A = tensor(1, 2, 2, {1, 2, 3, 4}), B = tensor(1, 2, 2, {5, 6, 7, 8});
                     Tensor3 C(1, 2, 2);
                     b.gemm(A, false, B, false, 1.0f, 0.0f, C);
                     expect_values(C, {19, 22, 43, 50}, kTol, "A·B");
                     b.gemm(A, false, B, true, 1.0f, 0.0f, C);
                     expect_values(C, {17, 23, 39, 53}, kTol, "A·Bᵀ");
                     b.gemm(A, true, B, false, 1.0f, 0.0f, C);
                     expect_values(C, {26, 30, 38, 44}, kTol, "Aᵀ·B");
                     Tensor3 D(1, 2, 2, 1.0f);
                     b.gemm(A, false, B, false, 2.0f, 1.0f, D);
                     expect_values(D, {39, 45, 87, 101}, kTol, "2·A·B + 1");
                 }});
    c.push_back({"dense_attention", "three_to_one_weights_lse_and_P", [=](Backend& b) {
                     // One query, two keys: scores s·q·k = (ln 3, 0) → weights (3/4, 1/4).
                     const Tensor3 Q = tensor(1, 1, 2, {1, 0}), K = tensor(1, 2, 2, {1, 0, 0, 1});
                     const Tensor3 V = tensor(1, 2, 2, {1, 2, 3, 4});
                     Tensor3 O(1, 1, 2), lse(1, 1, 1), P(1, 1, 2);
                     DenseAttentionArgs a;
                     a.Q = &Q, a.K = &K, a.V = &V, a.scale = ln3, a.O = &O, a.lse = &lse, a.P = &P;
                     b.dense_attention(a);
                     expect_values(O, {1.5f, 2.5f}, kTol, "O");
                     expect_values(lse, {ln4}, kTol, "lse = ln(3 + 1)");
                     expect_values(P, {0.75f, 0.25f}, kTol, "P");
                 }});
    c.push_back({"dense_attention", "causal_rows_see_only_the_past", [=](Backend& b) {
                     const Tensor3 Q = tensor(1, 2, 2, {0, 0, 0, 1}), K = tensor(1, 2, 2, {1, 0, 0, 1});
                     const Tensor3 V = tensor(1, 2, 1, {1, 3});
                     Tensor3 O(1, 2, 1), lse(1, 2, 1);
                     DenseAttentionArgs a;
                     a.Q = &Q, a.K = &K, a.V = &V, a.scale = ln3, a.causal = true, a.O = &O, a.lse = &lse;
                     b.dense_attention(a);
                     // Row 0: key 0 only. Row 1: scores (0, ln 3) → (1/4, 3/4).
                     expect_values(O, {1.0f, 2.5f}, kTol, "O");
                     expect_values(lse, {0.0f, ln4}, kTol, "lse");
                 }});
    c.push_back({"pooled_view", "max_and_mean_of_2x2_bins", [](Backend& b) {
                     const Tensor3 M = tensor(1, 4, 4, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
                     Tensor3 out;
                     b.pooled_view(M, 2, PoolMode::Max, out);
                     expect_values(out, {5, 7, 13, 15}, kTol, "max");
                     b.pooled_view(M, 2, PoolMode::Mean, out);
                     expect_values(out, {2.5f, 4.5f, 10.5f, 12.5f}, kTol, "mean");
                     // Signed: each bin's entry of largest magnitude keeps its sign (−9 beats 1; −0.5 beats 0.25).
                     const Tensor3 S = tensor(1, 1, 4, {1, -9, 0.25f, -0.5f});
                     b.pooled_view(S, 2, PoolMode::SignedMaxAbs, out);
                     expect_values(out, {-9, -0.5f}, kTol, "signed max-abs");
                 }});
    c.push_back({"block_sparse_attention", "diagonal_layout_and_an_empty_row", [](Backend& b) {
                     // b = 1, n = 3: row 0 → key 0, row 1 → key 1, row 2 → nothing (O = 0, lse = −inf).
                     BlockLayout L;
                     L.n = 3, L.block = 1, L.heads = 1;
                     L.row_ptr = {0, 1, 2, 2}, L.col_idx = {0, 1}, L.mask_idx = {-1, -1};
                     const Tensor3 Q = tensor(1, 3, 2, {1, 0, 0, 2, 1, 1}), K = tensor(1, 3, 2, {1, 0, 0, 1, 1, 1});
                     const Tensor3 V = tensor(1, 3, 1, {5, 7, 9});
                     Tensor3 O(1, 3, 1), lse(1, 3, 1);
                     BlockSparseAttentionArgs a;
                     a.Q = &Q, a.K = &K, a.V = &V, a.layout = &L, a.scale = 1.0f, a.O = &O, a.lse = &lse;
                     b.block_sparse_attention(a);
                     expect_values(O, {5, 7, 0}, kTol, "O");
                     expect_values(lse, {1.0f, 2.0f, -INFINITY}, kTol, "lse = s·q_i·k_i");
                 }});
    c.push_back({"block_sparse_attention", "in_block_causal_mask", [=](Backend& b) {
                     // One 2×2 block with bits: row 0 → col 0; row 1 → cols 0, 1.
                     BlockLayout L;
                     L.n = 2, L.block = 2, L.heads = 1;
                     L.row_ptr = {0, 1}, L.col_idx = {0}, L.mask_idx = {0}, L.masks = {0b01, 0b11};
                     const Tensor3 Q(1, 2, 2), K(1, 2, 2);  // all scores 0
                     const Tensor3 V = tensor(1, 2, 1, {1, 3});
                     Tensor3 O(1, 2, 1), lse(1, 2, 1);
                     BlockSparseAttentionArgs a;
                     a.Q = &Q, a.K = &K, a.V = &V, a.layout = &L, a.scale = 1.0f, a.O = &O, a.lse = &lse;
                     b.block_sparse_attention(a);
                     expect_values(O, {1, 2}, kTol, "O");
                     expect_values(lse, {0.0f, ln2}, kTol, "lse");
                 }});
    c.push_back({"vertical_slash_attention", "column_0_and_the_main_diagonal_counted_once", [=](Backend& b) {
                     // n = 3, column 0 and diagonal 0 (offset 5 ≥ n keeps nothing): row 0 → key 0 (on both lines,
                     // once: lse = 0, not ln 2); row 1 → keys 0, 1; row 2 → keys 0, 2 (not 1).
                     // Scores s·q·k = ln 3·(0, 1, 1) → rows 1 and 2 weigh (1/4, 3/4).
                     const Tensor3 Q = tensor(1, 3, 1, {1, 1, 1}), K = tensor(1, 3, 1, {0, 1, 1});
                     const Tensor3 V = tensor(1, 3, 1, {1, 3, 5});
                     const std::vector<std::vector<int>> columns = {{0}}, offsets = {{0, 5}};
                     Tensor3 O(1, 3, 1), lse(1, 3, 1);
                     VerticalSlashAttentionArgs a;
                     a.Q = &Q, a.K = &K, a.V = &V, a.columns = &columns, a.offsets = &offsets, a.scale = ln3;
                     a.O = &O, a.lse = &lse;
                     b.vertical_slash_attention(a);
                     expect_values(O, {1.0f, 2.5f, 4.0f}, kTol, "O");
                     expect_values(lse, {0.0f, ln4, ln4}, kTol, "lse");
                 }});
    c.push_back({"lsh_hash", "argmax_of_xR_and_minus_xR", [](Backend& b) {
                     // R = (1, 1)ᵀ: x0 = (0, −1) gives xR = −1 → bucket 1; x1 = (1, 0) gives 1 → bucket 0.
                     const Tensor3 X = tensor(1, 2, 2, {0, -1, 1, 0}), R = tensor(1, 2, 1, {1, 1});
                     std::vector<int> buckets, perm;
                     LshHashArgs a;
                     a.X = &X, a.rotations = &R, a.rounds = 1, a.n_buckets = 2, a.buckets = &buckets, a.perm = &perm;
                     b.lsh_hash(a);
                     EXPECT_EQ(buckets, (std::vector<int>{1, 0}));
                     EXPECT_EQ(perm, (std::vector<int>{1, 0}));  // sorted by (bucket, position)
                 }});
    c.push_back({"lsh_attention", "one_chunk_is_full_attention", [=](Backend& b) {
                     const Tensor3 Q = tensor(1, 2, 2, {ln3, 0, 0, 0}), K = tensor(1, 2, 2, {1, 0, 0, 1});
                     const Tensor3 V = tensor(1, 2, 2, {1, 2, 3, 4});
                     const std::vector<int> perm = {0, 1};
                     Tensor3 O(1, 2, 2), lse(1, 2, 1);
                     LshAttentionArgs a;
                     a.Q = &Q, a.K = &K, a.V = &V, a.perm_q = &perm, a.perm_k = &perm, a.rounds = 1, a.chunk_len = 2;
                     a.look_back = 0, a.scale = 1.0f, a.self_mask = false, a.O_rounds = &O, a.lse_rounds = &lse;
                     b.lsh_attention(a);
                     // Row 0: (3/4, 1/4); row 1: (1/2, 1/2).
                     expect_values(O, {1.5f, 2.5f, 2.0f, 3.0f}, kTol, "O_r");
                     expect_values(lse, {ln4, ln2}, kTol, "L_r");
                 }});
    c.push_back({"lsh_combine", "rounds_weighted_by_their_mass", [=](Backend& b) {
                     // L = (0, ln 3): weights (1/4, 3/4) of O_r = (1, 3).
                     const Tensor3 O_rounds = tensor(2, 1, 1, {1, 3}), lse_rounds = tensor(2, 1, 1, {0, ln3});
                     Tensor3 O(1, 1, 1), lse(1, 1, 1);
                     LshCombineArgs a;
                     a.O_rounds = &O_rounds, a.lse_rounds = &lse_rounds, a.O = &O, a.lse = &lse;
                     b.lsh_combine(a);
                     expect_values(O, {2.5f}, kTol, "O");
                     expect_values(lse, {ln4}, kTol, "lse");
                 }});
    c.push_back({"feature_map", "elu_l2_softmax_relu", [=](Backend& b) {
                     auto map = [&](FeatureMap kind, const Tensor3& X, int cols, const Tensor3* omega = nullptr) {
                         Tensor3 out(X.heads(), X.rows(), cols);
                         FeatureMapArgs a;
                         a.X = &X, a.omega = omega, a.map = kind, a.out = &out;
                         b.feature_map(a);
                         return out;
                     };
                     expect_values(map(FeatureMap::EluPlusOne, tensor(1, 1, 2, {-1, 2}), 2), {std::exp(-1.0f), 3.0f},
                                   kTol, "elu + 1");
                     expect_values(map(FeatureMap::L2Normalise, tensor(1, 2, 2, {3, 4, 0, 0}), 2), {0.6f, 0.8f, 0, 0},
                                   kTol, "x/‖x‖, zero row stays zero");
                     expect_values(map(FeatureMap::SoftmaxRows, tensor(1, 1, 2, {0, ln3}), 2), {0.25f, 0.75f}, kTol,
                                   "softmax over features");
                     expect_values(map(FeatureMap::SoftmaxPositions, tensor(1, 2, 1, {ln3, 0}), 1), {0.75f, 0.25f},
                                   kTol, "softmax over positions");
                     const Tensor3 omega = tensor(1, 2, 2, {1, 0, 0, 1});
                     expect_values(map(FeatureMap::FavorRelu, tensor(1, 1, 2, {2, -1}), 2, &omega),
                                   {2.0f / std::sqrt(2.0f), 0.0f}, kTol, "m^-½·max(ωx, 0)");
                 }});
    c.push_back({"linear_attention", "bidirectional_and_causal_sums", [](Backend& b) {
                     const Tensor3 phi_Q = tensor(1, 2, 2, {1, 1, 0, 1}), phi_K = tensor(1, 2, 2, {1, 0, 0, 1});
                     const Tensor3 V = tensor(1, 2, 2, {1, 2, 3, 4});
                     Tensor3 O(1, 2, 2), denom(1, 2, 1);
                     LinearAttentionArgs a;
                     a.phi_Q = &phi_Q, a.phi_K = &phi_K, a.V = &V, a.O = &O, a.denom = &denom;
                     b.linear_attention(a);
                     // S = Σ φK_j V_jᵀ = [[1, 2], [3, 4]], Σ φK = (1, 1): row 0 (4, 6)/2, row 1 (3, 4)/1.
                     expect_values(O, {2, 3, 3, 4}, kTol, "O bidirectional");
                     expect_values(denom, {2, 1}, kTol, "D bidirectional");
                     a.causal = true;
                     b.linear_attention(a);
                     // Row 0 sums j = 0 only: S = [[1, 2], [0, 0]], Σ φK = (1, 0) → (1, 2)/1.
                     expect_values(O, {1, 2, 3, 4}, kTol, "O causal");
                     expect_values(denom, {1, 1}, kTol, "D causal");
                 }});
    c.push_back({"kernel_attention", "elu_maps_then_linear_attention", [](Backend& b) {
                     // φ(K) = elu(0) + 1 = 1 for both keys: every row is the mean of the values it sums.
                     const Tensor3 Q = tensor(1, 2, 1, {0, 5}), K(1, 2, 1), V = tensor(1, 2, 1, {1, 3});
                     Tensor3 O(1, 2, 1);
                     KernelAttentionArgs a;
                     a.q_map.X = &Q, a.q_map.map = FeatureMap::EluPlusOne;
                     a.k_map.X = &K, a.k_map.map = FeatureMap::EluPlusOne;
                     a.attention.V = &V, a.attention.O = &O;
                     b.kernel_attention(a);
                     expect_values(O, {2, 2}, kTol, "O bidirectional");
                     a.attention.causal = true;
                     b.kernel_attention(a);
                     expect_values(O, {1, 2}, kTol, "O causal");
                 }});
    c.push_back({"fft2_real", "2x2_dft", [](Backend& b) {
                     // F_2 = [[1, 1], [1, −1]]: F·X·F of [[1, 2], [3, 4]] is real.
                     const Tensor3 X = tensor(1, 2, 2, {1, 2, 3, 4});
                     Tensor3 Y;
                     b.fft2_real(X, Y);
                     expect_values(Y, {10, -2, -4, 0}, kTol, "Re(F·X·F)");
                 }});
    c.push_back({"singular_values", "exact_and_top1_of_a_diagonal", [](Backend& b) {
                     const Tensor3 M = tensor(1, 2, 2, {0, -1, 3, 0});  // a permuted diag(3, 1) with a sign
                     std::vector<double> S;
                     SingularValuesArgs a;
                     a.M = &M, a.S = &S;
                     b.singular_values(a);
                     ASSERT_EQ(S.size(), 2u);
                     EXPECT_NEAR(S[0], 3.0, kTol);
                     EXPECT_NEAR(S[1], 1.0, kTol);
                     a.top_k = 1, a.seed = 7;
                     b.singular_values(a);
                     ASSERT_EQ(S.size(), 1u);
                     EXPECT_NEAR(S[0], 3.0, 1e-4);  // randomized, with power iterations: converged on a 2×2
                 }});
    return c;
}

struct BackendOp {
    std::string backend;
    OpCase c;
};

std::vector<BackendOp> backend_ops() {
    std::vector<BackendOp> out;
    for (const std::string& backend : kernel_suite_backends())
        for (const OpCase& c : op_cases()) out.push_back({backend, c});
    return out;
}

class BackendOps : public testing::TestWithParam<BackendOp> {};

TEST_P(BackendOps, HandComputedCase) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam().backend);
    std::cout << "[case] backend=" << GetParam().backend << " " << GetParam().c.op << ": " << GetParam().c.name << "\n";
    GetParam().c.check(*backend);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, BackendOps, testing::ValuesIn(backend_ops()),
                         [](const testing::TestParamInfo<BackendOp>& info) {
                             return backend_test_name(info.param.backend) + "_" + info.param.c.op + "_" + info.param.c.name;
                         });

/// The compute methods of Backend: the primitives every backend defines (backend_primitives.h) and kernel_attention,
/// which has a default.
std::set<std::string> listed_methods() {
    std::set<std::string> methods = {"kernel_attention"};
#define ATTNSCOPE_INSERT_NAME(name, params, args) methods.insert(#name);
    ATTNSCOPE_BACKEND_PRIMITIVES(ATTNSCOPE_INSERT_NAME)
#undef ATTNSCOPE_INSERT_NAME
    return methods;
}

TEST(BackendOpsList, EveryComputeMethodOfTheInterfaceHasACase) {
    const std::set<std::string> methods = listed_methods();
    std::set<std::string> covered;
    for (const OpCase& c : op_cases()) covered.insert(c.op);
    for (const std::string& m : methods) EXPECT_TRUE(covered.count(m)) << "Backend::" << m << " has no hand-computed case";
    for (const std::string& m : covered) EXPECT_TRUE(methods.count(m)) << m << " is not a Backend method";
}

TEST(BackendOpsList, TheListNamesEveryComputeMethodOfTheInterface) {
    // A pure method missing from the list leaves the backends abstract and a listed one missing from Backend fails
    // `override`, both when compiling; a method with a default (as kernel_attention) is caught only here.
    const std::string path = std::string(ATTNSCOPE_TEST_DATA_DIR) + "/../../core/backend/interface/backend.h";
    std::ifstream in(path);
    ASSERT_TRUE(in) << "cannot read " << path;
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    const std::string body = s.substr(s.find("class Backend {"));
    std::set<std::string> declared;
    const std::regex method(R"(virtual void (\w+)\()");
    for (auto it = std::sregex_iterator(body.begin(), body.end(), method); it != std::sregex_iterator(); ++it)
        // Device bookkeeping, not compute: the peak mark and the inputs kept on the device.
        if (!std::set<std::string>{"set_device_peak", "keep_inputs_on_device", "release_device_inputs"}.count((*it)[1]))
            declared.insert((*it)[1]);
    EXPECT_GE(declared.size(), 12u) << "the interface parse found too few methods: " << path;
    EXPECT_EQ(declared, listed_methods()) << path << " and backend_primitives.h list different compute methods";
}

}  // namespace
}  // namespace attnscope

// The max-pooled picture of P from dense attention (DenseAttentionArgs::pooled) on every backend: the fused tiled
// pass and the materialised path against the definition (P by a plain double-precision softmax written here, pooled
// by a loop over bins written here), O and lse untouched by asking for it, and the errors a caller gets.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>

#include "tests/unit/kernel_test_util.h"
#include "tests/unit/sparse_test_util.h"

namespace attnscope::test {
namespace {

/// The probabilities of head h in double: softmax over the keys j of logit(h, i, j, scale·q_i·k_j), causal: j ≤ i.
MatD reference_probabilities(const Tensor3& Q, const Tensor3& K, int h, double scale, bool causal, const Logit& logit) {
    const int n = Q.rows(), m = K.rows(), d = Q.cols();
    MatD P = MatD::Zero(n, m);
    for (int i = 0; i < n; ++i) {
        const int keys = causal ? i + 1 : m;
        double top = -INFINITY;
        for (int j = 0; j < keys; ++j) {
            double x = 0;
            for (int k = 0; k < d; ++k) x += double(Q.at(h, i, k)) * double(K.at(h, j, k));
            x *= scale;
            P(i, j) = logit ? logit(h, i, j, x) : x;
            top = std::max(top, P(i, j));
        }
        double sum = 0;
        for (int j = 0; j < keys; ++j) sum += (P(i, j) = std::exp(P(i, j) - top));
        for (int j = 0; j < keys; ++j) P(i, j) /= sum;
    }
    return P;
}

/// Bin a of s bins over n items as the definition splits them: [⌊a·n/s⌋, ⌊(a+1)·n/s⌋).
std::pair<int, int> bin(int a, int n, int s) {
    return {int(int64_t(a) * n / s), int(int64_t(a + 1) * n / s)};
}

/// P (n, m) max-pooled to (sr, sc).
MatD pool_max(const MatD& P, int sr, int sc) {
    const int n = int(P.rows()), m = int(P.cols());
    MatD out = MatD::Zero(sr, sc);
    for (int a = 0; a < sr; ++a)
        for (int b = 0; b < sc; ++b) {
            const auto [i0, i1] = bin(a, n, sr);
            const auto [j0, j1] = bin(b, m, sc);
            for (int i = i0; i < i1; ++i)
                for (int j = j0; j < j1; ++j) out(a, b) = std::max(out(a, b), P(i, j));
        }
    return out;
}

/// Number of entries of `got` off the expectation by more than 1e-5 relative (+ 1e-12 absolute); `where` names the
/// worst one.
int64_t count_off(const Tensor3& got, const std::vector<MatD>& want, std::string& where) {
    int64_t off = 0;
    double worst = 0;
    for (int h = 0; h < got.heads(); ++h)
        for (int a = 0; a < got.rows(); ++a)
            for (int b = 0; b < got.cols(); ++b) {
                const double w = want[size_t(h)](a, b), g = got.at(h, a, b);
                const double excess = std::abs(g - w) / (1e-5 * std::abs(w) + 1e-12);
                if (excess > 1) ++off;
                if (excess > worst) {
                    worst = excess;
                    std::ostringstream s;
                    s << "worst: head " << h << " bin (" << a << ", " << b << ") got " << g << " want " << w;
                    where = s.str();
                }
            }
    return off;
}

struct PooledCase {
    int n, m, sr, sc, tile_rows, tile_cols;
    bool causal;
};

std::string describe(const PooledCase& c) {
    std::ostringstream s;
    s << "n=" << c.n << " m=" << c.m << " pooled " << c.sr << "x" << c.sc << " tiles " << c.tile_rows << "x"
      << c.tile_cols << (c.causal ? " causal" : "");
    return s.str();
}

std::vector<PooledCase> pooled_cases() {
    std::vector<PooledCase> out;
    for (const auto& [br, bc] : {std::pair{64, 64}, std::pair{48, 80}})
        for (bool causal : {false, true}) {
            for (int s : {50, 64, 37}) out.push_back({200, 200, s, s, br, bc, causal});  // 50 divides n, 64 and 37 not
            out.push_back({200, 200, 23, 61, br, bc, causal});                              // sr ≠ sc
            out.push_back({200, 200, 37, 2, br, bc, causal});  // column bins wider than a key tile
            out.push_back({200, 200, 23, 3, br, bc, causal});
            out.push_back({200, 200, 200, 200, br, bc, causal});                            // one cell per bin
            out.push_back({200, 200, 1, 1, br, bc, causal});                                // one bin
        }
    for (const auto& [br, bc] : {std::pair{64, 64}, std::pair{48, 80}}) {
        out.push_back({200, 173, 37, 64, br, bc, false});  // m ≠ n
        out.push_back({131, 290, 64, 37, br, bc, false});
    }
    out.push_back({777, 777, 64, 64, 64, 64, true});  // more query tiles than threads, row bins across tiles
    return out;
}

/// Runs dense attention with a pooled picture of c's shape (and P when `materialise`) and compares it with the
/// definition under `mod` (`logit` is its double-precision definition).
void expect_matches_definition(Backend& backend, const std::string& name, const PooledCase& c, const ScoreMod& mod,
                               const Logit& logit, bool materialise) {
    const int H = 3, d = 16, dv = 8;
    const Tensor3 Q = random_tensor3(H, c.n, d, 1), K = random_tensor3(H, c.m, d, 2), V = random_tensor3(H, c.m, dv, 3);
    const double scale = 1.0 / std::sqrt(double(d));
    std::vector<MatD> want;
    for (int h = 0; h < H; ++h)
        want.push_back(pool_max(reference_probabilities(Q, K, h, scale, c.causal, logit), c.sr, c.sc));

    Tensor3 O(H, c.n, dv), P(H, c.n, c.m), pooled(H, c.sr, c.sc, -1.0f);  // −1: every entry must be written
    DenseAttentionArgs a;
    a.Q = &Q, a.K = &K, a.V = &V, a.O = &O, a.scale = float(scale), a.causal = c.causal, a.score_mod = mod;
    a.tile_rows = c.tile_rows, a.tile_cols = c.tile_cols, a.pooled = &pooled;
    if (materialise) a.P = &P;
    backend.dense_attention(a);
    std::string where;
    EXPECT_EQ(count_off(pooled, want, where), 0)
        << name << " " << describe(c) << (materialise ? " materialised" : " fused") << "; " << where;
}

class PooledDenseAttention : public testing::TestWithParam<std::string> {};

TEST_P(PooledDenseAttention, FusedPassMatchesPooledDefinition) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] backend=" << GetParam() << " (" << backend->description() << ") " << pooled_cases().size()
              << " shapes, H=3, fused tiled pass vs double softmax pooled by bins, tol 1e-5 rel + 1e-12\n";
    for (const PooledCase& c : pooled_cases()) expect_matches_definition(*backend, GetParam(), c, {}, {}, false);
}

TEST_P(PooledDenseAttention, MaterialisedPathMatchesPooledDefinition) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] backend=" << GetParam() << " pooled from a materialised P vs the definition\n";
    for (const PooledCase& c : pooled_cases()) expect_matches_definition(*backend, GetParam(), c, {}, {}, true);
}

TEST_P(PooledDenseAttention, ScoreModifiedProbabilitiesArePooled) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (bool causal : {false, true})
        for (const ScoreModKind kind : {ScoreModKind::Alibi, ScoreModKind::Softcap}) {
            const ScoreMod mod{kind, 0.6f, 3};
            const Logit logit = kind == ScoreModKind::Alibi ? alibi_logit(3) : softcap_logit(0.6);
            std::cout << "[case] backend=" << GetParam() << (kind == ScoreModKind::Alibi ? " alibi" : " softcap 0.6")
                      << (causal ? " causal" : "") << " n=200 pooled 37x64 and 37x2, tiles 48x80 and 64x64, fused and "
                      << "materialised\n";
            for (bool materialise : {false, true}) {
                expect_matches_definition(*backend, GetParam(), {200, 200, 37, 64, 48, 80, causal}, mod, logit,
                                          materialise);
                expect_matches_definition(*backend, GetParam(), {200, 200, 37, 2, 64, 64, causal}, mod, logit,
                                          materialise);
            }
        }
}

TEST_P(PooledDenseAttention, AskingForItLeavesOAndLseBitIdentical) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const int H = 3, n = 200, d = 16, dv = 8;
    const Tensor3 Q = random_tensor3(H, n, d, 4), K = random_tensor3(H, n, d, 5), V = random_tensor3(H, n, dv, 6);
    for (bool causal : {false, true})
        for (const auto& [br, bc] : {std::pair{64, 64}, std::pair{48, 80}})
            for (const ScoreModKind kind : {ScoreModKind::None, ScoreModKind::Alibi}) {
                std::cout << "[case] backend=" << GetParam() << " n=200 tiles " << br << "x" << bc
                          << (causal ? " causal" : "") << (kind == ScoreModKind::Alibi ? " alibi" : "")
                          << ": O and lse with and without pooled 37x64, bit for bit\n";
                DenseAttentionArgs a;
                Tensor3 O1(H, n, dv), lse1(H, n, 1), O2(H, n, dv), lse2(H, n, 1), pooled(H, 37, 64);
                a.Q = &Q, a.K = &K, a.V = &V, a.scale = 0.25f, a.causal = causal, a.score_mod = {kind, 50.0f, H};
                a.tile_rows = br, a.tile_cols = bc, a.O = &O1, a.lse = &lse1;
                backend->dense_attention(a);
                a.O = &O2, a.lse = &lse2, a.pooled = &pooled;
                backend->dense_attention(a);
                EXPECT_TRUE(same_bits(O1, O2)) << "O";
                EXPECT_TRUE(same_bits(lse1, lse2)) << "lse";
            }
}

INSTANTIATE_TEST_SUITE_P(CpuBackends, PooledDenseAttention, testing::Values("cpu", "cpu-portable"),
                         [](const testing::TestParamInfo<std::string>& info) { return backend_test_name(info.param); });

class PooledDenseAttentionShape : public testing::TestWithParam<std::string> {};

TEST_P(PooledDenseAttentionShape, WrongPooledShapeIsAnError) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const int H = 2, n = 40, m = 30;
    const Tensor3 Q = random_tensor3(H, n, 8, 7), K = random_tensor3(H, m, 8, 8), V = random_tensor3(H, m, 8, 9);
    Tensor3 O(H, n, 8);
    for (const auto& [heads, sr, sc] : {std::tuple{1, 10, 10}, std::tuple{2, 0, 10}, std::tuple{2, 41, 10},
                                       std::tuple{2, 10, 0}, std::tuple{2, 10, 31}}) {
        std::cout << "[case] backend=" << GetParam() << " n=40 m=30 H=2, pooled (" << heads << ", " << sr << ", " << sc
                  << "): Error naming the pooled picture\n";
        Tensor3 pooled(heads, sr, sc);
        DenseAttentionArgs a;
        a.Q = &Q, a.K = &K, a.V = &V, a.O = &O, a.pooled = &pooled;
        try {
            backend->dense_attention(a);
            ADD_FAILURE() << "no error for pooled " << pooled.shape_string();
        } catch (const Error& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("pooled picture"), std::string::npos) << what;
            EXPECT_NE(what.find("1 ≤ sr ≤ n = 40"), std::string::npos) << what;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, PooledDenseAttentionShape, testing::ValuesIn(kernel_suite_backends()),
                         [](const testing::TestParamInfo<std::string>& info) { return backend_test_name(info.param); });

TEST(PooledDenseAttentionCuda, RefusesThePooledPicture) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, "cuda");
    std::cout << "[case] backend=cuda: dense attention with a pooled picture is an Error\n";
    const Tensor3 Q = random_tensor3(1, 16, 8, 1);
    Tensor3 O(1, 16, 8), pooled(1, 4, 4);
    DenseAttentionArgs a;
    a.Q = &Q, a.K = &Q, a.V = &Q, a.O = &O, a.pooled = &pooled;
    try {
        backend->dense_attention(a);
        ADD_FAILURE() << "the CUDA backend accepted a pooled picture";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("computed on the CPU backend only"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace attnscope::test

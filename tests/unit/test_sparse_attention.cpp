// Masked family: the block-sparse primitive against a dense masked softmax on hand-made layouts, the limit
// cases of docs/VARIANTS.md (equal to `full`), causality, seeds, stability and the edge inputs (n = 1, n not a
// multiple of the block, window ≥ n, bad parameters).
#include <cstring>

#include "tests/unit/sparse_test_util.h"

#include "core/variants/sparse_common.h"
#include "core/variants/xl.h"

namespace attnscope::test {
namespace {

using Assignments = std::vector<std::pair<std::string, std::string>>;

class SparseAttention : public testing::TestWithParam<std::string> {};

/// Exact attention O (and lse) with scale 1/√d through the backend's dense primitive.
Tensor3 dense_output(const Heads& x, bool causal, Backend& backend, Tensor3* lse = nullptr) {
    Tensor3 O(x.heads(), x.n(), x.dv());
    DenseAttentionArgs a;
    a.Q = &x.Q, a.K = &x.K, a.V = &x.V, a.O = &O, a.lse = lse, a.causal = causal;
    a.scale = static_cast<float>(1.0 / std::sqrt(double(x.d())));
    backend.dense_attention(a);
    return O;
}

/// A pattern from a plain predicate, to drive the primitive with arbitrary layouts.
struct PredicatePattern {
    int n, b;
    std::function<bool(int, int, int)> allowed;
    Reason reason(int h, int i, int j) const { return allowed(h, i, j) ? Reason::Local : Reason::None; }
    void candidates(int, int, std::vector<BlockCandidate>& out) const { range_candidates(n, b, 0, n - 1, out); }
};

TEST_P(SparseAttention, PrimitiveMatchesDenseMaskedSoftmaxOnRandomMasks) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (uint64_t seed = 0; seed < 12; ++seed) {
        const int n = 1 + static_cast<int>(rng::below(seed, 5, 0, 300)),
                  b = 1 + static_cast<int>(rng::below(seed, 5, 1, 80));
        const int H = 1 + static_cast<int>(rng::below(seed, 5, 2, 3)),
                  d = 1 + static_cast<int>(rng::below(seed, 5, 3, 40));
        const double density = rng::uniform(seed, 5, 4);
        const int layout_heads = seed % 2 ? H : 1;
        const float scale = 0.3f + 0.1f * static_cast<float>(seed);
        std::cout << "[case] backend=" << GetParam() << " random mask seed=" << seed << " n=" << n << " b=" << b
                  << " H=" << H << " d=" << d << " density≈" << density << " layout_heads=" << layout_heads
                  << " tol=1e-5\n";
        const Heads x = random_heads(H, n, d, d + 3, 100 + seed);
        auto allowed = [&](int h, int i, int j) {
            const int lh = layout_heads == 1 ? 0 : h;
            return rng::uniform(seed, 6 + lh, uint64_t(i) * n + j) < density;
        };
        const BlockLayout layout = build_layout(PredicatePattern{n, b, allowed}, n, b, layout_heads);
        Tensor3 O(H, n, d + 3), lse(H, n, 1), O_ref, lse_ref;
        BlockSparseAttentionArgs a;
        a.Q = &x.Q, a.K = &x.K, a.V = &x.V, a.layout = &layout, a.scale = scale, a.O = &O, a.lse = &lse;
        backend->block_sparse_attention(a);
        masked_reference(x, scale, allowed, O_ref, lse_ref);
        EXPECT_LE(rel_err(O, O_ref), 1e-5);
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < n; ++i) {
                if (std::isinf(lse_ref.at(h, i, 0))) {
                    EXPECT_TRUE(std::isinf(lse.at(h, i, 0)));
                    EXPECT_EQ(O.head(h).row(i).cwiseAbs().maxCoeff(), 0.0f) << "empty row gives 0";
                } else {
                    EXPECT_NEAR(lse.at(h, i, 0), lse_ref.at(h, i, 0),
                                1e-5 * std::max(1.0f, std::fabs(lse_ref.at(h, i, 0))));
                }
            }
    }
}

TEST_P(SparseAttention, HugeLogitsStayFinite) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] backend=" << GetParam() << " longformer/bigbird n=300 logits ~1e4\n";
    Heads x = random_heads(2, 300, 16, 16, 77);
    for (int64_t k = 0; k < x.Q.size(); ++k) x.Q.data()[k] *= 1e4f;
    for (const std::string id : {"longformer", "bigbird", "strided", "xl"}) {
        const RunResult r = run_recorded(x, id, {}, *backend);
        EXPECT_TRUE(r.O.all_finite()) << id;
        EXPECT_TRUE(r.P_eff->all_finite()) << id;
    }
}

struct LimitCase {
    std::string id;
    Assignments sets;
    bool causal;
};

TEST_P(SparseAttention, LimitCasesEqualFull) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (int n : {1, 37, 200}) {
        const std::string N = std::to_string(n), N2 = std::to_string(2 * n), N2p = std::to_string(2 * n + 7);
        const std::vector<LimitCase> cases = {
            {"longformer", {{"window", N2}, {"global", "none"}}, false},
            {"longformer", {{"window", N2p}, {"causal", "1"}}, true},
            {"strided", {{"stride", N}}, true},  // the default head pattern: exact at l ≥ n for any H
            {"fixed", {{"block", N2p}}, true},
            {"strided", {{"stride", N}, {"head_pattern", "union"}}, true},
            {"strided", {{"stride", N2p}, {"head_pattern", "A"}}, true},
            {"strided", {{"stride", N}, {"head_pattern", "union"}, {"bidirectional", "1"}}, false},
            {"fixed", {{"block", N}, {"summary", "1"}, {"head_pattern", "union"}}, true},
            {"fixed", {{"block", N2p}, {"summary", N}, {"head_pattern", "A"}, {"causal", "0"}}, false},
            {"xl", {{"segment", "16"}, {"memory", N}}, true},
            {"xl", {{"segment", "5"}, {"memory", N2p}, {"same_length", "1"}}, true},
            {"bigbird",
             {{"block", "8"}, {"window_blocks", std::to_string(2 * ((n + 7) / 8) + 1)}, {"global_blocks", "0"}},
             false},
            {"bigbird", {{"block", "16"}, {"global_blocks", "64"}, {"causal", "1"}}, true},
            {"sink", {{"window", N}, {"sinks", "0"}}, true},  // Xiao et al.: exact (causal) when w ≥ n
            {"sink", {{"window", N2p}, {"sinks", "4"}}, true},
            {"topk", {{"k", N}}, false},  // the oracle keeps every key at k ≥ n
            {"topk", {{"k", N2p}, {"causal", "1"}}, true},
            {"blocksel", {{"block", "8"}, {"top_blocks", std::to_string((n + 7) / 8)}}, true},  // every block kept
            {"vslash", {{"verticals", N}, {"slashes", "0"}}, true},  // every column (Jiang et al.: V ≥ n)
            {"vslash", {{"verticals", "0"}, {"slashes", N}, {"last_queries", "1"}}, true},  // every diagonal
            {"blocksel", {{"block", "16"}, {"top_blocks", "64"}, {"causal", "0"}}, false},
        };
        const Heads x = random_heads(3, n, 24, 20, 31 + n);
        const Tensor3 full_bidir = dense_output(x, false, *backend), full_causal = dense_output(x, true, *backend);
        for (const LimitCase& c : cases) {
            std::string text;
            for (const auto& [k, v] : c.sets) text += " " + k + "=" + v;
            std::cout << "[case] backend=" << GetParam() << " n=" << n << " " << c.id << text << " == full"
                      << (c.causal ? " (causal)" : "") << " tol=1e-5\n";
            const RunResult r = run_recorded(x, c.id, c.sets, *backend, nullptr, false);
            EXPECT_EQ(r.causal, c.causal) << c.id << text;
            EXPECT_LE(rel_err(r.O, c.causal ? full_causal : full_bidir), 1e-5) << c.id << text;
            EXPECT_NEAR(*r.structure.density, 1.0, 1e-12) << c.id << text;
        }
    }
}

TEST_P(SparseAttention, CausalVariantsPutNoWeightOnTheFuture) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const std::vector<std::pair<std::string, Assignments>> cases = {
        {"strided", {{"stride", "7"}, {"head_pattern", "union"}}},
        {"strided", {{"stride", "5"}}},
        {"fixed", {{"block", "16"}, {"summary", "4"}}},
        {"longformer",
         {{"window", "30"}, {"global", "0,50,129"}, {"causal", "1"}, {"dilation", "2"}, {"dilation_per_head", "1"}}},
        {"bigbird", {{"block", "8"}, {"causal", "1"}, {"random_blocks", "4"}}},
        {"xl", {{"segment", "24"}, {"memory", "10"}}},
        {"xl", {{"segment", "24"}, {"memory", "40"}, {"same_length", "1"}}},
    };
    const Heads x = random_heads(4, 130, 16, 8, 5);
    for (const auto& [id, sets] : cases) {
        std::cout << "[case] backend=" << GetParam() << " " << id
                  << " n=130 causal: P̃_ij = 0 for j > i, outputs blind to the future\n";
        const RunResult r = run_recorded(x, id, sets, *backend);
        ASSERT_TRUE(r.causal) << id;
        for (int h = 0; h < 4; ++h)
            for (int i = 0; i < 130; ++i)
                for (int j = i + 1; j < 130; ++j) {
                    ASSERT_EQ(r.P_eff->at(h, i, j), 0.0f) << id << " h=" << h << " i=" << i << " j=" << j;
                    ASSERT_EQ(r.structure.mask->at(h, i, j), Reason::None);
                }
        // Changing the last half of K and V must leave the first half of the outputs unchanged.
        Heads y = x;
        for (int h = 0; h < 4; ++h) {
            y.K.head(h).bottomRows(65).setRandom();
            y.V.head(h).bottomRows(65).setRandom();
        }
        const RunResult r2 = run_recorded(y, id, sets, *backend, nullptr, false);
        for (int h = 0; h < 4; ++h) EXPECT_EQ(r.O.head(h).topRows(65), r2.O.head(h).topRows(65)) << id;
    }
}

TEST_P(SparseAttention, BigBirdRandomBlocksFollowTheSeed) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] backend=" << GetParam()
              << " bigbird n=512 b=16 r=3: same seed → same layout and output bit for bit\n";
    const Heads x = random_heads(2, 512, 16, 16, 9);
    std::optional<BlockLayout> l1, l2, l3;
    const RunResult a = run_recorded(x, "bigbird", {{"seed", "42"}}, *backend, &l1, false);
    const RunResult b = run_recorded(x, "bigbird", {{"seed", "42"}}, *backend, &l2, false);
    const RunResult c = run_recorded(x, "bigbird", {{"seed", "43"}}, *backend, &l3, false);
    EXPECT_EQ(l1->col_idx, l2->col_idx);
    EXPECT_EQ(a.structure.random_blocks.value().head0, b.structure.random_blocks.value().head0);
    EXPECT_EQ(0, std::memcmp(a.O.data(), b.O.data(), static_cast<size_t>(a.O.bytes())));
    EXPECT_NE(l1->col_idx, l3->col_idx);
    EXPECT_NE(a.structure.random_blocks.value().head0, c.structure.random_blocks.value().head0);
    // Heads draw independently.
    const BlockLayoutView v = l1->view();
    std::vector<int> h0(l1->col_idx.begin() + layout_row_begin(v, 0, 0),
                        l1->col_idx.begin() + layout_row_end(v, 0, v.block_rows - 1));
    std::vector<int> h1(l1->col_idx.begin() + layout_row_begin(v, 1, 0),
                        l1->col_idx.begin() + layout_row_end(v, 1, v.block_rows - 1));
    EXPECT_NE(h0, h1);
}

TEST_P(SparseAttention, EdgeInputsWork) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    // n = 1 everywhere, window ≥ n, n not a multiple of any block/segment/stride (with a note).
    for (const std::string id : {"strided", "fixed", "longformer", "bigbird", "xl"}) {
        std::cout << "[case] backend=" << GetParam() << " " << id << " n=1 d=1\n";
        const Heads one = random_heads(1, 1, 1, 1, 3);
        const RunResult r = run_recorded(one, id, {}, *backend);
        EXPECT_NEAR(r.O.at(0, 0, 0), one.V.at(0, 0, 0), 1e-6) << id << " with one token returns its value";
    }
    const Heads x = random_heads(2, 976, 8, 8, 4);
    for (const auto& [id, sets] : std::vector<std::pair<std::string, Assignments>>{{"longformer", {{"window", "2000"}}},
                                                                                   {"bigbird", {{"block", "64"}}},
                                                                                   {"xl", {{"segment", "100"}}},
                                                                                   {"fixed", {{"block", "100"}}},
                                                                                   {"strided", {}}}) {
        std::cout << "[case] backend=" << GetParam() << " " << id << " n=976 (not a multiple): note about padding\n";
        const RunResult r = run_recorded(x, id, sets, *backend, nullptr, false);
        bool padded = false;
        for (const std::string& note : r.structure.notes)
            padded = padded || note.find("n = 976 padded") != std::string::npos;
        EXPECT_TRUE(padded) << id;
        EXPECT_TRUE(r.O.all_finite());
    }
}

TEST_P(SparseAttention, BadParametersAreErrors) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const Heads x = random_heads(1, 64, 8, 8, 4);
    const std::vector<std::pair<std::string, Assignments>> bad = {{"longformer", {{"global", "-1"}}},
                                                                  {"fixed", {{"block", "8"}, {"summary", "9"}}},
                                                                  {"bigbird", {{"window_blocks", "4"}}},
                                                                  {"xl", {{"memory", "0"}, {"same_length", "1"}}}};
    for (const auto& [id, sets] : bad) {
        std::cout << "[case] backend=" << GetParam() << " " << id << " " << sets[0].first << "=" << sets[0].second
                  << " → Error\n";
        EXPECT_THROW(run_recorded(x, id, sets, *backend), Error) << id;
    }
}

TEST_P(SparseAttention, LongformerGlobalsBeyondTheSequenceAreSkippedWithANote) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const Heads x = random_heads(1, 64, 8, 8, 4);
    std::cout << "[case] backend=" << GetParam() << " longformer global=0,64,100 at n = 64 equals global=0, noted\n";
    const RunResult beyond = run_recorded(x, "longformer", {{"global", "0,64,100"}}, *backend);
    const RunResult inside = run_recorded(x, "longformer", {{"global", "0"}}, *backend);
    EXPECT_LE((beyond.O.head(0) - inside.O.head(0)).cwiseAbs().maxCoeff(), 0.0f);  // the same cells, the same sums
    bool noted = false;
    for (const std::string& note : beyond.structure.notes)
        noted = noted || note.find("global positions 64, 100 lie beyond this sequence") != std::string::npos;
    EXPECT_TRUE(noted);
}

TEST_P(SparseAttention, XlCachedAndRecomputedEvaluationAgree) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (auto [L, M] : std::vector<std::pair<int, int>>{{32, 32}, {50, 120}, {7, 0}}) {
        std::cout << "[case] backend=" << GetParam() << " xl evaluation n=300 L=" << L << " M=" << M << "\n";
        const Heads x = random_heads(2, 300, 16, 16, 12);
        const XlEvaluationTiming t = time_xl_evaluation(x, L, M, 0.25f, *backend);
        EXPECT_EQ(t.segments, (300 + L - 1) / L);
        EXPECT_LE(t.max_abs_diff, 1e-5);
        EXPECT_GT(t.recompute_flops, t.cached_flops * (M > 0 ? 1.0 : 0.999));
    }
}

TEST_P(SparseAttention, MassRecallIsTheExactMassInsideTheMask) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const Heads x = random_heads(3, 150, 16, 8, 21);
    const std::vector<std::pair<std::string, Assignments>> cases = {
        {"longformer", {{"window", "20"}, {"scale", "0.5"}}},  // a non-exact scale: allowed_lse is recomputed at 1/√d
        {"bigbird", {{"block", "8"}, {"causal", "1"}}},
        {"strided", {}},
        {"xl", {{"segment", "40"}, {"memory", "15"}}},
        {"topk", {{"k", "12"}}}};
    for (const auto& [id, sets] : cases) {
        std::cout << "[case] backend=" << GetParam() << " " << id
                  << " n=150: mass_recall_i = Σ_{j allowed} P_ij, tol=1e-5\n";
        ReferenceCache refs(x, true);
        RunOptions options;
        options.explain = true;
        const RunResult r = run_variant(x, parse_variant_request(id, sets), options, *backend, &refs);
        const Reference& ref = refs.get(r.causal, *backend);
        double total = 0;
        for (int i = 0; i < x.n(); ++i) {
            double row = 0;
            for (int h = 0; h < x.heads(); ++h)
                for (int j = 0; j < x.n(); ++j)
                    if (r.structure.mask->at(h, i, j) != Reason::None) row += ref.P->at(h, i, j) / x.heads();
            EXPECT_NEAR(r.metrics.row_mass_recall[i], row, 1e-5) << id << " row " << i;
            total += row / x.n();
        }
        EXPECT_NEAR(*r.metrics.mass_recall, total, 1e-5) << id;
        // The ceiling: per row, the largest exact mass of as many keys as the mask keeps there (sorted here).
        double ceiling = 0;
        for (int h = 0; h < x.heads(); ++h)
            for (int i = 0; i < x.n(); ++i) {
                std::vector<double> row;
                int keys = 0;
                for (int j = 0; j < x.n(); ++j) {
                    row.push_back(ref.P->at(h, i, j));
                    keys += r.structure.mask->at(h, i, j) != Reason::None;
                }
                std::sort(row.begin(), row.end(), std::greater<double>());
                for (int k = 0; k < keys; ++k) ceiling += row[size_t(k)] / (double(x.heads()) * x.n());
            }
        ASSERT_TRUE(r.metrics.mass_ceiling) << id;
        EXPECT_NEAR(*r.metrics.mass_ceiling, ceiling, 1e-5) << id;
        EXPECT_LE(*r.metrics.mass_recall, *r.metrics.mass_ceiling + 1e-6) << id;
        if (id == "topk") EXPECT_NEAR(*r.metrics.mass_recall, *r.metrics.mass_ceiling, 1e-5) << "the oracle is its own ceiling";
        else EXPECT_LT(*r.metrics.mass_recall, *r.metrics.mass_ceiling - 1e-3) << id << ": a fixed pattern is below it here";
        if (id == "longformer") {
            // The output itself uses the variant's scale 0.5.
            Tensor3 O_ref, lse_ref;
            masked_reference(
                x, 0.5, [&](int h, int i, int j) { return r.structure.mask->at(h, i, j) != Reason::None; }, O_ref,
                lse_ref);
            EXPECT_LE(rel_err(r.O, O_ref), 1e-5);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, SparseAttention, testing::ValuesIn(kernel_suite_backends()),
                         [](const testing::TestParamInfo<std::string>& info) { return backend_test_name(info.param); });

}  // namespace
}  // namespace attnscope::test

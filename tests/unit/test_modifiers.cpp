// Score modifiers (ALiBi, soft-cap) and mask modifiers (prefix-LM, document) on every backend: the primitives
// against a double-precision reference written here from the definitions (not from score_mod.h), the masked
// variants' cells against the definition's predicate, the modified exact model, and the errors a user gets.
#include <algorithm>
#include <cmath>
#include <functional>

#include "tests/unit/sparse_test_util.h"
#include "core/variants/modifiers.h"

namespace attnscope::test {
namespace {

using Assignments = std::vector<std::pair<std::string, std::string>>;

class Modifiers : public testing::TestWithParam<std::string> {};

TEST_P(Modifiers, DensePrimitiveAppliesTheScoreModifierInBothPaths) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (bool causal : {false, true})
        for (const ScoreModKind kind : {ScoreModKind::Alibi, ScoreModKind::Softcap}) {
            const int H = 4, n = 70;
            Heads x = random_heads(H, n, 16, 12, 5);
            ScoreMod mod{kind, 1.5f, H};
            const Logit logit = kind == ScoreModKind::Alibi ? alibi_logit(H) : softcap_logit(1.5);
            const double scale = 1.0;  // larger logits than 1/√d so the cap bites
            Tensor3 O_ref, lse_ref;
            masked_reference(
                x, scale, [&](int, int i, int j) { return !causal || j <= i; }, O_ref, lse_ref, logit);
            std::cout << "[case] backend=" << GetParam() << " dense " << (kind == ScoreModKind::Alibi ? "alibi" : "softcap")
                      << (causal ? " causal" : "") << " tiled and materialised vs the definition, tol=1e-5\n";
            for (bool materialise : {false, true}) {
                DenseAttentionArgs a;
                Tensor3 O(H, n, 12), lse(H, n, 1), P(H, n, n);
                a.Q = &x.Q, a.K = &x.K, a.V = &x.V, a.O = &O, a.lse = &lse, a.scale = float(scale), a.causal = causal;
                a.score_mod = mod, a.tile_rows = 16, a.tile_cols = 24;
                if (materialise) a.P = &P;
                backend->dense_attention(a);
                EXPECT_LE(rel_err(O, O_ref), 1e-5) << (materialise ? "materialised" : "tiled");
                EXPECT_LE(rel_err(lse, lse_ref), 1e-5) << (materialise ? "materialised" : "tiled");
            }
            // The modifier matters on this input: without it the output is far from the modified reference.
            DenseAttentionArgs plain;
            Tensor3 O(H, n, 12);
            plain.Q = &x.Q, plain.K = &x.K, plain.V = &x.V, plain.O = &O, plain.scale = float(scale), plain.causal = causal;
            backend->dense_attention(plain);
            EXPECT_GT(rel_err(O, O_ref), 1e-2);
        }
}

TEST_P(Modifiers, MaskedVariantsApplyTheScoreModifierOnEveryPath) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    // bigbird's random blocks make scattered (gathered) chunks, longformer's band contiguous trimmed ones; vslash runs
    // its own line primitive.
    std::vector<std::pair<std::string, Assignments>> cases = {
        {"bigbird", {{"block", "8"}, {"score_mod", "alibi"}}},
        {"bigbird", {{"block", "8"}, {"score_mod", "softcap"}, {"cap", "0.7"}}},
        {"longformer", {{"window", "12"}, {"score_mod", "alibi"}, {"causal", "1"}}},
        {"sink", {{"window", "9"}, {"score_mod", "softcap"}, {"cap", "0.7"}}},
        {"vslash", {{"verticals", "7"}, {"score_mod", "alibi"}, {"slashes", "9"}}},  // the line primitive
        {"vslash", {{"verticals", "7"}, {"score_mod", "softcap"}, {"cap", "0.7"}}},
    };
    // And every masked variant of the registry with ALiBi at a small budget, so a new one is not missed.
    for (const std::string& id : variants_with_param("score_mod")) {
        if (!find_variant(id).info().has_mask) continue;
        Assignments sets = small_budget(id);
        sets.emplace_back("score_mod", "alibi");
        cases.emplace_back(id, sets);
    }
    const Heads x = random_heads(3, 90, 16, 8, 9);
    for (const auto& [id, sets] : cases) {
        std::optional<BlockLayout> layout;
        const RunResult r = run_recorded(x, id, sets, *backend, &layout, true);
        ASSERT_TRUE(r.structure.mask) << id;
        std::string score_mod;
        for (const auto& [name, value] : sets)
            if (name == "score_mod") score_mod = value;
        const bool is_alibi = score_mod == "alibi";
        Tensor3 O_ref, lse_ref;
        masked_reference(
            x, 1.0 / std::sqrt(16.0), [&](int h, int i, int j) { return r.structure.mask->at(h, i, j) != Reason::None; },
            O_ref, lse_ref, is_alibi ? alibi_logit(3) : softcap_logit(0.7));
        std::cout << "[case] backend=" << GetParam() << " " << id << " " << score_mod << " vs the definition over "
                  << "its own mask, tol=1e-5\n";
        EXPECT_LE(rel_err(r.O, O_ref), 1e-5) << id;
        // P̃ shows the modified weights: row i of P̃ is exp(logit − lse_i) on the mask.
        ASSERT_TRUE(r.P_eff);
        double max_row_err = 0;
        for (int h = 0; h < 3; ++h)
            for (int i = 0; i < 90; ++i) {
                double sum = 0;
                bool empty = true;  // vslash may keep no line through row i: its P̃ row is 0
                for (int j = 0; j < 90; ++j) {
                    sum += r.P_eff->at(h, i, j);
                    empty = empty && r.structure.mask->at(h, i, j) == Reason::None;
                }
                max_row_err = std::max(max_row_err, std::abs(sum - (empty ? 0.0 : 1.0)));
            }
        EXPECT_LE(max_row_err, 1e-4) << id << ": P̃ rows must sum to 1 with the modifier applied (0 when empty)";
    }
}

TEST_P(Modifiers, MaskModifiersIntersectThePatternAsDefined) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const int n = 100, p = 23;
    const std::vector<int> starts = {0, 17, 40, 41, 77};  // a one-position document included
    auto doc = [&](int i) {
        int k = 0;
        for (int s : starts) k += s <= i ? 1 : 0;
        return k;
    };
    struct Case {
        std::string id;
        Assignments sets;
        std::function<bool(int, int)> pattern;  // the variant's own cells, from its definition
        std::function<bool(int, int)> mod;
    };
    const auto prefix = [&](int i, int j) { return j < p || j <= i; };
    const auto document = [&](int i, int j) { return doc(i) == doc(j); };
    const std::vector<Case> cases = {
        {"longformer", {{"window", "16"}, {"global", "none"}, {"mask_mod", "prefix"}, {"prefix", "23"}},
         [](int i, int j) { return std::abs(i - j) <= 8; }, prefix},
        {"longformer", {{"window", "16"}, {"global", "none"}, {"mask_mod", "document"}, {"boundaries", "0,17,40,41,77"}},
         [](int i, int j) { return std::abs(i - j) <= 8; }, document},
        {"sink", {{"window", "10"}, {"sinks", "4"}, {"mask_mod", "document"}, {"boundaries", "77,17,40,41"}},
         [](int i, int j) { return j <= i && (j < 4 || i - j < 10); }, document},
        {"strided", {{"stride", "10"}, {"head_pattern", "split"}, {"mask_mod", "document"}, {"boundaries", "17,40,41,77"}},
         nullptr, document},  // strided's own cells per head are checked against its mask with the modifier off
        // At n = 100 MInference's floors (V = 30, S = 50) keep only forced lines — the first 30 columns and the 50
        // nearest diagonals — whatever the estimate; a mask modifier takes vslash off its line primitive.
        {"vslash", {{"verticals", "6"}, {"slashes", "6"}, {"mask_mod", "document"}, {"boundaries", "17,40,41,77"}},
         [](int i, int j) { return j <= i && (j < 30 || i - j < 50); }, document},
    };
    const Heads x = random_heads(2, n, 16, 8, 4);
    for (const Case& c : cases) {
        std::string text;
        for (const auto& [k, v] : c.sets) text += " " + k + "=" + v;
        std::cout << "[case] backend=" << GetParam() << " " << c.id << text << ": cells = pattern ∩ modifier\n";
        std::optional<BlockLayout> layout;
        const RunResult r = run_recorded(x, c.id, c.sets, *backend, &layout, true);
        ASSERT_TRUE(r.structure.mask && layout);
        const std::vector<int>* perm = r.structure.blocks->perm.empty() ? nullptr : &r.structure.blocks->perm;
        EXPECT_EQ(perm, nullptr) << c.id << ": a positional modifier must run positions in order";
        const std::vector<uint8_t> cells = layout_cells(*layout, 2, perm);
        // The variant's cells without the modifier, for variants whose pattern is not written out above.
        Assignments plain;
        for (const auto& kv : c.sets)
            if (kv.first != "mask_mod" && kv.first != "boundaries" && kv.first != "prefix") plain.push_back(kv);
        const RunResult unmodified = run_recorded(x, c.id, plain, *backend, nullptr, true);
        int kept = 0, removed = 0;
        for (int h = 0; h < 2; ++h)
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    const bool own = c.pattern ? c.pattern(i, j) : unmodified.structure.mask->at(h, i, j) != Reason::None;
                    const bool want = own && c.mod(i, j);
                    ASSERT_EQ(r.structure.mask->at(h, i, j) != Reason::None, want) << c.id << " h" << h << " (" << i << ", " << j << ")";
                    ASSERT_EQ(cells[(size_t(h) * n + i) * n + j] != 0, want) << c.id << " layout h" << h << " (" << i << ", " << j << ")";
                    kept += want, removed += own && !want;
                }
        EXPECT_GT(removed, 0) << c.id << ": the modifier removed nothing, so the test shows nothing";
        if (c.id == "vslash") {
            EXPECT_TRUE(std::any_of(r.structure.notes.begin(), r.structure.notes.end(), [](const std::string& note) {
                return note.find("used the block-sparse primitive") != std::string::npos;
            })) << "vslash must say that a mask modifier took it off the line primitive";
        }
        Tensor3 O_ref, lse_ref;
        masked_reference(
            x, 1.0 / std::sqrt(16.0), [&](int h, int i, int j) { return r.structure.mask->at(h, i, j) != Reason::None; },
            O_ref, lse_ref);
        EXPECT_LE(rel_err(r.O, O_ref), 1e-5) << c.id;
        EXPECT_GT(kept, 0);
    }
}

TEST_P(Modifiers, ModifiedRunsAreMeasuredAgainstTheModifiedExactModel) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const Heads x = random_heads(4, 120, 16, 8, 13);
    ReferenceCache refs(x, false);
    RunOptions options;
    // full with ALiBi is its own exact model: no error against it, a real difference from plain softmax.
    const RunResult full = run_variant(x, parse_variant_request("full", {{"score_mod", "alibi"}}), options, *backend, &refs);
    EXPECT_EQ(full.model, ExactModel::Modified);
    ASSERT_TRUE(full.metrics.rel_err_model && full.metrics.rel_err_out);
    EXPECT_LE(*full.metrics.rel_err_model, 1e-5);
    EXPECT_GT(*full.metrics.rel_err_out, 1e-2);
    // A window covering everything with the same modifier equals it; the mass it keeps is all of that model's.
    const RunResult wide =
        run_variant(x, parse_variant_request("longformer", {{"window", "300"}, {"score_mod", "alibi"}}), options,
                    *backend, &refs);
    EXPECT_LE(*wide.metrics.rel_err_model, 1e-5);
    EXPECT_NEAR(*wide.metrics.mass_recall, 1.0, 1e-5);
    // A narrow window: mass_recall is the modified model's mass inside the mask, computed here from the definition.
    const RunResult narrow =
        run_variant(x, parse_variant_request("longformer", {{"window", "10"}, {"score_mod", "alibi"}, {"global", "none"}}),
                    options, *backend, &refs);
    double expected = 0;
    const Logit logit = alibi_logit(4);
    for (int h = 0; h < 4; ++h)
        for (int i = 0; i < 120; ++i) {
            std::vector<double> s(120);
            double mx = -INFINITY, total = 0, inside = 0;
            for (int j = 0; j < 120; ++j) {
                double dot = 0;
                for (int c = 0; c < 16; ++c) dot += double(x.Q.at(h, i, c)) * x.K.at(h, j, c);
                s[size_t(j)] = logit(h, i, j, dot / 4.0), mx = std::max(mx, s[size_t(j)]);
            }
            for (int j = 0; j < 120; ++j) {
                const double e = std::exp(s[size_t(j)] - mx);
                total += e, inside += std::abs(i - j) <= 5 ? e : 0;
            }
            expected += inside / total / (4.0 * 120);
        }
    std::cout << "[case] backend=" << GetParam() << " longformer w=10 alibi: mass_recall " << *narrow.metrics.mass_recall
              << " vs definition " << expected << " (plain softmax reference would give a different share)\n";
    EXPECT_NEAR(*narrow.metrics.mass_recall, expected, 1e-5);
    // With a document mask the reference itself is block-diagonal: a window inside one document loses nothing.
    const RunResult doc = run_variant(
        x, parse_variant_request("longformer", {{"window", "300"}, {"mask_mod", "document"}, {"boundaries", "0,60"}}),
        options, *backend, &refs);
    EXPECT_NEAR(*doc.metrics.mass_recall, 1.0, 1e-5);
    EXPECT_LE(*doc.metrics.rel_err_model, 1e-5);
    EXPECT_GT(*doc.metrics.rel_err_out, 1e-2);
}

TEST_P(Modifiers, FullAndFlashTakeTheMaskModifiers) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    // 6 heads: ALiBi's slopes for a head count that is not a power of two are the paper's interleaved ladder.
    const int H = 6, n = 90;
    const Heads x = random_heads(H, n, 16, 8, 17);
    const auto doc = [](int i) { return (i >= 13) + (i >= 30) + (i >= 71); };
    struct Case {
        std::string id;
        Assignments sets;
        std::function<bool(int, int)> kept;  // the definition's cells
        bool alibi;
    };
    const std::vector<Case> cases = {
        {"full", {{"mask_mod", "document"}, {"boundaries", "13,30,71"}}, [&](int i, int j) { return doc(i) == doc(j); }, false},
        {"flash", {{"mask_mod", "document"}, {"boundaries", "13,30,71"}, {"score_mod", "alibi"}},
         [&](int i, int j) { return doc(i) == doc(j); }, true},
        {"full", {{"mask_mod", "prefix"}, {"prefix", "20"}, {"score_mod", "alibi"}}, [](int i, int j) { return j < 20 || j <= i; }, true},
        {"flash", {{"mask_mod", "prefix"}, {"prefix", "20"}, {"causal", "1"}}, [](int i, int j) { return j <= i; }, false},
    };
    for (const Case& c : cases) {
        std::cout << "[case] backend=" << GetParam() << " " << c.id << " " << c.sets[0].second
                  << (c.alibi ? " + alibi" : "") << " vs the masked softmax of the definition, tol=1e-5\n";
        RunOptions options;
        options.explain = true;
        ReferenceCache refs(x, false);
        const RunResult r = run_variant(x, parse_variant_request(c.id, c.sets), options, *backend, &refs);
        Tensor3 O_ref, lse_ref;
        masked_reference(x, 1.0 / 4.0, [&](int, int i, int j) { return c.kept(i, j); }, O_ref, lse_ref,
                         c.alibi ? alibi_logit(H) : Logit{});
        EXPECT_LE(rel_err(r.O, O_ref), 1e-5) << c.id;
        ASSERT_TRUE(r.metrics.rel_err_model) << c.id;
        EXPECT_LE(*r.metrics.rel_err_model, 1e-5) << c.id << " is the modified exact model itself";
        ASSERT_TRUE(r.P_eff && r.structure.mask) << c.id;
        double worst = 0;
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    const bool kept = c.kept(i, j);
                    ASSERT_EQ(r.structure.mask->at(h, i, j) != Reason::None, kept) << c.id << " (" << i << ", " << j << ")";
                    if (!kept) {
                        ASSERT_EQ(r.P_eff->at(h, i, j), 0.0f) << c.id;
                    }
                }
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < n; ++i) {
                double sum = 0;
                for (int j = 0; j < n; ++j) sum += r.P_eff->at(h, i, j);
                worst = std::max(worst, std::fabs(sum - 1));
            }
        EXPECT_LE(worst, 1e-5) << c.id << ": P's rows sum to 1 over the kept cells";
    }
}

TEST_P(Modifiers, BadModifierInputsAreClearErrors) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const Heads x = random_heads(2, 50, 8, 8, 3);
    const auto message = [&](const Assignments& sets) {
        try {
            run_recorded(x, "longformer", sets, *backend, nullptr, false);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(message({{"mask_mod", "document"}}).find("set boundaries"), std::string::npos);
    EXPECT_NE(message({{"mask_mod", "document"}, {"boundaries", "0,50"}}).find("outside the input"), std::string::npos);
    EXPECT_NE(message({{"score_mod", "softcap"}, {"cap", "0"}}).find("cap"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Modifiers, testing::ValuesIn(kernel_suite_backends()),
                         [](const testing::TestParamInfo<std::string>& info) { return backend_test_name(info.param); });

TEST(AlibiSlopes, FollowThePapersLadderForEveryHeadCount) {
    // Press et al.'s get_slopes for 6 heads: the 4 slopes of 4 heads, then slopes(8)[0::2][:2].
    const std::vector<double> six = {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125};
    for (int h = 0; h < 6; ++h) EXPECT_FLOAT_EQ(alibi_slope(h, 6), float(six[size_t(h)])) << "head " << h;
    for (int H = 1; H <= 24; ++H) {
        const std::vector<double> want = alibi_slopes(H);
        for (int h = 0; h < H; ++h)
            EXPECT_NEAR(alibi_slope(h, H), want[size_t(h)], 1e-6 * want[size_t(h)]) << "H = " << H << " head " << h;
    }
}

TEST(SentenceStarts, OneDocumentPerSentenceWithSpecialTokensKeptInside) {
    const std::vector<std::string> tokens = {"[CLS]", "it", "rains", ".", "we", "stay", "!", "ok", "?", "[SEP]"};
    EXPECT_EQ(sentence_starts(tokens), (std::vector<int>{0, 4, 7}));
    EXPECT_TRUE(sentence_starts({}).empty());
    Heads x = random_heads(1, int(tokens.size()), 4, 4, 1);
    x.tokens = tokens;
    Params p;
    p.set("mask_mod", 2);
    const attnscope::Modifiers m = modifiers_of(p, x);
    EXPECT_EQ(m.mask.segment, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 2, 2, 2}));
    EXPECT_EQ(m.label(), "document (3 parts)");
}

}  // namespace
}  // namespace attnscope::test

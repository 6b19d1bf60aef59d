// No masked variant leaves a query row without a key: with or without a mask modifier, every row keeps at least
// its own key or the first ones, at the defaults and at small budgets. A row that did lose every key would output
// 0 silently, so the run counts such rows and says so in a note.
#include <cmath>

#include "tests/unit/sparse_test_util.h"
#include "core/data/scenarios.h"
#include "core/variants/variant.h"

namespace attnscope::test {
namespace {

using Assignments = std::vector<std::pair<std::string, std::string>>;

/// Rows (over all heads) of the run's reason mask with no allowed cell.
int64_t empty_rows(const RunResult& r) {
    const ReasonMask& m = *r.structure.mask;
    int64_t empty = 0;
    for (int h = 0; h < m.heads; ++h)
        for (int i = 0; i < m.n; ++i) {
            bool any = false;
            for (int j = 0; j < m.n && !any; ++j) any = m.at(h, i, j) != Reason::None;
            empty += !any;
        }
    return empty;
}

TEST(RowsKeepAKey, VSlashKeepsEveryQuerysOwnKeyOnTheIssuesInput) {
    // `run --variant vslash --data gaussian --n 128 --heads 2 --dim 16 --seed 3` left a row empty before MInference's
    // forced lines; the small budget left 19 of 256.
    ScenarioSpec spec;
    spec.kind = ScenarioKind::Gaussian, spec.n = 128, spec.heads = 2, spec.dim = 16, spec.seed = 3;
    const Heads x = make_scenario(spec);
    auto backend = make_backend("cpu");
    for (const Assignments& sets : {Assignments{}, Assignments{{"last_queries", "16"}, {"verticals", "4"}, {"slashes", "4"}}}) {
        const RunResult r = run_recorded(x, "vslash", sets, *backend, nullptr, true);
        EXPECT_EQ(empty_rows(r), 0);
        EXPECT_EQ(r.structure.rows_without_keys, 0);
        for (int h = 0; h < 2; ++h)
            for (int i = 0; i < 128; ++i) {
                ASSERT_NE(r.structure.mask->at(h, i, i), Reason::None) << "h" << h << " row " << i << " lost its own key";
                for (int j = 0; j < std::min(30, i + 1); ++j)
                    ASSERT_NE(r.structure.mask->at(h, i, j), Reason::None) << "h" << h << " row " << i << " column " << j;
            }
    }
}

TEST(RowsKeepAKey, EveryMaskedVariantWithEveryMaskModifier) {
    auto backend = make_backend("cpu");
    const Heads x = random_heads(3, 96, 16, 8, 21);
    const std::vector<Assignments> masks = {{}, {{"mask_mod", "prefix"}, {"prefix", "7"}},
                                            {{"mask_mod", "document"}, {"boundaries", "0,13,14,50,90"}}};
    for (const std::string& id : variants_with_param("mask_mod"))
        for (const Assignments& mask : masks) {
            Assignments sets = small_budget(id);
            sets.insert(sets.end(), mask.begin(), mask.end());
            std::cout << "[case] " << id << " with " << (mask.empty() ? "no mask" : mask[0].second) << "\n";
            const RunResult r = run_recorded(x, id, sets, *backend, nullptr, true);
            ASSERT_TRUE(r.structure.mask || mask.empty()) << id;
            if (r.structure.mask) {
                EXPECT_EQ(empty_rows(r), 0) << id;
            }
            EXPECT_EQ(r.structure.rows_without_keys, 0) << id;
            for (int64_t k = 0; k < r.O.size(); ++k) ASSERT_TRUE(std::isfinite(r.O.data()[k])) << id;
        }
}

TEST(RowsKeepAKey, ARowWithoutAKeyIsCountedAndNamed) {
    Structure s;
    s.allowed_lse = Tensor3(2, 5, 1);
    s.allowed_lse->at(1, 3, 0) = -INFINITY;
    s.allowed_lse->at(0, 0, 0) = -INFINITY;
    note_rows_without_keys(s);
    EXPECT_EQ(s.rows_without_keys, 2);
    ASSERT_FALSE(s.notes.empty());
    EXPECT_NE(s.notes.back().find("2 of 10 query rows"), std::string::npos) << s.notes.back();
    Structure explained;  // a variant that counted and explained its empty rows (LSH) gets no second note
    explained.allowed_lse = s.allowed_lse;
    explained.rows_without_keys = 2;
    explained.notes.push_back("2 rows have no allowed key (the variant's reason)");
    note_rows_without_keys(explained);
    EXPECT_EQ(explained.rows_without_keys, 2);
    EXPECT_EQ(explained.notes.size(), 1u);
    Structure none;
    none.allowed_lse = Tensor3(2, 5, 1);
    note_rows_without_keys(none);
    EXPECT_EQ(none.rows_without_keys, 0);
    EXPECT_TRUE(none.notes.empty());
}

}  // namespace
}  // namespace attnscope::test

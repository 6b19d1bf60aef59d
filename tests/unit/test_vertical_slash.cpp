// The vertical-slash primitive (Backend::vertical_slash_attention) on every backend against a double-precision masked
// softmax over the cells its definition allows — random columns and diagonals with overlaps, empty lists, n = 1,
// offsets ≥ n, score modifiers — plus its block layout (what the block view draws) against the same definition, run
// through the CPU's block-sparse primitive, the key ranges the CUDA kernel gathers, and the argument checks.
#include <algorithm>
#include <cmath>

#include "tests/unit/sparse_test_util.h"

#include "core/backend/interface/vertical_slash_layout.h"
#include "core/backend/cpu/cpu_primitives.h"

namespace attnscope::test {
namespace {

/// Kept lines per head.
struct Lines {
    std::vector<std::vector<int>> columns, offsets;
};

/// Random lines: each column of [0, n) kept with probability p_col, each offset of [0, n + 8) with p_off (so some lie
/// at or past n); column 0 and offset 0 are forced on even seeds so a line pair always overlaps there.
Lines random_lines(uint64_t seed, int H, int n, double p_col, double p_off) {
    Lines L;
    L.columns.resize(size_t(H)), L.offsets.resize(size_t(H));
    for (int h = 0; h < H; ++h) {
        for (int j = 0; j < n; ++j)
            if ((seed % 2 == 0 && j == 0) || rng::uniform(seed, 40 + h, uint64_t(j)) < p_col) L.columns[size_t(h)].push_back(j);
        for (int o = 0; o < n + 8; ++o)
            if ((seed % 2 == 0 && o == 0) || rng::uniform(seed, 80 + h, uint64_t(o)) < p_off) L.offsets[size_t(h)].push_back(o);
    }
    return L;
}

/// The definition: j ≤ i on a kept column, or i − j a kept offset.
CellPredicate allowed_by(const Lines& L) {
    return [&L](int h, int i, int j) {
        if (j > i) return false;
        const auto& c = L.columns[size_t(h)];
        const auto& o = L.offsets[size_t(h)];
        return std::binary_search(c.begin(), c.end(), j) || std::binary_search(o.begin(), o.end(), i - j);
    };
}

/// O and lse of `got` against the reference: O within 1e-5 relative, lse within 1e-5, empty rows exactly 0 and −inf.
void expect_matches(const Tensor3& O, const Tensor3& lse, const Tensor3& O_ref, const Tensor3& lse_ref) {
    EXPECT_LE(rel_err(O, O_ref), 1e-5);
    for (int h = 0; h < O_ref.heads(); ++h)
        for (int i = 0; i < O_ref.rows(); ++i) {
            const float want = lse_ref.at(h, i, 0), got = lse.at(h, i, 0);
            if (std::isinf(want)) {
                EXPECT_TRUE(std::isinf(got) && got < 0) << "head " << h << " row " << i << " is empty";
                EXPECT_EQ(O.head(h).row(i).cwiseAbs().maxCoeff(), 0.0f) << "empty row gives 0";
            } else {
                EXPECT_NEAR(got, want, 1e-5 * std::max(1.0f, std::fabs(want))) << "lse head " << h << " row " << i;
            }
        }
}

class VerticalSlash : public testing::TestWithParam<std::string> {};

TEST_P(VerticalSlash, PrimitiveMatchesDefinitionOnRandomLines) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    // Seeds 14–21 use the widths the CPU's vector kernel has fixed-width paths for (d, dv ∈ {32, 64, 96, 128});
    // the rest draw any width up to 40 (its masked path).
    const int fixed_d[] = {32, 64, 96, 128, 64, 32, 128, 96}, fixed_dv[] = {32, 64, 128, 64, 32, 96, 128, 96};
    for (uint64_t seed = 0; seed < 22; ++seed) {
        // Seed 1 is n = 1, seed 9 n = 300 with ~285 columns and diagonals per head (two 256-wide chunks of each);
        // the rest draw n up to 300 (past a 64-row task).
        const int n = seed == 1 ? 1 : seed == 9 ? 300 : 1 + int(rng::below(seed, 30, 0, 300));
        const bool fixed = seed >= 14;
        const int H = 1 + int(rng::below(seed, 30, 1, 3));
        const int d = fixed ? fixed_d[seed - 14] : 1 + int(rng::below(seed, 30, 2, 40));
        const int dv = fixed ? fixed_dv[seed - 14] : 1 + int(rng::below(seed, 30, 3, 20));
        // Seed 3 keeps nothing in any head; seed 5 only diagonals; seed 7 only columns; seed 9 almost every line.
        const double p_col = seed == 3 || seed == 5 ? 0.0 : seed == 9 ? 0.95 : rng::uniform(seed, 30, 4) * 0.3;
        const double p_off = seed == 3 || seed == 7 ? 0.0 : seed == 9 ? 0.95 : rng::uniform(seed, 30, 5) * 0.3;
        Lines lines = random_lines(seed, H, n, p_col, p_off);
        if (seed == 3) lines = Lines{std::vector<std::vector<int>>(size_t(H)), std::vector<std::vector<int>>(size_t(H))};
        const ScoreModKind kind = seed % 3 == 0 ? ScoreModKind::None : seed % 3 == 1 ? ScoreModKind::Alibi : ScoreModKind::Softcap;
        const ScoreMod mod{kind, 0.8f, H};
        const Logit logit = kind == ScoreModKind::Alibi ? alibi_logit(H) : kind == ScoreModKind::Softcap ? softcap_logit(0.8) : Logit{};
        const float scale = 0.4f + 0.1f * float(seed);
        int64_t cols = 0, offs = 0;
        for (int h = 0; h < H; ++h) cols += int64_t(lines.columns[size_t(h)].size()), offs += int64_t(lines.offsets[size_t(h)].size());
        std::cout << "[case] backend=" << GetParam() << " seed=" << seed << " n=" << n << " H=" << H << " d=" << d
                  << " dv=" << dv << " columns=" << cols << " offsets=" << offs << " mod=" << int(kind) << " tol=1e-5\n";
        const Heads x = random_heads(H, n, d, dv, 500 + seed);
        Tensor3 O(H, n, dv), lse(H, n, 1), O_ref, lse_ref;
        VerticalSlashAttentionArgs a;
        a.Q = &x.Q, a.K = &x.K, a.V = &x.V, a.columns = &lines.columns, a.offsets = &lines.offsets, a.scale = scale;
        a.score_mod = mod, a.O = &O, a.lse = &lse;
        backend->vertical_slash_attention(a);
        masked_reference(x, scale, allowed_by(lines), O_ref, lse_ref, logit);
        expect_matches(O, lse, O_ref, lse_ref);
        if (HasFailure()) return;
    }
}

TEST_P(VerticalSlash, RefusesBadLines) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const Heads x = random_heads(2, 10, 4, 4, 1);
    Tensor3 O(2, 10, 4);
    auto run = [&](std::vector<std::vector<int>> columns, std::vector<std::vector<int>> offsets) {
        VerticalSlashAttentionArgs a;
        a.Q = &x.Q, a.K = &x.K, a.V = &x.V, a.columns = &columns, a.offsets = &offsets, a.O = &O;
        backend->vertical_slash_attention(a);
    };
    EXPECT_NO_THROW(run({{0, 9}, {}}, {{}, {0, 50}}));
    EXPECT_THROW(run({{0}}, {{}, {}}), Error);            // one list per head
    EXPECT_THROW(run({{3, 3}, {}}, {{}, {}}), Error);     // repeated column
    EXPECT_THROW(run({{5, 2}, {}}, {{}, {}}), Error);     // descending
    EXPECT_THROW(run({{10}, {}}, {{}, {}}), Error);       // column ≥ n
    EXPECT_THROW(run({{}, {}}, {{}, {-1}}), Error);       // negative offset
}

INSTANTIATE_TEST_SUITE_P(AllBackends, VerticalSlash, testing::ValuesIn(kernel_suite_backends()),
                         [](const testing::TestParamInfo<std::string>& info) { return backend_test_name(info.param); });

TEST(VerticalSlashLayout, HoldsExactlyTheDefinitionsCellsAndRunsLikeTheLinePrimitive) {
    // The block view draws this layout, and a mask modifier runs the variant through it: the same composition runs
    // on the CPU's block-sparse primitive here.
    for (uint64_t seed = 0; seed < 10; ++seed) {
        const int n = seed == 1 ? 1 : 1 + int(rng::below(seed, 31, 0, 200)), H = 1 + int(rng::below(seed, 31, 1, 3));
        const int b = seed % 2 ? 16 : 1 + int(rng::below(seed, 31, 2, 70));
        const Lines lines = random_lines(seed, H, n, 0.15, 0.15);
        std::cout << "[case] layout seed=" << seed << " n=" << n << " H=" << H << " b=" << b << "\n";
        const BlockLayout layout = vertical_slash_layout(n, b, lines.columns, lines.offsets);
        ASSERT_EQ(layout.heads, H);
        const std::vector<uint8_t> cells = layout_cells(layout, H);
        const CellPredicate allowed = allowed_by(lines);
        int64_t mismatches = 0;
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                    mismatches += (cells[(size_t(h) * n + i) * n + j] != 0) != allowed(h, i, j);
        EXPECT_EQ(mismatches, 0);

        const Heads x = random_heads(H, n, 8, 6, 900 + seed);
        Tensor3 O_blocks(H, n, 6), lse_blocks(H, n, 1), O_lines(H, n, 6), lse_lines(H, n, 1);
        BlockSparseAttentionArgs bs;
        bs.Q = &x.Q, bs.K = &x.K, bs.V = &x.V, bs.layout = &layout, bs.scale = 0.5f, bs.O = &O_blocks, bs.lse = &lse_blocks;
        cpu_block_sparse_attention(bs);
        VerticalSlashAttentionArgs vs;
        vs.Q = &x.Q, vs.K = &x.K, vs.V = &x.V, vs.columns = &lines.columns, vs.offsets = &lines.offsets, vs.scale = 0.5f;
        vs.O = &O_lines, vs.lse = &lse_lines;
        cpu_vertical_slash_attention(vs);
        expect_matches(O_blocks, lse_blocks, O_lines, lse_lines);
        if (HasFailure()) return;
    }
}

TEST(VerticalSlashRanges, CoverExactlyTheKeysOfTheBlocksKeptCellsMerged) {
    for (uint64_t seed = 0; seed < 12; ++seed) {
        const int n = seed == 1 ? 1 : 1 + int(rng::below(seed, 32, 0, 300)), H = 1 + int(rng::below(seed, 32, 1, 3));
        const int rows = seed % 3 == 0 ? 64 : 1 + int(rng::below(seed, 32, 2, 40));
        const Lines lines = random_lines(seed, H, n, 0.1, seed % 2 ? 0.4 : 0.05);
        std::cout << "[case] ranges seed=" << seed << " n=" << n << " H=" << H << " rows=" << rows << "\n";
        const VerticalSlashRanges R = vertical_slash_ranges(n, rows, lines.columns, lines.offsets);
        const CellPredicate allowed = allowed_by(lines);
        ASSERT_EQ(R.row_blocks, (n + rows - 1) / rows);
        ASSERT_EQ(R.ptr.size(), size_t(H) * R.row_blocks + 1);
        for (int h = 0; h < H; ++h)
            for (int B = 0; B < R.row_blocks; ++B) {
                // Expected: the keys with an allowed cell in rows B·rows … of head h, from the definition.
                std::vector<uint8_t> expected(size_t(n), 0), got(size_t(n), 0);
                for (int i = B * rows; i < std::min(n, (B + 1) * rows); ++i)
                    for (int j = 0; j < n; ++j) expected[size_t(j)] |= uint8_t(allowed(h, i, j));
                int previous_end = -2;  // one past the previous range's last key
                for (int k = R.ptr[size_t(h) * R.row_blocks + B]; k < R.ptr[size_t(h) * R.row_blocks + B + 1]; ++k) {
                    ASSERT_GE(R.length[size_t(k)], 1);
                    ASSERT_GT(R.start[size_t(k)], previous_end) << "ranges must ascend, disjoint and not touching";
                    for (int j = R.start[size_t(k)]; j < R.start[size_t(k)] + R.length[size_t(k)]; ++j) {
                        ASSERT_TRUE(j >= 0 && j < n) << "key " << j << " outside [0, n)";
                        got[size_t(j)] = 1;
                    }
                    previous_end = R.start[size_t(k)] + R.length[size_t(k)];
                }
                // No more and no fewer: each key of a diagonal's run through the block has its cell there.
                ASSERT_EQ(got, expected) << "head " << h << ", row block " << B;
            }
    }
}

TEST(VerticalSlashRanges, DiagonalsPartIntoRunsOfAtLeastTheMinimumAndTheRest) {
    const std::vector<std::vector<int>> offsets = {{0, 1, 2, 3, 7, 9, 10, 11, 12, 20}, {}, {5}};
    const DiagonalSplit three = split_diagonals(offsets, 3);
    EXPECT_EQ(three.runs, (std::vector<std::vector<int>>{{0, 1, 2, 3, 9, 10, 11, 12}, {}, {}}));
    EXPECT_EQ(three.isolated, (std::vector<std::vector<int>>{{7, 20}, {}, {5}}));
    const DiagonalSplit five = split_diagonals(offsets, 5);  // no run is that long
    EXPECT_EQ(five.runs, (std::vector<std::vector<int>>{{}, {}, {}}));
    EXPECT_EQ(five.isolated, offsets);
    EXPECT_EQ(split_diagonals(offsets, 1).runs, offsets);  // a single diagonal is a run of one
}

}  // namespace
}  // namespace attnscope::test

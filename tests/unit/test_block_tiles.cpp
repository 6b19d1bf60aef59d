// The block view: tile kinds and both densities on a layout built by hand (where every answer is known), and on a
// real Longformer run, where the token density must equal the density the variant reports; and
// BlockLayout::append_block, which builds masked blocks for those layouts, against its predicate on every cell.
#include <gtest/gtest.h>

#include <cstdio>

#include "core/analysis/block_tiles.h"
#include "core/backend/interface/block_layout.h"
#include "core/data/scenarios.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/session/experiment.h"

namespace attnscope::test {
namespace {

/// n = 10, b = 4 (nb = 3, last block 2 wide). Head 0 stores (0,0) dense, (0,1) with only row 0 allowed,
/// (1,1) dense, (2,0) with every in-extent cell set (the rows past n left clear) and (2,2) dense.
/// Head 1 stores only (1,2) dense.
BlockLayout hand_layout() {
    BlockLayout l;
    l.n = 10, l.block = 4, l.heads = 2;
    l.row_ptr = {0, 2, 3, 5, /* head 1 */ 5, 5, 6, 6};
    l.col_idx = {0, 1, 1, 0, 2, 2};
    l.mask_idx = {-1, 0, -1, 1, -1, -1};
    l.masks = {0b1111, 0, 0, 0,        // mask 0: row 0 all four columns
               0b1111, 0b1111, 0, 0};  // mask 1: rows 0, 1 (the real rows of block 2)
    return l;
}

TEST(BlockTiles, KindsAndDensitiesOfAHandLayout) {
    const BlockTiles t = block_tiles(hand_layout(), 0);
    ASSERT_EQ(t.block_rows, 3);
    EXPECT_EQ(t.at(0, 0), TileKind::Full);
    EXPECT_EQ(t.at(0, 1), TileKind::Partial);
    EXPECT_EQ(t.at(0, 2), TileKind::Skipped);
    EXPECT_EQ(t.at(1, 0), TileKind::Skipped);
    EXPECT_EQ(t.at(1, 1), TileKind::Full);
    EXPECT_EQ(t.at(2, 0), TileKind::Full);  // a mask that allows every real cell is a full tile
    EXPECT_EQ(t.at(2, 2), TileKind::Full);
    EXPECT_EQ(t.stored, 5);
    // Stored cells: 16 + 16 + 16 + 2·4 + 2·2 = 60; allowed: 16 + 4 + 16 + 8 + 4 = 48.
    EXPECT_DOUBLE_EQ(t.stored_cells, 60);
    EXPECT_DOUBLE_EQ(t.allowed_cells, 48);
    EXPECT_DOUBLE_EQ(t.block_density(), 0.60);
    EXPECT_DOUBLE_EQ(t.token_density(), 0.48);
}

TEST(BlockTiles, EachHeadReadsItsOwnLayoutHead) {
    const BlockTiles t = block_tiles(hand_layout(), 1);
    EXPECT_EQ(t.stored, 1);
    EXPECT_EQ(t.at(1, 2), TileKind::Full);
    EXPECT_EQ(t.at(0, 0), TileKind::Skipped);
    EXPECT_DOUBLE_EQ(t.stored_cells, 4.0 * 2);  // block column 2 is 2 wide
}

TEST(BlockTiles, TokenDensityOfARealRunIsTheVariantsDensity) {
    ScenarioSpec spec;
    spec.kind = ScenarioKind::Local, spec.n = 200, spec.heads = 2, spec.dim = 16;
    const Heads x = make_scenario(spec);
    CpuBackend cpu;
    const RunResult r = run_variant(x, parse_variant_request("longformer", {{"window", "12"}}), RunOptions{}, cpu, nullptr);
    ASSERT_TRUE(r.structure.blocks && r.structure.density);
    const BlockLayout& layout = *r.structure.blocks->layout;
    double token = 0;
    for (int h = 0; h < x.heads(); ++h) {
        const BlockTiles t = block_tiles(layout, h);
        token += t.token_density() / x.heads();
        EXPECT_GE(t.block_density(), t.token_density());  // a kernel pays at least for what it uses
        EXPECT_GT(t.block_density(), t.token_density() + 0.01) << "a window of 12 in blocks of "
                                                                  << layout.block << " should waste cells";
    }
    EXPECT_NEAR(token, *r.structure.density, 1e-9);
}

TEST(BlockLayout, AppendedBlocksAllowExactlyTheirPredicatesCells) {
    std::printf("[case] b = 70 (two mask words per row): block 1 masked by (7r + c) mod 3 = 0 over all 70×70 cells, "
                "block 0 dense\n");
    BlockLayout L;
    L.n = 140, L.block = 70, L.heads = 1;
    L.row_ptr = {0};
    L.append_block(0);
    L.append_block(1, [](int r, int c) { return (7 * r + c) % 3 == 0; });
    L.row_ptr.push_back(2);
    L.row_ptr.push_back(2);  // block row 1 stores nothing
    const BlockLayoutView v = L.view();
    ASSERT_EQ(L.stored_blocks(), 2);
    EXPECT_EQ(L.col_idx, (std::vector<int>{0, 1}));
    EXPECT_EQ(L.mask_idx, (std::vector<int>{-1, 0}));
    ASSERT_EQ(L.masks.size(), size_t(70 * 2));
    int wrong = 0;
    for (int r = 0; r < 70; ++r)
        for (int c = 0; c < 70; ++c) {
            wrong += !layout_cell_allowed(v, 0, r, c);
            wrong += layout_cell_allowed(v, 1, r, c) != ((7 * r + c) % 3 == 0);
        }
    EXPECT_EQ(wrong, 0);
    // Bits past the block's 70 columns stay clear (the kernels read whole words).
    for (int r = 0; r < 70; ++r) EXPECT_EQ(L.masks[size_t(r) * 2 + 1] >> 6, 0u) << "row " << r;
}

}  // namespace
}  // namespace attnscope::test

// attnscope — the block view of a layout (see block_tiles.h).
#include "core/analysis/block_tiles.h"

namespace attnscope {

BlockTiles block_tiles(const BlockLayout& layout, int head) {
    const BlockLayoutView v = layout.view();
    BlockTiles t;
    t.n = layout.n, t.block = layout.block, t.block_rows = v.block_rows;
    t.tiles.assign(static_cast<size_t>(t.block_rows) * t.block_rows, TileKind::Skipped);
    const int b = layout.block;
    for (int I = 0; I < v.block_rows; ++I) {
        const int rows = block_extent(layout.n, b, I);
        for (int k = layout_row_begin(v, head, I); k < layout_row_end(v, head, I); ++k) {
            const int J = v.col_idx[k];
            const int cols = block_extent(layout.n, b, J);
            int64_t allowed = 0;
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c) allowed += layout_cell_allowed(v, k, r, c) ? 1 : 0;
            ++t.stored;
            t.stored_cells += double(rows) * cols;
            t.allowed_cells += double(allowed);
            t.tiles[static_cast<size_t>(I) * t.block_rows + J] =
                allowed == int64_t(rows) * cols ? TileKind::Full : TileKind::Partial;
        }
    }
    return t;
}

}  // namespace attnscope

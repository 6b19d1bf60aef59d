// attnscope — the block view of a block-sparse layout: which b×b tiles of the n×n matrix the kernel scores whole,
// scores in part, or skips, with the two densities a reader compares — the cells a kernel pays for (stored tiles)
// and the cells the pattern actually uses (allowed cells).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/backend/interface/block_layout.h"

namespace attnscope {

/// What the kernel does with one b×b tile.
enum class TileKind : uint8_t {
    Skipped,  // not stored: never scored
    Partial,  // stored with an in-block mask that forbids some of its cells
    Full,     // stored and every cell inside the n×n matrix allowed
};

/// The tiles of one attention head of a layout, in the layout's own (slot) order.
struct BlockTiles {
    int n = 0, block = 1, block_rows = 0;   // n, b, nb = ⌈n / b⌉
    std::vector<TileKind> tiles;            // (nb, nb) row-major: query block I, key block J
    int64_t stored = 0;                     // stored tiles of this head
    double stored_cells = 0;                // cells inside stored tiles (last tiles at their real size)
    double allowed_cells = 0;               // cells the pattern allows
    TileKind at(int I, int J) const { return tiles[static_cast<size_t>(I) * block_rows + J]; }
    /// Cells the kernel pays for / n².
    double block_density() const { return n > 0 ? stored_cells / (double(n) * n) : 0; }
    /// Cells the pattern uses / n².
    double token_density() const { return n > 0 ? allowed_cells / (double(n) * n) : 0; }
};

/// The tiles of attention head `head` (the layout's head `head`, or its only head when shared).
BlockTiles block_tiles(const BlockLayout& layout, int head);

}  // namespace attnscope

// attnscope — block-sparse layouts: which b×b blocks of the n×n attention matrix are scored, per head.
// Storage is BSR (block compressed sparse rows): for head h and query block I the stored key blocks are
// col_idx[row_ptr[h·(nb+1) + I] .. row_ptr[h·(nb+1) + I + 1]), sorted ascending. Each stored block either
// is dense (mask_idx = −1: every cell inside the real n×n matrix is allowed) or points to a bitmask of
// b rows × words_per_row(b) 64-bit words (bit c of row r set = cell (I·b + r, J·b + c) allowed).
// n need not be a multiple of b: the last block row/column is partial and cells ≥ n never exist, which is
// how "padding" is masked without copying Q, K, V.
// The inline ATTNSCOPE_HD functions are the indexing math the CPU primitive and the CUDA kernel share.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/backend/shared/hd.h"

namespace attnscope {

/// Raw pointers to a layout, passable to a device kernel (the arrays must live in the same memory space).
struct BlockLayoutView {
    int n = 0;                        // real sequence length (queries = keys)
    int block = 1;                    // b
    int block_rows = 0;               // nb = ⌈n / b⌉
    int heads = 1;                    // layout heads: 1 (shared by every attention head) or H
    int words_per_row = 1;            // ⌈b / 64⌉
    const int* row_ptr = nullptr;     // (heads, nb + 1) absolute offsets into col_idx
    const int* col_idx = nullptr;     // (stored blocks) key block index J
    const int* mask_idx = nullptr;    // (stored blocks) −1 = dense block, else index into masks
    const uint64_t* masks = nullptr;  // (mask count, b, words_per_row) in-block bitmasks
};

/// 64-bit words per bitmask row of a b-wide block.
ATTNSCOPE_HD int block_words_per_row(int b) { return (b + 63) / 64; }

/// Number of block rows (and columns) covering n positions with blocks of b.
ATTNSCOPE_HD int block_count(int n, int b) { return (n + b - 1) / b; }

/// Rows (or columns) of block I that lie inside the real sequence: b, or fewer for the last block.
ATTNSCOPE_HD int block_extent(int n, int b, int I) {
    const int rest = n - I * b;
    return rest < b ? rest : b;
}

/// The layout head that attention head h reads (layouts may be shared by every head).
ATTNSCOPE_HD int layout_head(const BlockLayoutView& v, int h) { return v.heads == 1 ? 0 : h; }

/// First stored-block index of query block I in attention head h.
ATTNSCOPE_HD int layout_row_begin(const BlockLayoutView& v, int h, int I) {
    return v.row_ptr[layout_head(v, h) * (v.block_rows + 1) + I];
}

/// One past the last stored-block index of query block I in attention head h.
ATTNSCOPE_HD int layout_row_end(const BlockLayoutView& v, int h, int I) {
    return v.row_ptr[layout_head(v, h) * (v.block_rows + 1) + I + 1];
}

/// Whether cell (r, c) inside stored block `k` is allowed (r, c are offsets inside the block).
ATTNSCOPE_HD bool layout_cell_allowed(const BlockLayoutView& v, int k, int r, int c) {
    const int m = v.mask_idx[k];
    if (m < 0) return true;
    const uint64_t word = v.masks[(static_cast<int64_t>(m) * v.block + r) * v.words_per_row + (c >> 6)];
    return ((word >> (c & 63)) & 1ull) != 0;
}

/// The host-side owner of a layout's arrays.
struct BlockLayout {
    int n = 0;                    // real sequence length
    int block = 1;                // b
    int heads = 1;                // 1 (shared) or H
    std::vector<int> row_ptr;     // (heads, nb + 1)
    std::vector<int> col_idx;     // (stored blocks)
    std::vector<int> mask_idx;    // (stored blocks)
    std::vector<uint64_t> masks;  // (mask count, b, words_per_row)

    int block_rows() const { return block_count(n, block); }
    /// Appends stored block J to the current block row; with a mask, cell (r, c) of it is allowed when
    /// allowed(r, c) (r, c: offsets inside the block), else every cell is.
    void append_block(int J) { col_idx.push_back(J), mask_idx.push_back(-1); }
    template <class Allowed>
    void append_block(int J, Allowed allowed) {
        const int words = block_words_per_row(block);
        col_idx.push_back(J);
        mask_idx.push_back(static_cast<int>(masks.size() / (static_cast<size_t>(block) * words)));
        for (int r = 0; r < block; ++r)
            for (int w = 0; w < words; ++w) {
                uint64_t bits = 0;
                for (int c = w * 64; c < std::min(block, w * 64 + 64); ++c)
                    if (allowed(r, c)) bits |= 1ull << (c - w * 64);
                masks.push_back(bits);
            }
    }
    /// Stored blocks over all layout heads.
    int64_t stored_blocks() const { return static_cast<int64_t>(col_idx.size()); }
    /// Pointers for the primitive (valid while this object is alive and unchanged).
    BlockLayoutView view() const {
        BlockLayoutView v;
        v.n = n, v.block = block, v.block_rows = block_rows(), v.heads = heads;
        v.words_per_row = block_words_per_row(block);
        v.row_ptr = row_ptr.data(), v.col_idx = col_idx.data(), v.mask_idx = mask_idx.data(), v.masks = masks.data();
        return v;
    }
};

}  // namespace attnscope

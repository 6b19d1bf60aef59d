// attnscope — block-sparse attention by key block: the query rows that a stored block lets see anything, gathered.
// The block-sparse kernel gives each query block a thread block that scores all b rows against every stored key block
// of the row. A layout whose stored blocks are mostly masked, each letting only a few of its rows see anything
// (blocksel: every query picks its own key blocks, so a query block's row stores the union of its queries' picks),
// makes that kernel score b rows where a few count. Here, as in MoBA's implementation, each key block J instead
// gathers the (query, stored block) rows that see something in it: tiles of up to kFlashBr such rows, from any query
// blocks, attend to J's keys with their own mask rows, each writing its O (normalised by its own sum) and lse to a
// partial slot; block_sparse_gathered_combine_kernel then merges every query's slots by their log-sum-exp
// (merge_partial_rows). The work follows the rows that count; the price is the partial slots and the merge.
// block_sparse_attention.cu takes this route when it scores less than half the cells (gather_pays). Included by
// block_sparse_attention.cu and by the CPU emulation tests.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/backend/cuda/block_sparse_split.cuh"

namespace attnscope::cuda {

/// The gathered rows of one layout and their work items (host arrays; BlockSparseGatherParams points at copies).
/// A gathered row is (query i, stored block k) with a mask row of block k that lets query i see some key of block J.
struct BlockSparseGatherPlan {
    std::vector<int> item_first;  // (items + 1) first gathered row of each item; an item's rows share J and layout head
    std::vector<int> item_block;  // (items) key block J
    std::vector<int> item_head;   // (items) layout head
    std::vector<int> row_query;   // (rows) query position i
    std::vector<int> row_entry;   // (rows) stored-block index k
    std::vector<int> query_ptr;   // (layout heads · n + 1) query i's gathered rows: query_rows[query_ptr[lh·n + i] …]
    std::vector<int> query_rows;  // gathered row ids, per query
    int items() const { return int(item_block.size()); }
    int rows() const { return int(row_query.size()); }
};

/// Device pointers of a plan.
struct BlockSparseGatherParams {
    const int* item_first;
    const int* item_block;
    const int* item_head;
    const int* row_query;
    const int* row_entry;
    const int* query_ptr;
    const int* query_rows;
};

/// Whether row r of stored block k lets its query see any key (a dense block: every row).
inline bool stored_row_sees_any(const BlockLayout& L, int k, int r) {
    const int m = L.mask_idx[size_t(k)], words = block_words_per_row(L.block);
    if (m < 0) return true;
    const uint64_t* row = L.masks.data() + (int64_t(m) * L.block + r) * words;
    return std::any_of(row, row + words, [](uint64_t w) { return w != 0; });
}

/// The gathered rows of L, grouped by (layout head, key block J) in query order and cut into items of ≤ kFlashBr rows.
inline BlockSparseGatherPlan plan_block_sparse_gather(const BlockLayout& L) {
    const int n = L.n, b = L.block, nb = L.block_rows(), groups = L.heads * nb;
    BlockSparseGatherPlan P;
    std::vector<std::vector<int>> group_rows(size_t(std::max(0, groups)));  // gathered row ids per (lh, J)
    P.query_ptr.assign(size_t(L.heads) * n + 1, 0);
    for (int lh = 0; lh < L.heads; ++lh)
        for (int I = 0; I < nb; ++I) {
            const size_t at = size_t(lh) * (nb + 1) + I;
            for (int r = 0; r < block_extent(n, b, I); ++r)
                for (int k = L.row_ptr[at]; k < L.row_ptr[at + 1]; ++k) {
                    if (!stored_row_sees_any(L, k, r)) continue;
                    group_rows[size_t(lh) * nb + L.col_idx[size_t(k)]].push_back(P.rows());
                    P.row_query.push_back(I * b + r), P.row_entry.push_back(k);
                    ++P.query_ptr[size_t(lh) * n + I * b + r + 1];
                }
        }
    // Rows were made query by query, so each query's rows are consecutive ids: query_rows is 0, 1, 2, …
    for (size_t q = 1; q < P.query_ptr.size(); ++q) P.query_ptr[q] += P.query_ptr[q - 1];
    P.query_rows.resize(size_t(P.rows()));
    for (int g = 0; g < P.rows(); ++g) P.query_rows[size_t(g)] = g;
    // Items: each (lh, J) group's rows in tiles of kFlashBr, the group's rows renumbered to be consecutive.
    std::vector<int> order;  // new position → old row id
    order.reserve(size_t(P.rows()));
    for (int grp = 0; grp < groups; ++grp) {
        const std::vector<int>& rows = group_rows[size_t(grp)];
        for (size_t f = 0; f < rows.size(); f += size_t(kFlashBr)) {
            P.item_first.push_back(int(order.size()));
            P.item_block.push_back(grp % nb), P.item_head.push_back(grp / nb);
            order.insert(order.end(), rows.begin() + std::ptrdiff_t(f),
                         rows.begin() + std::ptrdiff_t(std::min(rows.size(), f + size_t(kFlashBr))));
        }
    }
    P.item_first.push_back(int(order.size()));
    std::vector<int> query(order.size()), entry(order.size()), renamed(order.size());
    for (size_t g = 0; g < order.size(); ++g) {
        query[g] = P.row_query[size_t(order[g])], entry[g] = P.row_entry[size_t(order[g])];
        renamed[size_t(order[g])] = int(g);
    }
    P.row_query = std::move(query), P.row_entry = std::move(entry);
    for (int& g : P.query_rows) g = renamed[size_t(g)];
    return P;
}

/// Whether the gathered route scores less than half the cells the per-query-block kernel would: that kernel scores
/// every row of a query block (in tiles of kFlashBr) against every stored block's keys; the gathered one scores tiles
/// of kFlashBr gathered rows against one key block each. The half pays for the partial slots and the merge.
inline bool gather_pays(const BlockLayout& L, const BlockSparseGatherPlan& P) {
    const int n = L.n, b = L.block, nb = L.block_rows();
    const auto tile_rows = [](int rows) { return int64_t(ceil_div(rows, kFlashBr)) * kFlashBr; };
    int64_t per_block = 0, gathered = 0;
    for (int lh = 0; lh < L.heads; ++lh)
        for (int I = 0; I < nb; ++I) {
            const size_t at = size_t(lh) * (nb + 1) + I;
            int64_t keys = 0;
            for (int k = L.row_ptr[at]; k < L.row_ptr[at + 1]; ++k) keys += block_extent(n, b, L.col_idx[size_t(k)]);
            per_block += tile_rows(block_extent(n, b, I)) * keys;
        }
    for (int it = 0; it < P.items(); ++it) gathered += int64_t(kFlashBr) * block_extent(n, b, P.item_block[size_t(it)]);
    return 2 * gathered < per_block;
}

/// Shared-memory floats of one gathered block: the flash tiles, the key tile's positions and the rows' maps.
constexpr int block_sparse_gathered_smem_floats(int D, int BC) { return flash_smem_floats(D, BC) + BC + 2 * kFlashBr; }

/// Partial slot of gathered row g for attention head h (shared layout: one slot per head; per-head layout: its own).
ATTNSCOPE_HD int64_t gathered_slot(const BlockSparseParams& p, int64_t g, int h) {
    return p.layout.heads == 1 ? g * p.heads + h : g;
}

/// One block scores item blockIdx.x's gathered rows (attention head blockIdx.y for a shared layout, the item's layout
/// head otherwise) against key block J's keys through each row's mask, into the rows' partial slots (output columns
/// [128·blockIdx.z, +128) when kSliced).
template <int D, int BC, bool kSliced>
__global__ void __launch_bounds__(kFlashThreads) block_sparse_gathered_kernel(BlockSparseParams p,
                                                                               BlockSparseGatherParams g) {
    static_assert(BC <= kFlashThreads && kFlashBr <= kFlashThreads, "one thread writes each map entry");
    extern __shared__ float smem[];
    const TileSmem sm = tile_smem<D, BC>(smem);
    int* sKey = sm.end;               // (BC) key position, −1 past the tile
    int* sQuery = sKey + BC;          // (kFlashBr) query position of each gathered row, −1 past the item
    int* sEntry = sQuery + kFlashBr;  // (kFlashBr) the row's stored-block index

    const BlockLayoutView& L = p.layout;
    const int item = blockIdx.x, c0 = kSliced ? int(blockIdx.z) * D : 0;
    const int h = L.heads == 1 ? int(blockIdx.y) : g.item_head[item];
    const int first = g.item_first[item], rows = g.item_first[item + 1] - first;
    const int n = L.n, b = L.block, J = g.item_block[item], extent = block_extent(n, b, J);
    const TileLane ln = tile_lane();
    if (ln.tid < kFlashBr) {
        sQuery[ln.tid] = ln.tid < rows ? g.row_query[first + ln.tid] : -1;
        sEntry[ln.tid] = ln.tid < rows ? g.row_entry[first + ln.tid] : 0;
    }
    __syncthreads();

    const float* Qh = p.Q + int64_t(h) * n * p.d;
    const float* Kh = p.K + int64_t(h) * n * p.d;
    const float* Vh = p.V + int64_t(h) * n * p.dv;
    const auto query_of = [&](int r) { return sQuery[r]; };
    if (!kSliced) stage_tile<D, kFlashBr>(sm.sQ, Qh, p.d, 0, p.d, p.scale, query_of);
    TileRows<D> t;
    t.init();
    int k = 0, cb = 0;  // one segment: the keys of block J
    const auto fill_tile = [&] {
        return pack_key_segments<BC>(k, 1, cb, [&](int) { return extent; },
                                     [&](int c, int, int col) { sKey[c] = J * b + col; });
    };
    const auto allowed = [&](int r, int c) {
        const int i = sQuery[r];
        return layout_cell_allowed(L, sEntry[r], i - (i / b) * b, sKey[c] - J * b);
    };
    fold_gathered_keys<D, BC, kSliced>(sm, sKey, Qh, Kh, Vh, p.d, p.dv, c0, p.scale, p.mod, h, query_of, ln,
                                       fill_tile, allowed, t);
    tile_write<D>(t, p.O_partial, p.lse_partial, p.dv, c0, ln.cg, [&](int i) -> int64_t {
        const int r = ln.row0 + i;
        return r < rows ? gathered_slot(p, first + r, h) : -1;
    });
}

/// O and lse of every (head, query) from its gathered rows' partial slots: one thread per (head, query, column of O or
/// the lse as column dv). A query with no gathered row gets O = 0 and lse = −inf, as the kernel writes for such a row.
__global__ void block_sparse_gathered_combine_kernel(BlockSparseParams p, BlockSparseGatherParams g) {
    const int n = p.layout.n, dv = p.dv, H = p.heads;
    const int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= int64_t(H) * n * (dv + 1)) return;
    const int col = int(t % (dv + 1));
    const int64_t row = t / (dv + 1);  // h·n + i
    const int i = int(row % n), h = int(row / n);
    const int64_t at = int64_t(layout_head(p.layout, h)) * n + i;
    const int first = g.query_ptr[at], parts = g.query_ptr[at + 1] - first;
    const auto slot = [&](int part) { return gathered_slot(p, g.query_rows[first + part], h); };
    merge_partial_rows(
        parts, [&](int part) { return p.lse_partial[slot(part)]; },
        [&](int part) { return p.O_partial[slot(part) * dv + col]; }, col, dv, p.O + row * dv, p.lse ? p.lse + row : nullptr);
}

}  // namespace attnscope::cuda

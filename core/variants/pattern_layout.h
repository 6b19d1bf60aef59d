// attnscope — patterns and their layouts. A *pattern* gives the exact reason of every cell plus, per query block, a
// superset of key blocks that may hold allowed cells; build_layout() turns it into the BSR layout of the block-sparse
// primitive and reason_mask() into the reason of every cell. A Pattern is any type with
//   Reason reason(int h, int i, int j) const;                          // exact, None = not allowed
//   void candidates(int h, int I, std::vector<BlockCandidate>& out) const;  // key blocks to examine for block row I
// Candidates marked `full` must have every cell (inside the real n×n matrix) allowed: build_layout() then skips
// the per-cell evaluation. Layout tests compare the result with brute-force predicates, so a wrong hint fails.
// Patterns are usually composed from the predicates of mask_atoms.h with the combinators of mask_compose.h.
#pragma once
#include <algorithm>
#include <concepts>
#include <cstdint>
#include <vector>

#include "core/backend/interface/block_layout.h"
#include "core/reason.h"

namespace attnscope {

/// One key block a pattern wants examined for a query block.
struct BlockCandidate {
    int J = 0;          // key block index
    bool full = false;  // every cell of (I, J) is allowed: no per-cell evaluation needed
};

/// Appends the key blocks touched by the band lo ≤ i − j ≤ hi for query block I, marking those entirely inside.
void band_candidates(int n, int b, int I, int64_t lo, int64_t hi, std::vector<BlockCandidate>& out);

/// Appends every key block that intersects the key positions [j_begin, j_end] (inclusive), not full.
void range_candidates(int n, int b, int64_t j_begin, int64_t j_end, std::vector<BlockCandidate>& out);

/// The `keep` members of `candidates` with the largest score(c) (ties to the lower c), ascending: how the patterns
/// chosen from the input (topk, blocksel, vslash) pick their keys, blocks or lines.
template <class Score>
std::vector<int> top_indices(std::vector<int> candidates, int keep, const Score& score) {
    keep = std::min<int>(keep, int(candidates.size()));
    if (keep <= 0) return {};
    std::nth_element(candidates.begin(), candidates.begin() + (keep - 1), candidates.end(), [&](int a, int c) {
        const auto sa = score(a), sc = score(c);
        return sa > sc || (sa == sc && a < c);
    });
    candidates.resize(size_t(keep));
    std::sort(candidates.begin(), candidates.end());
    return candidates;
}

/// Largest layout block of the window-type patterns (strided, fixed, longformer, xl): a GEMM-friendly width.
constexpr int kDefaultLayoutBlock = 64;

/// Layout block for a pattern whose structure repeats every `span` positions (window half-width, stride,
/// block, segment): the largest power of two ≤ span, clamped to [16, 64], so narrow windows do not score
/// mostly forbidden cells and wide ones get full-size GEMMs.
inline int choose_layout_block(int64_t span) {
    int b = 16;
    while (b < kDefaultLayoutBlock && 2 * int64_t(b) <= span) b *= 2;
    return b;
}

/// build_layout() goes parallel from this many candidate cells (tasks × b²) on: at ~3 ns a cell that is ~0.2 ms of
/// work, ten times what opening a parallel region costs here.
constexpr int64_t kParallelBuildCells = int64_t(1) << 16;

/// A pattern that can say when row i of head h allows exactly one interval of keys [lo, hi] (inclusive) — a window
/// without globals or dilation — lets build_layout() fill a partial block row by row with word operations instead of
/// asking reason() for every cell. row_interval returns false where the row is not one interval (then reason() is
/// asked, as for every pattern without it).
template <class Pattern>
concept HasRowInterval = requires(const Pattern& p, int h, int i, int& lo, int& hi) {
    { p.row_interval(h, i, lo, hi) } -> std::same_as<bool>;
};

/// A pattern whose row allows a few whole runs of keys (block selection: its own block, block 0 and the chosen
/// blocks) can set row i's bits over keys [j0, j0 + ext) itself — bit c for key j0 + c, in 64-bit words — and
/// return how many it set; build_layout() then asks it instead of reason() cell by cell (b² calls, each a search
/// through the row's choices, were most of the layout's time).
template <class Pattern>
concept HasRowBits = requires(const Pattern& p, int h, int i, int j0, int ext, uint64_t* words) {
    { p.row_bits(h, i, j0, ext, words) } -> std::same_as<int64_t>;
};

/// Sets bits [c0, c1) of a bitmask row of 64-bit words.
inline void set_bit_range(uint64_t* words, int c0, int c1) {
    for (int w = c0 >> 6; c0 < c1; ++w) {
        const int lo = c0 & 63, hi = std::min(64, c1 - (w << 6));
        words[w] |= (hi == 64 ? ~0ull : (1ull << hi) - 1) & ~((1ull << lo) - 1);
        c0 = (w + 1) << 6;
    }
}

/// Builds the BSR layout of `pattern` for n positions, blocks of b and `heads` layout heads (1 or H).
template <class Pattern>
BlockLayout build_layout(const Pattern& pattern, int n, int b, int heads) {
    BlockLayout L;
    L.n = n, L.block = b, L.heads = heads;
    const int nb = block_count(n, b), wpr = block_words_per_row(b);
    const int tasks = heads * nb;
    std::vector<std::vector<int>> cols(tasks);
    std::vector<std::vector<uint64_t>> masks(tasks);  // per task: its masked blocks back to back
    std::vector<std::vector<int>> masked(tasks);      // per task: 1 when the stored block has a mask
    // Small layouts build in a fraction of that: a parallel region would cost more than it saves.
    const bool parallel = int64_t(tasks) * b * b >= kParallelBuildCells;
#pragma omp parallel for schedule(dynamic) if (parallel)
    for (int task = 0; task < tasks; ++task) {
        const int h = task / nb, I = task % nb;
        std::vector<BlockCandidate> cand;
        pattern.candidates(h, I, cand);
        // Sort by J with full before partial so duplicates keep the cheaper verdict.
        std::sort(cand.begin(), cand.end(), [](const BlockCandidate& x, const BlockCandidate& y) {
            return x.J != y.J ? x.J < y.J : x.full > y.full;
        });
        const int i0 = I * b, rows = block_extent(n, b, I);
        std::vector<uint64_t> bits(static_cast<size_t>(b) * wpr);
        for (size_t k = 0; k < cand.size(); ++k) {
            const int J = cand[k].J;
            if (J < 0 || J >= nb || (k > 0 && cand[k - 1].J == J)) continue;
            if (cand[k].full) {
                cols[task].push_back(J), masked[task].push_back(0);
                continue;
            }
            const int j0 = J * b, ext = block_extent(n, b, J);
            std::fill(bits.begin(), bits.end(), 0ull);
            int64_t count = 0;
            for (int r = 0; r < rows; ++r) {
                if constexpr (HasRowBits<Pattern>) {
                    count += pattern.row_bits(h, i0 + r, j0, ext, bits.data() + static_cast<size_t>(r) * wpr);
                    continue;
                }
                if constexpr (HasRowInterval<Pattern>) {
                    int lo = 0, hi = -1;
                    if (pattern.row_interval(h, i0 + r, lo, hi)) {
                        const int c0 = std::max(lo - j0, 0), c1 = std::min(hi - j0 + 1, ext);
                        if (c0 < c1) set_bit_range(bits.data() + static_cast<size_t>(r) * wpr, c0, c1), count += c1 - c0;
                        continue;
                    }
                }
                for (int c = 0; c < ext; ++c)
                    if (pattern.reason(h, i0 + r, j0 + c) != Reason::None) {
                        bits[static_cast<size_t>(r) * wpr + (c >> 6)] |= 1ull << (c & 63);
                        ++count;
                    }
            }
            if (count == 0) continue;
            cols[task].push_back(J);
            if (count == static_cast<int64_t>(rows) * ext) {
                masked[task].push_back(0);
            } else {
                masked[task].push_back(1);
                masks[task].insert(masks[task].end(), bits.begin(), bits.end());
            }
        }
    }
    L.row_ptr.assign(static_cast<size_t>(heads) * (nb + 1), 0);
    int mask_count = 0;
    for (int task = 0; task < tasks; ++task) {
        const int h = task / nb, I = task % nb;
        L.row_ptr[static_cast<size_t>(h) * (nb + 1) + I] = static_cast<int>(L.col_idx.size());
        for (size_t k = 0; k < cols[task].size(); ++k) {
            L.col_idx.push_back(cols[task][k]);
            L.mask_idx.push_back(masked[task][k] ? mask_count++ : -1);
        }
        L.masks.insert(L.masks.end(), masks[task].begin(), masks[task].end());
        if (I == nb - 1) L.row_ptr[static_cast<size_t>(h) * (nb + 1) + nb] = static_cast<int>(L.col_idx.size());
    }
    return L;
}

/// Reason mask (H, n, n) of a pattern; heads beyond the layout heads repeat head 0 when layout_heads = 1.
template <class Pattern>
ReasonMask reason_mask(const Pattern& pattern, int H, int n, int layout_heads) {
    ReasonMask m;
    m.heads = H, m.n = n;
    m.cells.assign(static_cast<size_t>(H) * n * n, 0);
#pragma omp parallel for collapse(2) schedule(static)
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) {
            const int ph = layout_heads == 1 ? 0 : h;
            uint8_t* row = m.cells.data() + (static_cast<size_t>(h) * n + i) * n;
            for (int j = 0; j < n; ++j) row[j] = static_cast<uint8_t>(pattern.reason(ph, i, j));
        }
    return m;
}

}  // namespace attnscope

// attnscope — the predicates masks are composed from (mask_compose.h): patterns that keep cells for a reason
// (every key, a key range such as the sinks, a band such as a window, local blocks, global rows and columns, vertical
// and slash lines) and filters that only remove cells (causal, the mask modifiers prefix-LM and document). Each one
// states its cells once — reason(), candidates() and a fast row path come from the same few numbers.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/variants/mask_compose.h"
#include "core/variants/modifiers.h"
#include "core/variants/sparse_common.h"

namespace attnscope {

// ---- patterns -------------------------------------------------------------------------------------------------------

/// Every cell, coloured Dense.
struct EveryKey {
    int n = 0, b = 1;
    Reason reason(int, int, int) const { return Reason::Dense; }
    void candidates(int, int I, std::vector<BlockCandidate>& out) const {
        band_candidates(n, b, I, -int64_t(n), n, out);
    }
    bool row_interval(int, int, int& lo, int& hi) const { return lo = 0, hi = n - 1, true; }
};

/// Keys first ≤ j ≤ last for every query (the attention sinks: first = 0, last = s − 1); empty when last < first.
struct KeyRange {
    int n = 0, b = 1, first = 0, last = -1;
    Reason why = Reason::Sink;
    Reason reason(int, int, int j) const { return j >= first && j <= last ? why : Reason::None; }
    /// The key blocks the range touches, full where a block lies inside it.
    void candidates(int, int, std::vector<BlockCandidate>& out) const {
        const size_t begin = out.size();
        if (first <= last) range_candidates(n, b, first, last, out);
        for (size_t k = begin; k < out.size(); ++k)
            out[k].full = out[k].J * b >= first && out[k].J * b + block_extent(n, b, out[k].J) - 1 <= last;
    }
    bool row_interval(int, int, int& lo, int& hi) const { return lo = first, hi = std::min(last, n - 1), true; }
};

/// The band lo ≤ i − j ≤ hi (a window: lo = −w + 1, hi = w − 1; the recent keys: lo = 0); empty when hi < lo.
struct Band {
    int n = 0, b = 1;
    int64_t lo = 0, hi = -1;
    Reason why = Reason::Window;
    Reason reason(int, int i, int j) const {
        const int64_t d = int64_t(i) - j;
        return d >= lo && d <= hi ? why : Reason::None;
    }
    void candidates(int, int I, std::vector<BlockCandidate>& out) const { band_candidates(n, b, I, lo, hi, out); }
    bool row_interval(int, int i, int& first, int& last) const {
        first = int(std::max<int64_t>(0, i - hi)), last = int(std::min<int64_t>(n - 1, i - lo));
        return true;
    }
};

/// Queries and keys in the same block of `size` positions: ⌊i/size⌋ = ⌊j/size⌋, coloured `why` (Local; Transformer-XL's
/// Segment); nothing when size ≤ 0.
struct LocalBlocks {
    int n = 0, b = 1, size = 0;
    Reason why = Reason::Local;
    Reason reason(int, int i, int j) const {
        return size > 0 && i / size == j / size ? why : Reason::None;
    }
    /// The key blocks of the local blocks query block I meets, full where both blocks lie in one local block.
    void candidates(int, int I, std::vector<BlockCandidate>& out) const {
        if (size <= 0) return;
        const int i0 = I * b, i1 = i0 + block_extent(n, b, I) - 1;
        const size_t begin = out.size();
        range_candidates(n, b, int64_t(i0 / size) * size, int64_t(i1 / size) * size + size - 1, out);
        for (size_t k = begin; k < out.size(); ++k) {
            const int j0 = out[k].J * b, j1 = j0 + block_extent(n, b, out[k].J) - 1;
            out[k].full = i0 / size == i1 / size && j0 / size == j1 / size && i0 / size == j0 / size;
        }
    }
    bool row_interval(int, int i, int& lo, int& hi) const {
        if (size <= 0) return lo = 0, hi = -1, true;
        lo = i / size * size, hi = std::min(n - 1, lo + size - 1);
        return true;
    }
};

/// The M keys before the query's segment of L positions (Transformer-XL's memory): ⌊i/L⌋·L − M ≤ j < ⌊i/L⌋·L,
/// coloured Memory.
struct SegmentMemory {
    int n = 0, b = 1, L = 1;
    int64_t M = 0;
    Reason reason(int, int i, int j) const {
        const int64_t start = int64_t(i / L) * L;
        return j < start && j >= start - M ? Reason::Memory : Reason::None;
    }
    /// The keys the block's rows reach, full where every row's memory holds the whole key block.
    void candidates(int, int I, std::vector<BlockCandidate>& out) const {
        const int64_t i0 = int64_t(I) * b, i1 = i0 + block_extent(n, b, I) - 1;
        const int64_t first_start = i0 / L * L, last_start = i1 / L * L;
        const size_t begin = out.size();
        range_candidates(n, b, first_start - M, last_start - 1, out);
        for (size_t k = begin; k < out.size(); ++k) {
            const int64_t j0 = int64_t(out[k].J) * b, j1 = j0 + block_extent(n, b, out[k].J) - 1;
            out[k].full = j0 >= last_start - M && j1 < first_start;
        }
    }
    bool row_interval(int, int i, int& lo, int& hi) const {
        const int64_t start = int64_t(i / L) * L;
        lo = int(std::max<int64_t>(0, start - M)), hi = int(start - 1);
        return true;
    }
};

/// Every l-th diagonal: (i − j) mod l = 0, coloured Stride (the Sparse Transformer's strided B); nothing when l ≤ 0.
struct PeriodicDiagonals {
    int n = 0, b = 1, l = 0;
    Reason reason(int, int i, int j) const { return l > 0 && (i > j ? i - j : j - i) % l == 0 ? Reason::Stride : Reason::None; }
    /// Nearly every key block holds such a cell: every one is examined (a filter trims them).
    void candidates(int, int, std::vector<BlockCandidate>& out) const {
        if (l > 0) range_candidates(n, b, 0, n - 1, out);
    }
    int64_t row_bits(int, int i, int j0, int ext, uint64_t* words) const {
        if (l <= 0) return 0;
        int64_t count = 0;
        for (int c = ((i - j0) % l + l) % l; c < ext; c += l) words[c >> 6] |= 1ull << (c & 63), ++count;
        return count;
    }
};

/// The last c positions of every period of l: j mod l ∈ {l − c, …, l − 1}, coloured Summary (the Sparse Transformer's
/// fixed B); nothing when c ≤ 0.
struct PeriodicColumns {
    int n = 0, b = 1, l = 1, c = 0;
    Reason reason(int, int, int j) const { return c > 0 && j % l >= l - c ? Reason::Summary : Reason::None; }
    void candidates(int, int, std::vector<BlockCandidate>& out) const {
        if (c <= 0) return;
        for (int64_t t = 0; t * l + l - c < n; ++t) range_candidates(n, b, t * l + l - c, t * l + l - 1, out);
    }
    int64_t row_bits(int, int, int j0, int ext, uint64_t* words) const {
        if (c <= 0) return 0;
        int64_t count = 0;
        for (int64_t t = j0 / l; t * l < int64_t(j0) + ext; ++t) {
            const int c0 = int(std::max<int64_t>(t * l + l - c - j0, 0)), c1 = int(std::min<int64_t>(t * l + l - j0, ext));
            if (c0 < c1) set_bit_range(words, c0, c1), count += c1 - c0;
        }
        return count;
    }
};

/// Global positions G (Longformer): rows and columns of G keep every cell, coloured Global.
struct Globals {
    int n = 0, b = 1;
    std::vector<uint8_t> global;  // (n) 1 when the position is global
    std::vector<int> positions;   // sorted distinct global positions
    std::vector<int> per_block;   // (⌈n/b⌉) global positions in each layout block

    /// The globals among `list` that lie in 0 … n − 1 (others are not in this sequence).
    static Globals of(int n, int b, const std::vector<int>& list) {
        Globals g{n, b, std::vector<uint8_t>(size_t(n), 0), {}, std::vector<int>(size_t(block_count(n, b)), 0)};
        for (int p : list)
            if (p >= 0 && p < n) g.global[size_t(p)] = 1;
        for (int i = 0; i < n; ++i)
            if (g.global[size_t(i)]) g.positions.push_back(i), ++g.per_block[size_t(i / b)];
        return g;
    }
    Reason reason(int, int i, int j) const {
        return global[size_t(i)] || global[size_t(j)] ? Reason::Global : Reason::None;
    }
    /// The key blocks holding global columns, and every key block for a block holding a global row; full where the
    /// query block is all global rows or the key block all global columns.
    void candidates(int, int I, std::vector<BlockCandidate>& out) const {
        const auto all_global = [&](int J) { return per_block[size_t(J)] == block_extent(n, b, J); };
        if (per_block[size_t(I)] > 0) {
            for (int J = 0; J < block_count(n, b); ++J) out.push_back({J, all_global(I) || all_global(J)});
            return;
        }
        for (int J = 0; J < block_count(n, b); ++J)
            if (per_block[size_t(J)] > 0) out.push_back({J, all_global(J)});
    }
    int64_t row_bits(int, int i, int j0, int ext, uint64_t* words) const {
        if (global[size_t(i)]) return set_bit_range(words, 0, ext), ext;
        int64_t count = 0;
        for (auto it = std::lower_bound(positions.begin(), positions.end(), j0); it != positions.end() && *it < j0 + ext;
             ++it) {
            const int c = *it - j0;
            if (!(words[c >> 6] >> (c & 63) & 1)) ++count;
            words[c >> 6] |= 1ull << (c & 63);
        }
        return count;
    }
};

/// Vertical lines (key columns j ∈ V, coloured Vertical) and slash lines (diagonals i − j ∈ S, coloured Slash).
struct Lines {
    int n = 0, b = 1;
    std::vector<int> verticals;    // sorted distinct key columns in 0 … n − 1
    std::vector<int> slashes;      // sorted distinct offsets i − j in −(n − 1) … n − 1
    std::vector<char> is_vertical;  // (n) 1 for a kept column
    std::vector<char> is_slash;     // (2n − 1) 1 for a kept offset, at o + n − 1

    /// The lines among `columns` and `offsets` that meet the n×n matrix, each once.
    static Lines of(int n, int b, std::vector<int> columns, std::vector<int> offsets) {
        Lines l{n, b, {}, {}, std::vector<char>(size_t(n), 0), std::vector<char>(size_t(std::max(1, 2 * n - 1)), 0)};
        for (int c : columns)
            if (c >= 0 && c < n && !l.is_vertical[size_t(c)]) l.is_vertical[size_t(c)] = 1, l.verticals.push_back(c);
        for (int o : offsets)
            if (o > -n && o < n && !l.is_slash[size_t(o + n - 1)]) l.is_slash[size_t(o + n - 1)] = 1, l.slashes.push_back(o);
        std::sort(l.verticals.begin(), l.verticals.end());
        std::sort(l.slashes.begin(), l.slashes.end());
        return l;
    }
    Reason reason(int, int i, int j) const {
        if (is_vertical[size_t(j)]) return Reason::Vertical;
        return is_slash[size_t(i - j + n - 1)] ? Reason::Slash : Reason::None;
    }
    void candidates(int, int I, std::vector<BlockCandidate>& out) const {
        for (int v : verticals) range_candidates(n, b, v, v, out);
        for (int o : slashes) band_candidates(n, b, I, o, o, out);
    }
    int64_t row_bits(int, int i, int j0, int ext, uint64_t* words) const {
        int64_t count = 0;
        const auto set = [&](int j) {
            if (j < j0 || j >= j0 + ext) return;
            const int c = j - j0;
            if (!(words[c >> 6] >> (c & 63) & 1)) ++count;
            words[c >> 6] |= 1ull << (c & 63);
        };
        for (auto v = std::lower_bound(verticals.begin(), verticals.end(), j0); v != verticals.end() && *v < j0 + ext; ++v)
            set(*v);
        for (int o : slashes) set(i - o);
        return count;
    }
};

// ---- filters --------------------------------------------------------------------------------------------------------

/// j ≤ i when `on` (every cell otherwise): the one statement of causality the composed patterns share.
struct Causal {
    int n = 0, b = 1;
    bool on = true;
    bool allows(int i, int j) const { return !on || j <= i; }
    BlockCover cover(int I, int J) const {
        if (!on) return BlockCover::All;
        const int i0 = I * b, i1 = i0 + block_extent(n, b, I) - 1, j0 = J * b, j1 = j0 + block_extent(n, b, J) - 1;
        if (j1 <= i0) return BlockCover::All;
        return j0 > i1 ? BlockCover::None : BlockCover::Partial;
    }
    void row_interval(int i, int& lo, int& hi) const { lo = 0, hi = on ? i : n - 1; }
};

/// The M most recent keys j > i − M when `on` (every cell otherwise): Transformer-XL's same_length cut.
struct RecentKeys {
    int n = 0, b = 1;
    int64_t M = 0;
    bool on = true;
    bool allows(int i, int j) const { return !on || int64_t(i) - j < M; }
    BlockCover cover(int I, int J) const {
        if (!on) return BlockCover::All;
        const int64_t i0 = int64_t(I) * b, i1 = i0 + block_extent(n, b, I) - 1;
        const int64_t j0 = int64_t(J) * b, j1 = j0 + block_extent(n, b, J) - 1;
        if (i1 - j0 < M) return BlockCover::All;
        return i0 - j1 >= M ? BlockCover::None : BlockCover::Partial;
    }
    void row_interval(int i, int& lo, int& hi) const {
        lo = on ? int(std::max<int64_t>(0, int64_t(i) - M + 1)) : 0, hi = n - 1;
    }
};

/// The cells a mask modifier (prefix-LM, document, none) keeps.
struct ModifierFilter {
    std::shared_ptr<const MaskMod> mask;
    int n = 0, b = 1;
    bool allows(int i, int j) const { return mask->allows(i, j); }
    BlockCover cover(int I, int J) const { return mask->cover(n, b, I, J); }
    /// Prefix-LM keeps j < p or j ≤ i, one interval from 0; a document keeps its own positions.
    void row_interval(int i, int& lo, int& hi) const {
        lo = 0, hi = n - 1;
        if (mask->kind == MaskModKind::PrefixLm) hi = std::min(n - 1, std::max(mask->prefix - 1, i));
        if (mask->kind == MaskModKind::Document) {
            const std::vector<int>& s = mask->segment;
            lo = int(std::lower_bound(s.begin(), s.end(), s[size_t(i)]) - s.begin());
            hi = int(std::upper_bound(s.begin(), s.end(), s[size_t(i)]) - s.begin()) - 1;
        }
    }
};

}  // namespace attnscope

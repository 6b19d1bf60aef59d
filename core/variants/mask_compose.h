// attnscope — masks composed from small predicates (docs/VARIANTS.md, `compose`). A *pattern* (pattern_layout.h)
// names the reason of every cell and the key blocks worth examining; the two combinators here build one from others,
// so each piece states its cells once and causality, documents and prefixes are written in one place:
//   AnyOf<A, B, …>       union: a cell is kept when any part keeps it, coloured by the first part that does
//   Restricted<P, F>     intersection with a *filter* F (causal, prefix-LM, document): P's reason where F keeps the cell
// A filter is any type with
//   bool allows(int i, int j) const;                                   // is cell (i, j) kept
//   BlockCover cover(int I, int J) const;                              // how query block I × key block J relates
//   void row_interval(int i, int& lo, int& hi) const;                  // the keys of row i: one interval
// Both combinators keep build_layout()'s fast row paths: AnyOf sets a row's bits when every part can (row_bits or
// row_interval), and Restricted clips its pattern's row to the filter's interval.
#pragma once
#include <bit>
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "core/variants/modifiers.h"
#include "core/variants/pattern_layout.h"

namespace attnscope {

/// A filter as described above.
template <class F>
concept MaskFilter = requires(const F& f, int i, int j, int& lo, int& hi) {
    { f.allows(i, j) } -> std::same_as<bool>;
    { f.cover(i, j) } -> std::same_as<BlockCover>;
    f.row_interval(i, lo, hi);
};

/// A pattern that can write a row's bits one way or the other (row_bits, or one interval).
template <class P>
concept HasRowFastPath = HasRowBits<P> || HasRowInterval<P>;

/// A pattern held through a shared pointer (a layout pattern may point into its pattern, so both stay alive and
/// uncopied), with the same fast row paths.
template <class P>
struct SharedPattern {
    std::shared_ptr<const P> p;
    Reason reason(int h, int i, int j) const { return p->reason(h, i, j); }
    void candidates(int h, int I, std::vector<BlockCandidate>& out) const { p->candidates(h, I, out); }
    bool row_interval(int h, int i, int& lo, int& hi) const
        requires HasRowInterval<P>
    {
        return p->row_interval(h, i, lo, hi);
    }
    int64_t row_bits(int h, int i, int j0, int ext, uint64_t* words) const
        requires HasRowBits<P>
    {
        return p->row_bits(h, i, j0, ext, words);
    }
};

/// Number of 64-bit words that hold `ext` bits.
inline int words_for(int ext) { return (ext + 63) / 64; }

/// Sets row i's bits of pattern p over keys [j0, j0 + ext) into `words` (OR) and returns the count of bits p set there,
/// through whichever fast path p has. Returns −1 when row_interval declines the row (the caller asks per cell).
template <HasRowFastPath P>
int64_t pattern_row_bits(const P& p, int h, int i, int j0, int ext, uint64_t* words) {
    if constexpr (HasRowBits<P>) {
        return p.row_bits(h, i, j0, ext, words);
    } else {
        int lo = 0, hi = -1;
        if (!p.row_interval(h, i, lo, hi)) return -1;
        const int c0 = std::max(lo - j0, 0), c1 = std::min(hi - j0 + 1, ext);
        if (c0 >= c1) return 0;
        set_bit_range(words, c0, c1);
        return c1 - c0;
    }
}

/// Sets the bits of row i of p one cell at a time (the fallback of a row its fast path declines); returns the count.
template <class P>
int64_t cellwise_row_bits(const P& p, int h, int i, int j0, int ext, uint64_t* words) {
    int64_t count = 0;
    for (int c = 0; c < ext; ++c)
        if (p.reason(h, i, j0 + c) != Reason::None) words[c >> 6] |= 1ull << (c & 63), ++count;
    return count;
}

/// Union of patterns: kept where any part keeps the cell, with the reason of the first part that does (the order of
/// the parts is the order of colouring).
template <class... Parts>
struct AnyOf {
    std::tuple<Parts...> parts;

    Reason reason(int h, int i, int j) const {
        Reason r = Reason::None;
        std::apply([&](const auto&... p) { ((r == Reason::None ? (void)(r = p.reason(h, i, j)) : (void)0), ...); }, parts);
        return r;
    }
    /// Every part's candidates; build_layout() merges duplicates, keeping `full` if any part's block is full.
    void candidates(int h, int I, std::vector<BlockCandidate>& out) const {
        std::apply([&](const auto&... p) { (p.candidates(h, I, out), ...); }, parts);
    }
    /// The union of the parts' rows over [j0, j0 + ext) (HasRowBits); counts the bits it adds.
    int64_t row_bits(int h, int i, int j0, int ext, uint64_t* words) const
        requires(HasRowFastPath<Parts> && ...)
    {
        const int nw = words_for(ext);
        int64_t before = 0, after = 0;
        for (int w = 0; w < nw; ++w) before += std::popcount(words[w]);
        std::apply(
            [&](const auto&... p) {
                ((pattern_row_bits(p, h, i, j0, ext, words) < 0 ? (void)cellwise_row_bits(p, h, i, j0, ext, words)
                                                                : (void)0),
                 ...);
            },
            parts);
        for (int w = 0; w < nw; ++w) after += std::popcount(words[w]);
        return after - before;
    }
};

/// Builds an AnyOf from its parts.
template <class... Parts>
AnyOf<Parts...> any_of(Parts... parts) {
    return {std::tuple<Parts...>(std::move(parts)...)};
}

/// A pattern per head: head h's cells are parts[h]'s (vertical-slash chooses its lines head by head).
template <class P>
struct PerHead {
    std::vector<P> parts;  // (H)
    Reason reason(int h, int i, int j) const { return parts[size_t(h)].reason(h, i, j); }
    void candidates(int h, int I, std::vector<BlockCandidate>& out) const { parts[size_t(h)].candidates(h, I, out); }
    int64_t row_bits(int h, int i, int j0, int ext, uint64_t* words) const
        requires HasRowFastPath<P>
    {
        const int64_t count = pattern_row_bits(parts[size_t(h)], h, i, j0, ext, words);
        return count >= 0 ? count : cellwise_row_bits(parts[size_t(h)], h, i, j0, ext, words);
    }
};

/// Pattern P intersected with filter F: P's reason where F keeps the cell; P's candidate blocks minus those F empties
/// (a `full` hint survives only where F keeps every cell of the block).
template <class P, MaskFilter F>
struct Restricted {
    P pattern;
    F filter;
    int n = 0, b = 1;  // positions and layout block

    Reason reason(int h, int i, int j) const { return filter.allows(i, j) ? pattern.reason(h, i, j) : Reason::None; }
    void candidates(int h, int I, std::vector<BlockCandidate>& out) const {
        const size_t first = out.size();
        pattern.candidates(h, I, out);
        size_t kept = first;
        for (size_t k = first; k < out.size(); ++k) {
            BlockCandidate c = out[k];
            if (c.J < 0 || c.J >= block_count(n, b)) continue;
            const BlockCover cover = filter.cover(I, c.J);
            if (cover == BlockCover::None) continue;
            if (cover == BlockCover::Partial) c.full = false;
            out[kept++] = c;
        }
        out.resize(kept);
    }
    /// P's row over [j0, j0 + ext) cut to the filter's interval of row i (HasRowBits).
    int64_t row_bits(int h, int i, int j0, int ext, uint64_t* words) const
        requires HasRowFastPath<P>
    {
        int lo = 0, hi = -1;
        filter.row_interval(i, lo, hi);
        const int c0 = std::max(lo - j0, 0), c1 = std::min(hi - j0 + 1, ext);
        if (c0 >= c1) return 0;
        if (c0 == 0) {  // only the end is cut (causal, prefix-LM, no filter): P writes the shorter row itself
            const int64_t count = pattern_row_bits(pattern, h, i, j0, c1, words);
            return count >= 0 ? count : cellwise_row_bits(pattern, h, i, j0, c1, words);
        }
        // P writes into a private row so the cut cannot clear bits another part of an enclosing union has set.
        constexpr int kStackWords = 16;
        uint64_t stack[kStackWords] = {};
        std::vector<uint64_t> heap;
        uint64_t* row = stack;
        if (words_for(ext) > kStackWords) heap.assign(size_t(words_for(ext)), 0), row = heap.data();
        if (pattern_row_bits(pattern, h, i, j0, c1, row) < 0) cellwise_row_bits(pattern, h, i, j0, c1, row);
        int64_t count = 0;
        for (int w = 0; w < words_for(c1); ++w) {
            uint64_t bits = row[w];
            const int lo_bit = c0 - 64 * w;
            if (lo_bit >= 64) bits = 0;
            else if (lo_bit > 0) bits &= ~0ull << lo_bit;
            words[w] |= bits;
            count += std::popcount(bits);
        }
        return count;
    }
};

/// Builds a Restricted pattern over n positions and layout blocks of b.
template <class P, MaskFilter F>
Restricted<P, F> restricted(P pattern, F filter, int n, int b) {
    return {std::move(pattern), std::move(filter), n, b};
}

}  // namespace attnscope

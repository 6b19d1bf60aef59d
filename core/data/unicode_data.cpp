#include "core/data/unicode_data.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace attnscope {

namespace {

#include "core/data/unicode_tables.inc"

// Hangul syllables decompose algorithmically (Unicode §3.12).
constexpr char32_t kHangulBase = 0xAC00, kLeadBase = 0x1100, kVowelBase = 0x1161, kTrailBase = 0x11A7;
constexpr int kVowelCount = 21, kTrailCount = 28, kSyllableCount = 11172;

}  // namespace

CharClass char_class(char32_t c) {
    // Last run starting at or before c.
    const uint32_t key = (static_cast<uint32_t>(c) << 3) | 7u;
    const auto* it = std::upper_bound(std::begin(kClassRuns), std::end(kClassRuns), key);
    if (it == std::begin(kClassRuns)) return CharClass::Other;
    return static_cast<CharClass>(*(it - 1) & 7u);
}

int combining_class(char32_t c) {
    const auto* it = std::upper_bound(std::begin(kCombiningRuns), std::end(kCombiningRuns), static_cast<uint32_t>(c),
                                      [](uint32_t v, const CombiningRun& r) { return v < r.first; });
    if (it == std::begin(kCombiningRuns)) return 0;
    --it;
    return c <= it->last ? static_cast<int>(it->ccc) : 0;
}

void append_canonical_decomposition(char32_t c, std::u32string& out) {
    if (c >= kHangulBase && c < kHangulBase + kSyllableCount) {
        const int s = static_cast<int>(c - kHangulBase);
        out.push_back(kLeadBase + s / (kVowelCount * kTrailCount));
        out.push_back(kVowelBase + (s % (kVowelCount * kTrailCount)) / kTrailCount);
        if (s % kTrailCount) out.push_back(kTrailBase + s % kTrailCount);
        return;
    }
    const auto* it = std::lower_bound(std::begin(kDecomp), std::end(kDecomp), static_cast<uint32_t>(c),
                                      [](const Triple& t, uint32_t v) { return t.cp < v; });
    if (it == std::end(kDecomp) || it->cp != c) {
        out.push_back(c);
        return;
    }
    append_canonical_decomposition(it->a, out);
    if (it->b) append_canonical_decomposition(it->b, out);
}

std::u32string nfd(const std::u32string& s) {
    std::u32string out;
    out.reserve(s.size());
    for (char32_t c : s) append_canonical_decomposition(c, out);
    // Canonical ordering: a stable sort by combining class of each run of non-starters.
    size_t k = 0;
    while (k < out.size()) {
        if (combining_class(out[k]) == 0) {
            ++k;
            continue;
        }
        size_t end = k;
        while (end < out.size() && combining_class(out[end]) != 0) ++end;
        std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(k), out.begin() + static_cast<std::ptrdiff_t>(end),
                         [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); });
        k = end;
    }
    return out;
}

void append_lowercase(char32_t c, std::u32string& out) {
    if (c < 0x80) {
        out.push_back(c >= 'A' && c <= 'Z' ? c + 32 : c);
        return;
    }
    for (const Triple& t : kLowerSpecial)
        if (t.cp == c) {
            out.push_back(t.a);
            out.push_back(t.b);
            return;
        }
    const auto* it = std::upper_bound(std::begin(kLowerRuns), std::end(kLowerRuns), static_cast<uint32_t>(c),
                                      [](uint32_t v, const LowerRun& r) { return v < r.first; });
    if (it != std::begin(kLowerRuns)) {
        --it;
        const uint32_t offset = static_cast<uint32_t>(c) - it->first;
        if (offset % it->stride == 0 && offset / it->stride < it->count) {
            out.push_back(static_cast<char32_t>(static_cast<int64_t>(c) + it->delta));
            return;
        }
    }
    out.push_back(c);
}

const char* unicode_tables_version() { return kUnicodeVersion; }

}  // namespace attnscope

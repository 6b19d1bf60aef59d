#include "core/lessons/definition_keys.h"

#include <algorithm>
#include <functional>

#include "core/error.h"

namespace attnscope {

namespace {

/// Counts, for every row, the cells j < n (j ≤ i when causal) that `kept` allows.
std::vector<int> count_rows(int n, bool causal, const std::function<bool(int, int)>& kept) {
    std::vector<int> out(size_t(n), 0);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= (causal ? i : n - 1); ++j) out[size_t(i)] += kept(i, j);
    return out;
}

std::vector<KeyRange> exact(const std::vector<int>& counts) {
    std::vector<KeyRange> out;
    for (int c : counts) out.push_back({c, c});
    return out;
}

/// Longformer (Beltagy et al. §3.1): j = i + δ·t, |t| ≤ w/2, plus the global rows and columns.
std::vector<KeyRange> longformer(const Params& p, bool causal, int n) {
    if (p.get_bool("dilation_per_head")) throw Error("longformer with dilation_per_head");
    const int half = p.get_int("window") / 2, delta = p.get_int("dilation");
    const std::vector<int>& globals = p.get_list("global");
    const auto global = [&](int x) { return std::find(globals.begin(), globals.end(), x) != globals.end(); };
    return exact(count_rows(n, causal, [&](int i, int j) {
        const int offset = j - i;
        return global(i) || global(j) || (offset % delta == 0 && std::abs(offset / delta) <= half);
    }));
}

/// StreamingLLM (Xiao et al.): the first s positions and the w most recent, causal.
std::vector<KeyRange> sink(const Params& p, int n) {
    const int w = p.get_int("window"), s = p.get_int("sinks");
    return exact(count_rows(n, true, [&](int i, int j) { return j < s || i - j < w; }));
}

/// The top-k oracle: k keys, or every allowed one when fewer.
std::vector<KeyRange> topk(const Params& p, bool causal, int n) {
    std::vector<KeyRange> out;
    for (int i = 0; i < n; ++i) {
        const int c = std::min(p.get_int("k"), causal ? i + 1 : n);
        out.push_back({c, c});
    }
    return out;
}

/// MoBA / NSA block selection: the own block, block 0, and n of the other eligible blocks (earlier ones when
/// causal), each contributing its whole extent.
std::vector<KeyRange> blocksel(const Params& p, bool causal, int n) {
    const int b = p.get_int("block"), top = p.get_int("top_blocks"), nb = (n + b - 1) / b;
    const std::vector<int> fixed = count_rows(n, causal, [&](int i, int j) { return j / b == i / b || j / b == 0; });
    std::vector<KeyRange> out;
    for (int i = 0; i < n; ++i) {
        std::vector<int> extents;  // the eligible blocks' sizes
        for (int J = 1; J < (causal ? i / b : nb); ++J)
            if (J != i / b) extents.push_back(std::min(b, n - J * b));
        std::sort(extents.begin(), extents.end());
        const int m = std::min<int>(top, int(extents.size()));
        int lo = fixed[size_t(i)], hi = fixed[size_t(i)];
        for (int k = 0; k < m; ++k) lo += extents[size_t(k)], hi += extents[extents.size() - 1 - size_t(k)];
        out.push_back({lo, hi});
    }
    return out;
}

/// BigBird (Zaheer et al., ITC): the window and global blocks exactly, up to r random blocks more.
std::vector<KeyRange> bigbird(const Params& p, bool causal, int n) {
    const int b = p.get_int("block"), half = (p.get_int("window_blocks") - 1) / 2, g = p.get_int("global_blocks");
    const int r = p.get_int("random_blocks"), nb = (n + b - 1) / b, first = (g + 1) / 2, last = g / 2;
    const auto global = [&](int B) { return B < first || B >= nb - last; };
    const std::vector<int> fixed = count_rows(n, causal, [&](int i, int j) {
        const int I = i / b, J = j / b;
        return std::abs(I - J) <= half || global(I) || global(J);
    });
    std::vector<KeyRange> out;
    for (int i = 0; i < n; ++i) {
        const int limit = causal ? i + 1 : n;
        out.push_back({fixed[size_t(i)], std::min(limit, fixed[size_t(i)] + r * b)});
    }
    return out;
}

/// MInference's vertical-slash: the forced lines exactly (the first min(V, 30) columns, the min(S, 100) nearest
/// diagonals), up to the estimated rest (V − 30 columns and S − 100 diagonals) more.
std::vector<KeyRange> vslash(const Params& p, int n) {
    const int V = p.get_int("verticals"), S = p.get_int("slashes");
    const int columns = std::min({V, 30, n}), diagonals = std::min({S, 100, n});
    const int estimated = std::max(0, V - columns) + std::max(0, S - diagonals);
    const std::vector<int> forced = count_rows(n, true, [&](int i, int j) { return j < columns || i - j < diagonals; });
    std::vector<KeyRange> out;
    for (int i = 0; i < n; ++i) out.push_back({forced[size_t(i)], std::min(i + 1, forced[size_t(i)] + estimated)});
    return out;
}

}  // namespace

std::vector<KeyRange> definition_keys(const std::string& id, const Params& p, bool causal, int n) {
    if (int(p.get_or("mask_mod", 0)) != 0) throw Error(id + " with a mask modifier");
    if (id == "longformer") return longformer(p, causal, n);
    if (id == "sink") return sink(p, n);
    if (id == "topk") return topk(p, causal, n);
    if (id == "blocksel") return blocksel(p, causal, n);
    if (id == "bigbird") return bigbird(p, causal, n);
    if (id == "vslash") return vslash(p, n);
    throw Error("the masked variant " + id);
}

}  // namespace attnscope

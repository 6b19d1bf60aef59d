#include "core/analysis/reachability.h"

#include <algorithm>
#include <bit>
#include <sstream>

#include "core/error.h"

namespace attnscope {

Adjacency layout_adjacency(const BlockLayout& layout, int head) {
    const BlockLayoutView v = layout.view();
    if (head >= layout.heads)
        throw Error("layout_adjacency: head " + std::to_string(head) + " ≥ layout heads " +
                    std::to_string(layout.heads));
    Adjacency a;
    a.n = v.n;
    a.row_ptr.assign(v.n + 1, 0);
    const int first = head < 0 ? 0 : head, last = head < 0 ? layout.heads - 1 : head;
    std::vector<int> row;
    for (int i = 0; i < v.n; ++i) {
        const int I = i / v.block, r = i % v.block;
        row.clear();
        for (int h = first; h <= last; ++h)
            for (int k = layout_row_begin(v, h, I); k < layout_row_end(v, h, I); ++k) {
                const int J = v.col_idx[k], ext = block_extent(v.n, v.block, J);
                for (int c = 0; c < ext; ++c)
                    if (layout_cell_allowed(v, k, r, c)) row.push_back(J * v.block + c);
            }
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
        a.cols.insert(a.cols.end(), row.begin(), row.end());
        a.row_ptr[i + 1] = static_cast<int>(a.cols.size());
    }
    return a;
}

Adjacency mask_adjacency(const ReasonMask& mask, int head) {
    Adjacency a;
    a.n = mask.n;
    a.row_ptr.assign(mask.n + 1, 0);
    const int first = head < 0 ? 0 : head, last = head < 0 ? mask.heads - 1 : head;
    for (int i = 0; i < mask.n; ++i) {
        for (int j = 0; j < mask.n; ++j) {
            bool any = false;
            for (int h = first; h <= last && !any; ++h) any = mask.at(h, i, j) != Reason::None;
            if (any) a.cols.push_back(j);
        }
        a.row_ptr[i + 1] = static_cast<int>(a.cols.size());
    }
    return a;
}

Reachability compute_reachability(const Adjacency& adj, int steps, bool causal) {
    if (steps < 1 || steps > 255)
        throw Error("reachability steps k = " + std::to_string(steps) + ": choose 1 ≤ k ≤ 255");
    const int n = adj.n, words = (n + 63) / 64;
    Reachability out;
    out.n = n, out.steps = steps, out.causal = causal;
    out.hops.assign(static_cast<size_t>(n) * n, 0);
    std::vector<uint64_t> bits(static_cast<size_t>(n) * words, 0);  // A as bitset rows
    for (int i = 0; i < n; ++i)
        for (int k = adj.row_ptr[i]; k < adj.row_ptr[i + 1]; ++k)
            bits[static_cast<size_t>(i) * words + (adj.cols[k] >> 6)] |= 1ull << (adj.cols[k] & 63);

#pragma omp parallel
    {
        std::vector<uint64_t> seen(words), frontier(words), next(words);
#pragma omp for schedule(dynamic, 16)
        for (int i = 0; i < n; ++i) {
            uint8_t* hop_row = out.hops.data() + static_cast<size_t>(i) * n;
            std::copy_n(bits.data() + static_cast<size_t>(i) * words, words, frontier.data());
            std::copy(frontier.begin(), frontier.end(), seen.begin());
            for (int s = 1; s <= steps; ++s) {
                std::fill(next.begin(), next.end(), 0ull);
                for (int w = 0; w < words; ++w)
                    for (uint64_t f = frontier[w]; f; f &= f - 1) {
                        const int j = w * 64 + std::countr_zero(f);
                        hop_row[j] = static_cast<uint8_t>(s);
                        if (s == steps) continue;
                        const uint64_t* row = bits.data() + static_cast<size_t>(j) * words;
                        for (int u = 0; u < words; ++u) next[u] |= row[u];
                    }
                if (s == steps) break;
                bool any = false;
                for (int w = 0; w < words; ++w) {
                    next[w] &= ~seen[w];
                    seen[w] |= next[w];
                    any = any || next[w];
                }
                if (!any) break;
                std::swap(frontier, next);
            }
        }
    }

    out.target_pairs = causal ? int64_t(n) * (n + 1) / 2 : int64_t(n) * n;
    std::vector<int64_t> at_hop(steps + 1, 0);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= (causal ? i : n - 1); ++j) ++at_hop[out.hops[static_cast<size_t>(i) * n + j]];
    int64_t reached = 0;
    double hop_sum = 0;
    for (int s = 1; s <= steps; ++s) {
        reached += at_hop[s];
        hop_sum += double(s) * at_hop[s];
        if (at_hop[s] > 0) out.max_hops = s;
        out.reached_fraction.push_back(out.target_pairs ? double(reached) / out.target_pairs : 0.0);
    }
    out.mean_hops = reached ? hop_sum / reached : 0.0;
    return out;
}

std::string reachability_summary(const Reachability& r) {
    std::ostringstream os;
    os.precision(4);
    os << "reachability of the union of heads (" << (r.causal ? "pairs j ≤ i" : "all pairs") << "):";
    for (size_t s = 0; s < r.reached_fraction.size(); ++s)
        os << (s ? "," : "") << " " << s + 1 << (s ? " steps " : " step ") << 100.0 * r.reached_fraction[s] << "%";
    os << "; mean hops " << r.mean_hops << ", max " << r.max_hops;
    return os.str();
}

}  // namespace attnscope

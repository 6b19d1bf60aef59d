#include "core/backend/interface/vertical_slash_layout.h"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace attnscope {

namespace {

/// One block row's stored blocks: key block indices (ascending) and their bitmasks, back to back.
struct BlockRow {
    std::vector<int> J;
    std::vector<uint64_t> bits;  // (J.size(), b, words_per_row)
};

BlockRow block_row(int n, int b, int I, const std::vector<int>& cols, const std::vector<int>& offs) {
    const int i0 = I * b, rows = block_extent(n, b, I), last = i0 + rows - 1, wpr = block_words_per_row(b);
    const auto cols_end = std::upper_bound(cols.begin(), cols.end(), last);
    const auto offs_end = std::upper_bound(offs.begin(), offs.end(), last);
    BlockRow out;
    for (auto c = cols.begin(); c != cols_end; ++c) out.J.push_back(*c / b);
    // Diagonal o meets the block in keys max(0, i0 − o) … last − o.
    for (auto o = offs.begin(); o != offs_end; ++o)
        for (int J = std::max(0, i0 - *o) / b; J <= (last - *o) / b; ++J) out.J.push_back(J);
    std::sort(out.J.begin(), out.J.end());
    out.J.erase(std::unique(out.J.begin(), out.J.end()), out.J.end());
    out.bits.assign(out.J.size() * size_t(b) * wpr, 0ull);
    auto set = [&](int r, int j) {
        const size_t k = size_t(std::lower_bound(out.J.begin(), out.J.end(), j / b) - out.J.begin());
        const int c = j - (j / b) * b;
        out.bits[(k * b + r) * wpr + (c >> 6)] |= 1ull << (c & 63);
    };
    for (auto c = cols.begin(); c != cols_end; ++c)
        for (int r = std::max(0, *c - i0); r < rows; ++r) set(r, *c);
    for (auto o = offs.begin(); o != offs_end; ++o)
        for (int r = std::max(0, *o - i0); r < rows; ++r) set(r, i0 + r - *o);
    return out;
}

}  // namespace

BlockLayout vertical_slash_layout(int n, int block, const std::vector<std::vector<int>>& columns,
                                  const std::vector<std::vector<int>>& offsets) {
    BlockLayout L;
    L.n = n, L.block = block, L.heads = int(columns.size());
    const int nb = block_count(n, block), wpr = block_words_per_row(block), tasks = L.heads * nb;
    std::vector<BlockRow> rows(size_t(std::max(0, tasks)));
#pragma omp parallel for schedule(dynamic, 16)
    for (int task = 0; task < tasks; ++task)
        rows[size_t(task)] = block_row(n, block, task % nb, columns[size_t(task / nb)], offsets[size_t(task / nb)]);
    L.row_ptr.assign(size_t(L.heads) * (nb + 1), 0);
    const size_t words = size_t(block) * wpr;
    int mask_count = 0;
    for (int task = 0; task < tasks; ++task) {
        const int h = task / nb, I = task % nb, rows_here = block_extent(n, block, I);
        L.row_ptr[size_t(h) * (nb + 1) + I] = int(L.col_idx.size());
        const BlockRow& row = rows[size_t(task)];
        for (size_t k = 0; k < row.J.size(); ++k) {
            const uint64_t* bits = row.bits.data() + k * words;
            int64_t count = 0;
            for (size_t w = 0; w < words; ++w) count += std::popcount(bits[w]);
            L.col_idx.push_back(row.J[k]);
            if (count == int64_t(rows_here) * block_extent(n, block, row.J[k])) {
                L.mask_idx.push_back(-1);  // every cell allowed: the kernel skips the mask
            } else {
                L.mask_idx.push_back(mask_count++);
                L.masks.insert(L.masks.end(), bits, bits + words);
            }
        }
        if (I == nb - 1) L.row_ptr[size_t(h) * (nb + 1) + nb] = int(L.col_idx.size());
    }
    return L;
}

int64_t VerticalSlashRanges::keys() const {
    int64_t total = 0;
    for (int len : length) total += len;
    return total;
}

VerticalSlashRanges vertical_slash_ranges(int n, int rows, const std::vector<std::vector<int>>& columns,
                                          const std::vector<std::vector<int>>& offsets) {
    VerticalSlashRanges R;
    R.rows = rows, R.row_blocks = block_count(n, rows);
    const int heads = int(columns.size()), tasks = heads * R.row_blocks;
    std::vector<std::vector<std::pair<int, int>>> merged(size_t(std::max(0, tasks)));  // (first, last) key
#pragma omp parallel for schedule(dynamic, 16)
    for (int task = 0; task < tasks; ++task) {
        const int h = task / R.row_blocks, B = task % R.row_blocks;
        const int i0 = B * rows, last = i0 + block_extent(n, rows, B) - 1;
        const std::vector<int>& cols = columns[size_t(h)];
        const std::vector<int>& offs = offsets[size_t(h)];
        std::vector<std::pair<int, int>> spans;
        for (auto c = cols.begin(); c != std::upper_bound(cols.begin(), cols.end(), last); ++c) spans.emplace_back(*c, *c);
        for (auto o = offs.begin(); o != std::upper_bound(offs.begin(), offs.end(), last); ++o)
            spans.emplace_back(std::max(0, i0 - *o), last - *o);
        std::sort(spans.begin(), spans.end());
        std::vector<std::pair<int, int>>& out = merged[size_t(task)];
        for (const auto& [first, end] : spans) {
            if (!out.empty() && first <= out.back().second + 1) out.back().second = std::max(out.back().second, end);
            else out.emplace_back(first, end);
        }
    }
    R.ptr.assign(size_t(tasks) + 1, 0);
    for (int task = 0; task < tasks; ++task) {
        R.ptr[size_t(task)] = int(R.start.size());
        for (const auto& [first, end] : merged[size_t(task)]) R.start.push_back(first), R.length.push_back(end - first + 1);
    }
    R.ptr[size_t(tasks)] = int(R.start.size());
    return R;
}

DiagonalSplit split_diagonals(const std::vector<std::vector<int>>& offsets, int min_run) {
    DiagonalSplit out;
    out.runs.resize(offsets.size()), out.isolated.resize(offsets.size());
    for (size_t h = 0; h < offsets.size(); ++h) {
        const std::vector<int>& offs = offsets[h];
        for (size_t a = 0; a < offs.size();) {
            size_t b = a + 1;
            while (b < offs.size() && offs[b] == offs[b - 1] + 1) ++b;
            std::vector<int>& to = int(b - a) >= min_run ? out.runs[h] : out.isolated[h];
            to.insert(to.end(), offs.begin() + std::ptrdiff_t(a), offs.begin() + std::ptrdiff_t(b));
            a = b;
        }
    }
    return out;
}

VerticalSlashKernelPlan vertical_slash_kernel_plan(int n, int rows, const std::vector<std::vector<int>>& columns,
                                                   const std::vector<std::vector<int>>& offsets, int min_run) {
    const int H = int(columns.size());
    const DiagonalSplit diagonals = split_diagonals(offsets, min_run);
    VerticalSlashKernelPlan P;
    P.ranges = vertical_slash_ranges(n, rows, columns, diagonals.runs);
    P.is_column.assign(size_t(H) * n, 0), P.is_run.assign(size_t(H) * n, 0), P.isolated_ptr.assign(size_t(H) + 1, 0);
    for (int h = 0; h < H; ++h) {
        for (int j : columns[size_t(h)]) P.is_column[size_t(h) * n + j] = 1;
        for (int o : diagonals.runs[size_t(h)])
            if (o < n) P.is_run[size_t(h) * n + o] = 1;
        for (int o : diagonals.isolated[size_t(h)])
            if (o < n) P.isolated.push_back(o);
        P.isolated_ptr[size_t(h) + 1] = int(P.isolated.size());
    }
    return P;
}

}  // namespace attnscope

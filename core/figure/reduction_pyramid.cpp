// attnscope — host reduction pyramid (see reduction_pyramid.h).
#include "core/figure/reduction_pyramid.h"

#include <algorithm>

#include "core/error.h"
#include "core/reason.h"

namespace attnscope {
namespace {

/// One level from the level below (sw × sh): texel (x, y) folds cells [2x, 2x+2) × [2y, 2y+2) of it, the last
/// column and row running to the edge, starting from `start`.
template <class T, class Fold>
std::vector<T> next_level(const T* below, int sw, int sh, T start, const Fold& fold) {
    const int w = std::max(1, sw / 2), h = std::max(1, sh / 2);
    std::vector<T> out(size_t(w) * size_t(h));
    for (int y = 0; y < h; ++y) {
        const int y0 = 2 * y, y1 = y == h - 1 ? sh : std::min(y0 + 2, sh);
        for (int x = 0; x < w; ++x) {
            const int x0 = 2 * x, x1 = x == w - 1 ? sw : std::min(x0 + 2, sw);
            T acc = start;
            for (int r = y0; r < y1; ++r)
                for (int c = x0; c < x1; ++c) acc = fold(acc, below[size_t(r) * size_t(sw) + size_t(c)]);
            out[size_t(y) * size_t(w) + size_t(x)] = acc;
        }
    }
    return out;
}

template <class T, class Fold>
std::vector<std::vector<T>> pyramid(const T* level0, int rows, int cols, T start, const Fold& fold) {
    if (rows <= 0 || cols <= 0) throw Error("a reduction pyramid needs at least one row and one column");
    std::vector<std::vector<T>> levels;
    int w = cols, h = rows;  // of the level below: level0, then the last one made
    for (int k = 1; k < pyramid_level_count(rows, cols); ++k) {
        levels.push_back(next_level(levels.empty() ? level0 : levels.back().data(), w, h, start, fold));
        w = std::max(1, w / 2), h = std::max(1, h / 2);
    }
    return levels;
}

}  // namespace

int pyramid_level_count(int rows, int cols) {
    int levels = 1;
    while ((std::max(rows, cols) >> levels) > 0) ++levels;
    return levels;
}

std::vector<std::vector<float>> value_pyramid(const float* level0, int rows, int cols, PoolMode mode) {
    if (mode == PoolMode::Mean) throw Error("a reduction pyramid keeps the largest value or magnitude, not the mean");
    return pyramid(level0, rows, cols, pool_start(mode), [mode](float acc, float v) { return pool_fold(mode, acc, v); });
}

std::vector<std::vector<uint8_t>> mask_pyramid(const uint8_t* level0, int rows, int cols) {
    return pyramid(level0, rows, cols, uint8_t(0), [](uint8_t acc, uint8_t r) { return most_salient(acc, r); });
}

}  // namespace attnscope

// attnscope — resampling a figure's images (see canvas.h).
#include "core/figure/canvas.h"

#include <algorithm>
#include <cstdint>

namespace attnscope::figure {

namespace {

/// Source texels [begin, end) covered by output texel k of `out` over `in` texels (at least one).
std::pair<int, int> covered(int k, int out, int in) {
    const int begin = int(int64_t(k) * in / out);
    const int end = std::max(begin + 1, int(int64_t(k + 1) * in / out));
    return {std::min(begin, in - 1), std::min(end, in)};
}

}  // namespace

std::vector<uint8_t> reduce_image(const ImageCmd& img, int out_w, int out_h) {
    std::vector<uint8_t> out(size_t(std::max(0, out_w)) * std::max(0, out_h) * 3);
    if (img.width <= 0 || img.height <= 0) return out;
    const bool ranked = img.rank.size() == size_t(img.width) * img.height;
    for (int y = 0; y < out_h; ++y) {
        const auto [r0, r1] = covered(y, out_h, img.height);
        for (int x = 0; x < out_w; ++x) {
            const auto [c0, c1] = covered(x, out_w, img.width);
            size_t best = size_t(r0) * img.width + c0;
            if (ranked)
                for (int r = r0; r < r1; ++r)
                    for (int c = c0; c < c1; ++c) {
                        const size_t t = size_t(r) * img.width + c;
                        if (img.rank[t] > img.rank[best]) best = t;
                    }
            std::copy(&img.rgb[best * 3], &img.rgb[best * 3] + 3, &out[(size_t(y) * out_w + x) * 3]);
        }
    }
    return out;
}

}  // namespace attnscope::figure

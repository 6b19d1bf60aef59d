#include "core/data/rope_table.h"

#include <cmath>

namespace attnscope {

RopeTable rope_table(const std::vector<double>& frequencies, int positions) {
    const int pairs = static_cast<int>(frequencies.size());
    RopeTable t{MatrixRM(positions, pairs), MatrixRM(positions, pairs)};
    for (int i = 0; i < pairs; ++i)
        for (int p = 0; p < positions; ++p) {
            const double angle = p * frequencies[size_t(i)];
            t.cos(p, i) = static_cast<float>(std::cos(angle));
            t.sin(p, i) = static_cast<float>(std::sin(angle));
        }
    return t;
}

}  // namespace attnscope

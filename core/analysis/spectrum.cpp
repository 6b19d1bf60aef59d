#include "spectrum.h"

#include <algorithm>
#include <string>

#include "svd.h"

namespace attnscope {

Spectrum compute_spectrum(const Tensor3& M, int h, int top_k) {
    if (h < 0 || h >= M.heads())
        throw Error("spectrum: head " + std::to_string(h) + " does not exist: choose 0 ≤ head < " + std::to_string(M.heads()));
    if (M.rows() == 0 || M.cols() == 0) throw Error("spectrum: the matrix " + M.shape_string() + " is empty");
    if (top_k < 1) throw Error("spectrum: top_k = " + std::to_string(top_k) + ": choose at least 1");
    Spectrum s;
    if (std::max(M.rows(), M.cols()) <= kExactSvdLimit) {
        s.singular_values = exact_singular_values(M.head(h));
        s.exact = true;
    } else {
        s.singular_values = randomized_svd(M.head(h), top_k, false).S;
        s.exact = false;
    }
    double total = 0;
    for (double v : s.singular_values) total += v;
    s.cumulative.resize(s.singular_values.size());
    double run = 0;
    for (size_t i = 0; i < s.singular_values.size(); ++i) {
        run += s.singular_values[i];
        s.cumulative[i] = total > 0 ? run / total : 0.0;
    }
    return s;
}

double energy_at_rank(const Spectrum& s, int k) {
    double total = 0, head = 0;
    for (size_t i = 0; i < s.singular_values.size(); ++i) {
        const double e = s.singular_values[i] * s.singular_values[i];
        total += e;
        if (static_cast<int>(i) < k) head += e;
    }
    return total > 0 ? head / total : 0.0;
}

}  // namespace attnscope

#include "core/analysis/spectrum.h"

#include <algorithm>
#include <string>

#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/cpu/svd.h"

namespace attnscope {

namespace {

/// The normalised cumulative sum of `values` (Linformer Fig. 1).
Spectrum finish_spectrum(std::vector<double> values, bool exact) {
    Spectrum s;
    s.singular_values = std::move(values);
    s.exact = exact;
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

void check_spectrum_request(const Tensor3& M, int h, int top_k) {
    if (h < 0 || h >= M.heads())
        throw Error("spectrum: head " + std::to_string(h) + " does not exist: choose 0 ≤ head < " + std::to_string(M.heads()));
    if (M.rows() == 0 || M.cols() == 0) throw Error("spectrum: the matrix " + M.shape_string() + " is empty");
    if (top_k < 1) throw Error("spectrum: top_k = " + std::to_string(top_k) + ": choose at least 1");
}

}  // namespace

Spectrum compute_spectrum(const Tensor3& M, int h, int top_k) {
    CpuBackend cpu;
    return compute_spectrum(M, h, cpu, top_k);
}

Spectrum compute_spectrum(const Tensor3& M, int h, Backend& backend, int top_k) {
    check_spectrum_request(M, h, top_k);
    const bool exact = std::max(M.rows(), M.cols()) <= kExactSvdLimit;
    std::vector<double> values;
    SingularValuesArgs a;
    a.M = &M, a.head = h, a.top_k = exact ? 0 : top_k, a.S = &values;
    backend.singular_values(a);
    return finish_spectrum(std::move(values), exact);
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

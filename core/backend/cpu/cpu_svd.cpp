// attnscope — the singular-values primitive on the CPU: LAPACK (sgesdd, sgesvd fallback) for every value, or
// the randomized top-k of core/backend/cpu/svd.h. The CUDA backend (core/backend/cuda/svd.cu) follows the same recipe with
// cuSOLVER and draws the same sketch Ω from core/backend/shared/random.h.
#include <algorithm>

#include "core/backend/cpu/svd.h"
#include "core/backend/cpu/cpu_primitives.h"

namespace attnscope {

void cpu_singular_values(const SingularValuesArgs& a) {
    const int k = validate_singular_values(a);
    const Tensor3& M = *a.M;
    const int first = a.head < 0 ? 0 : a.head, last = a.head < 0 ? M.heads() : a.head + 1;
    a.S->assign(size_t(last - first) * k, 0.0);
    for (int h = first; h < last; ++h) {
        const std::vector<double> s =
            a.top_k == 0 ? exact_singular_values(M.head(h))
                         : randomized_svd(M.head(h), a.top_k, false, a.seed, a.oversample, a.power_iterations).S;
        std::copy(s.begin(), s.begin() + std::min<size_t>(s.size(), size_t(k)), a.S->begin() + size_t(h - first) * k);
    }
}

}  // namespace attnscope

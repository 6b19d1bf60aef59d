#include "core/heads.h"

#include "core/error.h"

namespace attnscope {

void validate_heads(const Heads& h) {
    if (h.Q.empty() || h.n() <= 0) throw Error("the input has no tokens (n = 0): provide at least one position");
    if (h.d() <= 0) throw Error("the head dimension d is 0: provide Q and K with at least one column");
    require_shape(h.K, h.heads(), h.n(), h.d(), "K");
    if (h.V.heads() != h.heads() || h.V.rows() != h.n() || h.V.cols() <= 0)
        throw Error("V has shape " + h.V.shape_string() + " but (" + std::to_string(h.heads()) + ", " +
                    std::to_string(h.n()) + ", dv > 0) is required");
    if (!h.Q.all_finite() || !h.K.all_finite() || !h.V.all_finite())
        throw Error("the input Q, K or V contains NaN or Inf: clean the tensors (e.g. replace non-finite values) "
                    "before running attention");
    if (!h.tokens.empty() && static_cast<int>(h.tokens.size()) != h.n())
        throw Error("there are " + std::to_string(h.tokens.size()) + " token strings for n = " + std::to_string(h.n()) +
                    " positions: give one string per position or none");
}

}  // namespace attnscope

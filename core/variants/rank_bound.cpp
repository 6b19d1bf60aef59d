#include "core/variants/rank_bound.h"

#include "core/variants/registry.h"

namespace attnscope {

int rank_bound(const RunResult& run, int d) {
    const Params& p = run.params;
    if (run.variant == "linformer") return p.get_int("k");
    if (run.variant == "linear") return d;  // P̃ ∝ φ(Q)φ(K)ᵀ with φ(x) ∈ R^d
    if (run.variant == "performer") {       // P̃ ∝ φ(Q)φ(K)ᵀ with m (hyperbolic, trig: 2m) columns
        const std::string kind = p.value_text(*find_param(find_variant("performer").info().params, "kind"));
        return p.get_int("features") * (kind == "hyperbolic" || kind == "trig" ? 2 : 1);
    }
    return 0;
}

}  // namespace attnscope

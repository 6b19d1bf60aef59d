// attnscope — parameter specs shared by several variants, written once.
#pragma once
#include <cmath>

#include "core/variants/params.h"
#include "core/variants/variant.h"

namespace attnscope {

/// causal: key j allowed only when j ≤ i.
inline ParamSpec causal_param(bool def, const std::string& extra_help = "") {
    return bool_param("causal", "causal", "attend only to j ≤ i (autoregressive)" + extra_help, def);
}

/// scale s in softmax(s·QKᵀ); auto = 1/√d.
inline ParamSpec scale_param() {
    return with_auto_default(real_param("scale", "s", "logit scale s in softmax(s·QKᵀ)", 0, 1e-6, 1e3), "1/√d");
}

/// window w of the sliding-window patterns (longformer, sink): `help` says which keys it keeps, `auto_help` the
/// default resolve() derives from n.
inline ParamSpec window_param(const std::string& help, const std::string& auto_help) {
    return with_auto_default(int_param("window", "w", help, 64, 0, 2097152), auto_help);
}

/// seed of every random choice the variant makes (random blocks, rotations, projections, features).
inline ParamSpec seed_param() {
    return int_param("seed", "seed", "seed of the variant's random structure (same seed, same structure)", 0, 0,
                     2147483647.0);
}

/// The largest power of two ≤ v (1 for v < 2): defaults that follow n keep to round sizes.
inline int power_of_two_floor(int v) {
    int p = 1;
    while (p <= v / 2) p *= 2;
    return p;
}

}  // namespace attnscope

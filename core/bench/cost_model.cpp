#include "core/bench/cost_model.h"

#include "core/variants/registry.h"

namespace attnscope {

std::vector<ModelPoint> cost_model_points(const BenchConfig& c) {
    std::vector<ModelPoint> out;
    const int dv = c.value_dim > 0 ? c.value_dim : c.dim;
    for (const BenchVariantSpec& spec : c.variants) {
        const Variant& variant = find_variant(spec.id);
        for (int n : c.ns) {
            ModelPoint p;
            p.label = spec.label.empty() ? spec.id : spec.label;
            p.n = n;
            try {
                const Params resolved = variant.resolve(spec.params, Shape{c.heads, n, c.dim, dv});
                p.flops = variant.estimate_flops(c.heads, n, c.dim, dv, resolved);
                p.peak_bytes = variant.estimate_peak_bytes(c.heads, n, c.dim, dv, resolved);
            } catch (const Error& e) {
                p.error = e.what();
            }
            out.push_back(std::move(p));
        }
    }
    return out;
}

}  // namespace attnscope

// attnscope — sweeps of several instances (see sweep_curves.h).
#include "core/session/sweep_curves.h"

#include "core/session/variant_json.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"

namespace attnscope {

std::vector<SweepCurveRun> plan_sweep_curves(const std::vector<VariantRequest>& instances, const std::string& param,
                                             const std::string& range, const MetricSpec& metric, int seeds,
                                             const SweepEvaluator& evaluate) {
    return plan_sweep_curves(instances, param, parse_sweep_range(range), metric, seeds, evaluate);
}

std::vector<SweepCurveRun> plan_sweep_curves(const std::vector<VariantRequest>& instances, const std::string& param,
                                             const SweepRange& range, const MetricSpec& metric, int seeds,
                                             const SweepEvaluator& evaluate) {
    std::vector<SweepCurveRun> curves;
    for (const VariantRequest& instance : instances) {
        SweepCurveRun c;
        c.instance = instance;
        c.spec.variant = instance.id;
        c.spec.param = param;
        c.spec.range = range;
        c.spec.metric = &metric;
        c.spec.seeds = seeds;
        c.spec.fixed = assignments_of(instance);
        c.spec.evaluate = evaluate;
        validate_sweep(c.spec);
        const VariantInfo& info = find_variant(instance.id).info();
        c.swept = swept_parameter(info, param);
        c.label = curve_label(info, instance.params, c.swept);
        curves.push_back(std::move(c));
    }
    return curves;
}

void run_sweep_curves(std::vector<SweepCurveRun>& curves, const SweepInputFactory& make_input, Backend& backend,
                      const std::function<void(size_t, int, int)>& progress) {
    for (size_t k = 0; k < curves.size(); ++k)
        curves[k].points = run_sweep(curves[k].spec, make_input, backend, [&](int done, int total) {
            if (progress) progress(k, done, total);
            return true;
        });
}

}  // namespace attnscope

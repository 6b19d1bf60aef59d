#include "core/session/metric_sweep.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "core/format.h"
#include "core/variants/registry.h"

namespace attnscope {

namespace {

double parse_double(const std::string& text, const std::string& whole) {
    const std::optional<double> v = parse_finite(text);
    if (!v)
        throw Error("sweep range '" + whole + "': '" + text + "' is not a number; use START:STOP, START:STOP:xFACTOR or START:STOP:+STEP");
    return *v;
}

/// Exact decimal text of a value (std::to_string would round 1e-7 to "0.000000").
std::string exact_text(double v) { return format_significant(v, 17); }

}  // namespace

std::vector<double> SweepRange::values() const {
    constexpr size_t kMaxPoints = 1000;
    std::vector<double> out;
    if (factor > 0) {
        if (factor <= 1 || start <= 0) throw Error("a geometric sweep needs START > 0 and FACTOR > 1");
        for (double v = start; v <= stop * (1 + 1e-12) && out.size() < kMaxPoints; v *= factor) out.push_back(v);
    } else {
        if (step <= 0) throw Error("a sweep step must be positive");
        for (int k = 0; start + k * step <= stop + 1e-12 * std::fabs(stop) && out.size() < kMaxPoints; ++k)
            out.push_back(start + k * step);
    }
    if (out.empty()) throw Error("the sweep range is empty: START must be ≤ STOP");
    return out;
}

SweepRange parse_sweep_range(const std::string& text) {
    SweepRange r;
    const auto c1 = text.find(':');
    if (c1 == std::string::npos) throw Error("sweep range '" + text + "' needs START:STOP[:xFACTOR|:+STEP]");
    const auto c2 = text.find(':', c1 + 1);
    r.start = parse_double(text.substr(0, c1), text);
    r.stop = parse_double(text.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1), text);
    if (c2 != std::string::npos) {
        const std::string step = text.substr(c2 + 1);
        if (step.size() > 1 && step[0] == 'x') {
            // factor = 0 means "arithmetic" inside SweepRange: a written factor must be > 1 here.
            r.factor = parse_double(step.substr(1), text);
            if (!(r.factor > 1))
                throw Error("sweep range '" + text + "': the factor x" + step.substr(1) +
                            " must be > 1 (each point is the previous one times it); e.g. " +
                            exact_text(r.start) + ":" + exact_text(r.stop) + ":x2");
        } else if (step.size() > 1 && step[0] == '+') {
            r.step = parse_double(step.substr(1), text);
            if (!(r.step > 0))
                throw Error("sweep range '" + text + "': the step +" + step.substr(1) +
                            " must be > 0 (START ≤ STOP, counting up); e.g. " + exact_text(r.start) + ":" +
                            exact_text(r.stop) + ":+1");
        } else {
            throw Error("sweep range '" + text + "': the step must be xFACTOR or +STEP");
        }
    }
    r.values();  // validates
    return r;
}

std::vector<const MetricSpec*> sweep_metrics() {
    std::vector<const MetricSpec*> out;
    for (const MetricSpec& m : metric_table())
        if (m.lists & kSweepable) out.push_back(&m);
    return out;
}

std::string sweep_metric_choices() {
    std::vector<std::string> names;
    for (const MetricSpec* m : sweep_metrics())
        names.push_back(std::string(m->id) + (measured_outside_run(*m) ? " (text input)" : ""));
    return join_words(names);
}

const MetricSpec& parse_sweep_metric(const std::string& name) {
    std::string known;
    for (const MetricSpec* m : sweep_metrics()) {
        if (m->id == name) return *m;
        known += (known.empty() ? "" : ", ") + std::string(m->id);
    }
    throw Error("unknown metric '" + name + "': choose one of " + known);
}

std::optional<double> sweep_metric_value(const MetricSpec& m, const RunResult& r) {
    std::optional<double> v = metric_value(m, r);
    if (v) *v *= m.axis_scale;
    if (v && !std::isfinite(*v)) return std::nullopt;
    return v;
}

std::string swept_parameter(const VariantInfo& info, const std::string& name) {
    if (name == "n") return name;
    if (name == "budget") {
        if (info.budget_param.empty())
            throw Error(info.id + " has no budget parameter (its cost is fixed by n): sweep n, or one of its parameters");
        return info.budget_param;
    }
    if (!find_param(info.params, name))
        throw Error(info.id + " has no parameter '" + name + "' to sweep (use n, budget, or one of `attnscope variants`)");
    return name;
}

void validate_sweep(const SweepSpec& spec) {
    if (spec.seeds < 1 || spec.seeds > 1000) throw Error("--seeds must be between 1 and 1000");
    const VariantInfo& info = find_variant(spec.variant).info();
    const std::string param = swept_parameter(info, spec.param);
    const bool sweeps_n = param == "n";
    const bool external = measured_outside_run(*spec.metric);
    if (external && !spec.evaluate)
        throw Error("the " + std::string(spec.metric->id) + " metric needs text input (--text or --text-file): the encoder is re-run "
                    "with the variant in place of one layer's attention");
    if (external && sweeps_n) throw Error("n cannot be swept with " + std::string(spec.metric->id) + ": the text fixes n");
    if (sweeps_n) return;  // n is checked when each input is made
    for (double value : spec.range.values()) {
        auto assignments = spec.fixed;
        assignments.emplace_back(param, exact_text(value));
        parse_variant_request(spec.variant, assignments);
    }
}

std::vector<MetricSweepPoint> run_sweep(const SweepSpec& spec, const SweepInputFactory& make_input, Backend& backend,
                                  const std::function<bool(int, int)>& progress) {
    validate_sweep(spec);
    const VariantInfo& info = find_variant(spec.variant).info();
    const std::string param = swept_parameter(info, spec.param);
    const bool sweeps_n = param == "n";
    const bool external = measured_outside_run(*spec.metric);
    const std::vector<double> values = spec.range.values();
    const bool has_seed = find_param(info.params, "seed") != nullptr;
    const bool need_matrix = spec.metric->lists & kNeedsMatrices;

    std::vector<MetricSweepPoint> out;
    const int total = static_cast<int>(values.size()) * spec.seeds;
    int done = 0;
    for (double value : values) {
        MetricSweepPoint point;
        point.value = value;
        point.min = std::numeric_limits<double>::infinity();
        point.max = -point.min;
        double sum = 0;
        for (int seed = 0; seed < spec.seeds; ++seed) {
            auto assignments = spec.fixed;
            if (!sweeps_n) assignments.emplace_back(param, exact_text(value));
            if (has_seed) assignments.emplace_back("seed", std::to_string(seed));
            const VariantRequest request = parse_variant_request(spec.variant, assignments);
            if (external) {
                if (const auto v = spec.evaluate(request, backend); v && std::isfinite(*v)) {
                    sum += *v;
                    point.min = std::min(point.min, *v);
                    point.max = std::max(point.max, *v);
                    ++point.samples;
                }
                if (progress && !progress(++done, total)) return out;
                continue;
            }
            const Heads heads = make_input(static_cast<uint64_t>(seed), sweeps_n ? static_cast<int>(std::lround(value)) : 0);
            ReferenceCache refs(heads, need_matrix && heads.n() <= 4096);
            RunOptions options;
            options.explain = need_matrix && heads.n() <= 4096;
            const RunResult r = run_variant(heads, request, options, backend, &refs);
            if (const auto v = sweep_metric_value(*spec.metric, r)) {
                sum += *v;
                point.min = std::min(point.min, *v);
                point.max = std::max(point.max, *v);
                ++point.samples;
            }
            if (progress && !progress(++done, total)) return out;
        }
        point.mean = point.samples ? sum / point.samples : std::numeric_limits<double>::quiet_NaN();
        if (!point.samples) point.min = point.max = point.mean;
        out.push_back(point);
    }
    return out;
}

}  // namespace attnscope

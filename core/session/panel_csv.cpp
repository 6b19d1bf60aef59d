#include "core/session/panel_csv.h"

#include <algorithm>

#include "core/analysis/key_attention.h"
#include "core/csv.h"
#include "core/error.h"
#include "core/session/metric_table.h"
#include "core/session/metrics.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"

namespace attnscope {

namespace {

/// The metric columns of one metrics row, in the table's order; a metric over all heads only repeats the run's.
std::vector<std::string> metric_fields(const MetricValues& m, const Metrics& all) {
    std::vector<std::string> out;
    for (const MetricSpec& f : metric_table())
        if (f.lists & kInCsv) out.push_back(csv_number((f.lists & kAllHeadsOnly ? all : m).*f.field));
    return out;
}

}  // namespace

std::string metrics_csv(const std::vector<const RunResult*>& results, const InstanceColumns* extra) {
    std::vector<std::string> header = {"variant", "instance", "model", "heads"};
    for (const MetricSpec& f : metric_table())
        if (f.lists & kInCsv) header.push_back(f.id);
    for (const char* cost : {"time_ms", "peak_bytes", "flops"}) header.push_back(cost);
    if (extra) header.insert(header.end(), extra->names.begin(), extra->names.end());
    std::string out = csv_record(header);
    for (size_t k = 0; k < results.size(); ++k) {
        const RunResult* r = results[k];
        const Metrics& all = r->metrics;
        const std::string instance = instance_label(find_variant(r->variant).info(), r->params);
        auto row = [&](const MetricValues& m, const std::string& heads) {
            std::vector<std::string> fields = {r->variant, instance, exact_model_id(r->model), heads};
            for (std::string& f : metric_fields(m, all)) fields.push_back(std::move(f));
            fields.push_back(csv_number(r->cost.time_ms));
            fields.push_back(std::to_string(r->cost.peak_bytes));
            fields.push_back(csv_number(r->cost.flops));
            if (extra)
                for (size_t c = 0; c < extra->names.size(); ++c)
                    fields.push_back(heads == "mean over heads" && k < extra->cells.size() ? extra->cells[k][c] : "");
            out += csv_record(fields);
        };
        row(all, "mean over heads");
        for (size_t h = 0; h < all.heads.size(); ++h) row(all.heads[h], "head " + std::to_string(h));
    }
    return out;
}

std::string sweep_csv(const std::vector<SweepCurveTable>& curves, const std::string& metric) {
    std::string out = csv_record({"variant", "instance", "param", "value", "metric", "mean", "min", "max", "seeds"});
    for (const SweepCurveTable& c : curves)
        for (const MetricSweepPoint& p : c.points) {
            const bool measured = p.samples > 0;
            out += csv_record({c.variant, c.instance, c.param, csv_number(p.value), metric,
                               measured ? csv_number(p.mean) : "", measured ? csv_number(p.min) : "",
                               measured ? csv_number(p.max) : "", std::to_string(p.samples)});
        }
    return out;
}

std::string spectrum_csv(const std::vector<SpectrumTable>& spectra, int top) {
    if (top < 1) throw Error("spectrum_csv: top must be ≥ 1");
    std::string out = csv_record({"variant", "instance", "head", "svd", "k", "sigma", "cumulative"});
    for (const SpectrumTable& t : spectra) {
        const Spectrum& s = t.spectrum;
        const size_t keep = std::min(s.singular_values.size(), static_cast<size_t>(top));
        for (size_t k = 0; k < keep; ++k)
            out += csv_record({t.variant, t.instance, std::to_string(t.head), s.exact ? "exact" : "top-k",
                               std::to_string(k + 1), csv_number(s.singular_values[k]), csv_number(s.cumulative[k])});
    }
    return out;
}

std::string layer_spectra_csv(const LayerHeadSpectra& spectra) {
    std::string out = csv_record({"layer", "head", "k", "cumulative"});
    for (int l = 0; l < spectra.layers; ++l)
        for (int h = 0; h < spectra.heads; ++h)
            for (int k = 1; k <= spectra.n; ++k)
                out += csv_record({std::to_string(l), std::to_string(h), std::to_string(k), csv_number(spectra.at(l, h, k))});
    return out;
}

std::string head_mass_csv(const LayerHeadMass& grid) {
    std::string out = csv_record({"variant", "instance", "layer", "head", "mass_recall", "note"});
    for (const HeadMassGrid& g : grid.grids)
        for (int l = 0; l < grid.layers; ++l)
            for (int h = 0; h < grid.heads; ++h) {
                const bool has = !g.recall.empty();
                out += csv_record({g.variant, g.instance, std::to_string(l), std::to_string(h),
                                   has ? csv_number(g.at(l, h, grid.heads)) : "", has ? "" : g.error});
            }
    return out;
}

std::string key_attention_csv(const std::vector<std::string>& tokens, const std::vector<double>& received) {
    if (!tokens.empty() && tokens.size() != received.size())
        throw Error("key_attention_csv: " + std::to_string(tokens.size()) + " tokens for " +
                    std::to_string(received.size()) + " key positions");
    std::string out = csv_record({"position", "token", "kind", "received", "uniform"});
    const double uniform = received.empty() ? 0.0 : 1.0 / double(received.size());
    for (size_t j = 0; j < received.size(); ++j) {
        const std::string token = tokens.empty() ? std::to_string(j) : tokens[j];
        out += csv_record({std::to_string(j), token, tokens.empty() ? "" : token_kind_name(token_kind(token)),
                           csv_number(received[j]), csv_number(uniform)});
    }
    return out;
}

}  // namespace attnscope

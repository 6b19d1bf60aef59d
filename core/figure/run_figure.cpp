// attnscope — figures of variant runs (see run_figure.h).
#include "core/figure/run_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "core/figure/figure_views.h"
#include "core/session/metrics.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"

namespace attnscope::figure {

namespace {

std::string sci(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2e", v);
    return buf;
}

std::string fixed3(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

/// Metric lines of one run at head `h` (named `name` in the figure), each naming its reference and the head it is
/// of: that head's own values where the run has them per head, else the mean over heads, said as such.
std::vector<std::string> metric_lines(const RunResult& r, int h, const std::string& name) {
    std::vector<std::string> lines;
    const bool own = h >= 0 && h < int(r.metrics.heads.size());
    const MetricValues& m = own ? r.metrics.heads[size_t(h)] : r.metrics;
    const std::string of = own ? name + ": " : "mean over heads: ";
    if (r.model == ExactModel::Different && m.rel_err_out)
        lines.push_back(of + "a different model: output differs from softmax attention by " + sci(*m.rel_err_out) + " (relative)");
    else if (m.rel_err_out)
        lines.push_back(of + "output error vs exact softmax: " + sci(*m.rel_err_out));
    if (m.rel_err_model) lines.push_back(of + "output error vs its own exact model (" + std::string(exact_model_id(r.model)) + "): " + sci(*m.rel_err_model));
    if (m.mass_recall) lines.push_back(of + "exact softmax mass kept: " + fixed3(*m.mass_recall));
    // The variants report density over every head's cells only.
    if (r.metrics.density)
        lines.push_back(std::string("all heads: cells scored: ") + fixed3(*r.metrics.density) + (r.causal ? " of the causal triangle" : " of n²"));
    if (!r.metrics.dense_warning.empty()) lines.push_back("warning: " + r.metrics.dense_warning);
    // How concentrated exact attention is on this input: what any sparse pattern has to catch.
    if (r.model == ExactModel::Softmax && !m.mass_recall && m.keys_for_90_exact && m.rel_err_out && *m.rel_err_out < 1e-4) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "%sexact P: 90%% of a row's weight in %.1f keys (mean over rows); row entropy %.2f nats",
                      of.c_str(), *m.keys_for_90_exact, m.row_entropy_exact.value_or(0));
        lines.push_back(buf);
    }
    return lines;
}

/// The panel's matrix (and reasons) with both axes in display order: slot s shows position p[s].
void permute_panel(FigurePanel& panel, const int* p) {
    const int n = panel.n;
    std::vector<float> values(panel.values.size());
    std::vector<uint8_t> reasons(panel.reasons.size());
    for (int s = 0; s < n; ++s)
        for (int t = 0; t < n; ++t) {
            values[size_t(s) * n + t] = panel.values[size_t(p[s]) * n + p[t]];
            if (!reasons.empty()) reasons[size_t(s) * n + t] = panel.reasons[size_t(p[s]) * n + p[t]];
        }
    // Without reasons a causal panel marked the upper triangle; in another order that is no longer a triangle.
    if (panel.causal && reasons.empty()) {
        reasons.resize(values.size());
        for (int s = 0; s < n; ++s)
            for (int t = 0; t < n; ++t) reasons[size_t(s) * n + t] = p[t] > p[s] ? 0 : 1;
    }
    panel.values = std::move(values), panel.reasons = std::move(reasons);
}

/// The strips above the matrices and the class the order sorts by, per display slot `p` shows: every round's buckets
/// of `lsh` (up to four) or the input's groups; with what the subtitles call the order.
struct OrderClasses {
    std::vector<FigureStrip> strips;
    std::vector<int> sorted_by;
    std::string what;
};

OrderClasses order_classes(DisplayOrder order, int round, const Heads& heads, const LshBuckets* lsh, int h, const int* p) {
    const int n = heads.n();
    auto class_of = [&](const std::vector<int>& per_position, int s) {  // per_position: (H|1)·n
        return per_position[size_t(h % int(per_position.size() / size_t(n))) * n + p[s]];
    };
    auto classes = [&](const std::vector<int>& per_position) {
        std::vector<int> out(static_cast<size_t>(n));
        for (int s = 0; s < n; ++s) out[size_t(s)] = class_of(per_position, s);
        return out;
    };
    OrderClasses c;
    if (order == DisplayOrder::LshBuckets) {
        for (int r = 0; r < lsh->rounds && r < 4; ++r) c.strips.push_back({"round " + std::to_string(r), classes(lsh->bucket_q[size_t(r)])});
        c.sorted_by = classes(lsh->bucket_q[size_t(round)]);
        c.what = "round " + std::to_string(round) + "'s bucket order";
    } else {
        c.sorted_by = classes(heads.groups);
        c.strips.push_back({"cluster", c.sorted_by});
        c.what = "cluster order";
    }
    return c;
}

/// Lays every panel, the axis labels and the strips out in `options.order` (Buckets: the lsh round's order), with
/// a boundary wherever the class the order sorts by changes.
void apply_order(FigureSpec& spec, const Heads& heads, const std::vector<RunResult>& results, const RunFigureOptions& options) {
    const DisplayOrder order = options.view == View::Buckets ? DisplayOrder::LshBuckets : options.order;
    if (order == DisplayOrder::Positions) return;
    const LshBuckets* lsh = nullptr;  // the run display_permutation takes the order from: the first with that round
    for (const RunResult& r : results)
        if (!lsh && r.structure.lsh && options.order_round < r.structure.lsh->rounds) lsh = &*r.structure.lsh;
    const std::vector<int> perm = display_permutation(order, options.order_round, heads, {lsh});
    const int n = heads.n(), h = options.head;
    if (perm.empty())
        throw Error(order == DisplayOrder::LshBuckets
                        ? "the bucket order needs an lsh instance with round " + std::to_string(options.order_round) +
                              ": add --variant lsh, lower --round (or choose --order natural)"
                        : "the clusters order needs an input with groups: --data clustered (or choose --order natural)");
    const int* p = perm.data() + size_t(h % int(perm.size() / size_t(n))) * n;
    for (FigurePanel& panel : spec.panels) permute_panel(panel, p);
    std::vector<std::string> labels(static_cast<size_t>(n));
    for (int s = 0; s < n; ++s) labels[size_t(s)] = spec.tokens.empty() ? std::to_string(p[s]) : spec.tokens[size_t(p[s])];
    spec.tokens = std::move(labels);
    OrderClasses c = order_classes(order, options.order_round, heads, lsh, h, p);
    for (int s = 1; s < n; ++s)
        if (c.sorted_by[size_t(s)] != c.sorted_by[size_t(s - 1)]) spec.boundaries.push_back(s);
    spec.strips = std::move(c.strips);
    // Said in every subtitle, which a narrow panel shortens from the end: the order goes before the long words.
    const std::string long_words = " (effective attention)";
    for (FigurePanel& panel : spec.panels) {
        if (const size_t at = panel.subtitle.find(long_words); at != std::string::npos) panel.subtitle.erase(at, long_words.size());
        panel.subtitle += " · axes in " + c.what;
    }
}

}  // namespace

View parse_view(const std::string& text) {
    if (text == "weights") return View::Weights;
    if (text == "mask") return View::Mask;
    if (text == "difference" || text == "diff") return View::Difference;
    if (text == "buckets") return View::Buckets;
    throw Error("figure view '" + text + "' is not " + figure_view_names(false) + " (matrices) or " + figure_view_names(true) +
                " (charts)");
}

Theme parse_theme(const std::string& text) {
    if (text == "light") return Theme::Light;
    if (text == "dark") return Theme::Dark;
    throw Error("figure theme '" + text + "' is not light or dark");
}

FigureSpec figure_of_runs(const Heads& heads, const std::vector<RunResult>& results, const RunFigureOptions& options,
                          const ExactMatrix& exact) {
    const int n = heads.n(), h = options.head;
    if (h < 0 || h >= heads.heads())
        throw Error("head " + std::to_string(h) + " does not exist: the input has heads 0…" + std::to_string(heads.heads() - 1));
    FigureSpec spec;
    spec.tokens = heads.tokens;
    spec.title = options.title;
    spec.show_mask = options.view == View::Mask;
    spec.theme = options.theme;
    spec.width = options.width, spec.height = options.height;
    const bool diff = options.view == View::Difference;
    float shared_max = 0;  // one scale for every weights panel (equal colours = equal weights) or every difference
    std::vector<bool> own_scale;  // mixing matrices keep their own signed scale
    for (const RunResult& r : results) {
        const VariantInfo& info = find_variant(r.variant).info();
        if (!r.P_eff) continue;
        FigurePanel p;
        p.title = instance_label(info, r.params);
        p.n = n;
        p.causal = r.causal;
        const auto M = r.P_eff->head(r.P_eff->plane_for(h));
        p.values.assign(M.data(), M.data() + size_t(n) * n);
        if (r.structure.mask && options.view == View::Mask) {
            const ReasonMask& mask = *r.structure.mask;
            const size_t plane = size_t(n) * n;
            p.reasons.assign(mask.cells.begin() + long(plane * size_t(h % mask.heads)),
                             mask.cells.begin() + long(plane * size_t(h % mask.heads + 1)));
        }
        const std::string head_name = "head " + std::to_string(options.head_number >= 0 ? options.head_number : h);
        const std::string head_text = ", " + head_name;
        if (diff && !info.signed_matrix) {
            const Tensor3* P = exact ? exact(r.causal) : nullptr;
            if (!P) throw Error("the difference view needs the exact P, which was not materialised at n = " + std::to_string(n));
            const auto E = P->head(h);
            float own = 0;
            for (size_t c = 0; c < p.values.size(); ++c) {
                p.values[c] -= E.data()[c];
                own = std::max(own, std::abs(p.values[c]));
            }
            p.scale.kind = ValueScale::Kind::Signed;
            p.subtitle = "P_eff − P (exact softmax" + std::string(r.causal ? ", causal" : "") + ")" + head_text;
            p.lines.push_back("max |P_eff − P| = " + (own > 0 ? sci(own) : std::string("0 (equal to exact)")));
            shared_max = std::max(shared_max, own);
        } else if (info.signed_matrix) {
            // A mixing matrix is signed by definition: its own diverging scale, whatever the view.
            float own = 0;
            for (float v : p.values) own = std::max(own, std::abs(v));
            p.scale = {ValueScale::Kind::Signed, std::max(own, 1e-12f), options.decades};
            p.subtitle = (r.structure.matrix_title.empty() ? std::string("mixing matrix") : r.structure.matrix_title) + head_text;
        } else {
            const float lo = *std::min_element(p.values.begin(), p.values.end());
            p.scale.kind = options.log_scale ? ValueScale::Kind::Log : ValueScale::Kind::Linear;
            p.scale.decades = options.decades;
            p.subtitle = std::string(options.view == View::Mask ? "P_eff, tinted by why each cell is allowed" : "P_eff (effective attention)") + head_text;
            if (lo < 0) p.lines.push_back("negative entries down to " + sci(lo) + " (an approximation, not weights): drawn as the lowest colour");
            shared_max = std::max(shared_max, *std::max_element(p.values.begin(), p.values.end()));
        }
        for (std::string& line : metric_lines(r, h, head_name)) p.lines.push_back(std::move(line));
        own_scale.push_back(info.signed_matrix);
        spec.panels.push_back(std::move(p));
    }
    if (spec.panels.empty())
        throw Error("none of the variants has an effective matrix at n = " + std::to_string(n) +
                    " (raise --matrix-limit, or choose variants that define one)");
    for (size_t k = 0; k < spec.panels.size(); ++k)
        if (!own_scale[k]) spec.panels[k].scale.vmax = std::max(shared_max, 1e-12f);
    apply_order(spec, heads, results, options);
    const FigurePanel& first = spec.panels.front();
    spec.colour_label = diff ? "P_eff − P"
                        : first.scale.kind == ValueScale::Kind::Signed ? "value"
                        : first.scale.kind == ValueScale::Kind::Log   ? "P_eff (log10 scale)"
                                                                       : "P_eff";
    return spec;
}

}  // namespace attnscope::figure

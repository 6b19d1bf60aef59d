// attnscope — chart figures from the CLI (see chart_figure_cli.h).
#include "app/cli/chart_figure_cli.h"

#include <algorithm>
#include <functional>
#include <map>
#include <iostream>
#include <unistd.h>

#include "core/analysis/key_attention.h"
#include "core/data/text_model.h"
#include "core/figure/chart_figures.h"
#include "core/figure/figure_views.h"
#include "core/figure/render.h"
#include "core/session/head_mass.h"
#include "core/session/shown_reference.h"
#include "core/session/sinks_data.h"
#include "core/session/sweep_curves.h"
#include "core/session/text_metric_measure.h"
#include "core/session/decoder_whatif.h"
#include "core/figure/perplexity_figure.h"
#include "core/data/model_paths.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"

namespace attnscope::cli {

namespace {

/// "head 3" as the figure names the head it shows.
std::string head_text(const figure::RunFigureOptions& f) {
    return "head " + std::to_string(f.head_number >= 0 ? f.head_number : f.head);
}

figure::PlotFigure spectrum_chart(const FigureJob& job, const figure::RunFigureOptions& f, const ChartFigureOptions& c,
                                  Backend& backend) {
    const Heads& heads = job.input.heads;
    if (c.top < 1) throw Error("--top must be ≥ 1 (singular values computed for n > 2048)");
    ReferenceCache refs(heads, true);
    RunOptions options;
    options.explain = true;  // the effective matrices P̃ whose spectra are drawn
    options.max_matrix_n = heads.n();
    std::vector<RunResult> results;
    for (const VariantRequest& request : job.requests) results.push_back(run_variant(heads, request, options, backend, &refs));
    const bool causal = shown_reference_causal(results);
    figure::SpectrumFigureInput in;
    in.head_text = head_text(f);
    in.spectra.push_back({causal ? "exact P (causal)" : "exact P", compute_spectrum(*refs.get(causal, backend).P, f.head, backend, c.top), true});
    for (const RunResult& r : results) {
        if (!r.P_eff) continue;  // no effective matrix: nothing to decompose (docs/VARIANTS.md)
        in.spectra.push_back({instance_label(find_variant(r.variant).info(), r.params), compute_spectrum(*r.P_eff, f.head, backend, c.top), false});
    }
    std::optional<LayerHeadSpectra> layers;
    if (job.text) layers = text_layer_spectra(*job.text);
    in.layers = layers ? &*layers : nullptr;
    in.grid_index = c.grid_index > 0 ? c.grid_index : std::max(1, heads.n() / 8);
    return figure::spectrum_figure(in);
}

figure::PlotFigure sweep_chart(const FigureJob& job, const ChartFigureOptions& c, Backend& backend) {
    if (c.param.empty()) throw Error("--view sweep needs --param NAME=START:STOP[:xF|:+S] (e.g. --param w=4:64:x2)");
    const auto [name, range] = split_assignment(c.param);
    const MetricSpec& metric = parse_sweep_metric(c.metric);
    std::vector<SweepCurveRun> runs = plan_sweep_curves(job.requests, name, range, metric, c.seeds, sweep_evaluator(metric, job.input));
    const bool tty = isatty(STDERR_FILENO);
    run_sweep_curves(runs, job.make_input, backend, [tty](size_t curve, int done, int total) {
        if (tty) std::cerr << "\rcurve " << curve + 1 << ": [" << done << "/" << total << "] " << std::flush;
    });
    if (tty) std::cerr << "\n";
    std::vector<figure::SweepCurve> curves;
    for (const SweepCurveRun& r : runs) curves.push_back({r.label, r.points});
    const std::string axis = name == "budget" && !runs.empty() ? "budget (" + runs.front().swept + ")" : name;
    return figure::sweep_figure(curves, axis, metric, parse_sweep_range(range).factor > 1, c.seeds);
}

figure::PlotFigure errmap_chart(const FigureJob& job, const ChartFigureOptions& c, Backend& backend) {
    const CostAxis x = parse_cost_axis(c.x);
    const ErrorAxis y = parse_error_axis(c.y);
    if (y == ErrorAxis::EmbeddingLoss) throw Error("the errmap figure draws rel_err_out, mass_loss or perplexity; for embedding_loss use `attnscope errmap`");
    std::string name;
    std::vector<double> values;
    if (!c.param.empty()) {
        const auto [param, range] = split_assignment(c.param);
        name = param, values = parse_sweep_range(range).values();
    }
    std::vector<VariantRequest> requests;
    for (ErrorCostRequest& r : expand_error_cost_requests(job.requests, name, values)) requests.push_back(std::move(r.request));
    ErrorCostOptions options;
    options.repeats = c.repeats;
    if (y == ErrorAxis::Perplexity) {  // the decoder re-run per point with the variant at the input's layer
        if (job.input.kind != InputKind::Text)
            throw Error("--y perplexity needs a decoder's text: add --model smollm2 and --text or --text-file");
        options.perplexity = text_metric_measure("perplexity", job.input.model_dir, job.input.token_ids, job.input.layer);
    }
    std::vector<ErrorCostPoint> points = error_cost_points(job.input.heads, requests, backend, options);
    mark_pareto_front(points, x, y);
    return figure::errmap_figure(points, x, y);
}

figure::PlotFigure perplexity_chart(const FigureJob& job, const ChartFigureOptions& c, Backend& backend) {
    const ModelChoice model = resolve_model(job.input.model_dir);
    if (job.input.kind != InputKind::Text || !model.decoder)
        throw Error("--view perplexity runs a decoder: add --model smollm2 and --text or --text-file");
    const auto decoder = load_decoder_model(model.path);
    const LayerSpan span = parse_layer_span(c.whatif_layers, decoder->decoder.config().layers, "--whatif-layer");
    const ExactNextTokens exact = exact_next_tokens(decoder->decoder, job.input.token_ids);
    std::vector<figure::PerplexityCurve> curves;
    for (const VariantRequest& request : job.requests)
        curves.push_back({instance_label(find_variant(request.id).info(), request.params),
                          run_perplexity_whatif(decoder->decoder, exact, span, request, backend).result});
    return figure::perplexity_figure(exact.nll, exact.perplexity, curves, span.text(decoder->decoder.config().layers));
}

figure::PlotFigure heads_chart(const FigureJob& job, Backend& backend) {
    const std::vector<VariantRequest> masked = heads_view_instances(job.requests);
    if (masked.empty())
        throw Error("--view heads shows the mass a pattern keeps, and none of the instances has a mask: add one, "
                    "e.g. --variant longformer:window=16 or sink (see `attnscope variants`)");
    std::optional<LayerHeadMass> mass = job.text ? text_layer_head_mass(*job.text, masked, backend)
                                                 : layer_head_mass({job.input.heads}, masked, backend);
    if (!mass) throw Error("the heads grid was cancelled");
    return figure::heads_figure(*mass);
}

figure::PlotFigure sinks_chart(const FigureJob& job, const FigureFileOptions& o, Backend& backend) {
    KeyAttentionProfile profile;
    if (job.text) {  // every layer and head of the text model, as the Sinks panel reads text
        const std::optional<TextKeyAttention> r = text_key_attention(*job.text);
        if (!r) throw Error("the sinks figure was cancelled");
        profile = key_attention_profile(*r);
    } else {  // the heads of the exact P the panel reads for these instances
        ReferenceCache refs(job.input.heads, true);
        profile = sinks_profile(job.input.heads, job.requests, refs, backend, o.matrix_limit, "--view sinks");
    }
    return figure::sinks_figure(profile.text ? profile.tokens : std::vector<std::string>{}, profile.received, profile.uniform,
                                profile.causal, profile.over);
}

figure::PlotFigure performance_chart(const FigureJob& job, const ChartFigureOptions& c, Backend& backend) {
    BenchConfig config;
    for (const VariantRequest& r : job.requests)
        config.variants.push_back({r.id, r.params, instance_label(find_variant(r.id).info(), r.params)});
    config.ns = parse_n_list(c.sizes);
    config.heads = job.input.heads.heads();
    config.dim = job.input.heads.d();
    config.value_dim = job.input.heads.dv();
    config.plan = {1, c.runs};
    config.measure_machine = false;  // the figure draws times and memory, not shares of a roof
    config.pair_roof = false;
    validate_bench_config(config);
    return figure::performance_figure(run_bench(config, backend));
}

}  // namespace

void add_chart_figure_options(CLI::App& sub, ChartFigureOptions& o) {
    sub.add_option("--param", o.param, "sweep, errmap: NAME=START:STOP[:xF|:+S] swept for every instance (NAME may be budget)");
    sub.add_option("--metric", o.metric, "sweep: the metric (as `attnscope sweep --metric`)")->capture_default_str();
    sub.add_option("--seeds", o.seeds, "sweep: seeds averaged per point")->capture_default_str();
    sub.add_option("--x", o.x, "errmap: cost axis time, flops or memory")->capture_default_str();
    sub.add_option("--repeats", o.repeats, "errmap: timed runs per point, in interleaved rounds (median and min–max)")->capture_default_str();
    sub.add_option("--y", o.y, "errmap: error axis rel_err_out, mass_loss or perplexity (a decoder's text)")->capture_default_str();
    sub.add_option("--sizes", o.sizes, "performance: sequence lengths, a list (256,1024) or a power-of-two range (256:4096)")->capture_default_str();
    sub.add_option("--runs", o.runs, "performance: timed runs per point (the median is drawn, min–max as a band)")->capture_default_str();
    sub.add_option("--grid-index", o.grid_index, "spectrum, text input: index k of the layers × heads map (0: n/8)")->capture_default_str();
    sub.add_option("--top", o.top, "spectrum: singular values computed for n > 2048")->capture_default_str();
    sub.add_option("--whatif-layer", o.whatif_layers,
                   "perplexity: the decoder layers each instance replaces: L, A-B or all")->capture_default_str();
}

bool is_chart_view(const std::string& view) {
    const figure::FigureViewSpec* v = figure::find_figure_view(view);
    return v && v->chart;
}

std::vector<std::string> write_chart_figures(const FigureJob& job, const FigureFileOptions& o, const ChartFigureOptions& c,
                                             Backend& backend) {
    FigureFileOptions matrix_options = o;
    matrix_options.view = "weights";  // the shared options (head, theme, size, title) are read as for a matrix figure
    const figure::RunFigureOptions f = run_figure_options(job, matrix_options);
    // One builder per chart view of figure_views(); a view without one is a programming error, said as such.
    const std::map<std::string, std::function<figure::PlotFigure()>> builders = {
        {"spectrum", [&] { return spectrum_chart(job, f, c, backend); }},
        {"sweep", [&] { return sweep_chart(job, c, backend); }},
        {"errmap", [&] { return errmap_chart(job, c, backend); }},
        {"heads", [&] { return heads_chart(job, backend); }},
        {"sinks", [&] { return sinks_chart(job, o, backend); }},
        {"performance", [&] { return performance_chart(job, c, backend); }},
        {"perplexity", [&] { return perplexity_chart(job, c, backend); }},
    };
    const auto builder = builders.find(o.view);
    if (builder == builders.end()) throw Error("the chart view '" + o.view + "' has no builder in the CLI");
    figure::PlotFigure plot = builder->second();
    plot.title = f.title;
    // The heads grid and the sinks cover every encoder layer, not the one the input options name.
    if ((o.view == "heads" || o.view == "sinks") && job.text && o.title.empty())
        if (const size_t at = plot.title.rfind(", encoder layer"); at != std::string::npos) plot.title = plot.title.substr(0, at) + ", every encoder layer";
    // The what-ifs replace the layers --whatif-layer names (the panel's title says which), not the input's one layer.
    if (o.view == "perplexity" && o.title.empty())
        if (const size_t at = plot.title.rfind(", decoder layer"); at != std::string::npos) plot.title = plot.title.substr(0, at);
    // A benchmark runs its own inputs at every n: the figure names their shape, not the one input.
    if (o.view == "performance" && o.title.empty())
        plot.title = "Benchmark: gaussian input, n = " + c.sizes + ", H = " + std::to_string(job.input.heads.heads()) +
                     ", d = " + std::to_string(job.input.heads.d());
    plot.theme = f.theme;
    plot.width = f.width, plot.height = f.height;
    return write_figure_files(figure::layout_plots(plot), o);
}

}  // namespace attnscope::cli

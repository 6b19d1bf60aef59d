// `attnscope errmap`: error against cost for every chosen instance (and every value of a swept parameter), the
// Pareto front marked, as a table and as JSON / CSV for plotting.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/backend/factory/make_backend.h"
#include "app/cli/commands.h"
#include "core/session/variant_spec.h"
#include "core/data/text_model.h"
#include "core/session/error_cost.h"
#include "core/session/text_metric_measure.h"
#include "core/session/export.h"
#include "core/session/metric_sweep.h"
#include "core/session/variant_json.h"
#include "core/variants/registry.h"
#include "app/cli/input_options.h"

namespace attnscope::cli {

namespace {

struct ErrmapCli : RunSelection {
    std::string param, x = "time", y = "rel_err_out", json_path, csv_path;
    int repeats = kDefaultErrorCostRepeats;
};

/// Every instance, or every instance at every value of the swept parameter ("budget": each card's own).
std::vector<VariantRequest> expand(const ErrmapCli& o) {
    const std::vector<VariantRequest> instances = build_variant_requests(o.variants, o.sets, o.causal, causal_input(o.input));
    std::string name;
    std::vector<double> values;
    if (!o.param.empty()) {
        const auto [param, range] = split_assignment(o.param);
        name = param, values = parse_sweep_range(range).values();
    }
    std::vector<std::string> notes;
    std::vector<VariantRequest> out;
    for (ErrorCostRequest& r : expand_error_cost_requests(instances, name, values, &notes)) out.push_back(std::move(r.request));
    for (const std::string& note : notes) std::cerr << "note: " << note << "\n";
    return out;
}

/// What the time column measures, for the header: the clock and how it was sampled.
std::string time_note(const std::vector<ErrorCostPoint>& points) {
    if (points.empty()) return "";
    const ErrorCostPoint& p = points.front();
    const std::string clock = p.time_clock == "cpu" ? "CPU time of the run's threads (work_cpu_ms)" : p.time_clock;
    return "time = " + clock + ", median and min..max of " + std::to_string(p.repeats) +
           " runs timed in interleaved rounds (every point once per round)";
}

/// Indices of the points by ascending cost on `x` (the table reads from cheap to costly).
std::vector<size_t> by_cost(const std::vector<ErrorCostPoint>& points, CostAxis x) {
    std::vector<size_t> order(points.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cost_of(points[a], x) < cost_of(points[b], x); });
    return order;
}

/// An error for the table, 4 significant digits (full's ~1e-7 must not print as 0), or "-" where it does not apply.
std::string optional_text(const std::optional<double>& v) {
    if (!v) return "-";
    std::ostringstream text;
    text << std::setprecision(4) << *v;
    return text.str();
}

/// The table on stdout: one row per point, cheapest first, * on the front.
void print_table(const ErrmapCli& o, const LoadedInput& input, const std::vector<ErrorCostPoint>& points,
                 const std::vector<size_t>& order, ErrorAxis y) {
    const bool embedding = y == ErrorAxis::EmbeddingLoss, perplexity = y == ErrorAxis::Perplexity;
    size_t width = 10;
    for (const ErrorCostPoint& p : points) width = std::max(width, p.instance.size() + 2);
    std::cout << "error–cost map on " << input.heads.source << " (n = " << input.heads.n() << ", H = " << input.heads.heads()
              << "): " << o.x << " against " << o.y
              << (perplexity ? " (the decoder's, every head of layer " + std::to_string(input.layer) + " replaced)"
                  : embedding ? " (1 − sentence-embedding cosine, every head of layer " + std::to_string(input.layer) +
                                    " replaced)"
                              : std::string(" (vs exact softmax, mean over heads)"))
              << "; * = on the Pareto front "
              << "(on time: only where the min..max spreads separate)\n" << time_note(points) << "\n";
    std::cout << std::left << std::setw(int(width)) << "instance" << std::right << std::setw(12) << "time_ms" << std::setw(20)
              << "min..max_ms" << std::setw(14) << "GFLOP" << std::setw(12) << "peak_MiB" << std::setw(14) << "rel_err_out"
              << std::setw(12) << "mass_loss" << (embedding ? "  emb_loss" : "") << (perplexity ? "  perplexity" : "")
              << "  pareto\n";
    for (size_t k : order) {
        const ErrorCostPoint& p = points[k];
        std::ostringstream spread;
        spread << std::fixed << std::setprecision(3) << p.time_min_ms << ".." << p.time_max_ms;
        std::cout << std::left << std::setw(int(width)) << p.instance << std::right << std::fixed << std::setprecision(3)
                  << std::setw(12) << p.time_ms << std::setw(20) << spread.str() << std::setw(14) << p.flops / 1e9
                  << std::setw(12) << p.peak_bytes / 1048576.0 << std::defaultfloat << std::setprecision(4)
                  << std::setw(14) << optional_text(p.rel_err_out) << std::setw(12) << optional_text(p.mass_loss);
        if (embedding) std::cout << "  " << optional_text(p.embedding_loss);
        if (perplexity) std::cout << "  " << std::setw(10) << optional_text(p.perplexity);
        std::cout << "  " << (p.pareto ? "*" : "") << "\n";
    }
}

/// The points as JSON rows, in table order.
nlohmann::json json_rows(const std::vector<ErrorCostPoint>& points, const std::vector<size_t>& order) {
    auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    nlohmann::json rows = nlohmann::json::array();
    for (size_t k : order) {
        const ErrorCostPoint& p = points[k];
        rows.push_back({{"variant", p.variant}, {"instance", p.instance}, {"time_ms", p.time_ms},
                        {"time_min_ms", p.time_min_ms}, {"time_max_ms", p.time_max_ms}, {"repeats", p.repeats},
                        {"time_clock", p.time_clock}, {"wall_ms", p.wall_ms}, {"flops", p.flops},
                        {"peak_bytes", p.peak_bytes}, {"rel_err_out", opt(p.rel_err_out)}, {"mass_loss", opt(p.mass_loss)},
                        {"embedding_loss", opt(p.embedding_loss)}, {"perplexity", opt(p.perplexity)}, {"pareto", p.pareto},
                        {"params", variant_to_json({p.variant, p.params})["params"]}});
    }
    return rows;
}

/// The points as CSV, in table order (empty cells where an error does not apply).
std::string csv_text(const std::vector<ErrorCostPoint>& points, const std::vector<size_t>& order) {
    std::ostringstream csv;
    csv << "variant,instance,time_ms,time_min_ms,time_max_ms,repeats,time_clock,wall_ms,flops,peak_bytes,rel_err_out,"
           "mass_loss,embedding_loss,perplexity,pareto\n";
    auto cell = [&csv](const std::optional<double>& v) {
        if (v) csv << *v;
        csv << ",";
    };
    for (size_t k : order) {
        const ErrorCostPoint& p = points[k];
        csv << p.variant << ",\"" << p.instance << "\"," << p.time_ms << "," << p.time_min_ms << "," << p.time_max_ms << ","
            << p.repeats << "," << p.time_clock << "," << p.wall_ms << "," << p.flops << "," << p.peak_bytes << ",";
        cell(p.rel_err_out), cell(p.mass_loss), cell(p.embedding_loss), cell(p.perplexity);
        csv << (p.pareto ? 1 : 0) << "\n";
    }
    return csv.str();
}

int execute(const ErrmapCli& o) {
    const CostAxis x = parse_cost_axis(o.x);
    const ErrorAxis y = parse_error_axis(o.y);
    if (!o.json_path.empty()) require_writable(o.json_path);
    if (!o.csv_path.empty()) require_writable(o.csv_path);
    const std::vector<VariantRequest> requests = expand(o);
    const LoadedInput input = load_input_full(o.input);
    auto backend = make_backend(o.backend);
    ErrorCostOptions options;
    options.repeats = o.repeats;
    if (y == ErrorAxis::EmbeddingLoss || y == ErrorAxis::Perplexity) {  // the model re-run per point, variant at --layer
        if (input_kind(o.input) != InputKind::Text)
            throw Error("--y " + o.y + " needs text input: add --text or --text-file (and --layer)");
        const bool embedding = y == ErrorAxis::EmbeddingLoss;
        (embedding ? options.embedding : options.perplexity) = text_metric_measure(
            embedding ? "embedding_cosine" : "perplexity", input.model_dir, input.token_ids, input.layer);
    }
    std::vector<ErrorCostPoint> points = error_cost_points(input.heads, requests, *backend, options);
    mark_pareto_front(points, x, y);
    const std::vector<size_t> order = by_cost(points, x);
    print_table(o, input, points, order, y);
    if (!o.json_path.empty())
        write_file_atomically(o.json_path, nlohmann::json{{"input", input.heads.source}, {"n", input.heads.n()},
                                                          {"x", o.x}, {"y", o.y}, {"repeats", o.repeats},
                                                          {"points", json_rows(points, order)}}.dump(2) + "\n");
    if (!o.csv_path.empty()) write_file_atomically(o.csv_path, csv_text(points, order));
    return 0;
}

}  // namespace

void add_errmap_command(CLI::App& app, CommandAction& action) {
    auto o = std::make_shared<ErrmapCli>();
    auto* sub = app.add_subcommand("errmap", "Error against cost for variant instances on one input, Pareto front marked");
    add_run_selection_options(*sub, *o, "", "Run causal forms (every chosen variant must have one)")->required();
    sub->add_option("--param", o->param, "Also sweep NAME=START:STOP[:xF|:+S] for every instance (NAME may be budget)");
    sub->add_option("--x", o->x, "Cost axis: time, flops or memory")->capture_default_str();
    sub->add_option("--y", o->y, "Error axis: rel_err_out, mass_loss (1 − mass_recall), embedding_loss (1 − embedding cosine, "
                    "an encoder's text) or perplexity (a decoder's text: --model smollm2); the last two replace --layer's "
                    "attention")->capture_default_str();
    sub->add_option("--repeats", o->repeats, "Timed runs per point, in interleaved rounds: time is their median, min..max "
                    "their spread, and the front on time is marked only where spreads separate")->capture_default_str();
    sub->add_option("--json", o->json_path, "Write the points as JSON");
    sub->add_option("--csv", o->csv_path, "Write the points as CSV");
    sub->callback([&action, o] { action = [o] { return execute(*o); }; });
}

}  // namespace attnscope::cli

// `attnscope sweep`: a metric against one parameter, averaged over seeds with a min–max band.
#include <iomanip>
#include <iostream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "core/session/variant_spec.h"
#include "core/session/metric_sweep.h"
#include "core/session/sweep_curves.h"
#include "core/backend/factory/make_backend.h"
#include "core/data/text_model.h"
#include "core/session/text_whatif.h"
#include "core/session/export.h"
#include "core/session/panel_csv.h"
#include "app/cli/input_options.h"
#include "core/session/variant_json.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"

namespace attnscope::cli {

namespace {

struct SweepOptionsCli {
    std::vector<std::string> variants;
    std::string param, metric = "rel_err_out", backend = "auto", json_path, csv_path;
    std::vector<std::string> sets;
    InputOptions input;
    int seeds = 3;
};

int execute(const SweepOptionsCli& o) {
    // Several instances (svd:rank=8 is no sweep of rank, but performer:orthogonal=0,performer:orthogonal=1 is two
    // curves over features), each swept over the same values: one curve per instance.
    const std::vector<VariantRequest> instances = build_variant_requests(o.variants, o.sets, false, causal_input(o.input));
    const auto [name, range] = split_assignment(o.param);
    for (const std::string* path : {&o.json_path, &o.csv_path})
        if (!path->empty()) require_writable(*path);
    auto backend = make_backend(o.backend);
    const MetricSpec& metric = parse_sweep_metric(o.metric);
    SweepEvaluator evaluate;
    if (measured_outside_run(metric)) evaluate = sweep_evaluator(metric, load_input_full(o.input));
    // Every curve is planned and checked before the first runs, so a parameter the second instance lacks fails
    // before the first curve is printed.
    std::vector<SweepCurveRun> runs = plan_sweep_curves(instances, name, range, metric, o.seeds, evaluate);
    const bool tty = isatty(STDERR_FILENO);
    run_sweep_curves(runs, seeded_inputs(o.input), *backend, [tty](size_t, int done, int total) {
        if (tty) std::cerr << "\r[" << done << "/" << total << "] " << std::flush;
    });
    if (tty) std::cerr << "\n";
    nlohmann::json curves = nlohmann::json::array();
    std::vector<SweepCurveTable> tables;  // --csv
    for (const SweepCurveRun& run : runs) {
        const std::string column = name == "budget" ? "budget (" + run.swept + ")" : name;
        std::cout << run.label
                  << (measured_outside_run(metric)
                          ? " (each point: mean over seeds of the text model's " + std::string(metric.id) +
                                " with every head of layer " + std::to_string(o.input.layer) + " replaced)\n"
                          : std::string(" (each point: mean over seeds of the mean over heads)\n"));
        std::cout << std::left << std::setw(16) << column << std::right << std::setw(14) << metric.id
                  << std::setw(14) << "min" << std::setw(14) << "max" << std::setw(8) << "seeds" << "\n";
        nlohmann::json rows = nlohmann::json::array();
        for (const MetricSweepPoint& p : run.points) {
            std::cout << std::left << std::setw(16) << p.value << std::right << std::setw(14) << p.mean << std::setw(14)
                      << p.min << std::setw(14) << p.max << std::setw(8) << p.samples << "\n";
            rows.push_back({{"value", p.value}, {"mean", p.samples ? nlohmann::json(p.mean) : nlohmann::json(nullptr)},
                            {"min", p.samples ? nlohmann::json(p.min) : nlohmann::json(nullptr)},
                            {"max", p.samples ? nlohmann::json(p.max) : nlohmann::json(nullptr)}, {"samples", p.samples}});
        }
        curves.push_back({{"variant", run.instance.id}, {"instance", run.label}, {"param", run.swept}, {"points", rows}});
        tables.push_back({run.instance.id, run.label, run.swept, run.points});
    }
    if (!o.csv_path.empty()) write_file_atomically(o.csv_path, sweep_csv(tables, o.metric));
    if (!o.json_path.empty()) {
        // The first curve's fields stay at the top level, so a one-instance sweep reads as before.
        nlohmann::json out = {{"variant", curves[0]["variant"]}, {"param", name}, {"metric", o.metric},
                              {"seeds", o.seeds}, {"points", curves[0]["points"]}, {"curves", curves}};
        write_file_atomically(o.json_path, out.dump(2) + "\n");
    }
    return 0;
}

}  // namespace

void add_sweep_command(CLI::App& app, CommandAction& action) {
    auto o = std::make_shared<SweepOptionsCli>();
    auto* sub = app.add_subcommand("sweep", "A metric against one parameter (or n), averaged over seeds with a min–max band");
    sub->add_option("--variant", o->variants,
                    std::string("Variant instance(s), one curve each: ") + kVariantSpecRule)->required();
    sub->add_option("--param", o->param,
                    "NAME=START:STOP[:xFACTOR|:+STEP]; NAME may be n, or budget: each variant's own budget parameter "
                    "(svd rank, linformer k, performer features, longformer window, …) on one axis")->required();
    sub->add_option("--metric", o->metric, sweep_metric_choices())
        ->capture_default_str();
    sub->add_option("--seeds", o->seeds, "Seeds averaged per point (input seed + variant seed)")->capture_default_str();
    sub->add_option("--set", o->sets, "Other parameters NAME=VALUE held fixed");
    add_input_options(*sub, o->input);
    sub->add_option("--backend", o->backend, kBackendChoices)->capture_default_str();
    sub->add_option("--json", o->json_path, "Write the points as JSON to this file");
    sub->add_option("--csv", o->csv_path,
                    "Write the points as CSV to this file: one row per instance and value (mean, min, max over seeds)");
    sub->callback([&action, o] { action = [o] { return execute(*o); }; });
}

}  // namespace attnscope::cli

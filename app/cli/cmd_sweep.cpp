// `attnscope sweep`: a metric against one parameter, averaged over seeds with a min–max band.
#include <iomanip>
#include <iostream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "core/session/metric_sweep.h"
#include "backends/registry.h"
#include "core/data/text_model.h"
#include "core/session/text_whatif.h"
#include "core/session/export.h"
#include "input_options.h"

namespace attnscope::cli {

namespace {

struct SweepOptionsCli {
    std::string variant, param, metric = "rel_err_out", backend = "auto", json_path;
    std::vector<std::string> sets;
    InputOptions input;
    int seeds = 3;
};

int execute(const SweepOptionsCli& o) {
    SweepSpec spec;
    spec.variant = o.variant;
    const auto [name, range] = split_assignment(o.param);
    spec.param = name;
    spec.range = parse_sweep_range(range);
    spec.metric = parse_sweep_metric(o.metric);
    spec.seeds = o.seeds;
    for (const std::string& s : o.sets) spec.fixed.push_back(split_assignment(s));
    if (!o.json_path.empty()) require_writable(o.json_path);
    auto backend = make_backend(o.backend);
    const InputOptions base = o.input;
    auto make_input = [&base](uint64_t seed, int n_override) {
        InputOptions in = base;
        in.seed = base.seed + seed;
        if (n_override > 0) in.n = n_override;
        return load_input(in);
    };
    if (spec.metric == SweepMetric::EmbeddingCosine) {  // the encoder re-run per point with the variant at --layer
        if (input_kind(o.input) != InputKind::Text)
            throw Error("--metric embedding_cosine needs text input: add --text or --text-file (and --layer)");
        const LoadedInput text = load_input_full(o.input);
        spec.evaluate = embedding_cosine_measure(load_text_model(text.model_dir), text.token_ids, text.layer);
    }
    const bool tty = isatty(STDERR_FILENO);
    const auto points = run_sweep(spec, make_input, *backend, [tty](int done, int total) {
        if (tty) std::cerr << "\r[" << done << "/" << total << "] " << std::flush;
        return true;
    });
    if (tty) std::cerr << "\n";
    std::cout << std::left << std::setw(14) << spec.param << std::right << std::setw(14) << sweep_metric_name(spec.metric)
              << std::setw(14) << "min" << std::setw(14) << "max" << std::setw(8) << "seeds" << "\n";
    nlohmann::json rows = nlohmann::json::array();
    for (const MetricSweepPoint& p : points) {
        std::cout << std::left << std::setw(14) << p.value << std::right << std::setw(14) << p.mean << std::setw(14) << p.min
                  << std::setw(14) << p.max << std::setw(8) << p.samples << "\n";
        rows.push_back({{"value", p.value}, {"mean", p.samples ? nlohmann::json(p.mean) : nlohmann::json(nullptr)},
                        {"min", p.samples ? nlohmann::json(p.min) : nlohmann::json(nullptr)},
                        {"max", p.samples ? nlohmann::json(p.max) : nlohmann::json(nullptr)}, {"samples", p.samples}});
    }
    if (!o.json_path.empty()) {
        const nlohmann::json out = {{"variant", spec.variant}, {"param", spec.param}, {"metric", sweep_metric_name(spec.metric)},
                                    {"seeds", spec.seeds}, {"points", rows}};
        write_file_atomically(o.json_path, out.dump(2) + "\n");
    }
    return 0;
}

}  // namespace

void add_sweep_command(CLI::App& app, CommandAction& action) {
    auto o = std::make_shared<SweepOptionsCli>();
    auto* sub = app.add_subcommand("sweep", "A metric against one parameter (or n), averaged over seeds with a min–max band");
    sub->add_option("--variant", o->variant, "Variant id")->required();
    sub->add_option("--param", o->param, "NAME=START:STOP[:xFACTOR|:+STEP] (NAME may be n)")->required();
    sub->add_option("--metric", o->metric, "rel_err_out, rel_err_model, rel_err_attn, row_kl, row_kl_rev, mass_recall, density, time, memory or embedding_cosine (text input)")
        ->capture_default_str();
    sub->add_option("--seeds", o->seeds, "Seeds averaged per point (input seed + variant seed)")->capture_default_str();
    sub->add_option("--set", o->sets, "Other parameters NAME=VALUE held fixed");
    add_input_options(*sub, o->input);
    sub->add_option("--backend", o->backend, "auto, cpu or cuda")->capture_default_str();
    sub->add_option("--json", o->json_path, "Write the points as JSON to this file");
    sub->callback([&action, o] { action = [o] { return execute(*o); }; });
}

}  // namespace attnscope::cli

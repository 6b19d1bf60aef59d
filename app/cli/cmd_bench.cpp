// `attnscope bench`: sweeps of variants over n with honest timing (warm-up, median of ≥ 5 runs, min, max),
// analytic FLOPs/bytes, peak tracked memory cross-checked by the resident set, and the machine's GEMM and
// bandwidth roofs from the same run; a table on stdout, a progress bar on stderr when it is a terminal,
// JSON/CSV on request. `--linformer-table` prints the Linformer paper's Table 3 for our implementation.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <set>
#include <sstream>

#include "app/cli/commands.h"
#include "core/backend/factory/make_backend.h"
#include "core/session/variant_spec.h"
#include "core/bench/linformer_table.h"
#include "core/bench/report.h"
#include "core/bench/engine.h"
#include "core/data/scenarios.h"
#include "core/session/export.h"
#include "core/session/experiment.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"
#include "app/cli/input_options.h"

namespace attnscope::cli {

namespace {

constexpr int kMinRuns = 5;  // a median with a min and a max needs a handful of runs

struct BenchOptionsCli {
    std::vector<std::string> variants;
    std::vector<std::string> sets;
    std::string n_list = "1024:16384";
    int heads = 8, dim = 64, value_dim = 0;
    std::string data = "gaussian";
    uint64_t seed = 0;
    bool causal = false;
    int runs = 5, warmup = 1;
    double budget_s = 20;
    std::string backend = "auto";
    std::string json_path, csv_path, markdown_path;
    bool no_machine = false;
    bool no_pair = false;
    int gemm_size = 2048;
    double memory_limit_mib = -1;
    bool linformer_table = false;
    std::string k_list = "128:2048";
    std::string baseline = "full";
    bool progress = true;
    bool memory_only = false;
};

/// One spec per chosen variant, with the same --set / --causal rules as `run`.
/// One spec per requested instance, labelled by its id; an id asked for again (flash and flash:kernel=cutlass) is
/// labelled by its instance label, which names the parameters that differ from the defaults.
std::vector<BenchVariantSpec> build_specs(const BenchOptionsCli& o) {
    std::vector<BenchVariantSpec> out;
    std::set<std::string> ids;
    for (const VariantRequest& r : build_variant_requests(o.variants, o.sets, o.causal))
        out.push_back({r.id, r.params, ids.insert(r.id).second ? r.id : instance_label(find_variant(r.id).info(), r.params)});
    return out;
}

BenchConfig base_config(const BenchOptionsCli& o) {
    if (o.runs < kMinRuns && !o.memory_only)
        throw Error("--runs " + std::to_string(o.runs) + ": at least " + std::to_string(kMinRuns) +
                    " timed runs are needed for an honest median with min and max");
    if (o.warmup < 0) throw Error("--warmup must be ≥ 0");
    if (o.gemm_size < 256) throw Error("--gemm-size " + std::to_string(o.gemm_size) + " is too small for a GEMM roof: use ≥ 256");
    BenchConfig c;
    c.heads = o.heads, c.dim = o.dim, c.value_dim = o.value_dim;
    c.data = parse_scenario(o.data);
    c.seed = o.seed;
    c.plan = {o.warmup, o.runs};
    c.budget_s = o.budget_s;
    c.measure_machine = !o.no_machine;
    c.pair_roof = !o.no_pair;
    c.memory_only = o.memory_only;
    c.machine.gemm_size = o.gemm_size;
    if (o.memory_limit_mib >= 0) c.available_bytes_override = static_cast<int64_t>(o.memory_limit_mib * 1048576.0);
    return c;
}

/// A one-line progress bar on stderr, redrawn at most every 100 ms; silent when stderr is not a terminal.
class ProgressBar {
public:
    explicit ProgressBar(bool enabled) : m_enabled(enabled && isatty(STDERR_FILENO)) {}
    ~ProgressBar() { finish(); }
    void update(const BenchProgress& p) {
        if (!m_enabled) return;
        const auto now = std::chrono::steady_clock::now();
        if (now - m_last < std::chrono::milliseconds(100) && p.fraction < 1.0) return;
        m_last = now;
        constexpr int kWidth = 30;
        const int filled = static_cast<int>(p.fraction * kWidth + 0.5);
        std::string stage = p.stage.substr(0, 48);
        std::fprintf(stderr, "\r[%s%s] %3d%% %d/%d %-48s", std::string(filled, '#').c_str(),
                     std::string(kWidth - filled, '.').c_str(), static_cast<int>(p.fraction * 100 + 0.5), p.points_done,
                     p.points_total, stage.c_str());
        std::fflush(stderr);
        m_drawn = true;
    }
    void finish() {
        if (m_drawn) std::fprintf(stderr, "\r%100s\r", "");
        m_drawn = false;
    }

private:
    bool m_enabled;
    bool m_drawn = false;
    std::chrono::steady_clock::time_point m_last{};
};

void write_text(const std::string& path, const std::string& text) { write_file_atomically(path, text); }

int execute(const BenchOptionsCli& o) {
    if (!o.markdown_path.empty() && !o.linformer_table)
        throw Error("--markdown is written by --linformer-table only; use --json or --csv for a sweep");
    for (const std::string* path : {&o.json_path, &o.csv_path, &o.markdown_path})
        if (!path->empty()) require_writable(*path);
    BenchConfig config = base_config(o);
    auto backend = make_backend(o.backend);
    ProgressBar bar(o.progress);
    BenchCallbacks callbacks;
    callbacks.on_progress = [&bar](const BenchProgress& p) { bar.update(p); };

    if (o.linformer_table) {
        require_linformer_variant();
        LinformerTableConfig t;
        t.bench = config;
        t.baseline = o.baseline;
        t.ns = parse_n_list(o.n_list);
        t.ks = parse_n_list(o.k_list);
        const LinformerTable table = run_linformer_table(t, *backend, callbacks);
        bar.finish();
        const std::string markdown = linformer_table_markdown(table);
        std::cout << format_bench_table(table.report) << "\n" << markdown;
        if (!o.markdown_path.empty()) write_text(o.markdown_path, markdown);
        if (!o.json_path.empty()) write_text(o.json_path, bench_report_to_json(table.report).dump(2) + "\n");
        if (!o.csv_path.empty()) write_text(o.csv_path, bench_report_to_csv(table.report));
        return 0;
    }

    config.variants = build_specs(o);
    config.ns = parse_n_list(o.n_list);
    const BenchReport report = run_bench(config, *backend, callbacks);
    bar.finish();
    std::cout << format_bench_table(report);
    if (!o.json_path.empty()) write_text(o.json_path, bench_report_to_json(report).dump(2) + "\n");
    if (!o.csv_path.empty()) write_text(o.csv_path, bench_report_to_csv(report));
    return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, CommandAction& action) {
    auto o = std::make_shared<BenchOptionsCli>();
    auto* sub = app.add_subcommand("bench", "Time and measure variants over a sweep of n, against the machine's own roofs");
    sub->add_option("--variants,--variant", o->variants,
                    std::string("Variant instance(s): ") + kVariantSpecRule + "; see `attnscope variants`");
    sub->add_option("--n", o->n_list, "Sequence lengths: a list (1024,4096), a power-of-two range (1024:65536) or both")
        ->capture_default_str();
    sub->add_option("--heads", o->heads, "Number of heads H")->capture_default_str();
    sub->add_option("--dim", o->dim, "Head dimension d of Q and K")->capture_default_str();
    sub->add_option("--value-dim", o->value_dim, "Value dimension dv (0: same as d)")->capture_default_str();
    sub->add_option("--data", o->data, "Synthetic scenario of the input (see `attnscope run --help`)")->capture_default_str();
    sub->add_option("--seed", o->seed, "Seed of the scenario")->capture_default_str();
    sub->add_option("--set", o->sets, "Parameter NAME=VALUE (all chosen variants that have it) or VARIANT.NAME=VALUE");
    sub->add_flag("--causal", o->causal, "Run causal forms (every chosen variant must have one)");
    sub->add_option("--runs", o->runs, "Timed runs per point (≥ 5; the median is reported with min and max)")
        ->capture_default_str();
    sub->add_option("--warmup", o->warmup, "Untimed warm-up runs per point")->capture_default_str();
    sub->add_option("--budget-s", o->budget_s,
                    "Time budget per point in seconds: once a point takes (or would take) longer, larger n of that "
                    "variant are skipped (0: no budget). It acts from a variant's second point on, so start --n small")
        ->capture_default_str();
    sub->add_option("--backend", o->backend, kBackendChoices)->capture_default_str();
    sub->add_option("--json", o->json_path, "Write the report as JSON (schema attnscope.bench/1)");
    sub->add_option("--csv", o->csv_path, "Write one CSV row per point");
    sub->add_flag("--no-machine", o->no_machine, "Skip measuring the GEMM and bandwidth roofs (ratios left blank)");
    sub->add_flag("--no-pair", o->no_pair,
                  "Do not run the GEMM roof before every run (faster; %GEMM is then against the roof measured once at "
                  "the start, which a slow phase of a shared machine can make meaningless)");
    sub->add_option("--gemm-size", o->gemm_size, "N of the N×N SGEMM that measures the compute roof")->capture_default_str();
    sub->add_option("--memory-limit-mib", o->memory_limit_mib,
                    "Pretend only this much memory is available (default: MemAvailable); points that would not fit "
                    "are skipped before allocating");
    sub->add_flag("--linformer-table", o->linformer_table,
                  "Linformer paper Table 3 for our implementation: time and memory saved vs --baseline over --n × --k "
                  "(needs the linformer variant; use --n 512:65536)");
    sub->add_option("--k", o->k_list, "Projected lengths k for --linformer-table")->capture_default_str();
    sub->add_option("--baseline", o->baseline, "Baseline for --linformer-table: full or flash")->capture_default_str();
    sub->add_option("--markdown", o->markdown_path, "Write the --linformer-table markdown to this file");
    sub->add_flag("!--no-progress", o->progress, "Do not draw the progress bar");
    sub->add_flag("--memory-only", o->memory_only,
                  "One cold run per point for its memory figures (peak tracked bytes, RSS growth); times are not medians");
    sub->callback([&action, o] { action = [o] { return execute(*o); }; });
}

}  // namespace attnscope::cli

#include "core/bench/linformer_table.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "core/variants/registry.h"
#include "core/bench/report.h"

namespace attnscope {

namespace {

std::string linformer_label(int k) { return "linformer[k=" + std::to_string(k) + "]"; }

const BenchPoint* find_point(const BenchReport& r, const std::string& label, int n) {
    for (const BenchPoint& p : r.points)
        if (p.label == label && p.n == n) return &p;
    return nullptr;
}

std::string ratio_text(double v) {
    if (v <= 0) return "—";
    std::ostringstream os;
    os << std::fixed << std::setprecision(v >= 10 ? 0 : 1) << v << "×";
    return os.str();
}

const PaperCell* paper_cell(int n, int k) {
    for (const PaperCell& c : linformer_paper_table3())
        if (c.n == n && c.k == k) return &c;
    return nullptr;
}

}  // namespace

const std::vector<PaperCell>& linformer_paper_table3() {
    // Rows n = 512 … 65536, columns k = 128 … 2048 (Table 3, left: time saved; right: memory saved).
    static const std::vector<PaperCell> cells = {
        {512, 128, 1.5, 1.7},    {512, 256, 1.3, 1.5},
        {1024, 128, 1.7, 3.0},   {1024, 256, 1.6, 2.9},   {1024, 512, 1.3, 1.8},
        {2048, 128, 2.6, 6.1},   {2048, 256, 2.4, 5.6},   {2048, 512, 2.1, 3.6},   {2048, 1024, 1.3, 2.0},
        {4096, 128, 3.4, 14},    {4096, 256, 3.2, 13},    {4096, 512, 2.8, 8.3},   {4096, 1024, 2.2, 4.3},
        {4096, 2048, 1.3, 2.3},  {8192, 128, 5.5, 28},    {8192, 256, 5.0, 26},    {8192, 512, 4.4, 17},
        {8192, 1024, 3.5, 8.5},  {8192, 2048, 2.1, 4.5},  {16384, 128, 8.6, 56},   {16384, 256, 7.8, 48},
        {16384, 512, 7.0, 32},   {16384, 1024, 5.6, 16},  {16384, 2048, 3.3, 8},   {32768, 128, 13, 56},
        {32768, 256, 12, 48},    {32768, 512, 11, 36},    {32768, 1024, 8.8, 18},  {32768, 2048, 5.0, 16},
        {65536, 128, 20, 60},    {65536, 256, 18, 52},    {65536, 512, 16, 40},    {65536, 1024, 14, 20},
        {65536, 2048, 7.9, 17},
    };
    return cells;
}

void require_linformer_variant() {
    for (const auto& v : all_variants())
        if (v->info().id == "linformer") {
            if (!find_param(v->info().params, "k"))
                throw Error("the registered linformer variant has no parameter 'k': the Table 3 generator sets the "
                            "projected length through 'k' (docs/VARIANTS.md); rename it there or here");
            return;
        }
    throw Error("the Linformer Table 3 needs the 'linformer' variant, which is not registered in this build; "
                "registered: see `attnscope variants`");
}

double LinformerTable::time_saved(int n, int k) const {
    const BenchPoint* base = find_point(report, config.baseline, n);
    const BenchPoint* lin = find_point(report, linformer_label(k), n);
    if (!base || !lin || !base->measured() || !lin->measured() || lin->time.median_ms <= 0) return 0;
    return base->time.median_ms / lin->time.median_ms;
}

double LinformerTable::memory_saved(int n, int k, bool* estimated) const {
    const BenchPoint* base = find_point(report, config.baseline, n);
    const BenchPoint* lin = find_point(report, linformer_label(k), n);
    if (estimated) *estimated = false;
    if (!lin || !lin->measured() || lin->peak_bytes <= 0) return 0;
    if (base && base->measured() && base->peak_bytes > 0) return double(base->peak_bytes) / double(lin->peak_bytes);
    if (config.baseline != "full" || !base) return 0;
    // full's estimate is exact (O + P): use it where full was skipped for memory or time.
    const Variant& full = find_variant("full");
    Params p = default_params(full.info().params);
    if (estimated) *estimated = true;
    return double(full.estimate_peak_bytes(base->heads, n, base->d, base->dv, p)) / double(lin->peak_bytes);
}

LinformerTable run_linformer_table(const LinformerTableConfig& config, Backend& backend, const BenchCallbacks& cb) {
    require_linformer_variant();
    if (config.baseline != "full" && config.baseline != "flash")
        throw Error("Linformer table baseline '" + config.baseline + "': use full (the paper's Transformer) or flash");
    LinformerTable table;
    table.config = config;
    // Baseline over every n first (measures the machine), then one sweep per k over the n > k.
    BenchConfig base = config.bench;
    base.variants = {{config.baseline, default_params(find_variant(config.baseline).info().params), config.baseline}};
    base.ns = config.ns;
    table.report = run_bench(base, backend, cb);
    for (int k : config.ks) {
        if (table.report.cancelled) break;
        BenchConfig sweep = config.bench;
        sweep.measure_machine = false;
        Params p = default_params(find_variant("linformer").info().params);
        p.set("k", k);
        sweep.variants = {{"linformer", p, linformer_label(k)}};
        sweep.ns.clear();
        for (int n : config.ns)
            if (n > k) sweep.ns.push_back(n);
        if (sweep.ns.empty()) continue;
        BenchReport part = run_bench(sweep, backend, cb);
        for (BenchPoint& point : part.points) table.report.points.push_back(std::move(point));
        table.report.cancelled = table.report.cancelled || part.cancelled;
    }
    fill_derived_figures(table.report);
    return table;
}

std::string linformer_table_markdown(const LinformerTable& t) {
    std::ostringstream os;
    const BenchReport& r = t.report;
    os << "Time and memory saved by `linformer` relative to `" << t.config.baseline << "`: ours (paper). H=" << r.heads
       << ", d=" << r.dim << ", one attention call on " << r.machine.cpu_model << " (" << r.machine.threads
       << " threads, kernels compiled for " << r.machine.kernel_isa << "), " << r.plan.runs << " timed runs, median; memory = peak tracked bytes of the call.\n"
       << "The paper's numbers (Wang et al. 2020, Table 3) are for a whole model's inference on a V100 and are "
          "transcribed by hand: only the trend is comparable.\n\n";
    for (int which = 0; which < 2; ++which) {
        os << (which == 0 ? "**Time saved**" : "**Memory saved**") << "\n\n| n \\ k |";
        for (int k : t.config.ks) os << " " << k << " |";
        os << "\n|---|";
        for (size_t i = 0; i < t.config.ks.size(); ++i) os << "---|";
        os << "\n";
        for (int n : t.config.ns) {
            os << "| " << n << " |";
            for (int k : t.config.ks) {
                if (k >= n) {
                    os << " |";
                    continue;
                }
                bool estimated = false;
                const double ours = which == 0 ? t.time_saved(n, k) : t.memory_saved(n, k, &estimated);
                const PaperCell* paper = paper_cell(n, k);
                os << " " << ratio_text(ours) << (estimated ? "*" : "") << " ("
                   << (paper ? ratio_text(which == 0 ? paper->time_saved : paper->memory_saved) : "—") << ") |";
            }
            os << "\n";
        }
        os << "\n";
    }
    bool any_estimated = false;
    for (int n : t.config.ns)
        for (int k : t.config.ks) {
            bool e = false;
            if (k < n) t.memory_saved(n, k, &e);
            any_estimated = any_estimated || e;
        }
    if (any_estimated) os << "\\* full was not run at this n: its peak is its exact estimate (O + P).\n\n";
    std::vector<std::string> skipped;
    for (const BenchPoint& p : r.points)
        if (!p.measured()) skipped.push_back("- " + p.label + " n=" + std::to_string(p.n) + ": " + p.reason);
    if (!skipped.empty()) {
        os << "Not measured:\n";
        for (const std::string& s : skipped) os << s << "\n";
        os << "\n";
    }
    return os.str();
}

}  // namespace attnscope

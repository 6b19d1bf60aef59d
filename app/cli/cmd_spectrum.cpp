// `attnscope spectrum`: singular values of the exact P and of each variant's P̃ with the normalised cumulative
// sum (Linformer Fig. 1 left): exact LAPACK SVD for n ≤ 2048, randomized top-k beyond.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "app/cli/commands.h"
#include "core/session/variant_spec.h"
#include "core/analysis/layer_spectra.h"
#include "core/analysis/spectrum.h"
#include "core/backend/factory/make_backend.h"
#include "core/session/experiment.h"
#include "core/session/export.h"
#include "core/session/panel_csv.h"
#include "core/session/result_json.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"
#include "app/cli/input_options.h"

namespace attnscope::cli {

namespace {

struct SpectrumOptionsCli : RunSelection {
    std::string json_path, csv_path, layers_csv_path;
    int top = 256;
    int head = 0;
};

/// Cumulative value at rank k (1-based), or -1 when the spectrum is shorter.
double cumulative_at(const Spectrum& s, int k) {
    return k <= static_cast<int>(s.cumulative.size()) ? s.cumulative[k - 1] : -1.0;
}

void print_row(const std::string& name, int head, const Spectrum& s) {
    std::cout << std::left << std::setw(12) << name << std::right << std::setw(5) << head << std::setw(7)
              << (s.exact ? "exact" : "top-k") << std::setw(11) << std::setprecision(4)
              << (s.singular_values.empty() ? 0.0 : s.singular_values[0]);
    for (int k : {1, 8, 32, 64, 128, 256}) {
        const double c = cumulative_at(s, k);
        std::cout << std::setw(9);
        if (c < 0) std::cout << "-";
        else std::cout << std::fixed << std::setprecision(4) << c << std::defaultfloat;
    }
    const auto it = std::lower_bound(s.cumulative.begin(), s.cumulative.end(), 0.9);
    std::cout << std::setw(9) << (it == s.cumulative.end() ? -1 : int(it - s.cumulative.begin()) + 1) << "\n";
}

nlohmann::json spectrum_json(const SpectrumTable& t, int top) {
    const Spectrum& s = t.spectrum;
    const size_t keep = std::min(s.singular_values.size(), static_cast<size_t>(top));
    return {{"matrix", t.variant == "exact" ? std::string("P") : t.variant},
            {"instance", t.instance},
            {"head", t.head},
            {"exact", s.exact},
            {"count", s.singular_values.size()},
            {"singular_values", std::vector<double>(s.singular_values.begin(), s.singular_values.begin() + keep)},
            {"cumulative", std::vector<double>(s.cumulative.begin(), s.cumulative.begin() + keep)}};
}

int execute(const SpectrumOptionsCli& o) {
    if (o.top < 1) throw Error("--top must be ≥ 1 (number of singular values reported)");
    // Without --variant the command shows the spectrum of the exact P alone.
    const std::vector<VariantRequest> requests =
        o.variants.empty() ? std::vector<VariantRequest>{} : build_variant_requests(o.variants, o.sets, o.causal, causal_input(o.input));
    for (const std::string* path : {&o.json_path, &o.csv_path, &o.layers_csv_path})
        if (!path->empty()) require_writable(*path);
    if (!o.layers_csv_path.empty() && input_kind(o.input) != InputKind::Text)
        throw Error("--layers-csv reads every layer of the encoder: it needs text input (--text or --text-file)");
    const Heads heads = load_input(o.input);
    validate_heads(heads);
    if (o.head < -1 || o.head >= heads.heads())
        throw Error("--spectrum-head " + std::to_string(o.head) + " does not exist: choose 0 ≤ head < " +
                    std::to_string(heads.heads()) + " or -1 for all heads");
    std::vector<int> head_list;
    for (int h = 0; h < heads.heads(); ++h)
        if (o.head == -1 || o.head == h) head_list.push_back(h);
    auto backend = make_backend(o.backend);
    ReferenceCache refs(heads, true);
    RunOptions options;
    options.explain = true;
    options.max_matrix_n = heads.n();
    // Every variant runs before the table starts, so one that rejects its parameters or the input prints nothing.
    std::vector<RunResult> results;
    for (const VariantRequest& request : requests)
        results.push_back(run_variant(heads, request, options, *backend, &refs));

    std::cout << "input " << heads.source << ": n=" << heads.n() << " H=" << heads.heads() << " d=" << heads.d()
              << "   backend " << backend->description() << "\n"
              << "singular values of P and of each P̃; cum@k = Σ_{l≤k} σ_l / Σ σ_l"
              << (heads.n() > 2048 ? " (randomized top-k: normalised over the top " + std::to_string(o.top) + ")" : "")
              << "\n";
    std::cout << std::left << std::setw(12) << "matrix" << std::right << std::setw(5) << "head" << std::setw(7) << "svd"
              << std::setw(11) << "σ_1" << std::setw(9) << "cum@1" << std::setw(9) << "cum@8" << std::setw(9) << "cum@32"
              << std::setw(9) << "cum@64" << std::setw(9) << "cum@128" << std::setw(9) << "cum@256" << std::setw(9)
              << "k@90%" << "\n";
    nlohmann::json out = {{"input", input_to_json(heads)}, {"backend", backend->name()}, {"top", o.top},
                          {"spectra", nlohmann::json::array()}, {"results", nlohmann::json::array()}};
    const Reference& ref = refs.get(o.causal, *backend);
    std::vector<SpectrumTable> spectra;  // the exact P's, then each instance's, per head
    const std::string exact_name = o.causal ? "P (causal)" : "P";
    for (int h : head_list) {
        spectra.push_back({"exact", exact_name, h, compute_spectrum(*ref.P, h, *backend, o.top)});
        print_row(exact_name, h, spectra.back().spectrum);
    }
    for (const RunResult& r : results) {
        out["results"].push_back(result_to_json(r));
        if (!r.P_eff) {
            std::cout << std::left << std::setw(12) << r.variant << "  no effective matrix P̃ (see docs/VARIANTS.md)\n";
            continue;
        }
        const std::string label = instance_label(find_variant(r.variant).info(), r.params);
        for (int h : head_list) {
            spectra.push_back({r.variant, label, h, compute_spectrum(*r.P_eff, h, *backend, o.top)});
            print_row(r.variant, h, spectra.back().spectrum);
        }
    }
    for (const SpectrumTable& t : spectra) out["spectra"].push_back(spectrum_json(t, o.top));
    if (!o.json_path.empty()) write_file_atomically(o.json_path, out.dump(2) + "\n");
    if (!o.csv_path.empty()) write_file_atomically(o.csv_path, spectrum_csv(spectra, o.top));
    if (!o.layers_csv_path.empty()) {
        TextInputSpec every_layer = text_input_spec(o.input);
        every_layer.head = -1;  // the map holds every head of every layer
        const std::optional<LayerHeadSpectra> layers = text_layer_spectra(every_layer);
        if (layers) write_file_atomically(o.layers_csv_path, layer_spectra_csv(*layers));
    }
    return 0;
}

}  // namespace

void add_spectrum_command(CLI::App& app, CommandAction& action) {
    auto o = std::make_shared<SpectrumOptionsCli>();
    auto* sub = app.add_subcommand("spectrum", "Singular values and cumulative curve of P and of each variant's P̃");
    add_run_selection_options(*sub, *o, " (P is always included)", "Use the causal P and causal forms of the variants");
    sub->add_option("--top", o->top, "Singular values reported (and computed, for n > 2048)")->capture_default_str();
    sub->add_option("--spectrum-head", o->head, "Head whose spectra are computed (-1: all heads)")->capture_default_str();
    sub->add_option("--json", o->json_path, "Write spectra (and the variants' results) as JSON to this file");
    sub->add_option("--csv", o->csv_path,
                    "Write the spectra as CSV to this file: one row per matrix, head and rank k (σ_k, cumulative share)");
    sub->add_option("--layers-csv", o->layers_csv_path,
                    "Text input: write the Spectrum panel's layers × heads map as CSV, one row per layer, head and rank k "
                    "(the cumulative share of Σσ of that head's exact P)");
    sub->callback([&action, o] { action = [o] { return execute(*o); }; });
}

}  // namespace attnscope::cli

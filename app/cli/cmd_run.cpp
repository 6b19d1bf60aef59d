// `attnscope run`: run variants on one input, print a table of metrics and costs, optionally write JSON and
// one PNG heatmap per variant and head.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "core/backend/registry.h"
#include "core/session/experiment.h"
#include "core/session/export.h"
#include "core/session/result_json.h"
#include "core/variants/registry.h"
#include "input_options.h"

namespace attnscope::cli {

namespace {

struct RunOptionsCli {
    std::vector<std::string> variants;
    std::vector<std::string> sets;
    InputOptions input;
    bool causal = false;
    std::string backend = "auto";
    std::string json_path;
    std::string png_dir;
    int matrix_limit = 2048;
};

/// Splits "a,b" lists (CLI11 also accepts repeated --variant).
std::vector<std::string> split_commas(const std::vector<std::string>& items) {
    std::vector<std::string> out;
    for (const std::string& item : items) {
        std::stringstream ss(item);
        std::string part;
        while (std::getline(ss, part, ','))
            if (!part.empty()) out.push_back(part);
    }
    return out;
}

/// Distributes --set NAME=VALUE to every variant with that parameter ("VARIANT.NAME=VALUE" to one) and
/// --causal to every variant; an assignment no variant accepts is an error.
std::vector<VariantRequest> build_requests(const RunOptionsCli& o) {
    const std::vector<std::string> ids = split_commas(o.variants);
    if (ids.empty()) throw Error("no variant given: pass --variant ID[,ID...] (see `attnscope variants`)");
    std::vector<std::vector<std::pair<std::string, std::string>>> assigned(ids.size());
    for (const std::string& text : o.sets) {
        auto [name, value] = split_assignment(text);
        std::string only;
        if (const auto dot = name.find('.'); dot != std::string::npos) only = name.substr(0, dot), name = name.substr(dot + 1);
        bool used = false;
        for (size_t k = 0; k < ids.size(); ++k) {
            if (!only.empty() && ids[k] != only) continue;
            const VariantInfo& info = find_variant(ids[k]).info();
            if (find_param(info.params, name) || !only.empty()) assigned[k].emplace_back(name, value), used = true;
        }
        if (!used)
            throw Error("--set " + text + ": none of the chosen variants has a parameter '" + name +
                        "' (see `attnscope variants`)");
    }
    if (o.causal)
        for (size_t k = 0; k < ids.size(); ++k) {
            const VariantInfo& info = find_variant(ids[k]).info();
            if (!find_param(info.params, "causal"))
                throw Error("--causal: " + ids[k] + " has no causal form (" + info.summary + "); drop --causal or the variant");
            assigned[k].emplace_back("causal", "1");
        }
    std::vector<VariantRequest> out;
    for (size_t k = 0; k < ids.size(); ++k) out.push_back(parse_variant_request(ids[k], assigned[k]));
    return out;
}

std::string format_metric(const std::optional<double>& v) {
    if (!v) return "-";
    if (std::isinf(*v)) return "inf";
    std::ostringstream os;
    os << std::setprecision(4) << *v;
    return os.str();
}

std::string params_text(const RunResult& r) {
    std::string s;
    for (const ParamSpec& spec : find_variant(r.variant).info().params)
        s += (s.empty() ? "" : " ") + spec.name + "=" + r.params.value_text(spec);
    return s;
}

void print_table(const Heads& heads, const std::string& backend, const std::vector<RunResult>& results) {
    std::cout << "input " << heads.source << ": n=" << heads.n() << " H=" << heads.heads() << " d=" << heads.d()
              << " dv=" << heads.dv() << "   backend " << backend << "\n";
    std::cout << std::left << std::setw(12) << "variant" << std::right << std::setw(12) << "rel_err_out" << std::setw(13)
              << "rel_err_attn" << std::setw(10) << "row_kl" << std::setw(12) << "mass_recall" << std::setw(10)
              << "density" << std::setw(11) << "time_ms" << std::setw(11) << "peak_MiB" << "  params\n";
    for (const RunResult& r : results) {
        const Metrics& m = r.metrics;
        std::cout << std::left << std::setw(12) << r.variant << std::right << std::setw(12) << format_metric(m.rel_err_out)
                  << std::setw(13) << format_metric(m.rel_err_attn) << std::setw(10) << format_metric(m.row_kl)
                  << std::setw(12) << format_metric(m.mass_recall) << std::setw(10) << format_metric(m.density)
                  << std::setw(11) << std::fixed << std::setprecision(2) << r.cost.time_ms << std::setw(11)
                  << r.cost.peak_bytes / 1048576.0 << std::defaultfloat << "  " << params_text(r) << "\n";
        for (const std::string& note : r.structure.notes) std::cout << "    note: " << note << "\n";
    }
}

int execute(const RunOptionsCli& o) {
    if (o.matrix_limit < 0) throw Error("--matrix-limit must be ≥ 0");
    const std::vector<VariantRequest> requests = build_requests(o);
    if (!o.json_path.empty()) require_writable(o.json_path);
    if (!o.png_dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(o.png_dir, ec);
        if (ec) throw Error("cannot create --png folder '" + o.png_dir + "': " + ec.message());
        require_writable((std::filesystem::path(o.png_dir) / "probe").string());
    }
    const Heads heads = load_input(o.input);
    auto backend = make_backend(o.backend);
    const bool want_matrix = heads.n() <= o.matrix_limit;
    ReferenceCache refs(heads, want_matrix);
    RunOptions options;
    options.want_matrix = want_matrix;
    options.max_matrix_n = o.matrix_limit;

    std::vector<RunResult> results;
    for (const VariantRequest& request : requests) results.push_back(run_variant(heads, request, options, *backend, &refs));

    print_table(heads, backend->description(), results);
    if (!o.json_path.empty()) {
        nlohmann::json out = {{"input", input_to_json(heads)}, {"backend", backend->name()}, {"results", nlohmann::json::array()}};
        for (const RunResult& r : results) out["results"].push_back(result_to_json(r));
        write_file_atomically(o.json_path, out.dump(2) + "\n");
    }
    if (!o.png_dir.empty()) {
        for (const RunResult& r : results) {
            if (!r.P_eff) {
                std::cerr << "note: " << r.variant << " has no effective matrix at n = " << heads.n()
                          << " (raise --matrix-limit to materialise it)\n";
                continue;
            }
            for (int h = 0; h < r.P_eff->heads(); ++h) {
                const auto path = std::filesystem::path(o.png_dir) / (r.variant + "-head" + std::to_string(h) + ".png");
                HeatmapStyle style;
                style.log_scale = true;
                write_heatmap_png(path.string(), *r.P_eff, h, style);
            }
        }
    }
    return 0;
}

}  // namespace

void add_run_command(CLI::App& app, CommandAction& action) {
    auto o = std::make_shared<RunOptionsCli>();
    auto* sub = app.add_subcommand("run", "Run variants on one input and report errors against exact softmax and costs");
    sub->add_option("--variant", o->variants, "Variant id(s), comma-separated (see `attnscope variants`)")->required();
    sub->add_option("--set", o->sets, "Parameter NAME=VALUE (all chosen variants that have it) or VARIANT.NAME=VALUE");
    add_input_options(*sub, o->input);
    sub->add_flag("--causal", o->causal, "Run causal forms (every chosen variant must have one)");
    sub->add_option("--backend", o->backend, "auto, cpu or cuda")->capture_default_str();
    sub->add_option("--json", o->json_path, "Write the results as JSON to this file");
    sub->add_option("--png", o->png_dir, "Write each variant's effective matrix as PNG heatmaps into this folder");
    sub->add_option("--matrix-limit", o->matrix_limit, "Materialise n×n matrices (rel_err_attn, row_kl, PNG) up to this n")
        ->capture_default_str();
    sub->callback([&action, o] { action = [o] { return execute(*o); }; });
}

}  // namespace attnscope::cli

// `attnscope run`: run variants on one input, print a table of metrics and costs, optionally write JSON, one PNG
// heatmap per variant and head, and the panels' tables (metrics, heads grid, sinks: app/cli/panel_files.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "app/cli/commands.h"
#include "core/session/variant_spec.h"
#include "core/session/metric_table.h"
#include "core/session/metrics.h"
#include "core/backend/factory/make_backend.h"
#include "core/data/text_model.h"
#include "core/session/text_whatif.h"
#include "core/session/decoder_whatif.h"
#include "core/csv.h"
#include "core/session/experiment.h"
#include "core/session/export.h"
#include "core/session/npy_bundle.h"
#include "core/session/result_json.h"
#include "core/variants/registry.h"
#include "app/cli/figure_cli.h"
#include "app/cli/input_options.h"
#include "app/cli/panel_files.h"
#include "core/figure/render.h"
#include "core/variants/instance_label.h"

namespace attnscope::cli {

namespace {

struct RunOptionsCli : RunSelection {
    std::string json_path;
    std::string png_dir;
    std::string npy_dir;
    std::string csv_dir;
    std::string session;
    int matrix_limit = 2048;
    std::string whatif_layer;  // "": none; "all" or a layer index (text input only)
    PanelFileOptions tables;   // --metrics-csv, --heads-csv, --sinks-csv
};

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

std::string label_of(const RunResult& r) { return instance_label(find_variant(r.variant).info(), r.params); }

void print_table(const Heads& heads, const std::string& backend, const std::vector<RunResult>& results) {
    std::cout << "input " << heads.source << ": n=" << heads.n() << " H=" << heads.heads() << " d=" << heads.d()
              << " dv=" << heads.dv() << "   backend " << backend << "\n";
    std::cout << "every metric below is the mean over the " << heads.heads()
              << (heads.heads() == 1 ? " head" : " heads") << " of each head's own value (density: over all heads' "
              << "cells); --json also gives every head's (metrics.per_head)\n";
    size_t width = 12;  // the instance column fits the longest label ("Performer m = 256, orthogonal")
    for (const RunResult& r : results) width = std::max(width, label_of(r).size() + 2);
    // A metric column is as wide as its name and a space, at least 10 (format_metric writes at most 9 characters).
    auto column_width = [](const MetricSpec& f) { return std::max(10, int(std::strlen(f.id)) + 1); };
    std::cout << std::left << std::setw(int(width)) << "instance" << std::right;
    for (const MetricSpec& f : metric_table())
        if (f.lists & kInRunTable) std::cout << std::setw(column_width(f)) << f.id;
    std::cout << std::setw(11) << "time_ms" << std::setw(11) << "peak_MiB" << "  params\n";
    for (const RunResult& r : results) {
        const Metrics& m = r.metrics;
        std::cout << std::left << std::setw(int(width)) << label_of(r) << std::right;
        for (const MetricSpec& f : metric_table())
            if (f.lists & kInRunTable) std::cout << std::setw(column_width(f)) << format_metric(metric_value(f, r));
        std::cout << std::setw(11) << std::fixed << std::setprecision(2) << r.cost.time_ms << std::setw(11)
                  << r.cost.peak_bytes / 1048576.0 << std::defaultfloat << "  " << params_text(r) << "\n";
        if (r.model != ExactModel::Softmax) std::cout << "    model: " << exact_model_sentence(r.model) << "\n";
        for (const std::string& note : r.structure.notes) std::cout << "    note: " << note << "\n";
        if (!m.dense_warning.empty()) std::cout << "    warning: " << m.dense_warning << "\n";
        if (m.mass_ceiling && m.mass_recall)
            std::cout << "    ceiling: the topk oracle with the same keys in every row keeps " << std::setprecision(4)
                      << *m.mass_ceiling << " of the exact mass; this pattern " << *m.mass_recall << " (means over heads)\n";
    }
    std::cout << "rel_err_out and rel_err_attn: against exact softmax attention; rel_err_model: against the variant's "
                 "own exact model (where it changes the model); row_kl = KL(P‖P̃), row_kl_rev = KL(P̃‖P) (finite for a "
                 "mask: −log of the kept mass when renormalised); mass_recall: share of the exact mass inside the mask; "
                 "keys_for_90 (fewest keys holding 90% of a row) and row_entropy (nats) of the variant's P̃, "
                 "*_exact of the exact softmax P it is compared with\n";
}

/// The tokens the variants see (first and last few when long), so a user can check the tokenization.
void print_text_summary(const LoadedInput& input) {
    const std::vector<std::string>& t = input.heads.tokens;
    const TextModelFacts model = text_model_facts(input.model_dir);
    std::string shown;
    const size_t edge = 12;
    for (size_t k = 0; k < t.size(); ++k) {
        if (t.size() > 2 * edge + 1 && k == edge) {
            shown += " … (" + std::to_string(t.size() - 2 * edge) + " more) …";
            k = t.size() - edge - 1;
            continue;
        }
        // A decoder's byte-level pieces carry their own spaces: brackets show where each begins and ends.
        shown += model.decoder ? "[" + t[k] + "]" : (shown.empty() ? "" : " ") + t[k];
    }
    std::cout << "text: " << t.size() << " tokens" << (input.truncated ? " (truncated)" : "") << ", layer " << input.layer
              << ", " << (input.head < 0 ? std::string("all heads") : "head " + std::to_string(input.head))
              << "; model loaded in " << std::fixed << std::setprecision(1) << input.load_ms
              << " ms, tokenized and encoded (layers 0-" << input.layer << ") in " << input.encode_ms
              << std::defaultfloat << " ms\n  " << shown << "\n";
    std::cout << "model: " << model.name;
    if (model.kv_heads < model.heads) {
        const int group = model.heads / model.kv_heads;
        std::cout << "; " << model.heads << " query heads share " << model.kv_heads << " KV heads (grouped-query attention):";
        for (int g = 0; g < model.kv_heads; ++g)
            std::cout << (g ? "," : "") << " heads " << g * group << "-" << (g + 1) * group - 1 << " read KV head " << g;
    }
    if (model.decoder) std::cout << "; variants run causal unless given causal=0, the exact reference is causal softmax";
    std::cout << "\n";
}

/// Embedding cosine of each variant when it replaces the encoder's attention.
void print_whatif(const std::vector<WhatIfResult>& whatifs, const std::vector<RunResult>& results) {
    if (whatifs.empty()) return;
    const int layer = whatifs.front().layer;
    std::cout << "what-if through the encoder: attention of "
              << (layer == kAllLayers ? std::string("every layer") : "layer " + std::to_string(layer))
              << " replaced; cosine of the sentence embedding to the exact one\n";
    size_t width = 12;  // the instance column fits the longest label ("Performer m = 256, orthogonal")
    for (const RunResult& r : results) width = std::max(width, label_of(r).size() + 2);
    std::cout << std::left << std::setw(int(width)) << "instance" << std::right << std::setw(18) << "embedding_cosine"
              << std::setw(11) << "time_ms" << "\n";
    for (size_t k = 0; k < whatifs.size(); ++k) {
        const WhatIfResult& w = whatifs[k];
        std::cout << std::left << std::setw(int(width)) << (k < results.size() ? label_of(results[k]) : w.variant) << std::right << std::setw(18) << std::setprecision(8)
                  << w.embedding_cosine << std::setw(11) << std::fixed << std::setprecision(2) << w.time_ms
                  << std::defaultfloat << "\n";
    }
}

/// Perplexity of each variant when it replaces the decoder's attention in a span of layers.
void print_perplexity_whatif(const std::vector<PerplexityWhatIf>& whatifs, const std::vector<RunResult>& results,
                             int layers) {
    if (whatifs.empty()) return;
    const NextTokenComparison& first = whatifs.front().result;
    std::cout << "what-if through the decoder: attention of " << whatifs.front().layers.text(layers)
              << " replaced (every head, causal); next-token predictions over " << first.nll.size()
              << " positions against the exact model (perplexity " << std::fixed << std::setprecision(3)
              << first.exact_perplexity << std::defaultfloat << ")\n";
    size_t width = 12;
    for (const RunResult& r : results) width = std::max(width, label_of(r).size() + 2);
    std::cout << std::left << std::setw(int(width)) << "instance" << std::right << std::setw(12) << "perplexity"
              << std::setw(12) << "delta_ppl" << std::setw(12) << "mean_kl" << std::setw(11) << "top1_agree"
              << std::setw(11) << "time_ms" << "\n";
    for (size_t k = 0; k < whatifs.size(); ++k) {
        const NextTokenComparison& c = whatifs[k].result;
        std::cout << std::left << std::setw(int(width)) << (k < results.size() ? label_of(results[k]) : whatifs[k].variant)
                  << std::right << std::fixed << std::setprecision(3) << std::setw(12) << c.perplexity << std::setw(12)
                  << c.delta_perplexity << std::setprecision(5) << std::setw(12) << c.mean_kl << std::setprecision(4)
                  << std::setw(11) << c.top1_agreement << std::setprecision(1) << std::setw(11) << whatifs[k].time_ms
                  << std::defaultfloat << "\n";
    }
    std::cout << "mean_kl: mean over positions of KL(exact next-token distribution ‖ the what-if's), nats; top1_agree: "
                 "share of positions whose most likely next token is the exact model's; --json gives the per-position "
                 "NLL (whatif.nll, whatif.exact_nll)\n";
}

/// The layer --whatif-layer names: kAllLayers for "all", else an index of one of the model's `layers`.
int whatif_layer_of(const std::string& text, int layers) {
    if (text == "all") return kAllLayers;
    const std::string range = "choose 0 to " + std::to_string(layers - 1) + " (the model has " +
                              std::to_string(layers) + " layers) or all";
    int layer = -1;
    try {
        size_t used = 0;
        layer = std::stoi(text, &used);
        if (used != text.size()) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
        throw Error("--whatif-layer '" + text + "' is not a layer index or 'all': " + range);
    }
    if (layer < 0 || layer >= layers) throw Error("--whatif-layer " + text + " is out of range: " + range);
    return layer;
}

/// Creates an output folder (when asked for) and checks it is writable before anything is computed.
void prepare_folder(const std::string& dir) {
    if (dir.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw Error("cannot create the folder '" + dir + "': " + ec.message());
    require_writable((std::filesystem::path(dir) / "probe").string());
}

/// --png: one figure per instance and head (axes with tokens, colour bar, metric lines); --csv: the matrix with
/// token headers. Files are named by instance and by the input's own head number (svd-r8-head3.png).
void write_matrix_files(const RunOptionsCli& o, const LoadedInput& input, const std::vector<RunResult>& results) {
    const Heads& heads = input.heads;
    std::map<std::string, int> seen;
    for (const RunResult& r : results) {
        const VariantInfo& info = find_variant(r.variant).info();
        std::string stem = instance_slug(info, r.params);
        if (const int repeat = ++seen[stem]; repeat > 1) stem += "-" + std::to_string(repeat);
        if (!r.P_eff) {
            std::cerr << "note: " << instance_label(info, r.params) << " has no effective matrix at n = " << heads.n()
                      << " (raise --matrix-limit to materialise it)\n";
            continue;
        }
        for (int h = 0; h < r.P_eff->heads(); ++h) {
            // With text --head H the input holds that one head: name the file by the encoder's head, not by 0.
            const int shown_head = input.kind == InputKind::Text && input.head >= 0 ? input.head : h;
            const std::string name = stem + "-head" + std::to_string(shown_head);
            if (!o.csv_dir.empty())
                write_matrix_csv((std::filesystem::path(o.csv_dir) / (name + ".csv")).string(), *r.P_eff, h, heads.tokens);
            if (o.png_dir.empty()) continue;
            figure::RunFigureOptions f;
            f.view = figure::View::Weights;
            f.head = h;
            f.head_number = shown_head;
            f.width = 900;
            f.title = describe_loaded_input(input);
            const figure::Canvas canvas = figure::layout_figure(figure::figure_of_runs(heads, {r}, f, {}));
            figure::write_canvas((std::filesystem::path(o.png_dir) / (name + ".png")).string(), canvas, 1.5f);
        }
    }
}

int execute(const RunOptionsCli& o) {
    if (o.matrix_limit < 0) throw Error("--matrix-limit must be ≥ 0");
    // The instances and the input: from the options, or from a GUI session (its --variant, if given, replaces
    // the session's variants), so every export a session can show is one command away.
    std::vector<VariantRequest> requests;
    std::optional<FigureJob> session;
    if (!o.session.empty()) {
        if (!o.whatif_layer.empty()) throw Error("--whatif-layer needs --text or --text-file, not --session");
        session = figure_job_from_session(o.session, nullptr);
        requests = o.variants.empty() ? session->requests : build_variant_requests(o.variants, o.sets, o.causal, causal_input(o.input));
    } else {
        if (o.variants.empty()) throw Error("no variant given: pass --variant ID[,ID...] or --session FILE (see `attnscope variants`)");
        requests = build_variant_requests(o.variants, o.sets, o.causal, causal_input(o.input));
    }
    if (!o.json_path.empty()) require_writable(o.json_path);
    check_panel_files(o.tables, requests);
    for (const std::string* dir : {&o.png_dir, &o.npy_dir, &o.csv_dir}) prepare_folder(*dir);
    const bool whatif = !o.whatif_layer.empty();
    int whatif_layer = kAllLayers;
    std::optional<LayerSpan> decoder_span;  // a decoder's what-if: perplexity over a span of layers
    if (whatif) {
        if (input_kind(o.input) != InputKind::Text)
            throw Error("--whatif-layer runs variants inside the text model: give text with --text or --text-file");
        // Checked against the model before the input is encoded, so a bad layer prints no table first.
        const ModelChoice choice = resolve_model(o.input.model);
        if (choice.decoder)
            decoder_span = parse_layer_span(o.whatif_layer, load_decoder_model(choice.path)->decoder.config().layers,
                                            "--whatif-layer");
        else
            whatif_layer = whatif_layer_of(o.whatif_layer, load_text_model(choice.path)->encoder.config().layers);
    }
    const LoadedInput input = session ? std::move(session->input) : load_input_full(o.input);
    const Heads& heads = input.heads;
    check_panel_input(o.tables, input, o.matrix_limit);
    auto backend = make_backend(o.backend);
    const bool want_matrix = heads.n() <= o.matrix_limit;
    ReferenceCache refs(heads, want_matrix);
    RunOptions options;
    options.explain = want_matrix;
    options.max_matrix_n = o.matrix_limit;

    std::vector<RunResult> results;
    for (const VariantRequest& request : requests) results.push_back(run_variant(heads, request, options, *backend, &refs));

    if (input.kind == InputKind::Text) print_text_summary(input);
    print_table(heads, backend->description(), results);
    std::vector<WhatIfResult> whatifs;
    std::vector<PerplexityWhatIf> perplexities;
    std::vector<double> exact_nll;
    if (decoder_span) {
        const auto model = load_decoder_model(input.model_dir);
        const ExactNextTokens exact = exact_next_tokens(model->decoder, input.token_ids);
        exact_nll = exact.nll;
        for (const VariantRequest& request : requests)
            perplexities.push_back(run_perplexity_whatif(model->decoder, exact, *decoder_span, request, *backend));
        print_perplexity_whatif(perplexities, results, model->decoder.config().layers);
    } else if (whatif) {
        const auto model = load_text_model(input.model_dir);
        const std::vector<float> exact = exact_text_embedding(*model, input.token_ids);
        for (const VariantRequest& request : requests)
            whatifs.push_back(run_text_whatif(*model, input.token_ids, exact, whatif_layer, request, *backend));
        print_whatif(whatifs, results);
    }
    if (!o.json_path.empty()) {
        nlohmann::json in = input_to_json(heads);
        if (input.kind == InputKind::Text) {
            in["token_ids"] = input.token_ids;
            in["model"] = input.model_dir;
            in["layer"] = input.layer;
            in["head"] = input.head;
            in["truncated"] = input.truncated;
        }
        nlohmann::json out = {{"input", in}, {"backend", backend->name()}, {"results", nlohmann::json::array()}};
        for (size_t k = 0; k < results.size(); ++k) {
            nlohmann::json r = result_to_json(results[k]);
            if (decoder_span) {
                const PerplexityWhatIf& w = perplexities[k];
                r["whatif"] = {{"layers", {w.layers.first, w.layers.last}},
                               {"perplexity", w.result.perplexity},
                               {"exact_perplexity", w.result.exact_perplexity},
                               {"delta_perplexity", w.result.delta_perplexity},
                               {"mean_kl", w.result.mean_kl},
                               {"top1_agreement", w.result.top1_agreement},
                               {"nll", w.result.nll},
                               {"exact_nll", exact_nll},
                               {"time_ms", w.time_ms}};
            } else if (whatif)
                r["whatif"] = {{"layer", whatif_layer == kAllLayers ? nlohmann::json("all") : nlohmann::json(whatif_layer)},
                               {"embedding_cosine", whatifs[k].embedding_cosine},
                               {"time_ms", whatifs[k].time_ms}};
            out["results"].push_back(r);
        }
        write_file_atomically(o.json_path, out.dump(2) + "\n");
    }
    if (!o.npy_dir.empty()) {
        nlohmann::json extra = nlohmann::json::object();
        if (input.kind == InputKind::Text)
            extra = {{"token_ids", input.token_ids}, {"layer", input.layer}, {"head", input.head}};
        const nlohmann::json index = write_npy_bundle(o.npy_dir, heads, results, extra);
        size_t files = 3;  // q, k, v
        for (const auto& r : index["results"]) {
            files += r["P_eff"].is_null() ? 1 : 2;
            if (r["P_eff"].is_null())
                std::cerr << "note: " << r["label"].get<std::string>() << ": no P_eff written (n = " << heads.n()
                          << " above --matrix-limit " << o.matrix_limit << ", or the variant defines none)\n";
        }
        std::cerr << "wrote " << files << " .npy files and index.json to " << o.npy_dir << "\n";
    }
    if (!o.png_dir.empty() || !o.csv_dir.empty()) write_matrix_files(o, input, results);
    InstanceColumns whatif_columns;  // a decoder's what-if beside each instance's metrics
    if (decoder_span) {
        whatif_columns.names = {"whatif_layers", "perplexity", "exact_perplexity", "delta_perplexity", "mean_kl",
                                "top1_agreement"};
        for (const PerplexityWhatIf& w : perplexities)
            whatif_columns.cells.push_back({std::to_string(w.layers.first) + "-" + std::to_string(w.layers.last),
                                            csv_number(w.result.perplexity), csv_number(w.result.exact_perplexity),
                                            csv_number(w.result.delta_perplexity), csv_number(w.result.mean_kl),
                                            csv_number(w.result.top1_agreement)});
    }
    write_panel_files(o.tables, panel_input(input, o.input, o.session), requests, results, refs, *backend,
                      decoder_span ? &whatif_columns : nullptr);
    return 0;
}

}  // namespace

void add_run_command(CLI::App& app, CommandAction& action) {
    auto o = std::make_shared<RunOptionsCli>();
    auto* sub = app.add_subcommand("run", "Run variants on one input and report errors against exact softmax and costs");
    add_run_selection_options(*sub, *o, "; see `attnscope variants`", "Run causal forms (every chosen variant must have one)");
    sub->add_option("--session", o->session,
                    "Take the input and variants from a GUI session file (File → Save session); --variant replaces its variants");
    sub->add_option("--json", o->json_path, "Write the results as JSON to this file");
    sub->add_option("--png", o->png_dir,
                    "Write each instance's effective matrix, per head, as a PNG figure (token axes, colour bar, metrics) "
                    "into this folder, named like svd-r8-head3.png");
    sub->add_option("--csv", o->csv_dir,
                    "Write each instance's effective matrix, per head, as CSV with token row and column headers into "
                    "this folder (svd-r8-head3.csv)");
    sub->add_option("--npy", o->npy_dir,
                    "Write q, k, v (and tokens.txt for text), each variant's O and P_eff (up to --matrix-limit) as .npy "
                    "files with an index.json into this folder (also readable back with --tensors)");
    sub->add_option("--whatif-layer", o->whatif_layer,
                    "Text input: also replace the model's attention of layer L (0 to the model's last layer; 0-5 for "
                    "the default encoder, 0-29 for smollm2) or of 'all' layers by each variant; an encoder reports the "
                    "cosine of the sentence embedding to the exact one, a decoder (also a range A-B) the perplexity, "
                    "its change, KL(exact ‖ what-if) of the next-token distributions and top-1 agreement");
    add_panel_file_options(*sub, o->tables);
    sub->add_option("--matrix-limit", o->matrix_limit, "Materialise n×n matrices (rel_err_attn, row_kl, PNG) up to this n")
        ->capture_default_str();
    sub->callback([&action, o] { action = [o] { return execute(*o); }; });
}

}  // namespace attnscope::cli

// `attnscope streaming`: StreamingLLM's perplexity table on the decoder (Xiao et al. 2023, Figure 3 and Table 1's
// setting): a cache of w recent tokens alone, with s sink tokens at cache positions (the paper's rule) and at text
// positions (a mask), full attention, and recomputing each window from scratch on a sample of positions.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/input_options.h"
#include "core/csv.h"
#include "core/data/samples.h"
#include "core/data/text_model.h"
#include "core/session/export.h"
#include "core/session/streaming_llm.h"
#include "core/figure/perplexity_figure.h"
#include "core/figure/render.h"

namespace attnscope::cli {

namespace {

struct StreamingOptionsCli {
    std::string model = "smollm2";
    std::string text, text_file;
    std::string windows = "64,128,256,512,1024";
    int sinks = 4;
    int recompute = 8;
    std::string csv_path, json_path, figure_path;
};

/// The ferry sample (the project's long text) unless --text or --text-file gives another.
std::string streaming_text(const StreamingOptionsCli& o) {
    if (!o.text.empty() || !o.text_file.empty()) {
        InputOptions in;
        in.text = o.text;
        in.text_file = o.text_file;
        return input_text(in);
    }
    return sample_texts().back().text;
}

std::string table_csv(const StreamingTable& t) {
    std::string csv = "window,sinks,full,window_only,sinks_cache_positions,sinks_text_positions,recompute,full_at_sampled,"
                      "recompute_positions\n";
    for (const StreamingRow& r : t.rows) {
        std::ostringstream line;
        line << std::setprecision(7) << r.window << "," << t.sinks << "," << t.full << "," << r.window_only << ","
             << r.sinks_cache << "," << r.sinks_text << ",";
        if (!t.recompute_positions.empty()) line << r.recompute << "," << r.full_at_sampled;
        else line << ",";
        line << "," << t.recompute_positions.size() << "\n";
        csv += line.str();
    }
    return csv;
}

int execute(const StreamingOptionsCli& o) {
    const std::vector<int> windows = parse_window_list(o.windows, "--windows");
    if (!o.csv_path.empty()) require_writable(o.csv_path);
    if (!o.json_path.empty()) require_writable(o.json_path);
    if (!o.figure_path.empty()) figure::require_figure_extension(o.figure_path), require_writable(o.figure_path);
    const ModelChoice choice = resolve_model(o.model);
    if (!choice.decoder)
        throw Error("streaming measures a decoder's perplexity: give --model smollm2 or a .gguf file (not an encoder)");
    const auto model = load_decoder_model(choice.path);
    const std::vector<int> ids = model->tokenizer.encode(streaming_text(o));
    if (int(ids.size()) > model->decoder.config().context)
        throw Error("the text has " + std::to_string(ids.size()) + " tokens, more than the model's context of " +
                    std::to_string(model->decoder.config().context) + ": shorten it");
    check_streaming_sizes(int(ids.size()), windows, o.sinks, o.recompute);  // before the progress lines start
    std::cerr << "streaming: " << ids.size() << " tokens, " << o.sinks << " sinks, windows " << o.windows << ", "
              << o.recompute << " recomputed positions per window\n";
    const StreamingTable t = measure_streaming(model->decoder, ids, windows, o.sinks, o.recompute,
                                               [](const std::string& what) {
                                                   std::cerr << "  " << what << "\n";
                                                   return true;
                                               });
    std::cout << "StreamingLLM on " << t.tokens << " tokens, every layer and head: perplexity over positions 0-"
              << t.tokens - 2 << " (full attention " << std::fixed << std::setprecision(3) << t.full << ")\n";
    std::cout << std::setw(8) << "window" << std::setw(13) << "window_only" << std::setw(14) << "sinks_cache"
              << std::setw(13) << "sinks_text" << std::setw(12) << "recompute" << std::setw(14) << "full_sampled"
              << "\n";
    for (const StreamingRow& r : t.rows) {
        std::cout << std::setw(8) << r.window << std::setw(13) << r.window_only << std::setw(14) << r.sinks_cache
                  << std::setw(13) << r.sinks_text;
        if (t.recompute_positions.empty()) std::cout << std::setw(12) << "-" << std::setw(14) << "-";
        else std::cout << std::setw(12) << r.recompute << std::setw(14) << r.full_at_sampled;
        std::cout << "\n";
    }
    std::cout << std::defaultfloat << "sinks_cache: " << t.sinks
              << " sink tokens + the window, positions assigned within the cache (the paper's rule); sinks_text: the "
                 "same keys at their text positions (the `sink` variant's mask); recompute: a fresh pass over the w "
                 "tokens before each of "
              << t.recompute_positions.size() << " sampled positions, full_sampled: full attention on those positions\n";
    std::cout << "exact attention on the first " << t.sinks << " tokens (mean over heads and rows), per layer:";
    for (size_t l = 0; l < t.sink_mass.size(); ++l)
        std::cout << (l % 10 == 0 ? "\n  " : " ") << std::fixed << std::setprecision(3) << t.sink_mass[l];
    std::cout << std::defaultfloat << "\n";
    if (!o.csv_path.empty()) write_file_atomically(o.csv_path, table_csv(t));
    if (!o.figure_path.empty()) {
        figure::PlotFigure f = figure::streaming_figure(t);
        f.title = "SmolLM2-135M on " + std::to_string(t.tokens) + " tokens" + (o.text.empty() && o.text_file.empty()
                                                                                 ? std::string(" (the ferry sample)") : "");
        f.width = 1800;
        figure::write_canvas(o.figure_path, figure::layout_plots(f), 1.5f);
    }
    if (!o.json_path.empty()) {
        nlohmann::json rows = nlohmann::json::array();
        for (const StreamingRow& r : t.rows)
            rows.push_back({{"window", r.window}, {"window_only", r.window_only}, {"sinks_cache_positions", r.sinks_cache},
                            {"sinks_text_positions", r.sinks_text},
                            {"recompute", t.recompute_positions.empty() ? nlohmann::json() : nlohmann::json(r.recompute)},
                            {"full_at_sampled", t.recompute_positions.empty() ? nlohmann::json() : nlohmann::json(r.full_at_sampled)}});
        const nlohmann::json out = {{"tokens", t.tokens}, {"sinks", t.sinks}, {"full", t.full}, {"rows", rows},
                                    {"recompute_positions", t.recompute_positions}, {"sink_mass_per_layer", t.sink_mass},
                                    {"model", choice.path}};
        write_file_atomically(o.json_path, out.dump(2) + "\n");
    }
    return 0;
}

}  // namespace

void add_streaming_command(CLI::App& app, CommandAction& action) {
    auto o = std::make_shared<StreamingOptionsCli>();
    auto* sub = app.add_subcommand("streaming",
                                   "StreamingLLM's perplexity table on the decoder: window alone, sinks + window (cache and "
                                   "text positions), full attention, recomputed windows");
    sub->add_option("--model", o->model, "A decoder: smollm2 or a .gguf file")->capture_default_str();
    sub->add_option("--text", o->text, "The text (default: the ferry sample, ≈ 4 700 tokens)");
    sub->add_option("--text-file", o->text_file, "Read the text from this file");
    sub->add_option("--windows", o->windows, "Recent-token window sizes w, comma-separated")->capture_default_str();
    sub->add_option("--sinks", o->sinks, "Sink tokens s kept at the start")->capture_default_str();
    sub->add_option("--recompute-samples", o->recompute,
                    "Positions per window the recompute baseline samples (a fresh pass each; 0: skip)")
        ->capture_default_str();
    sub->add_option("--csv", o->csv_path, "Write the table as CSV to this file");
    sub->add_option("--json", o->json_path, "Write the table, the sampled positions and the sink mass per layer as JSON");
    sub->add_option("--figure", o->figure_path,
                    "Draw the curves (perplexity against w; each method ÷ full attention; attention on the sinks per "
                    "layer) into this .png or .svg file");
    sub->callback([&action, o] { action = [o] { return execute(*o); }; });
}

}  // namespace attnscope::cli

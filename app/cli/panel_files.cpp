#include "app/cli/panel_files.h"

#include <iostream>
#include <limits>

#include "core/analysis/key_attention.h"
#include "core/lessons/preset.h"
#include "core/session/export.h"
#include "core/session/head_mass.h"
#include "core/session/panel_csv.h"
#include "core/session/session_file.h"
#include "core/session/sinks_data.h"
#include "core/variants/registry.h"

namespace attnscope::cli {

namespace {

TextInputSpec text_spec(const PanelInput& in) {
    TextInputSpec t;
    t.text = in.text, t.model_dir = in.model_dir, t.truncate = in.truncate;
    return t;
}

/// The Heads panel's grid: every layer of the encoder for text, the one input's heads otherwise.
std::string heads_table(const PanelInput& in, const std::vector<VariantRequest>& requests, Backend& backend) {
    const std::vector<VariantRequest> masked = heads_view_instances(requests);
    const std::optional<LayerHeadMass> grid = in.input->kind == InputKind::Text
                                                  ? text_layer_head_mass(text_spec(in), masked, backend)
                                                  : layer_head_mass({in.input->heads}, masked, backend);
    if (!grid) throw Error("the heads grid was cancelled");
    return head_mass_csv(*grid);
}

std::string sinks_need_p(int n) {
    return "--sinks-csv needs the exact P, which is not materialised at n = " + std::to_string(n) +
           ": raise --matrix-limit to at least " + std::to_string(n);
}

/// The Sinks panel's bars: every layer of the encoder for text; else sinks_profile's (the exact P the GUI and the
/// figure average too).
std::string sinks_table(const PanelInput& in, const std::vector<VariantRequest>& requests, ReferenceCache& refs,
                        Backend& backend) {
    if (in.input->kind == InputKind::Text) {
        const std::optional<TextKeyAttention> r = text_key_attention(text_spec(in));
        if (!r) throw Error("the sinks table was cancelled");
        return key_attention_csv(r->tokens, r->received);
    }
    // n was held to --matrix-limit by check_panel_input before anything ran.
    const KeyAttentionProfile p = sinks_profile(in.input->heads, requests, refs, backend,
                                                std::numeric_limits<int>::max(), "--sinks-csv");
    const std::vector<std::string>& tokens = in.input->heads.tokens;
    return key_attention_csv(tokens.size() == p.received.size() ? tokens : std::vector<std::string>{}, p.received);
}

void write_table(const std::string& path, const std::string& table, const char* what) {
    write_file_atomically(path, table);
    std::cerr << "wrote " << what << " to " << path << "\n";
}

}  // namespace

void add_panel_file_options(CLI::App& sub, PanelFileOptions& o) {
    sub.add_option("--metrics-csv", o.metrics_csv,
                   "Write the metrics table as CSV to this file (the GUI's Copy metrics CSV): per instance a row of "
                   "means over heads, then one row per head");
    sub.add_option("--heads-csv", o.heads_csv,
                   "Write the Heads panel's grid as CSV to this file: per masked instance, layer and head the share "
                   "of the exact mass kept (text: every encoder layer)");
    sub.add_option("--sinks-csv", o.sinks_csv,
                   "Write the Sinks panel's bars as CSV to this file: the mean exact attention each key position "
                   "receives (text: over every layer and head) against the uniform 1/n");
}

void check_panel_files(const PanelFileOptions& o, const std::vector<VariantRequest>& requests) {
    for (const std::string* path : {&o.metrics_csv, &o.heads_csv, &o.sinks_csv})
        if (!path->empty()) require_writable(*path);
    if (!o.heads_csv.empty() && heads_view_instances(requests).empty())
        throw Error("--heads-csv shows the mass a pattern keeps, and none of the instances has a mask: add one, "
                    "e.g. --variant longformer:window=16 or sink (see `attnscope variants`)");
}

void check_panel_input(const PanelFileOptions& o, const LoadedInput& input, int matrix_limit) {
    if (!o.sinks_csv.empty() && input.kind != InputKind::Text && input.heads.n() > matrix_limit)
        throw Error(sinks_need_p(input.heads.n()));
}

PanelInput panel_input(const LoadedInput& input, const InputOptions& options, const std::string& session) {
    PanelInput in;
    in.input = &input;
    if (input.kind != InputKind::Text) return in;
    if (session.empty()) {
        in.text = input_text(options), in.model_dir = model_dir_of(options), in.truncate = options.truncate;
        return in;
    }
    // The session's own text: LoadedInput holds the encoded layer only, and the grids rerun every layer.
    SessionFile file = read_session_file(session);
    if (!file.setup_lesson.empty()) file = lesson_setup(file.setup_lesson);  // as the GUI opens it
    in.text = file.input.text, in.model_dir = file.input.model_dir, in.truncate = file.input.truncate;
    return in;
}

void write_panel_files(const PanelFileOptions& o, const PanelInput& in, const std::vector<VariantRequest>& requests,
                       const std::vector<RunResult>& results, ReferenceCache& refs, Backend& backend,
                       const InstanceColumns* extra) {
    if (!o.metrics_csv.empty()) {
        std::vector<const RunResult*> rows;
        for (const RunResult& r : results) rows.push_back(&r);
        write_table(o.metrics_csv, metrics_csv(rows, extra), "the metrics table");
    }
    if (!o.heads_csv.empty()) write_table(o.heads_csv, heads_table(in, requests, backend), "the heads grid");
    if (!o.sinks_csv.empty()) write_table(o.sinks_csv, sinks_table(in, requests, refs, backend), "the sinks table");
}

}  // namespace attnscope::cli

// attnscope — `run`'s panel tables as files: the Matrices panel's metrics table (--metrics-csv, the text the GUI's
// "Copy metrics CSV" copies), the Heads panel's layers × heads grid (--heads-csv) and the Sinks panel's bars
// (--sinks-csv), from the CLI input options or a session file, through the GUI's own functions
// (core/session/panel_csv.h).
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "app/cli/input_options.h"
#include "core/session/panel_csv.h"
#include "core/backend/interface/backend.h"
#include "core/session/experiment.h"

namespace attnscope::cli {

/// The files asked for; an empty path writes nothing.
struct PanelFileOptions {
    std::string metrics_csv;  // --metrics-csv
    std::string heads_csv;    // --heads-csv
    std::string sinks_csv;    // --sinks-csv
};

/// Registers --metrics-csv, --heads-csv and --sinks-csv on `sub`.
void add_panel_file_options(CLI::App& sub, PanelFileOptions& options);

/// Refuses, before anything runs, a file that cannot be written and a heads grid without a masked instance.
void check_panel_files(const PanelFileOptions& options, const std::vector<VariantRequest>& requests);

/// Refuses, before the variants run, sinks of a non-text input whose exact P is not materialised (n above
/// `matrix_limit`).
void check_panel_input(const PanelFileOptions& options, const LoadedInput& input, int matrix_limit);

/// Where the input came from, for the tables that rerun the encoder on every layer (heads, sinks of text).
struct PanelInput {
    const LoadedInput* input = nullptr;  // the input the variants ran on
    std::string text, model_dir;         // text input: the text and model folder
    bool truncate = false;               // text input: cut to the model's max positions
};

/// The text, model and truncation of the CLI options (text input) or of a session file (`session` non-empty).
PanelInput panel_input(const LoadedInput& input, const InputOptions& options, const std::string& session);

/// Writes every file asked for. `refs` holds the exact P the sinks of synthetic input average (materialised up to
/// --matrix-limit); `extra` (optional) adds per-instance columns to the metrics table (a decoder's what-if); throws
/// Error saying what to change when a table cannot be made.
void write_panel_files(const PanelFileOptions& options, const PanelInput& in, const std::vector<VariantRequest>& requests,
                       const std::vector<RunResult>& results, ReferenceCache& refs, Backend& backend,
                       const InstanceColumns* extra = nullptr);

}  // namespace attnscope::cli

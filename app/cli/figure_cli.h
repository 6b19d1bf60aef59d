// attnscope — what `attnscope figure` and `run --png` share: the figure file options, the job (input + variant
// instances + view) built from the CLI options or a session file, and writing the files.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/backend/interface/backend.h"
#include "core/figure/run_figure.h"
#include "core/session/experiment.h"
#include "core/session/metric_sweep.h"
#include "app/cli/input_options.h"

namespace attnscope::cli {

/// --out, --view, --theme, --size, --dpi, --view-head, --linear, --decades, --title, --matrix-limit, --order, --round.
struct FigureFileOptions {
    std::vector<std::string> outputs;  // .png and/or .svg files
    std::string view;                  // a matrix view (weights, mask, difference, buckets) or a chart view
                                       // (chart_figure_cli.h); "" = the session's, else mask
    std::string theme = "light";
    std::string size = "1600";         // WIDTH or WIDTHxHEIGHT in logical pixels
    double dpi = 144;                  // PNG pixels per inch (96 = one pixel per logical pixel)
    int view_head = -1;                // the head shown (−1 = the session's, else 0)
    bool linear = false;               // weights on a linear scale instead of log10
    double decades = 0;                // log scale depth (0 = the session's, else 4)
    std::string title;                 // overrides the input description above the panels; "none" = no title
    int matrix_limit = 2048;           // largest n whose matrices are materialised
    std::string order;                 // natural, bucket or clusters ("" = the session's, else natural)
    int round = -1;                    // the lsh round whose bucket order is shown (−1 = the session's, else 0)
};

/// Registers the figure file options on `sub`.
void add_figure_file_options(CLI::App& sub, FigureFileOptions& options);

/// An input, the instances to draw and the view a session chose.
struct FigureJob {
    LoadedInput input;
    std::vector<VariantRequest> requests;
    std::string title;                       // describes the input
    std::optional<figure::View> view;        // from a session
    std::optional<int> head;                 // from a session
    std::optional<bool> log_scale;           // from a session
    std::optional<float> decades;            // from a session
    std::optional<DisplayOrder> order;       // from a session
    std::optional<int> order_round;          // from a session
    std::optional<TextInputSpec> text;       // text input: the encoder's input, for views over every layer
    SweepInputFactory make_input;            // the same input at another seed (and n): a sweep's seeds
};

/// The job of the CLI input options and --variant / --set / --causal.
FigureJob figure_job_from_options(const InputOptions& input, const std::vector<std::string>& variants,
                                  const std::vector<std::string>& sets, bool causal);

/// The job of a session file (core/session/session_file.h: input, variants, head, mask/difference/log toggles);
/// `variants` (may be null) replaces the session's variants. Throws Error naming the key when the session is
/// unreadable.
FigureJob figure_job_from_session(const std::string& path, const std::vector<std::string>* variants);

/// One line describing a loaded input for a figure title.
std::string describe_loaded_input(const LoadedInput& input);

/// The figure options as a matrix figure's RunFigureOptions (the job's session values where an option is not
/// given); throws Error for a value out of range.
figure::RunFigureOptions run_figure_options(const FigureJob& job, const FigureFileOptions& options);

/// Writes `canvas` to every --out file at the options' dpi; returns the paths written.
std::vector<std::string> write_figure_files(const figure::Canvas& canvas, const FigureFileOptions& options);

/// Runs the job's variants and writes every --out file; returns the paths written.
std::vector<std::string> write_run_figures(const FigureJob& job, const FigureFileOptions& options, Backend& backend);

/// Parses WIDTH or WIDTHxHEIGHT; throws Error saying the accepted forms and ranges.
void parse_figure_size(const std::string& text, float& width, float& height);

}  // namespace attnscope::cli

// attnscope — `attnscope figure --view spectrum | sweep | errmap | heads | sinks | performance`: the charts of the panels
// beside the matrices (core/figure/chart_figures.h), computed from the figure's input and instances as the
// panels compute them, and written as PNG and/or SVG like the matrix figures.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "app/cli/figure_cli.h"
#include "core/backend/interface/backend.h"
#include "core/session/error_cost.h"

namespace attnscope::cli {

/// What the chart views take beyond the figure options.
struct ChartFigureOptions {
    std::string param;                 // sweep / errmap: NAME=START:STOP[:xF|:+S]
    std::string metric = "rel_err_out";  // sweep: the metric
    int seeds = 3;                     // sweep: seeds averaged per point
    std::string x = "time", y = "rel_err_out";  // errmap: cost and error axes
    int repeats = kDefaultErrorCostRepeats;    // errmap: timed runs per point
    std::string sizes = "256:2048";    // performance: the sequence lengths (bench's --n forms)
    int runs = 5;                      // performance: timed runs per point
    int grid_index = 0;                // spectrum, text: the layers × heads map's index k (0: n/8)
    int top = 256;                     // spectrum: singular values computed for n > 2048
    std::string whatif_layers = "all"; // perplexity: the decoder layers whose attention each instance replaces
};

/// Registers --param, --metric, --seeds, --x, --y, --repeats, --sizes, --runs, --grid-index and --top on `sub`.
void add_chart_figure_options(CLI::App& sub, ChartFigureOptions& options);

/// True for the views drawn as charts rather than matrices.
bool is_chart_view(const std::string& view);

/// Computes the chart of `options.view` for the job and writes every --out file; returns the paths written.
/// Throws Error saying what is missing (e.g. --param for a sweep) before anything runs.
std::vector<std::string> write_chart_figures(const FigureJob& job, const FigureFileOptions& options,
                                             const ChartFigureOptions& chart, Backend& backend);

}  // namespace attnscope::cli

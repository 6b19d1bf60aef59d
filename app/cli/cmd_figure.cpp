// `attnscope figure`: a slide-ready figure of variants side by side on one input — titles naming each instance,
// token labels, colour bar, metric lines, reason legend — as PNG and/or SVG, from the input options or a session.
#include <cmath>
#include <iostream>

#include "core/backend/factory/make_backend.h"
#include "app/cli/chart_figure_cli.h"
#include "app/cli/commands.h"
#include "core/session/variant_spec.h"
#include "core/figure/figure_views.h"
#include "core/figure/render.h"
#include "core/figure/run_figure.h"
#include "core/session/experiment.h"
#include "app/cli/figure_cli.h"
#include "app/cli/input_options.h"

namespace attnscope::cli {

namespace {

struct FigureCli : RunSelection {
    std::string session;
    FigureFileOptions figure;
    ChartFigureOptions chart;
};

int execute(const FigureCli& o) {
    if (o.figure.outputs.empty()) throw Error("give at least one --out FILE.png or FILE.svg");
    for (const std::string& out : o.figure.outputs) figure::require_figure_extension(out), require_writable(out);
    FigureJob job = o.session.empty() ? figure_job_from_options(o.input, o.variants, o.sets, o.causal)
                                      : figure_job_from_session(o.session, o.variants.empty() ? nullptr : &o.variants);
    auto backend = make_backend(o.backend);
    const std::vector<std::string> written = is_chart_view(o.figure.view) ? write_chart_figures(job, o.figure, o.chart, *backend)
                                                                          : write_run_figures(job, o.figure, *backend);
    for (const std::string& path : written) std::cout << "wrote " << path << "\n";
    return 0;
}

}  // namespace

void add_figure_command(CLI::App& app, CommandAction& action) {
    auto o = std::make_shared<FigureCli>();
    auto* sub = app.add_subcommand(
        "figure", "Draw variants on one input as a slide-ready PNG and/or SVG: matrices side by side (titles, tokens, colour bar) or a "
        "panel's chart (" + figure::figure_view_names(true, false, ", ") + ")");
    add_run_selection_options(*sub, *o, "; with --session, replaces the session's variants", "Run causal forms (every chosen variant must have one)");
    sub->add_option("--session", o->session,
                    "Take the input, variants, head and view toggles from a GUI session file (File → Save session)");
    add_figure_file_options(*sub, o->figure);
    add_chart_figure_options(*sub, o->chart);
    sub->callback([&action, o] { action = [o] { return execute(*o); }; });
}

}  // namespace attnscope::cli

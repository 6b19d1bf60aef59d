// attnscope — the one list of views a figure can draw: the matrix views (run_figure.h) and the panels' charts
// (chart_figures.h). `figure --view`, its help, its errors and the CLI's chart dispatch read it.
#pragma once
#include <span>
#include <string>

namespace attnscope::figure {

/// One view of `attnscope figure --view`.
struct FigureViewSpec {
    const char* id;    // the --view value
    bool chart;        // a panel's chart (else the variants' matrices side by side)
    const char* what;  // what the view shows, for help texts ("" when the id says it)
};

/// Every view, the matrices first, in the order help texts list them.
std::span<const FigureViewSpec> figure_views();

/// The view called `id` ("diff" is difference), or nullptr.
const FigureViewSpec* find_figure_view(const std::string& id);

/// The ids of the chart or matrix views for a sentence: "weights, mask, difference or buckets"; with `what`, each
/// followed by its description in parentheses; `last` joins the last two.
std::string figure_view_names(bool charts, bool what = false, const std::string& last = " or ");

}  // namespace attnscope::figure

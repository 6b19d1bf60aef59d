// attnscope — the metric badges of a matrix view: one list per run (name, value, what it is measured against), drawn
// in full or, in a small cell or presentation mode, as the key numbers plus the lesson's own metrics and a "more"
// tooltip holding the rest. The layout record (--layout-json) reads the same list, so a test sees what is drawn.
#pragma once
#include <imgui.h>

#include <optional>
#include <string>
#include <vector>

#include "core/variants/variant.h"

namespace attnscope::gui {

/// One badge: a metric of a run as the panel shows it.
struct Badge {
    std::string id;          // metric id as in `attnscope run --json` ("rel_err_out", "mass_recall", "time", …)
    std::string label;       // what the badge says before its value ("rel_err_out", "ceiling", "Δ vs softmax")
    std::string short_label; // in compact badges ("err_out", "mass", …)
    std::string value;       // the value as shown
    std::string short_value; // the value in compact badges (3 significant digits)
    std::optional<double> number;  // the value as a number (absent for flags such as "dense at this n")
    ImVec4 colour;           // background: green/amber/red by quality, grey for context
    std::string help;        // tooltip: the definition and what it is measured against
    bool key = false;        // one of the key numbers compact badges keep
};

/// Every badge of `r` in display order: head `head`'s own values when the run has them per head, else (head < 0)
/// the means over heads; with several heads the first badge ("scope") says which, and every tooltip repeats it.
/// Means shown beside one drawn head (`drawn_head` ≥ 0) add that head's own value to each tooltip.
std::vector<Badge> run_badges(const RunResult& r, int head, int drawn_head = -1);

/// The badges a cell shows: all of them, or when `compact` the key numbers and every id in `lesson_metrics`.
std::vector<const Badge*> shown_badges(const std::vector<Badge>& all, bool compact,
                                       const std::vector<std::string>& lesson_metrics);

/// Width of one drawn badge in pixels at the current font.
float badge_width(const Badge& b, bool compact);

/// Lines the shown badges take in a row of width `width` (with a "more" badge when compact).
int badge_lines(const std::vector<const Badge*>& shown, bool compact, float width);

/// Draws them (wrapping at the content width); compact cells end with a "more" badge whose tooltip lists every
/// metric of `all`.
void draw_badges(const std::vector<const Badge*>& shown, const std::vector<Badge>& all, bool compact);

}  // namespace attnscope::gui

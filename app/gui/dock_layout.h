// attnscope — the two dock layouts: the default one (Input and Variants left, Matrices centre, analysis panels as
// tabs below) and a lesson's (the panels its "what to look at" names large, the Lesson window right, every other
// panel a tab in a narrow left column).
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

namespace attnscope::gui {

/// The id of the main dockspace.
ImGuiID main_dockspace();

/// Rebuilds the dockspace as the default layout.
void build_default_layout(ImGuiID dockspace);

/// Rebuilds the dockspace for a lesson: `large` are the windows the lesson looks at (Matrices always among them,
/// a bottom-dock panel such as Spectrum below it), the Lesson window takes the right column (or, with
/// `lesson_below`, the bottom: a row of a few wide matrices leaves the height free) and every other panel a tab in
/// the left one.
void build_lesson_layout(ImGuiID dockspace, const std::vector<std::string>& large, bool lesson_below = false);

/// Whether `views` matrices get larger with the Lesson window below them than beside them, in a viewport of `size`
/// where only Matrices and the Lesson window show (presentation mode).
bool lesson_below_is_larger(int views, ImVec2 size);

}  // namespace attnscope::gui

// attnscope — the dock layouts (see dock_layout.h).
#include "app/gui/dock_layout.h"

#include <imgui_internal.h>  // DockBuilder

#include <algorithm>

#include "app/gui/app.h"
#include "app/gui/matrix_view.h"
#include "app/gui/panels.h"

namespace attnscope::gui {

ImGuiID main_dockspace() { return ImGui::GetID("attnscope-dockspace"); }

namespace {

/// Starts the dockspace over from one node of the viewport's work size; returns it.
ImGuiID fresh_dockspace(ImGuiID dockspace) {
    ImGui::DockBuilderRemoveNode(dockspace);
    ImGui::DockBuilderAddNode(dockspace, ImGuiDockNodeFlags_DockSpace);
    ImGui::DockBuilderSetNodeSize(dockspace, ImGui::GetMainViewport()->WorkSize);
    return dockspace;
}

}  // namespace

void build_default_layout(ImGuiID dockspace) {
    ImGuiID centre = fresh_dockspace(dockspace);
    ImGuiID left = ImGui::DockBuilderSplitNode(centre, ImGuiDir_Left, 0.24f, nullptr, &centre);
    ImGuiID left_bottom = ImGui::DockBuilderSplitNode(left, ImGuiDir_Down, 0.58f, nullptr, &left);
    const ImGuiID bottom = ImGui::DockBuilderSplitNode(centre, ImGuiDir_Down, 0.36f, nullptr, &centre);
    for (const PanelEntry& p : panels()) {
        const ImGuiID node = p.slot == DockSlot::Left         ? left
                             : p.slot == DockSlot::LeftBottom ? left_bottom
                             : p.slot == DockSlot::Centre     ? centre
                                                              : bottom;
        ImGui::DockBuilderDockWindow(p.window, node);  // the Lesson window docks itself
    }
    ImGui::DockBuilderFinish(dockspace);
}

namespace {

/// The font scale (Ctrl +/−): the columns of text grow with it.
float font_scale() { return std::max(1.0f, ImGui::GetStyle().FontScaleMain); }

/// The Lesson window's share of the width beside the panels: its text and check lines need ~380 px at 100%.
float lesson_share(float width) { return std::clamp(400.0f * font_scale() / std::max(width, 1.0f), 0.2f, 0.4f); }

/// The left column's share: tabs of the panels a lesson does not look at, wide enough for their widgets.
float left_share() { return std::clamp(0.13f * font_scale(), 0.13f, 0.24f); }

/// Its share of the height below the panels.
constexpr float kLessonBelowShare = 0.36f;

}  // namespace

bool lesson_below_is_larger(int views, ImVec2 size) {
    // A rough cell chrome (title, key badges, tick labels): only the comparison of the two placements matters.
    const CellChrome chrome = [](float, bool, const void*) { return ImVec2(56, 72); };
    const float spacing = ImGui::GetStyle().ItemSpacing.x, toolbar = ImGui::GetFrameHeightWithSpacing() * 3;
    const GridChoice beside = choose_grid(views, ImVec2(size.x * (1 - lesson_share(size.x)), size.y - toolbar), spacing,
                                          0, true, chrome, nullptr);
    const GridChoice below = choose_grid(views, ImVec2(size.x, size.y * (1 - kLessonBelowShare) - toolbar), spacing, 0,
                                         true, chrome, nullptr);
    return below.side > beside.side;
}

void build_lesson_layout(ImGuiID dockspace, const std::vector<std::string>& large, bool lesson_below) {
    ImGuiID rest = fresh_dockspace(dockspace);
    const float width = ImGui::GetMainViewport()->WorkSize.x;
    const ImGuiID right = lesson_below ? ImGui::DockBuilderSplitNode(rest, ImGuiDir_Down, kLessonBelowShare, nullptr, &rest)
                                       : ImGui::DockBuilderSplitNode(rest, ImGuiDir_Right, lesson_share(width), nullptr, &rest);
    ImGuiID centre = rest;
    const float beside = lesson_below ? 0.0f : lesson_share(width);
    const ImGuiID left = ImGui::DockBuilderSplitNode(centre, ImGuiDir_Left, left_share() / (1 - beside), nullptr, &centre);
    auto is_large = [&](const char* window) { return std::find(large.begin(), large.end(), window) != large.end(); };
    bool large_bottom = false, large_centre = false;
    for (const PanelEntry& p : panels()) {
        large_bottom = large_bottom || (p.slot == DockSlot::Bottom && is_large(p.window));
        large_centre = large_centre || (p.slot == DockSlot::Centre && is_large(p.window));
    }
    // A bottom panel the lesson looks at gets the lower part of the centre; the centre panel (Matrices) keeps the
    // upper (more of it when the lesson names it too).
    ImGuiID lower = 0;
    const float lower_share = large_centre ? 0.42f : 0.55f;
    if (large_bottom) lower = ImGui::DockBuilderSplitNode(centre, ImGuiDir_Down, lower_share, nullptr, &centre);
    for (const PanelEntry& p : panels()) {
        ImGuiID node = left;
        if (p.slot == DockSlot::Centre) node = centre;
        else if (p.slot == DockSlot::Bottom && is_large(p.window)) node = lower;
        ImGui::DockBuilderDockWindow(p.window, node);
    }
    ImGui::DockBuilderDockWindow(kLessonWindow, right);
    ImGui::DockBuilderFinish(dockspace);
}

}  // namespace attnscope::gui

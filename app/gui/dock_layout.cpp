// attnscope — the dock layouts (see dock_layout.h).
#include "dock_layout.h"

#include <imgui_internal.h>  // DockBuilder

#include <algorithm>

#include "app.h"
#include "panels.h"

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

void build_lesson_layout(ImGuiID dockspace, const std::vector<std::string>& large) {
    ImGuiID rest = fresh_dockspace(dockspace);
    const float width = ImGui::GetMainViewport()->WorkSize.x;
    // The lesson's text and check table need ~380 px; the left column only holds tabs to switch to.
    const float lesson_share = std::clamp(400.0f / std::max(width, 1.0f), 0.2f, 0.34f);
    const ImGuiID right = ImGui::DockBuilderSplitNode(rest, ImGuiDir_Right, lesson_share, nullptr, &rest);
    ImGuiID centre = rest;
    const ImGuiID left = ImGui::DockBuilderSplitNode(centre, ImGuiDir_Left, 0.13f / (1 - lesson_share), nullptr, &centre);
    auto is_large = [&](const char* window) { return std::find(large.begin(), large.end(), window) != large.end(); };
    bool large_bottom = false;
    for (const PanelEntry& p : panels()) large_bottom = large_bottom || (p.slot == DockSlot::Bottom && is_large(p.window));
    // A bottom panel the lesson looks at gets the lower part of the centre; Matrices keeps the upper (more of it when
    // the lesson names Matrices too).
    ImGuiID lower = 0;
    if (large_bottom) lower = ImGui::DockBuilderSplitNode(centre, ImGuiDir_Down, is_large(kMatricesWindow) ? 0.42f : 0.55f, nullptr, &centre);
    for (const PanelEntry& p : panels()) {
        ImGuiID node = left;
        if (std::string(p.window) == kMatricesWindow) node = centre;
        else if (p.slot == DockSlot::Bottom && is_large(p.window)) node = lower;
        ImGui::DockBuilderDockWindow(p.window, node);
    }
    ImGui::DockBuilderDockWindow(kLessonWindow, right);
    ImGui::DockBuilderFinish(dockspace);
}

}  // namespace attnscope::gui

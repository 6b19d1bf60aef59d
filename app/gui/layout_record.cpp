// attnscope — the layout record as JSON (see layout_record.h).
#include "app/gui/layout_record.h"

#include <imgui.h>
#include <imgui_internal.h>  // the window list

#include <nlohmann/json.hpp>
#include <string>

namespace attnscope::gui {

namespace {

nlohmann::json rect(ImVec4 r) { return {r.x, r.y, r.z, r.w}; }

}  // namespace

nlohmann::json layout_json(const LayoutRecord& record) {
    nlohmann::json j;
    const ImVec2 size = ImGui::GetIO().DisplaySize;
    j["display"] = {size.x, size.y};
    j["windows"] = nlohmann::json::array();
    for (ImGuiWindow* w : GImGui->Windows) {
        // Docked windows are child windows of their dock host; BeginChild windows (cells) are not docked.
        const bool docked = w->DockNode != nullptr;
        if (!w->WasActive || w->Hidden || ((w->Flags & ImGuiWindowFlags_ChildWindow) && !docked) || w->Name[0] == '#') continue;
        if (docked && !w->DockTabIsVisible) continue;
        if (std::string(w->Name).rfind("WindowOverViewport", 0) == 0) continue;
        const ImVec4 r(w->Pos.x, w->Pos.y, w->Pos.x + w->Size.x, w->Pos.y + w->Size.y);
        j["windows"].push_back({{"name", w->Name}, {"rect", rect(r)}});
    }
    j["heatmaps"] = nlohmann::json::array();
    for (const HeatmapRecord& h : record.heatmaps) {
        nlohmann::json badges = nlohmann::json::object();
        for (const auto& [id, value] : h.badges) badges[id] = value;
        nlohmann::json outlines = nlohmann::json::array();
        for (const OutlineRecord& o : h.outlines) {
            nlohmann::json one = {{"label", o.label}, {"kind", o.kind}, {"first", o.first}, {"last", o.last}};
            if (o.kind == "block") one["rows"] = {o.rows_first, o.rows_last};
            outlines.push_back(one);
        }
        j["heatmaps"].push_back({{"panel", h.panel}, {"view", h.view}, {"slot", h.slot}, {"variant", h.variant},
                                 {"instance", h.instance},
                                 {"title", h.title}, {"head", h.head}, {"shows", h.shows}, {"cell", rect(h.cell)},
                                 {"plot", rect(h.plot)}, {"x_range", {h.x_min, h.x_max}}, {"y_range", {h.y_min, h.y_max}},
                                 {"pixels_per_cell", {h.pixels_per_cell_x, h.pixels_per_cell_y}},
                                 {"reduction", h.reduction}, {"badges", badges}, {"badges_head", h.badges_head},
                                 {"outlines", outlines}});
    }
    return j;
}

}  // namespace attnscope::gui

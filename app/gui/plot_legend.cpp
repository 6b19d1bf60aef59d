// attnscope — legends beside plots (see plot_legend.h).
#include "app/gui/plot_legend.h"

#include <algorithm>

namespace attnscope::gui {

namespace {

float swatch_width() { return ImGui::GetTextLineHeight() * 1.4f; }

float entry_width(const LegendEntry& e) {
    return swatch_width() + 4 + ImGui::CalcTextSize(e.label.c_str(), nullptr, false).x + 14;
}

}  // namespace

void legend_row(const std::vector<LegendEntry>& entries) {
    const float line = ImGui::GetTextLineHeight();
    for (size_t k = 0; k < entries.size(); ++k) {
        const LegendEntry& e = entries[k];
        if (k > 0) {
            ImGui::SameLine(0, 0);
            if (ImGui::GetContentRegionAvail().x < entry_width(e)) ImGui::NewLine();
        }
        const ImVec2 p = ImGui::GetCursorScreenPos();
        ImDrawList* dl = ImGui::GetWindowDrawList();
        const float y = p.y + line * 0.5f;
        ImVec4 c = e.colour;
        if (e.faint) c.w = std::min(c.w, 0.45f);
        dl->AddLine(ImVec2(p.x, y), ImVec2(p.x + swatch_width(), y), ImGui::GetColorU32(c), e.faint ? 4.0f : 2.0f);
        ImGui::Dummy(ImVec2(swatch_width() + 4, line));
        ImGui::SameLine(0, 0);
        ImGui::TextUnformatted(e.label.c_str());
        ImGui::SameLine(0, 14);
        ImGui::Dummy(ImVec2(0, line));
    }
}

float legend_row_height(const std::vector<LegendEntry>& entries, float width) {
    int lines = entries.empty() ? 0 : 1;
    float x = 0;
    for (const LegendEntry& e : entries) {
        const float w = entry_width(e);
        if (x > 0 && x + w > width) ++lines, x = 0;
        x += w;
    }
    return float(lines) * ImGui::GetTextLineHeightWithSpacing();
}

}  // namespace attnscope::gui

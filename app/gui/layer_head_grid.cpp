// attnscope — layers × heads heatmap axes (see layer_head_grid.h).
#include "app/gui/layer_head_grid.h"

#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <string>
#include <vector>

namespace attnscope::gui {

bool setup_layer_head_grid(int layers, int heads, const char* y_label) {
    const ImPlotAxisFlags ax = ImPlotAxisFlags_NoGridLines | ImPlotAxisFlags_Lock | ImPlotAxisFlags_NoHighlight;
    ImPlot::SetupAxes("head", y_label, ax, ax);
    ImPlot::SetupAxesLimits(0, heads, 0, layers, ImPlotCond_Always);
    std::vector<double> xt, yt;
    std::vector<std::string> xl, yl;
    for (int h = 0; h < heads; ++h) xt.push_back(h + 0.5), xl.push_back(std::to_string(h));
    // A decoder's 30 layers in a panel's height would print their numbers over each other: past 12 rows only every
    // 5th (past 60 every 10th) and the last are named; every row keeps its tick, and hovering a cell names it.
    const int step = layers <= 12 ? 1 : layers <= 60 ? 5 : 10;
    for (int l = 0; l < layers; ++l)
        yt.push_back(layers - l - 0.5), yl.push_back(l % step == 0 || l == layers - 1 ? std::to_string(l) : std::string());
    std::vector<const char*> xp, yp;
    for (auto& t : xl) xp.push_back(t.c_str());
    for (auto& t : yl) yp.push_back(t.c_str());
    ImPlot::SetupAxisTicks(ImAxis_X1, xt.data(), int(xt.size()), xp.data());  // ImPlot copies the labels
    ImPlot::SetupAxisTicks(ImAxis_Y1, yt.data(), int(yt.size()), yp.data());
    ImPlot::SetupFinish();
    const float cell_w = ImPlot::GetPlotSize().x / float(std::max(1, heads));
    const float cell_h = ImPlot::GetPlotSize().y / float(std::max(1, layers));
    return cell_w > ImGui::CalcTextSize("0.00").x + 4 && cell_h > ImGui::GetTextLineHeight();
}

}  // namespace attnscope::gui

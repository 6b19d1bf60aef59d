// attnscope — Heads panel ("heads at a glance"): for every layer (rows) × head (columns), the share of the exact
// attention mass each chosen masked instance keeps — a window keeps most on local heads, a sink pattern on sink
// heads, neither on global ones. Text input runs every encoder layer; synthetic input is one layer. Computed as a
// worker job while the tab is visible (core/session/head_mass.h). Clicking a cell shows that layer and head.
#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cstdio>

#include "app/gui/app.h"
#include "app/gui/panel_figures.h"
#include "core/figure/chart_figures.h"
#include "app/gui/panels.h"
#include "app/gui/plot_room.h"
#include "app/gui/layer_head_grid.h"
#include "core/session/head_mass.h"
#include "core/variants/registry.h"

namespace attnscope::gui {

namespace {

/// The Variants panel's instances that the Heads view draws.
std::vector<VariantRequest> drawn_instances(const App& app) {
    std::vector<VariantRequest> instances;
    for (const VariantSlot& s : app.variants.slots) instances.push_back({s.id, s.params});
    return heads_view_instances(instances);
}

std::shared_ptr<ViewJob<LayerHeadMass>::Job> make_job(const App& app) {
    const InputSpec input = app.effective_input();
    const std::vector<VariantRequest> requests = drawn_instances(app);
    return std::make_shared<ViewJob<LayerHeadMass>::Job>(
        "heads at a glance", [input, requests](JobContext& ctx) -> std::shared_ptr<const LayerHeadMass> {
            auto cancelled = [&ctx] {
                ctx.between_steps();  // an edit's views go first, between two runs
                return ctx.cancelled();
            };
            std::optional<LayerHeadMass> r;
            if (input.mode == InputMode::Text) {
                TextInputSpec t;
                t.text = input.text, t.model_dir = input.model_dir, t.truncate = input.truncate;
                r = text_layer_head_mass(t, requests, ctx.backend(), cancelled);
            } else {
                r = layer_head_mass({build_input(input)}, requests, ctx.backend(), cancelled);
            }
            if (!r) return nullptr;
            return std::make_shared<const LayerHeadMass>(std::move(*r));
        });
}

/// One instance's grid as a heatmap, 0..1 on the shared colour scale.
void draw_grid(App& app, const LayerHeadMass& m, const HeadMassGrid& g, ImVec2 size, bool text) {
    ImGui::BeginGroup();
    ImGui::TextUnformatted(g.instance.c_str());
    if (g.recall.empty()) {
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + size.x);
        hint_text(("no values: " + g.error).c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndGroup();
        return;
    }
    std::vector<double> values(g.recall);  // row-major: layer rows, head columns (layer 0 drawn on top)
    ImGui::PushID(g.instance.c_str());
    if (plot_fits(size) && ImPlot::BeginPlot("##mass", size, ImPlotFlags_NoLegend | ImPlotFlags_NoMouseText | ImPlotFlags_NoMenus)) {
        const bool labels = setup_layer_head_grid(m.layers, m.heads, text ? "layer" : "layer (one: synthetic)");
        ImPlot::PushColormap(plot_colormap(Colormap::Viridis));
        ImPlot::PlotHeatmap("##m", values.data(), m.layers, m.heads, 0, 1, labels ? "%.2f" : nullptr, ImPlotPoint(0, 0),
                            ImPlotPoint(m.heads, m.layers));
        ImPlot::PopColormap();
        const int cur_l = text ? app.input.spec.layer : 0, cur_h = app.view.head;
        if (cur_l >= 0 && cur_l < m.layers && cur_h >= 0 && cur_h < m.heads)
            ImPlot::GetPlotDrawList()->AddRect(ImPlot::PlotToPixels(cur_h, m.layers - cur_l),
                                               ImPlot::PlotToPixels(cur_h + 1, m.layers - cur_l - 1),
                                               IM_COL32(255, 80, 80, 255), 0.0f, 0, 2.5f);
        if (ImPlot::IsPlotHovered()) {
            const ImPlotPoint mp = ImPlot::GetPlotMousePos();
            const int h = int(mp.x), l = m.layers - 1 - int(mp.y);
            if (mp.x >= 0 && mp.y >= 0 && h < m.heads && l >= 0 && l < m.layers) {
                ImGui::SetTooltip("%s\nlayer %d, head %d: mass kept %.4f of the exact softmax attention\nclick to show "
                                  "this layer and head",
                                  g.instance.c_str(), l, h, g.at(l, h, m.heads));
                if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
                    if (text) app.input.spec.layer = l;
                    app.view.head = h;
                    app.dirty = true;
                }
            }
        }
        ImPlot::EndPlot();
    }
    ImGui::PopID();
    ImGui::EndGroup();
}

}  // namespace

void draw_heads_panel(App& app, const PanelEntry& self) {
    HeadsState& st = app.heads_view;
    const bool visible = ImGui::Begin(self.window);
    st.visible = visible;
    const bool any_mask = !drawn_instances(app).empty();
    const std::string key = analysis_input_key(app) + '\n' + slots_key(app);
    st.grid.update(app.runs, key, visible && any_mask, worker_free_for_views(app), [&app] { return make_job(app); });
    if (!visible) {
        ImGui::End();
        return;
    }
    const bool text = app.effective_input().mode == InputMode::Text;
    if (!any_mask) {
        hint_text("Choose a masked variant in the Variants panel (longformer, bigbird, sink, topk, …): this view shows, "
                  "for every layer and head, the share of the exact attention mass its pattern keeps.");
    } else if (!st.grid.error.empty() && !st.grid.stale(key)) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.5f, 0.45f, 1));
        ImGui::TextWrapped("No grid: %s", st.grid.error.c_str());
        ImGui::PopStyleColor();
    } else if (!st.grid.result) {
        hint_text(text ? "Running every masked instance on every layer's heads…" : "Running every masked instance on every head…");
    } else {
        const LayerHeadMass& m = *st.grid.result;
        ImGui::TextWrapped("Mass kept (mass_recall) per %s head: the share of the exact softmax attention of that "
                           "head%s inside each pattern; 1 = nothing lost. n = %d%s%s. Red frame: the layer and head "
                           "shown elsewhere; the Spectrum panel's layers × heads tab shows how low-rank each is.",
                           text ? "layer (rows) ×" : "", text ? " (that layer's own exact attention)" : "", m.n,
                           m.truncated ? ", text truncated" : "", st.grid.stale(key) ? " (updating…)" : "");
        const int count = int(m.grids.size());
        const float bar_w = 84;
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        const float spacing = ImGui::GetStyle().ItemSpacing.x;
        const float w = std::max(140.0f, (avail.x - bar_w - spacing * float(count)) / float(std::max(1, count)));
        const float h = std::max(120.0f, avail.y - ImGui::GetTextLineHeightWithSpacing() * 1.5f);
        for (int k = 0; k < count; ++k) {
            if (k > 0) ImGui::SameLine();
            draw_grid(app, m, m.grids[size_t(k)], ImVec2(w, h), text);
        }
        ImGui::SameLine();
        ImPlot::ColormapScale("mass kept", 0, 1, ImVec2(bar_w, h), "%.1f", 0, plot_colormap(Colormap::Viridis));
    }
    ImGui::End();
}

bool heads_busy(const App& app) { return app.heads_view.grid.pending; }

}  // namespace attnscope::gui

namespace attnscope::gui {

PanelFigure heads_panel_figure(const App& app) {
    const auto grid = app.heads_view.grid.result;
    if (!grid) return {{}, "the grid is not computed yet: show the Heads tab"};
    return {chart_builder(figure::heads_figure(*grid), gui_figure_title(app)), ""};
}

}  // namespace attnscope::gui

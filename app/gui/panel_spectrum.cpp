// attnscope — Spectrum panel: singular values of the exact P and of each variant's P_eff, with the normalised
// normalised cumulative sum of σ (Linformer Fig. 1 left) and its value at a chosen rank k.
#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cmath>

#include "app.h"

namespace attnscope::gui {

void draw_spectrum_panel(App& app) {
    SpectrumState& st = app.spectrum;
    const bool visible = ImGui::Begin(kSpectrumWindow);
    // Spectra cost O(n³): ask the worker for them only while this tab is visible.
    if (visible && !st.visible && st.enabled && (!app.snap || !app.snap->exact_spectrum)) app.dirty = true;
    st.visible = visible;
    if (!visible) {
        ImGui::End();
        return;
    }
    if (ImGui::Checkbox("compute spectra", &st.enabled)) app.dirty = true;
    ImGui::SetItemTooltip("singular values of every n×n matrix (exact SVD: O(n³), a second or more for n ≥ 1024)");
    ImGui::SameLine();
    ImGui::Checkbox("log σ axis", &st.log_y);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(160);
    const int n = app.snap && app.snap->heads ? app.snap->heads->n() : 1;
    ImGui::SliderInt("rank k", &st.k, 1, std::max(1, n), "%d", ImGuiSliderFlags_Logarithmic);
    if (app.snap && app.snap->heads) st.k = std::clamp(st.k, 1, std::max(1, n));
    ImGui::SetItemTooltip("where the normalised cumulative sum Σ_{i≤k} σ_i / Σ σ is read (the Linformer projection size k)");
    const auto snap = app.snap;
    struct Series {
        std::string name;
        const SpectrumView* s;
    };
    std::vector<Series> series;
    std::vector<std::string> notes;
    if (snap && snap->exact_spectrum) {
        if (snap->exact_spectrum->singular_values.empty()) notes.push_back("exact P: " + snap->exact_spectrum->note);
        else series.push_back({"exact softmax P", &*snap->exact_spectrum});
    }
    if (snap)
        for (const auto& v : snap->variants) {
            if (!v.spectrum) continue;
            if (v.spectrum->singular_values.empty()) notes.push_back(v.id + ": " + v.spectrum->note);
            else series.push_back({v.name + " P_eff", &*v.spectrum});
        }
    if (!st.enabled) {
        hint_text("Spectra are off. Turn on 'compute spectra' to see the singular values of P and of every P_eff.");
    } else if (series.empty()) {
        hint_text(app.runs.state() == WorkerState::Running
                        ? "Computing singular values…"
                        : "No spectrum yet: it needs a materialised matrix (n up to 'materialise up to n' in Input). "
                          "Low-rank variants (linformer, svd from the low-rank branch) show their rank limit here.");
    } else {
        ImGui::Text("head %d (the Matrices head), n = %d", std::clamp(app.view.head, 0, snap->heads->heads() - 1), n);
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        const float w = (avail.x - ImGui::GetStyle().ItemSpacing.x * 2) * 0.38f;
        const float h = std::max(180.0f, avail.y - ImGui::GetTextLineHeightWithSpacing() * float(notes.size() + 1));
        const double kline = st.k;
        if (ImPlot::BeginPlot("singular values σ_i", ImVec2(w, h))) {
            ImPlot::SetupAxes("index i", "σ_i", ImPlotAxisFlags_AutoFit, ImPlotAxisFlags_AutoFit);
            ImPlot::SetupAxisScale(ImAxis_X1, ImPlotScale_Log10);
            if (st.log_y) ImPlot::SetupAxisScale(ImAxis_Y1, ImPlotScale_Log10);
            for (const auto& s : series) {
                std::vector<double> x(s.s->singular_values.size()), y;
                for (size_t i = 0; i < x.size(); ++i) x[i] = double(i + 1);
                for (double v : s.s->singular_values) y.push_back(std::max(v, 1e-12));
                ImPlot::PlotLine(s.name.c_str(), x.data(), y.data(), int(x.size()));
            }
            ImPlotSpec guide;
            guide.LineColor = ImVec4(1, 1, 1, 0.5f);
            ImPlot::PlotInfLines("k", &kline, 1, guide);
            ImPlot::EndPlot();
        }
        ImGui::SameLine();
        if (ImPlot::BeginPlot("normalised cumulative sum Σ_{j≤i} σ_j / Σ σ", ImVec2(w, h))) {
            ImPlot::SetupAxes("index i", "cumulative share", ImPlotAxisFlags_AutoFit, 0);
            ImPlot::SetupAxisScale(ImAxis_X1, ImPlotScale_Log10);
            ImPlot::SetupAxisLimits(ImAxis_Y1, 0, 1.02, ImPlotCond_Always);
            for (const auto& s : series) {
                std::vector<double> x(s.s->cumulative.size());
                for (size_t i = 0; i < x.size(); ++i) x[i] = double(i + 1);
                ImPlot::PlotLine(s.name.c_str(), x.data(), s.s->cumulative.data(), int(x.size()));
            }
            ImPlotSpec guide;
            guide.LineColor = ImVec4(1, 1, 1, 0.5f);
            ImPlot::PlotInfLines("k", &kline, 1, guide);
            ImPlot::EndPlot();
        }
        ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::Text("cumulative share at k = %d", st.k);
        if (ImGui::BeginTable("at_k", 2, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
            ImGui::TableSetupColumn("matrix");
            ImGui::TableSetupColumn("Σ_{i≤k} σ_i / Σ σ");
            ImGui::TableHeadersRow();
            for (const auto& s : series) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(s.name.c_str());
                ImGui::TableNextColumn();
                const auto& c = s.s->cumulative;
                ImGui::Text("%.4f", c.empty() ? 0.0 : c[std::min<size_t>(c.size(), size_t(st.k)) - 1]);
            }
            ImGui::EndTable();
        }
        ImGui::TextWrapped("A matrix whose cumulative share is high at small k is close to low rank: Linformer's k×n "
                           "projection loses little there.");
        ImGui::SeparatorText("text: layers × heads");
        hint_text("Planned: with text input, a layers × heads heatmap of the cumulative share at k "
                    "(Linformer Fig. 1 right). It needs spectra of every layer, which the worker does not compute yet.");
        ImGui::EndGroup();
    }
    for (const auto& note : notes) ImGui::TextDisabled("%s", note.c_str());
    ImGui::End();
}

}  // namespace attnscope::gui

// attnscope — Input panel: synthetic scenario or text, plus display limits and the export folder.
#include <imgui.h>
#include <misc/cpp/imgui_stdlib.h>

#include <algorithm>
#include <cmath>

#include "app.h"

namespace attnscope::gui {

namespace {

void help_marker(const char* text) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::BeginItemTooltip()) {
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
        ImGui::TextUnformatted(text);
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

void draw_synthetic(App& app) {
    ScenarioSpec& s = app.input.spec.scenario;
    bool changed = false;
    const auto& list = scenario_list();
    int current = 0;
    for (size_t k = 0; k < list.size(); ++k)
        if (list[k].kind == s.kind) current = int(k);
    if (ImGui::BeginCombo("scenario", list[current].id.c_str())) {
        for (size_t k = 0; k < list.size(); ++k) {
            if (ImGui::Selectable(list[k].id.c_str(), int(k) == current)) s.kind = list[k].kind, changed = true;
            ImGui::SetItemTooltip("%s", list[k].description.c_str());
        }
        ImGui::EndCombo();
    }
    ImGui::TextWrapped("%s", list[current].description.c_str());
    changed |= ImGui::SliderInt("n (tokens)", &s.n, 1, 16384, "%d", ImGuiSliderFlags_Logarithmic);
    ImGui::SetItemTooltip("sequence length n: the matrices are n×n (queries i on rows, keys j on columns)");
    changed |= ImGui::SliderInt("heads H", &s.heads, 1, 16);
    changed |= ImGui::SliderInt("head dim d", &s.dim, 1, 256, "%d", ImGuiSliderFlags_Logarithmic);
    double t = s.temperature;
    const double tlo = 0.05, thi = 10;
    if (ImGui::SliderScalar("temperature", ImGuiDataType_Double, &t, &tlo, &thi, "%.2f", ImGuiSliderFlags_Logarithmic))
        s.temperature = t, changed = true;
    ImGui::SetItemTooltip("logits are divided by the temperature: small = peaked rows, large = flat rows");
    int seed = static_cast<int>(s.seed);
    if (ImGui::InputInt("seed", &seed)) s.seed = static_cast<uint64_t>(std::max(0, seed)), changed = true;
    if (changed) app.dirty = true;
}

void draw_text(App& app) {
    InputSpec& in = app.input.spec;
    if (!text_input_available()) {
        hint_text("Text mode runs a real encoder (all-MiniLM-L6-v2) on your sentence and shows its per-layer, "
                    "per-head attention with token labels. It arrives with core/data/text_input.h (text branch); "
                    "until then use Synthetic.");
        return;
    }
    bool changed = ImGui::InputTextMultiline("text", &in.text, ImVec2(-1, ImGui::GetTextLineHeight() * 5));
    changed |= ImGui::SliderInt("layer", &in.layer, 0, 11);
    changed |= ImGui::InputText("model folder", &in.model_dir);
    ImGui::SetItemTooltip("empty = the default model (~/.cache/attnscope/models/all-MiniLM-L6-v2 or $ATTNSCOPE_MODEL_DIR)");
    if (changed) app.dirty = true;
    // Token strip: hovering a token highlights its row and column in every matrix.
    if (app.snap && app.snap->heads && !app.snap->heads->tokens.empty()) {
        ImGui::SeparatorText("tokens");
        const auto& toks = app.snap->heads->tokens;
        for (size_t i = 0; i < toks.size(); ++i) {
            if (i > 0) ImGui::SameLine(0, 2);
            if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(toks[i].c_str()).x + 8) ImGui::NewLine();
            ImGui::PushID(int(i));
            const bool hot = app.view.shown_i == int(i) || app.view.shown_j == int(i);
            if (hot) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.8f, 0.5f, 0.1f, 1));
            ImGui::SmallButton(toks[i].c_str());
            if (hot) ImGui::PopStyleColor();
            if (ImGui::IsItemHovered()) app.view.hover_i = app.view.hover_j = int(i);
            ImGui::PopID();
        }
    }
}

/// All heads of the exact P as small heatmaps; clicking one shows that head in every panel.
void draw_heads_grid(App& app) {
    const auto snap = app.snap;
    if (!snap || !snap->exact_thumbs) return;
    const Tensor3& t = *snap->exact_thumbs;
    const int H = t.heads();
    ImGui::SeparatorText("all heads (exact P, click to show)");
    if (int(app.head_thumbs.size()) != H) {
        for (auto& tex : app.head_thumbs) tex.release();
        app.head_thumbs.assign(size_t(H), {});
    }
    const float gap = 4, side = 64;
    const int per_row = std::max(1, int((ImGui::GetContentRegionAvail().x + gap) / (side + gap)));
    const float n = float(snap->heads->n());
    for (int h = 0; h < H; ++h) {
        MatrixTexture& tex = app.head_thumbs[size_t(h)];
        const uint64_t key = (snap->generation << 8) + uint64_t(h) + 1;
        if (tex.key != key) tex.upload(t.head_data(h), t.rows(), t.cols(), nullptr, ImVec4(0, 0, n, n), key);
        if (h % per_row) ImGui::SameLine(0, gap);
        ImGui::PushID(h);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        if (ImGui::InvisibleButton("head", ImVec2(side, side))) app.view.head = h, app.dirty = app.dirty || (app.spectrum.enabled && app.spectrum.visible);
        ImGui::SetItemTooltip("head %d", h);
        HeatmapDraw d;
        d.texture = &tex;
        d.mode = ScaleMode::Log;
        d.vmax = t.head(h).maxCoeff();
        d.decades = app.view.decades;
        d.top_left = p, d.bottom_right = ImVec2(p.x + side, p.y + side);
        const ImVec2 c0 = ImGui::GetWindowDrawList()->GetClipRectMin(), c1 = ImGui::GetWindowDrawList()->GetClipRectMax();
        d.clip = ImVec4(std::max(c0.x, p.x), std::max(c0.y, p.y), std::min(c1.x, p.x + side), std::min(c1.y, p.y + side));
        app.renderer.draw(ImGui::GetWindowDrawList(), d);
        ImGui::GetWindowDrawList()->AddRect(p, ImVec2(p.x + side, p.y + side),
                                            h == app.view.head ? IM_COL32(255, 90, 90, 255) : IM_COL32(90, 90, 100, 255),
                                            0.0f, 0, h == app.view.head ? 2.0f : 1.0f);
        ImGui::PopID();
    }
}

}  // namespace

void draw_input_panel(App& app) {
    if (!ImGui::Begin(kInputWindow)) {
        ImGui::End();
        return;
    }
    int mode = app.input.spec.mode == InputMode::Synthetic ? 0 : 1;
    if (ImGui::RadioButton("Synthetic", &mode, 0)) app.input.spec.mode = InputMode::Synthetic, app.dirty = true;
    ImGui::SameLine();
    if (ImGui::RadioButton("Text", &mode, 1)) app.input.spec.mode = InputMode::Text, app.dirty = true;
    ImGui::Separator();
    if (app.input.spec.mode == InputMode::Synthetic) draw_synthetic(app);
    else draw_text(app);

    draw_heads_grid(app);
    ImGui::SeparatorText("display");
    if (ImGui::SliderInt("materialise up to n", &app.input.max_matrix_n, 16, 16384, "%d", ImGuiSliderFlags_Logarithmic))
        app.dirty = true;
    help_marker("Effective matrices P_eff (H·n² floats per variant) are built only up to this n. Above it the metrics "
                "and timings still appear, the heatmaps do not.");
    if (ImGui::SliderInt("texture side", &app.input.view_size, 64, 2048, "%d", ImGuiSliderFlags_Logarithmic))
        app.dirty = true;
    help_marker("Matrices larger than this are max-pooled to this many pixels per side for display (level of detail); "
                "hover values and exports always use the full matrix.");
    ImGui::InputText("export folder", &app.exports.dir);
    ImGui::SetItemTooltip("PNG, CSV and NPY exports are written here (relative to the working directory)");
    if (ImGui::Button("Reset input")) app.input.reset(), app.dirty = true;
    ImGui::End();
}

}  // namespace attnscope::gui

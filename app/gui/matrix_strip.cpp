// attnscope — what every Matrices cell shares, drawn once under the toolbar (see matrix_view.h): the colour scale,
// the reason legend and what one pixel of the heatmaps shows.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/gui/matrix_view.h"

namespace attnscope::gui {

namespace {

std::string short_number(double v) {
    char buf[32];
    if (v == 0) return "0";
    if (std::fabs(v) >= 0.01 && std::fabs(v) < 1000) std::snprintf(buf, sizeof buf, "%.3g", v);
    else std::snprintf(buf, sizeof buf, "%.1e", v);
    return buf;
}

ImU32 colour_u32(const std::array<float, 3>& c) { return ImGui::ColorConvertFloat4ToU32(ImVec4(c[0], c[1], c[2], 1)); }

std::array<float, 3> mixed(const std::array<float, 3>& a, const std::array<float, 3>& b, float t) {
    return {a[0] * (1 - t) + b[0] * t, a[1] * (1 - t) + b[1] * t, a[2] * (1 - t) + b[2] * t};
}

/// A legend swatch: the colours cells of this reason take, from a weak to a strong weight (the shader tints the
/// weight's colour with the reason's: a swatch of the reason's pure colour would not match the cells).
void reason_swatch(Reason r, float w, float h) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const auto& table = colormap_table(Colormap::Viridis);
    const auto tint = reason_rgb(r);
    for (int k = 0; k < 8; ++k) {
        std::array<float, 3> c = table[size_t(32 + k * 28)];
        if (r == Reason::None) c = mixed(c, tint, 0.85f);
        else if (r != Reason::Dense) c = mixed(c, tint, 0.55f);
        dl->AddRectFilled(ImVec2(p.x + w * k / 8, p.y), ImVec2(p.x + w * (k + 1) / 8, p.y + h), colour_u32(c));
    }
    dl->AddRect(p, ImVec2(p.x + w, p.y + h), IM_COL32(140, 140, 150, 255));
    ImGui::Dummy(ImVec2(w, h));
}

}  // namespace

ViewScale view_scale(const App& app, const VariantView& v, int plane, bool diff) {
    ViewScale s;
    const bool signed_head = v.is_signed(plane);
    s.diverging = diff || signed_head;
    s.map = s.diverging ? Colormap::Diverging : Colormap::Viridis;
    const MatrixViewState& vw = app.view;
    if (diff) {
        const bool robust = vw.robust_diff_scale && plane < int(v.diff_robust.size()) && v.diff_robust[size_t(plane)] > 0;
        s.vmax = robust ? v.diff_robust[size_t(plane)] : plane < int(v.diff_max.size()) ? v.diff_max[size_t(plane)] : 0;
        if (vw.shared_scale) s.vmax = std::max(s.vmax, vw.shared_diff_max), s.shared = true;
        s.label = "P_eff − P";
        if (vw.robust_diff_scale)
            s.note = "±" + std::to_string(int(std::lround(100 * kDiffScaleQuantile))) + "th percentile of |Δ|, larger saturate";
    } else if (signed_head) {
        if (plane < int(v.head_max.size()))
            s.vmax = std::max(std::fabs(v.head_min[size_t(plane)]), std::fabs(v.head_max[size_t(plane)]));
        s.label = v.auxiliary || (v.result && !v.result->structure.matrix_title.empty()) ? "value" : "P_eff (signed)";
    } else {
        s.vmax = plane < int(v.head_max.size()) ? v.head_max[size_t(plane)] : 0;
        if (vw.shared_scale) s.vmax = std::max(s.vmax, vw.shared_max), s.shared = true;
        s.label = vw.log_scale ? "P_eff (log)" : "P_eff";
    }
    if (!(s.vmax > 0)) s.vmax = 1e-12f;
    const bool log = vw.log_scale && !s.diverging;
    s.mode = s.diverging ? ScaleMode::Diverging : log ? ScaleMode::Log : ScaleMode::Linear;
    return s;
}

void colour_bar(const ViewScale& s, float width) {
    const float h = ImGui::GetTextLineHeight() * 0.7f;
    const double lo = s.diverging ? -s.vmax : s.mode == ScaleMode::Log ? s.vmax * std::pow(10.0, -4.0) : 0.0;
    ImGui::TextUnformatted(s.label.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("%s", s.mode == ScaleMode::Log ? ("≤" + short_number(lo)).c_str() : short_number(lo).c_str());
    ImGui::SameLine();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float y = p.y + (ImGui::GetTextLineHeight() - h) / 2;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const auto& table = colormap_table(s.map);
    constexpr int kSteps = 48;
    for (int k = 0; k < kSteps; ++k)
        dl->AddRectFilled(ImVec2(p.x + width * k / kSteps, y), ImVec2(p.x + width * (k + 1) / kSteps + 1, y + h),
                          colour_u32(table[size_t(k * 255 / (kSteps - 1))]));
    ImGui::Dummy(ImVec2(width, ImGui::GetTextLineHeight()));
    ImGui::SameLine();
    ImGui::TextDisabled("%s", short_number(s.vmax).c_str());
    if (!s.note.empty()) {
        ImGui::SameLine();
        ImGui::TextDisabled("(%s)", s.note.c_str());
        ImGui::SetItemTooltip("the scale ends there so a few large differences do not wash out the rest; View ▾ turns it "
                              "to the maximum |Δ|");
    }
}

void draw_shared_strip(App& app, const RunSnapshot& snap, const std::vector<ViewScale>& scales, float cells_per_pixel) {
    const MatrixViewState& vw = app.view;
    const auto same_line_if_fits = [](float w) {
        ImGui::SameLine(0, 16);
        if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
    };
    bool first = true;
    // The shared scale, once (the log scale's decades come from the toolbar), on the toolbar's line when it fits.
    for (size_t k = 0; k < scales.size(); ++k) {
        if (!scales[k].shared) continue;
        ViewScale s = scales[k];
        same_line_if_fits(ImGui::CalcTextSize((s.label + " ≤1.0e-04  1.0e+00 (4 decades)").c_str()).x + 160);
        colour_bar(s, 140);
        if (s.mode == ScaleMode::Log) {
            ImGui::SameLine();
            ImGui::TextDisabled("(%.0f decades)", vw.decades);
        }
        first = false;
        break;
    }
    // What a pixel shows.
    char what[160];
    if (cells_per_pixel > 1.05f)
        std::snprintf(what, sizeof what, "each pixel: %s of %.1f×%.1f cells%s",
                      vw.show_diff ? "the largest |Δ|, with its sign," : "max", cells_per_pixel, cells_per_pixel,
                      vw.show_mask ? "; the mask shows the most salient reason" : "");
    else if (cells_per_pixel > 0)
        std::snprintf(what, sizeof what, "each cell: %.1f×%.1f pixels", 1 / cells_per_pixel, 1 / cells_per_pixel);
    else
        what[0] = 0;
    if (what[0]) {
        if (first) same_line_if_fits(ImGui::CalcTextSize(what).x);  // else it starts the line under the scale
        ImGui::TextDisabled("%s", what);
        ImGui::SetItemTooltip("A pixel covering several cells shows the largest weight among them (differences and "
                              "signed matrices: the entry of largest magnitude), so a one-key column, a global row or "
                              "a diagonal stays visible at any size; zoom in (wheel) to see cells one by one.");
        first = false;
    }
    // Which heads every badge is over, once for all cells (compact cells leave their own scope badge out).
    const int heads = snap.heads->heads();
    if (heads > 1) {
        const std::string scope = vw.mean_badges ? "badges: mean over " + std::to_string(heads) + " heads"
                                                 : "badges: head " + std::to_string(std::clamp(vw.head, 0, heads - 1)) +
                                                       "'s own values";
        same_line_if_fits(ImGui::CalcTextSize(scope.c_str()).x);
        ImGui::TextDisabled("%s", scope.c_str());
        ImGui::SetItemTooltip("%s", vw.mean_badges
                                        ? "Each number in the badges is the mean over heads of every head's own value "
                                          "(density: over every head's cells); each badge's tooltip gives the drawn "
                                          "head's own. View ▾ → untick \"badges: mean over heads\" for the drawn head's."
                                        : "Each number in the badges is the drawn head's own (density: over every "
                                          "head's cells). View ▾ → \"badges: mean over heads\" for the means.");
        first = false;
    }
    // The reasons drawn in any view at its head.
    if (!vw.show_mask) return;
    uint32_t present = 0;  // bit r: reason r is drawn somewhere
    for (const VariantView& v : snap.variants) {
        if (v.auxiliary || !v.result) continue;
        const int plane = v.plane(std::clamp(vw.head, 0, snap.heads->heads() - 1));
        if (v.pooled_mask && plane < int(v.mask_reasons.size())) {
            present |= v.mask_reasons[size_t(plane)];
        } else {
            present |= 1u << int(Reason::Dense);
            if (v.result->causal) present |= 1u << int(Reason::None);
        }
    }
    if (present == 0) return;
    const float sw = ImGui::GetTextLineHeight() * 1.6f, sh = ImGui::GetTextLineHeight() * 0.7f;
    same_line_if_fits(ImGui::CalcTextSize("mask:").x + sw * 3);
    ImGui::TextDisabled("mask:");
    for (int r = 0; r < int(Reason::Count); ++r) {
        if (!(present & (1u << r))) continue;
        const char* name = r == 0 ? "not allowed" : reason_name(static_cast<Reason>(r));
        same_line_if_fits(sw + ImGui::CalcTextSize(name).x + 6);
        ImGui::SetCursorPosY(ImGui::GetCursorPosY() + (ImGui::GetTextLineHeight() - sh) / 2);
        reason_swatch(static_cast<Reason>(r), sw, sh);
        ImGui::SetItemTooltip("%s", reason_sentence(static_cast<Reason>(r)));
        ImGui::SameLine(0, 4);
        ImGui::TextUnformatted(name);
        ImGui::SetItemTooltip("%s", reason_sentence(static_cast<Reason>(r)));
    }
}

}  // namespace attnscope::gui

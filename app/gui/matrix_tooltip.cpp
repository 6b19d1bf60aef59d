// attnscope — the Matrices panel's hover tooltip (see matrix_view.h): the cell's query and key, every view's weight
// there and why each pattern allows it.
#include <imgui.h>

#include "core/variants/instance_label.h"
#include "core/variants/registry.h"
#include "app/gui/matrix_view.h"

namespace attnscope::gui {

namespace {

/// Why a cell is allowed: its reason (the swatch) and the sentence beside it.
struct Why {
    Reason reason;
    const char* sentence;
};

/// Why (i, j) is allowed for one run (i, j are positions): its mask's reason, else dense up to the causal diagonal.
Why why_allowed(const RunResult& r, int h, int i, int j) {
    if (r.structure.mask && h < r.structure.mask->heads && i < r.structure.mask->n && j < r.structure.mask->n) {
        const Reason m = r.structure.mask->at(h, i, j);
        return {m, reason_sentence(m)};
    }
    if (r.causal && j > i) return {Reason::None, "not allowed: causal (j > i)"};
    return {Reason::Dense, reason_sentence(Reason::Dense)};
}

}  // namespace

void cell_tooltip(const App& app, const RunSnapshot& snap, int head, int i, int j) {
    const Heads* heads = snap.heads.get();
    const int pi = position_of(snap, head, i), pj = position_of(snap, head, j);  // the cell's positions
    ImGui::BeginTooltip();
    ImGui::Text("query i = %s  →  key j = %s   (head %d)", position_label(heads, pi).c_str(),
                position_label(heads, pj).c_str(), head);
    if (!snap.display_perm.empty()) ImGui::TextDisabled("shown at row %d, column %d of the reordered view", i, j);
    if (ImGui::BeginTable("weights", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn("variant");
        ImGui::TableSetupColumn("weight P_eff_ij");
        ImGui::TableSetupColumn("why this cell is allowed");
        ImGui::TableHeadersRow();
        for (const auto& [causal, P] : snap.exact_P) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("exact softmax%s", causal ? " (causal)" : "");
            ImGui::TableNextColumn();
            ImGui::Text("%.4g", P->at(head, i, j));
            ImGui::TableNextColumn();
            ImGui::TextDisabled("reference P");
        }
        for (const auto& v : snap.variants) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(v.result ? instance_label(find_variant(v.id).info(), v.result->params).c_str()
                                   : v.name.empty() ? v.id.c_str() : v.name.c_str());
            if (v.auxiliary) {
                ImGui::TableNextColumn();
                if (v.matrix && v.plane(head) < v.matrix->heads()) ImGui::Text("%.4g", v.matrix->at(v.plane(head), i, j));
                ImGui::TableNextColumn();
                ImGui::TextDisabled("%s", v.title.c_str());
                continue;
            }
            ImGui::TableNextColumn();
            if (v.matrix && v.plane(head) < v.matrix->heads()) {
                const float w = v.matrix->at(v.plane(head), i, j);
                ImGui::Text("%.4g", w);
                if (app.view.show_diff) {
                    auto it = snap.exact_P.find(v.result->causal);
                    if (it != snap.exact_P.end()) {
                        ImGui::SameLine();
                        ImGui::TextDisabled("(Δ %+.2e)", w - it->second->at(head, i, j));
                    }
                }
            } else {
                ImGui::TextDisabled("—");
            }
            ImGui::TableNextColumn();
            if (v.result) {
                const Why why = why_allowed(*v.result, head, pi, pj);
                ImGui::ColorButton("##r", reason_color(why.reason), ImGuiColorEditFlags_NoTooltip, ImVec2(10, 10));
                ImGui::SameLine();
                ImGui::TextUnformatted(why.sentence);
                // The row of the head drawn, as the cell's weight beside it.
                const auto& recall = v.result->metrics.head_row_mass_recall;  // (H, n)
                const size_t at = size_t(head) * size_t(snap.heads->n()) + size_t(pi);
                if (at < recall.size()) {
                    ImGui::SameLine();
                    ImGui::TextDisabled("(row %d of head %d keeps %.1f%% of the exact mass)", pi, head, 100.0 * recall[at]);
                }
            } else {
                ImGui::TextDisabled("%s", v.error.empty() ? "—" : "failed");
            }
        }
        ImGui::EndTable();
    }
    ImGui::EndTooltip();
}

}  // namespace attnscope::gui

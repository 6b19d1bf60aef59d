// attnscope — Variants panel: add, remove, reorder variants; parameter widgets built from each ParamSpec.
#include <imgui.h>
#include <misc/cpp/imgui_stdlib.h>

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/gui/app.h"
#include "app/gui/panels.h"
#include "core/session/variant_json.h"
#include "core/variants/modifiers.h"
#include "core/variants/registry.h"
#include "core/session/session_file.h"

namespace attnscope::gui {

namespace {

/// Params without `name` (so an auto parameter goes back to its shape-dependent default).
Params without(const Params& p, const std::string& name) {
    Params out;
    for (const auto& [k, v] : p.numbers())
        if (k != name) out.set(k, v);
    for (const auto& [k, v] : p.lists())
        if (k != name) out.set_list(k, v);
    return out;
}

std::string list_text(const std::vector<int>& v) {
    std::string s;
    for (size_t k = 0; k < v.size(); ++k) s += (k ? "," : "") + std::to_string(v[k]);
    return s;
}

void spec_tooltip(const ParamSpec& p) {
    if (!ImGui::BeginItemTooltip()) return;
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
    ImGui::Text("%s  (%s)", p.symbol.c_str(), p.name.c_str());
    ImGui::TextUnformatted(p.help.c_str());
    ImGui::TextDisabled("range %s%s%s", describe_range(p).c_str(), p.auto_default ? "; default " : "",
                        p.auto_default ? p.auto_help.c_str() : "");
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

/// One widget for one spec; returns true when the value changed (and passed validation).
bool param_widget(VariantSlot& slot, const ParamSpec& p, const RunResult* resolved) {
    ImGui::PushID(p.name.c_str());
    bool changed = false;
    const std::string label = p.symbol.empty() ? p.name : p.symbol + "  " + p.name;
    if (p.auto_default) {
        bool is_auto = !slot.params.has(p.name);
        if (ImGui::Checkbox("##auto", &is_auto)) {
            if (is_auto) slot.params = without(slot.params, p.name);
            else slot.params.set(p.name, resolved && resolved->params.has(p.name) ? resolved->params.get(p.name)
                                                                                  : std::max(p.lo, p.def));
            changed = true;
        }
        ImGui::SetItemTooltip("auto: %s (depends on the input)", p.auto_help.c_str());
        ImGui::SameLine();
        if (is_auto) {
            const std::string shown = resolved && resolved->params.has(p.name)
                                          ? "auto " + p.auto_help + " = " + resolved->params.value_text(p)
                                          : "auto " + p.auto_help;
            ImGui::BeginDisabled();
            ImGui::Button(shown.c_str(), ImVec2(ImGui::CalcItemWidth(), 0));
            ImGui::EndDisabled();
            ImGui::SameLine();
            ImGui::TextUnformatted(label.c_str());
            spec_tooltip(p);
            ImGui::PopID();
            return changed;
        }
    }
    try {
        switch (p.kind) {
            case ParamKind::Real: {
                double v = slot.params.get_or(p.name, p.def);
                const bool log = p.log_scale || (p.lo > 0 && p.hi / p.lo >= 100);
                if (ImGui::SliderScalar(label.c_str(), ImGuiDataType_Double, &v, &p.lo, &p.hi, "%.4g",
                                        log ? ImGuiSliderFlags_Logarithmic : 0)) {
                    validate_param(slot.id, p, v);
                    slot.params.set(p.name, v), changed = true;
                }
                break;
            }
            case ParamKind::Int: {
                int v = static_cast<int>(slot.params.get_or(p.name, p.def));
                if (p.hi - p.lo > 100000) {
                    if (ImGui::InputInt(label.c_str(), &v)) {
                        validate_param(slot.id, p, v);
                        slot.params.set(p.name, v), changed = true;
                    }
                } else {
                    const int lo = int(p.lo), hi = int(p.hi);
                    const bool log = p.log_scale || (lo >= 1 && hi / std::max(lo, 1) >= 64);
                    if (ImGui::SliderInt(label.c_str(), &v, lo, hi, "%d", log ? ImGuiSliderFlags_Logarithmic : 0)) {
                        validate_param(slot.id, p, v);
                        slot.params.set(p.name, v), changed = true;
                    }
                }
                break;
            }
            case ParamKind::Bool: {
                bool v = slot.params.get_or(p.name, p.def) != 0;
                if (ImGui::Checkbox(label.c_str(), &v)) slot.params.set(p.name, v ? 1 : 0), changed = true;
                break;
            }
            case ParamKind::Choice: {
                const int v = static_cast<int>(slot.params.get_or(p.name, p.def));
                const char* current = v >= 0 && v < int(p.choices.size()) ? p.choices[v].c_str() : "?";
                if (ImGui::BeginCombo(label.c_str(), current)) {
                    for (size_t k = 0; k < p.choices.size(); ++k)
                        if (ImGui::Selectable(p.choices[k].c_str(), int(k) == v))
                            slot.params.set(p.name, double(k)), changed = true;
                    ImGui::EndCombo();
                }
                break;
            }
            case ParamKind::IntList: {
                std::string text = slot.params.lists().count(p.name) ? list_text(slot.params.get_list(p.name)) : p.list_default;
                if (ImGui::InputText(label.c_str(), &text, ImGuiInputTextFlags_EnterReturnsTrue)) {
                    const Params parsed = parse_params(slot.id, {p}, {{p.name, text}});
                    slot.params.set_list(p.name, parsed.get_list(p.name));
                    changed = true;
                }
                break;
            }
        }
        if (changed) slot.edit_error.clear();
    } catch (const Error& e) {
        slot.edit_error = e.what();
        changed = false;
    }
    spec_tooltip(p);
    ImGui::PopID();
    return changed;
}

}  // namespace

void draw_variants_panel(App& app, const PanelEntry& self) {
    if (!ImGui::Begin(self.window)) {
        ImGui::End();
        return;
    }
    const auto& all = all_variants();
    VariantsState& vs = app.variants;
    vs.add_choice = std::clamp(vs.add_choice, 0, int(all.size()) - 1);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    if (ImGui::BeginCombo("##add", all[vs.add_choice]->info().name.c_str())) {
        for (size_t k = 0; k < all.size(); ++k) {
            const VariantInfo& info = all[k]->info();
            if (ImGui::Selectable((info.name + "  (" + info.id + ")").c_str(), int(k) == vs.add_choice)) vs.add_choice = int(k);
            ImGui::SetItemTooltip("%s — %s", info.paper.c_str(), info.summary.c_str());
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    if (ImGui::Button("Add variant")) vs.add(all[vs.add_choice]->info().id), app.dirty = true;
    ImGui::TextDisabled("%zu registered: ", all.size());
    for (const auto& v : all) {
        ImGui::SameLine(0, 4);
        ImGui::TextDisabled("%s", v->info().id.c_str());
    }

    int remove = -1, move_from = -1, move_to = -1;
    for (size_t k = 0; k < vs.slots.size(); ++k) {
        VariantSlot& slot = vs.slots[k];
        const VariantInfo& info = find_variant(slot.id).info();
        ImGui::PushID(slot.uid);
        ImGui::Separator();
        const bool open = ImGui::TreeNodeEx("##slot", ImGuiTreeNodeFlags_DefaultOpen | ImGuiTreeNodeFlags_AllowOverlap,
                                            "%zu. %s", k + 1, info.name.c_str());
        ImGui::SetItemTooltip("%s (%s)\n%s", info.name.c_str(), info.paper.c_str(), info.summary.c_str());
        // Buttons on the right of the title when they fit, else on their own line.
        const float buttons_w = 2 * ImGui::GetFrameHeightWithSpacing() + ImGui::CalcTextSize("reset x").x + 30;
        const float title_w = ImGui::CalcTextSize(info.name.c_str()).x + ImGui::GetFontSize() * 3;
        if (ImGui::GetContentRegionMax().x - buttons_w > title_w) ImGui::SameLine(ImGui::GetContentRegionMax().x - buttons_w);
        else ImGui::Indent();
        if (ImGui::ArrowButton("up", ImGuiDir_Up) && k > 0) move_from = int(k), move_to = int(k) - 1;
        ImGui::SetItemTooltip("move left (earlier in the matrix row)");
        ImGui::SameLine();
        if (ImGui::ArrowButton("down", ImGuiDir_Down) && k + 1 < vs.slots.size()) move_from = int(k), move_to = int(k) + 1;
        ImGui::SetItemTooltip("move right");
        ImGui::SameLine();
        if (ImGui::SmallButton("reset")) {
            slot.params = default_params(info.params), slot.edit_error.clear();
            app.dirty = true;
        }
        ImGui::SetItemTooltip("reset every parameter of this variant to its default");
        ImGui::SameLine();
        if (ImGui::SmallButton("x")) remove = int(k);
        ImGui::SetItemTooltip("remove this variant");
        if (!(ImGui::GetContentRegionMax().x - buttons_w > title_w)) ImGui::Unindent();
        if (open) {
            ImGui::TextDisabled("%s — %s", info.id.c_str(), info.paper.c_str());
            const RunResult* resolved = nullptr;
            if (app.snap && k < app.snap->variants.size() && app.snap->variants[k].id == slot.id)
                resolved = app.snap->variants[k].result.get();
            ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
            bool has_modifier_params = false;
            for (const ParamSpec& p : info.params) {
                if (is_modifier_param(p.name)) {
                    has_modifier_params = true;
                    continue;
                }
                if (param_widget(slot, p, resolved)) app.dirty = true;
            }
            // Modifiers change the model; grouped so the variant's own parameters stay first and short.
            if (has_modifier_params &&
                ImGui::TreeNode("modifiers", "modifiers: %s", modifier_summary(slot.params).c_str())) {
                for (const ParamSpec& p : info.params)
                    if (is_modifier_param(p.name) && modifier_param_applies(p.name, slot.params) &&
                        param_widget(slot, p, resolved))
                        app.dirty = true;
                ImGui::TreePop();
            }
            ImGui::PopItemWidth();
            if (info.params.empty()) ImGui::TextDisabled("no parameters");
            if (!slot.edit_error.empty()) {
                ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.4f, 1));
                ImGui::TextWrapped("%s", slot.edit_error.c_str());
                ImGui::PopStyleColor();
            }
            ImGui::TreePop();
        }
        ImGui::PopID();
    }
    if (remove >= 0) vs.slots.erase(vs.slots.begin() + remove), app.dirty = true;
    if (move_from >= 0) std::swap(vs.slots[move_from], vs.slots[move_to]), app.dirty = true;
    if (vs.slots.empty()) hint_text("No variant selected: pick one above and press Add variant.");
    ImGui::Separator();
    if (ImGui::Button("Reset variants")) vs.reset(), app.dirty = true;
    ImGui::End();
}

void save_variants_session(const App& app, nlohmann::json& j) {
    std::vector<VariantRequest> requests;
    for (const auto& s : app.variants.slots) requests.push_back({s.id, s.params});
    session_variants_to_json(requests, j);
}

void load_variants_session(App& app, const nlohmann::json& j) {
    VariantsState vars;
    for (VariantRequest& request : session_variants_from_json(j)) {
        vars.add(request.id);
        vars.slots.back().params = std::move(request.params);
    }
    app.variants = vars;
}

}  // namespace attnscope::gui

// attnscope — the methods of the GUI state (app.h) and the small helpers every panel shares.
#include "app/gui/app.h"

#include <imgui.h>

#include <filesystem>

#include "core/lessons/lessons.h"
#include "core/session/session_file.h"
#include "core/variants/registry.h"

namespace attnscope::gui {

void VariantsState::add(const std::string& id) {
    const Variant& v = find_variant(id);
    VariantSlot slot;
    slot.id = id;
    slot.params = default_params(v.info().params);
    slot.uid = next_uid++;
    slots.push_back(std::move(slot));
    if (causal_default) set_causal_default(true);
}

void VariantsState::set_causal_default(bool causal) {
    causal_default = causal;
    for (VariantSlot& slot : slots) {
        const VariantInfo& info = find_variant(slot.id).info();
        if (find_param(info.params, "causal")) slot.params.set("causal", causal ? 1 : 0);
        else if (find_param(info.params, "bidirectional")) slot.params.set("bidirectional", causal ? 0 : 1);
    }
}

std::string kv_head_note(const RunSnapshot& snap, int head, bool brief) {
    const TextModelFacts& m = snap.input_info.model;
    if (m.kv_heads <= 0 || m.kv_heads >= m.heads || !snap.heads || snap.heads->heads() != m.heads) return "";
    const int group = m.heads / m.kv_heads, kv = head / group;
    if (brief) return " · KV " + std::to_string(kv);
    return ", reads KV head " + std::to_string(kv) + " with heads " + std::to_string(kv * group) + "-" +
           std::to_string(kv * group + group - 1);
}

void InputState::reset() {
    *this = InputState{};
    spec = default_session_input();
}

void VariantsState::reset() {
    *this = VariantsState{};
    for (const VariantRequest& request : default_session_variants()) add(request.id);
}

void App::post_batch() {
    RunBatchRequest r;
    r.input = effective_input();
    r.max_matrix_n = input.max_matrix_n;
    r.view_size = input.view_size;
    r.want_spectrum = spectrum.enabled && spectrum.visible;
    r.spectrum_head = view.head;
    if (run_on_cpu) r.backend = "cpu";
    r.display_order = view.order;
    r.display_round = view.order_round;
    for (const auto& s : variants.slots) r.variants.push_back({s.id, s.params});
    // A lesson that compares low-rank panels with the svd oracle shows their rank ceilings (an SVD per head of P).
    if (lesson.open && !lesson.id.empty()) {
        r.rank_ceilings = find_lesson(lesson.id).compares("rank_ceiling");
    }
    latency.on_post(runs.post(std::move(r)));
}

std::string position_label(const Heads* heads, int i) {
    std::string s = std::to_string(i);
    if (heads && i >= 0 && i < static_cast<int>(heads->tokens.size())) s += " '" + heads->tokens[i] + "'";
    return s;
}

std::string export_path(App& app, const std::string& name) {
    std::error_code ec;
    std::filesystem::create_directories(app.exports.dir, ec);
    if (ec) throw Error("cannot create the export folder '" + app.exports.dir + "': " + ec.message() +
                        " (choose another folder in Input → Export folder)");
    return (std::filesystem::path(app.exports.dir) / name).string();
}

void hint_text(const char* text) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.70f, 0.72f, 0.78f, 1));
    ImGui::TextWrapped("%s", text);
    ImGui::PopStyleColor();
}

}  // namespace attnscope::gui

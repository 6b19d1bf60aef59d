// attnscope — session files as JSON: the format's own keys (version, input, variants, the view a figure draws:
// core/session/session_file.h), each panel's keys (written and read through the panel table, panels.h), the lesson
// window and the dock layout.
// Written atomically (write_file_atomically); the last session is restored on start.
#include <imgui.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "core/session/session_file.h"
#include "app/gui/app.h"
#include "core/data/text_model.h"
#include "app/gui/panels.h"

namespace attnscope::gui {

std::string default_session_path() {
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::string(xdg) + "/attnscope/session.json";
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.config/attnscope/session.json";
    return "attnscope-session.json";
}

std::string keep_unreadable_session(const std::string& path) {
    std::string bad = path + ".bad";
    for (int k = 2; std::filesystem::exists(bad); ++k) bad = path + ".bad." + std::to_string(k);
    std::filesystem::copy_file(path, bad);
    return std::filesystem::path(bad).filename().string();
}

std::string session_to_json(const App& app) {
    nlohmann::json j;
    j["version"] = kSessionVersion;
    save_panels(app, j);
    lessons_to_json(app, j);
    if (ImGui::GetCurrentContext()) {
        size_t size = 0;
        const char* ini = ImGui::SaveIniSettingsToMemory(&size);
        j["layout"] = std::string(ini, size);
    }
    return j.dump(2);
}

void session_from_json(App& app, const std::string& text) {
    const nlohmann::json j = parse_session_text(text);
    try {
        load_panels(app, j);
        app.pending_layout = json_string(j, "layout", "", "the session file");
        lessons_from_json(app, j);
        // The saved variants keep their own causal values; variants added from now on follow the model.
        app.variants.causal_default = app.input.spec.mode == InputMode::Text && resolve_model(app.input.spec.model_dir).decoder;
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error(std::string("the session file has an unexpected shape (") + e.what() + "): fix or delete it");
    }
}

}  // namespace attnscope::gui

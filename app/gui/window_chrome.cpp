// attnscope — the window's chrome around the panels: menu bar, status bar, presentation keys, the dock space, and
// saving / loading the session file from the File menu.
#include "app/gui/window_chrome.h"

#include <epoxy/gl.h>
// GLFW after the GL loader so it does not pull in the system GL header first.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_internal.h>  // DockBuilder (default layout), BeginViewportSideBar (status bar)

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/gui/app.h"
#include "app/gui/dock_layout.h"
#include "app/gui/panel_figures.h"
#include "app/gui/panels.h"
#include "core/session/export.h"

namespace attnscope::gui {

void save_session(App& app, const std::string& path) {
    try {
        if (path.empty()) throw Error("no session file: start with --session FILE or use the default location");
        create_parent_folder(path);
        write_file_atomically(path, session_to_json(app));
        app.exports.message = "session saved to " + std::filesystem::path(path).filename().string();
        app.exports.message_is_error = false;
    } catch (const std::exception& e) {
        app.exports.message = std::string("could not save the session: ") + e.what();
        app.exports.message_is_error = true;
    }
}

bool load_session(App& app, const std::string& path) {
    bool opened = false;
    try {
        std::ifstream in(path);
        if (!in) throw Error("cannot open " + path + " (check the path)");
        opened = true;
        std::stringstream ss;
        ss << in.rdbuf();
        session_from_json(app, ss.str());
        app.dirty = true;
        // The file name only: the status bar shows in screenshots, and a full path is machine-specific (File lists it).
        app.exports.message = "session loaded from " + std::filesystem::path(path).filename().string();
        app.exports.message_is_error = false;
        return true;
    } catch (const std::exception& e) {
        app.exports.message = std::string("could not load the session: ") + e.what();
        app.exports.message_is_error = true;
        if (opened) {
            // Saving at exit would replace a hand-edited or half-written file with defaults: keep it first.
            try {
                app.exports.message += "; kept as " + keep_unreadable_session(path) +
                                       " (fix it there and load it with --session)";
            } catch (const std::exception& copy_error) {
                app.exports.message += std::string("; could not keep a copy (") + copy_error.what() +
                                       "): the session will not be saved over it";
                app.session_path.clear();
            }
        }
        return false;
    }
}

namespace {

/// File → Export figure of this panel (the panel worked in last) and of any other panel that draws data, with the
/// theme; each writes PNG and SVG into the export folder and the status bar says where.
void draw_figure_menu(App& app) {
    const figure::Theme theme = app.exports.dark_figures ? figure::Theme::Dark : figure::Theme::Light;
    const PanelEntry& focused = focused_panel(app);
    const std::string this_panel = std::string("Export figure of this panel (") + focused.window + ")";
    if (ImGui::MenuItem(this_panel.c_str(), nullptr, false, focused.figure != nullptr)) export_panel_figure(app, focused, theme);
    ImGui::SetItemTooltip("the panel as it shows now, as a slide: titles naming the instances, labelled axes, legend, PNG + "
                          "SVG (headless: attnscope figure --view …, docs/GUI.md)");
    if (ImGui::BeginMenu("Export figure of")) {
        for (const PanelEntry& p : panels())
            if (p.figure && ImGui::MenuItem(p.window)) export_panel_figure(app, p, theme);
        ImGui::Separator();
        ImGui::Checkbox("dark theme", &app.exports.dark_figures);
        ImGui::EndMenu();
    }
}

void draw_menu_bar(App& app, GLFWwindow* window) {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        const bool has_path = !app.session_path.empty();
        if (ImGui::MenuItem("Save session", nullptr, false, has_path)) save_session(app, app.session_path);
        if (ImGui::MenuItem("Load session", nullptr, false, has_path)) load_session(app, app.session_path);
        if (has_path) ImGui::TextDisabled("%s", app.session_path.c_str());
        ImGui::Separator();
        if (ImGui::MenuItem("Export window as PNG")) {
            try {
                app.captures.push_back({export_path(app, "attnscope-window.png"), ImVec4(0, 0, 0, 0)});
            } catch (const Error& e) {
                app.exports.message = e.what(), app.exports.message_is_error = true;
            }
        }
        draw_figure_menu(app);
        ImGui::Separator();
        if (ImGui::MenuItem("Reset everything to defaults")) reset_all_panels(app);
        if (ImGui::MenuItem("Quit") && app.options.self_test_frames == 0) glfwSetWindowShouldClose(window, 1);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        if (ImGui::MenuItem("Reset layout")) {
            app.lesson.layout_for.clear();
            build_default_layout(main_dockspace());
        }
        if (ImGui::MenuItem("Fit matrices")) app.view.fit_next = true;
        ImGui::MenuItem("Presentation mode", "F5", &app.view.presentation);
        ImGui::SetItemTooltip("only the matrices, filling the window (for a projector); F5 again to leave");
        if (ImGui::MenuItem("Larger text", "Ctrl +")) app.view.font_scale = std::min(kMaxFontScale, app.view.font_scale * 1.1f);
        if (ImGui::MenuItem("Smaller text", "Ctrl -")) app.view.font_scale = std::max(kMinFontScale, app.view.font_scale / 1.1f);
        if (ImGui::MenuItem("Text size 100%", "Ctrl 0")) app.view.font_scale = 1.0f;
        for (const PanelEntry& p : panels())
            if (ImGui::MenuItem(p.window)) ImGui::SetWindowFocus(p.window);
        ImGui::EndMenu();
    }
    draw_lessons_menu(app);
    ImGui::EndMainMenuBar();
}

void draw_status_bar(App& app) {
    const float h = ImGui::GetFrameHeight();
    if (ImGui::BeginViewportSideBar("##status", ImGui::GetMainViewport(), ImGuiDir_Down, h,
                                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoSavedSettings |
                                        ImGuiWindowFlags_MenuBar)) {
        if (ImGui::BeginMenuBar()) {
            const WorkerState st = app.runs.state();
            const char* state = st == WorkerState::Running ? "computing…"
                                : st == WorkerState::Failed ? "finished with errors (see the panels)"
                                : st == WorkerState::Done   ? "ready"
                                                            : "idle";
            ImGui::Text("%s", state);
            if (st == WorkerState::Running && app.snap && !app.snap->complete) {  // views already shown of this batch
                ImGui::Text("%d of %zu views", app.snap->views_shown(), app.snap->variants.size());
                if (const int awaiting = app.snap->views_awaiting_errors())
                    ImGui::Text("(%d awaiting errors against exact)", awaiting);
            }
            if (app.snap && app.snap->heads)
                ImGui::Text("| %s  n = %d  H = %d  d = %d  | %.2f s", app.snap->heads->source.c_str(),
                            app.snap->heads->n(), app.snap->heads->heads(), app.snap->heads->d(), app.snap->seconds);
            if (const auto job = app.runs.running_job()) {  // background work on the worker: what waits behind it
                const int queued = app.runs.queued_jobs();
                const std::string more = queued > 0 ? ", " + std::to_string(queued) + " more queued" : "";
                ImGui::Text("| %s %.0f%%%s", job->kind().c_str(), 100.0 * job->progress(), more.c_str());
            }
            if (!app.exports.message.empty()) {
                ImGui::TextColored(app.exports.message_is_error ? ImVec4(1, 0.45f, 0.4f, 1) : ImVec4(0.6f, 0.9f, 0.6f, 1),
                                   "| %s", app.exports.message.c_str());
            }
            ImGui::EndMenuBar();
        }
    }
    ImGui::End();
}

/// F5 toggles presentation mode; Ctrl + / Ctrl − / Ctrl 0 scale every font (the scale is saved in the session).
void handle_presentation_keys(App& app) {
    const ImGuiIO& io = ImGui::GetIO();
    if (!io.WantTextInput && ImGui::IsKeyPressed(ImGuiKey_F5, false)) app.view.presentation = !app.view.presentation;
    if (io.KeyCtrl) {
        float& scale = app.view.font_scale;
        if (ImGui::IsKeyPressed(ImGuiKey_Equal) || ImGui::IsKeyPressed(ImGuiKey_KeypadAdd)) scale *= 1.1f;
        if (ImGui::IsKeyPressed(ImGuiKey_Minus) || ImGui::IsKeyPressed(ImGuiKey_KeypadSubtract)) scale /= 1.1f;
        if (ImGui::IsKeyPressed(ImGuiKey_0) || ImGui::IsKeyPressed(ImGuiKey_Keypad0)) scale = 1.0f;
    }
    app.view.font_scale = std::clamp(app.view.font_scale, kMinFontScale, kMaxFontScale);
    ImGui::GetStyle().FontScaleMain = app.view.font_scale;
}

}  // namespace

void draw_frame(App& app, GLFWwindow* window) {
    handle_presentation_keys(app);
    draw_menu_bar(app, window);
    draw_status_bar(app);
    const ImGuiID dockspace = main_dockspace();
    if (!ImGui::DockBuilderGetNode(dockspace) || ImGui::DockBuilderGetNode(dockspace)->IsLeafNode())
        build_default_layout(dockspace);
    // The host window lies under every docked panel: its background would be one more full-window layer for software
    // GL to fill every frame (the frame's clear colour shows where no panel is docked).
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0, 0, 0, 0));
    ImGui::DockSpaceOverViewport(dockspace, ImGui::GetMainViewport());
    ImGui::PopStyleColor();
    draw_panels(app);
    // Windows dock on the frames after the layout is built; select tabs once they are docked.
    if (app.frame == 2 && !app.layout_loaded)
        for (const PanelEntry& p : panels())
            if (p.front) ImGui::SetWindowFocus(p.window);
    if (!app.panel_to_focus.empty() && app.frame >= 2) ImGui::SetWindowFocus(app.panel_to_focus.c_str());
    draw_lesson_panel(app);  // after the focus above, so a lesson's panels win
}

}  // namespace attnscope::gui

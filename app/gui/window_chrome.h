// attnscope — the window's chrome around the panels: menu bar, status bar, presentation keys and the dock space,
// and the session file as the File menu saves and loads it.
#pragma once
#include <string>

struct GLFWwindow;

namespace attnscope::gui {

struct App;

/// Writes the session to `path` (creating its folder); the status bar says where, or why it could not.
void save_session(App& app, const std::string& path);
/// Reads the session at `path` into `app`; on failure keeps the unreadable file as a .bad copy, says so in the
/// status bar and returns false.
bool load_session(App& app, const std::string& path);
/// One frame's chrome and panels: presentation keys, menu bar, status bar, the dock space and every panel.
void draw_frame(App& app, GLFWwindow* window);

}  // namespace attnscope::gui

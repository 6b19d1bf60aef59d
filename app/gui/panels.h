// attnscope — the one list of GUI panels. The View menu, the default dock layout, --panel, lesson presets, the
// Reset menu item, the session file and the self-test all read it, so a new panel is its file plus one row here.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>

namespace attnscope::gui {

struct App;

/// Where a panel docks in the default layout.
enum class DockSlot { Left, LeftBottom, Centre, Bottom };

/// One dockable window of the GUI.
struct PanelEntry {
    const char* window;        // window title: what the View menu lists and a lesson preset's "panels" names
    const char* alias;         // --panel value ("lsh", "spectrum", …)
    DockSlot slot;             // where the default layout docks it
    void (*draw)(App& app);    // draws the window (and starts its work) once per frame
    void (*reset)(App& app);   // returns its state to the defaults (File ▸ Reset everything)
    void (*save)(const App& app, nlohmann::json& session);  // writes its keys into the session (nullptr: none)
    /// Reads its keys from a session (nullptr: none); throws Error naming the key and what to fix, and then leaves
    /// its state as it was. Panels load in table order, so a panel may read the state of one above it.
    void (*load)(App& app, const nlohmann::json& session);
};

/// Every panel in draw order. Matrices comes last: its banner collects the errors the panels above found.
std::span<const PanelEntry> panels();

/// The panel whose alias or window title `name` is, or whose alias starts with it (case-insensitive);
/// throws Error listing the aliases when none matches.
const PanelEntry& find_panel(const std::string& name);

/// Draws every panel of the table, in order.
void draw_panels(App& app);

/// Resets the state of every panel, the lesson window and the exports (File ▸ Reset everything to defaults).
void reset_all_panels(App& app);

/// Every panel's keys of the session file.
void save_panels(const App& app, nlohmann::json& session);
/// Every panel's state from a session file, in table order.
void load_panels(App& app, const nlohmann::json& session);

}  // namespace attnscope::gui

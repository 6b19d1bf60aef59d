// attnscope — the one list of GUI panels. The View menu, the default dock layout, --panel, --list-panels, lesson
// presets, the Reset menu item, the session file, the screenshot wait, the self-test and the GUI smoke test all read
// it, so a new panel is its file, its state in app.h and one row in panels.cpp (docs/GUI.md).
#pragma once
#include <nlohmann/json_fwd.hpp>

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace attnscope::gui {

struct App;
struct PanelFigure;  // panel_figures.h

/// Where a panel docks in the default layout; Centre is the one panel presentation mode keeps.
enum class DockSlot { Left, LeftBottom, Centre, Bottom };

/// One dockable window of the GUI: everything the app, the CLI and the tests need to know about it.
struct PanelEntry {
    const char* window;  // window title: the only copy; the View menu lists it, a lesson preset's "panels" names it
    const char* alias;   // --panel value and the name the smoke test shoots it by ("lsh", "spectrum", …)
    DockSlot slot;       // where the default layout docks it
    bool front = false;  // its tab is in front of its dock node in the default layout
    /// Draws the window (and starts its work) once per frame; `self` is this row (its title is self.window).
    void (*draw)(App& app, const PanelEntry& self) = nullptr;
    void (*reset)(App& app) = nullptr;  // returns its state to the defaults (File ▸ Reset everything; nullptr: no state)
    void (*save)(const App& app, nlohmann::json& session) = nullptr;  // writes its session keys (nullptr: none)
    /// Reads its keys from a session (nullptr: none); throws Error naming the key and what to fix, and then leaves
    /// its state as it was. Panels load in table order, so a panel may read the state of one above it.
    void (*load)(App& app, const nlohmann::json& session) = nullptr;
    /// True while it computes something a screenshot must wait for (nullptr: never).
    bool (*busy)(const App& app) = nullptr;
    /// Its slide figure as it shows now (File → Export figure of this panel; nullptr: it draws no data).
    PanelFigure (*figure)(const App& app) = nullptr;
    /// The session keys save and load use: a top-level key, or "view.NAME" for one member of the "view" object
    /// the panels share (the Matrices panel owns the rest of it); unused entries stay null.
    std::array<const char*, 4> session_keys{};
};

/// Every panel in draw order. Matrices comes last: its banner collects the errors the panels above found.
std::span<const PanelEntry> panels();

/// The panel whose alias or window title `name` is, or whose alias starts with it (case-insensitive);
/// throws Error listing the aliases when none matches. For names a user typed.
const PanelEntry& find_panel(const std::string& name);

/// The panel whose alias is exactly `alias`: how code names one panel (its title lives only in the table);
/// throws Error for an alias the table lacks.
const PanelEntry& panel(std::string_view alias);

/// Draws every panel of the table, in order (presentation mode: the Centre panel only).
void draw_panels(App& app);

/// Resets the state of every panel, the lesson window and the exports (File ▸ Reset everything to defaults).
void reset_all_panels(App& app);

/// Every panel's keys of the session file.
void save_panels(const App& app, nlohmann::json& session);
/// Every panel's state from a session file, in table order.
void load_panels(App& app, const nlohmann::json& session);

/// True while any panel's busy() is (screenshots wait for it).
bool any_panel_busy(const App& app);

struct Badge;
/// The Perplexity panel's badge for the instance of Variants slot `slot` (its perplexity and change against the
/// exact decoder), when the panel's what-ifs are computed for the current input, slots and layers.
std::optional<Badge> perplexity_badge(const App& app, int slot);

}  // namespace attnscope::gui

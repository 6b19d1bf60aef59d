// `attnscope gui`: the desktop app (also what runs without a subcommand).
#include "app/cli/commands.h"
#include "core/error.h"

#ifdef ATTNSCOPE_HAVE_GUI
#include <iostream>

#include "app/gui/gui_app.h"
#include "app/gui/panel_list.h"
#include "app/gui/panels.h"
#endif

namespace attnscope::cli {

void add_gui_command(CLI::App& app, CommandAction& action) {
#ifdef ATTNSCOPE_HAVE_GUI
    auto o = std::make_shared<gui::GuiOptions>();
    auto* sub = app.add_subcommand("gui", "Start the desktop GUI (the default without a subcommand)");
    sub->add_option("--screenshot", o->screenshot_path, "Render headless-friendly, save a PNG screenshot and exit");
    sub->add_option("--frames", o->frames, "Frames to render before the screenshot")->capture_default_str();
    sub->add_option("--width", o->width, "Window width")->capture_default_str();
    sub->add_option("--height", o->height, "Window height")->capture_default_str();
    sub->add_option("--session", o->session_path, "Load this session JSON (default: the last session)");
    sub->add_option("--save-session", o->save_session_path, "After --screenshot, write the session JSON to this file");
    std::string aliases;
    for (const gui::PanelEntry& p : gui::panels()) aliases += (aliases.empty() ? "" : ", ") + std::string(p.alias);
    sub->add_option("--panel", o->panel, "Bring a panel to the front: " + aliases + " (see --list-panels)");
    auto list = std::make_shared<bool>(false), list_json = std::make_shared<bool>(false);
    auto* list_flag = sub->add_flag("--list-panels", *list,
                                    "Print every panel, one tab-separated line each (--panel alias, window title, "
                                    "whether it computes, session keys, whether it exports a figure), and exit; opens no window, needs "
                                    "no display");
    sub->add_flag("--json", *list_json, "With --list-panels: print JSON")->needs(list_flag);
    sub->add_option("--self-test-frames", o->self_test_frames,
                    "Drive the UI with random clicks, drags, zooms and parameter edits for N frames, then exit");
    sub->add_option("--seed", o->seed, "Seed of --self-test-frames")->capture_default_str();
    sub->add_option("--mouse-x", o->mouse_x, "Hold the mouse at this window x every frame (tooltip screenshots)");
    sub->add_option("--mouse-y", o->mouse_y, "Hold the mouse at this window y every frame (tooltip screenshots)");
    sub->add_option("--lesson", o->lesson, "Open with this lesson applied and its window shown (see `attnscope lesson`)");
    sub->add_option("--export-figure", o->export_figure,
                    "light or dark: once results are shown, write File → Export figure of this panel (PNG + SVG) of the "
                    "--panel panel (default Matrices) into the export folder");
    sub->add_flag("--presentation", o->presentation, "Start in presentation mode (F5): only the matrices");
    sub->add_option("--measure-latency", o->measure_latency,
                    "Type N edits into a ~128-token text with six variants, print the edit-to-views latency, exit");
    sub->add_option("--measure-pan", o->measure_pan,
                    "Pan the matrices N frames per zoom level (n = 16384 unless --session), hold them N frames, pan N frames "
                    "while the last variant computes again with a new seed, print frame times, exit");
    sub->add_option("--measure-first-view", o->measure_first_view,
                    "Make N edits of an n = 65536 input with five variants (unless --session), print edit-to-first-view and "
                    "edit-to-all-views times, exit; with --screenshot, capture the window while the later views compute");
    sub->add_option("--layout-json", o->layout_json_path,
                    "With --screenshot: also write where every panel and heatmap was drawn, the cells each heatmap shows, "
                    "how its pixels reduce them, its badges, and the open lesson's check (JSON)");
    sub->add_flag("--full-redraw", o->full_redraw,
                  "Redraw the whole window every frame (default: only the boxes whose contents changed; to compare "
                  "frame times, or if a driver shows stale pixels)");
    auto reduction = std::make_shared<std::string>("max");
    sub->add_option("--pixel-reduction", *reduction,
                    "max (default): a pixel covering several cells shows their largest weight and most salient reason; "
                    "nearest: one cell per pixel, as plain texture sampling would (to see what that hides)")
        ->check(CLI::IsMember({"max", "nearest"}));
    sub->callback([&action, o, reduction, list, list_json] {
        o->reduce_cells = *reduction == "max";
        if (*list)
            action = [list_json] {
                gui::print_panel_list(std::cout, *list_json);
                return 0;
            };
        else
            action = [o] { return gui::run_gui(*o); };
    });
#else
    auto* sub = app.add_subcommand("gui", "Start the desktop GUI (this build has none: configure with -DATTNSCOPE_GUI=ON)");
    sub->callback([&action] {
        action = []() -> int { throw Error("this build has no GUI: configure with -DATTNSCOPE_GUI=ON"); };
    });
#endif
}

}  // namespace attnscope::cli

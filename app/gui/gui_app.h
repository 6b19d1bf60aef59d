// attnscope — the desktop GUI entry point.
#pragma once
#include <string>

namespace attnscope::gui {

/// Command-line options of `attnscope gui`.
struct GuiOptions {
    std::string screenshot_path;  // when set: render `frames` frames, save a PNG, exit
    int frames = 30;              // frames rendered before the screenshot
    int width = 1600, height = 1000;
};

/// Opens the window and runs until closed (or until the screenshot is saved); returns the exit status.
/// Throws Error when no window can be created (e.g. no display), saying how to get one.
int run_gui(const GuiOptions& options);

}  // namespace attnscope::gui

// attnscope — the desktop GUI entry point.
#pragma once
#include "app/gui/gui_options.h"

namespace attnscope::gui {

/// Opens the window and runs until closed (or until the screenshot is saved); returns the exit status
/// (3 when a screenshot was taken while an error banner was shown). Throws Error when no window can be
/// created (e.g. no display), saying how to get one.
int run_gui(const GuiOptions& options);

}  // namespace attnscope::gui

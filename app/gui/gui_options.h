// attnscope — the options of `attnscope gui` (the state and the frame loop both read them).
#pragma once
#include <cstdint>
#include <string>

namespace attnscope::gui {

/// Command-line options of `attnscope gui`.
struct GuiOptions {
    std::string screenshot_path;  // when set: render at least `frames` frames, wait for results, save a PNG, exit
    int frames = 30;              // frames rendered before the screenshot
    int width = 1600, height = 1000;
    std::string session_path;     // load this session instead of the last one (and do not overwrite it)
    std::string save_session_path;  // after --screenshot: write the session here (round-trip tests)
    std::string panel;            // bring this panel to the front (an alias of `attnscope gui --list-panels`)
    int self_test_frames = 0;     // > 0: drive the UI with random input for this many frames, then exit
    uint64_t seed = 1;            // seed of the self-test
    float mouse_x = -1, mouse_y = -1;  // >= 0: hold the mouse here every frame (screenshots of hover tooltips)
    std::string lesson;           // apply this lesson's preset and show its window
    int measure_latency = 0;      // > 0: type this many edits into a ~128-token text, print the edit → views latency, exit
    std::string export_figure;    // "light" or "dark": once results are shown, the figure of the --panel panel (default
                                  // Matrices), as File → Export figure of this panel (before --screenshot)
    bool presentation = false;    // start in presentation mode (F5)
    int measure_pan = 0;          // > 0: pan a large matrix this many frames per zoom level, print frame times, exit
    int measure_first_view = 0;   // > 0: make this many edits of an n = 65536 input, print edit → first / all views, exit
    std::string layout_json_path; // with --screenshot: also write where every panel and heatmap was drawn (layout_record.h)
    bool reduce_cells = true;     // false (--pixel-reduction nearest): one cell per pixel, to show what it would hide
    bool full_redraw = false;     // redraw the whole window every frame (default: only what changed, partial_redraw.h)
};

}  // namespace attnscope::gui

// attnscope — the desktop GUI: window, frame loop, screenshots, self-test.
// Index: [SECTION] Window  [SECTION] Captures  [SECTION] Main loop
// (the state's methods: app.cpp; menu bar, status bar and session files: window_chrome.cpp)
#include "app/gui/gui_app.h"
#include "app/gui/panel_figures.h"
#include "app/gui/panels.h"
#include "core/bench/timing.h"
#include "core/figure/run_figure.h"
#include "core/data/samples.h"
#include "core/data/text_input.h"

#include <epoxy/gl.h>
// GLFW after the GL loader so it does not pull in the system GL header first.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <imgui_internal.h>  // DockBuilder (default layout), BeginViewportSideBar (status bar)
#include <implot.h>

#include <algorithm>
#include <cfloat>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/gui/app.h"
#include "app/gui/dock_layout.h"
#include "core/lessons/lessons.h"
#include "app/gui/measure.h"
#include "app/gui/frame_present.h"
#include "app/gui/partial_redraw.h"
#include "app/gui/self_test.h"
#include "app/gui/window_chrome.h"
#include "core/session/export.h"
#include "core/session/session_file.h"
#include "core/variants/registry.h"

namespace attnscope::gui {

// [SECTION] Window

namespace {

/// A run without a person at the window: it ends by itself.
bool is_headless(const GuiOptions& o) {
    return !o.screenshot_path.empty() || o.self_test_frames > 0 || o.measure_latency > 0 || o.measure_pan > 0 ||
           o.measure_first_view > 0;
}

void glfw_error(int code, const char* message) { std::fprintf(stderr, "glfw error %d: %s\n", code, message); }

GLFWwindow* open_window(const GuiOptions& o) {
    glfwSetErrorCallback(glfw_error);
    if (!glfwInit())
        throw Error("cannot open a window: no display found (set DISPLAY, or run under `xvfb-run -a attnscope gui`)");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    const bool headless = is_headless(o);
    if (headless) glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
    GLFWwindow* window = glfwCreateWindow(o.width, o.height, "attnscope", nullptr, nullptr);
    if (!window) {
        glfwTerminate();
        throw Error("cannot create an OpenGL 3.3 window: update the graphics driver or run under Mesa (llvmpipe)");
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(headless ? 0 : 1);
    return window;
}

/// A font with the Greek, arrows and maths glyphs of the paper notation (DejaVu Sans, Debian fonts-dejavu-core);
/// $ATTNSCOPE_FONT overrides it, and Dear ImGui's built-in font is the fallback (those glyphs then show as '?').
void load_font() {
    std::vector<std::string> candidates;
    if (const char* f = std::getenv("ATTNSCOPE_FONT"); f && *f) candidates.push_back(f);
    candidates.push_back("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
    candidates.push_back("/usr/share/fonts/TTF/DejaVuSans.ttf");
    candidates.push_back("/usr/share/fonts/dejavu/DejaVuSans.ttf");
    for (const auto& path : candidates)
        if (std::filesystem::exists(path) && ImGui::GetIO().Fonts->AddFontFromFileTTF(path.c_str(), 15.0f)) return;
}

// [SECTION] Captures

void read_rgb(int x, int y, int w, int h, int fb_h, std::vector<unsigned char>& out) {
    std::vector<unsigned char> rgb(static_cast<size_t>(w) * h * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(x, fb_h - y - h, w, h, GL_RGB, GL_UNSIGNED_BYTE, rgb.data());
    out.resize(rgb.size());
    for (int r = 0; r < h; ++r)
        std::copy_n(rgb.data() + static_cast<size_t>(h - 1 - r) * w * 3, w * 3, out.data() + static_cast<size_t>(r) * w * 3);
}

/// Saves the framebuffer (or a screen rectangle of it) as PNG; throws Error naming the path on failure.
void capture(GLFWwindow* window, const Capture& c) {
    int fw = 0, fh = 0, ww = 0, wh = 0;
    glfwGetFramebufferSize(window, &fw, &fh);
    glfwGetWindowSize(window, &ww, &wh);
    const float sx = ww > 0 ? float(fw) / ww : 1, sy = wh > 0 ? float(fh) / wh : 1;
    int x = 0, y = 0, w = fw, h = fh;
    if (c.rect.z > c.rect.x && c.rect.w > c.rect.y) {
        x = std::clamp(int(c.rect.x * sx), 0, fw - 1), y = std::clamp(int(c.rect.y * sy), 0, fh - 1);
        w = std::clamp(int((c.rect.z - c.rect.x) * sx), 1, fw - x), h = std::clamp(int((c.rect.w - c.rect.y) * sy), 1, fh - y);
    }
    std::vector<unsigned char> rgb;
    read_rgb(x, y, w, h, fh, rgb);
    write_rgb_png(c.path, w, h, rgb.data());
}

// [SECTION] Main loop

/// Frame period while the worker or a panel's job computes and no input arrives: the elapsed times and progress bars
/// tick at this rate. With software GL a frame costs as much CPU as a variant's run, so on 2 cores every frame drawn
/// while a batch computes delays its views; a view that finishes wakes the loop at once (wake_on_publish).
constexpr double kBusyFrameSeconds = 0.5;
/// Longest sleep of a window with nothing to do (no input, nothing computing): only a safety net, since input, the
/// worker's publishes and finished jobs all wake the loop.
constexpr double kIdleFrameSeconds = 2.0;
/// Sleep while the pointer rests on an item: a tooltip appears after a hover delay, and only a frame can show it.
constexpr double kHoverFrameSeconds = 0.1;
/// Frames drawn after the last change before the loop sleeps: Dear ImGui settles a layout change over a few frames.
constexpr int kSettleFrames = 3;

/// Something drives frames itself, so the loop must not sleep: the self-test's injected events, a pan measurement, a
/// pending capture, an edit not yet posted, or the first frames that build the layout.
bool frames_driven(const App& app) {
    const GuiOptions& o = app.options;
    return o.self_test_frames > 0 || o.measure_pan > 0 || !app.captures.empty() || app.dirty || app.frame <= 2;
}

/// Work whose progress the window shows is under way: the run batch, a panel's job, an export or a benchmark.
bool background_busy(const App& app) {
    return app.runs.state() == WorkerState::Running || any_panel_busy(app) || !app.export_jobs.empty() ||
           (app.bench && !app.bench->finished());
}

/// How long the loop may sleep before the next frame (0: draw at once): the renderer draws only when something
/// changed — input, a published view, a finished job — or when a clock it shows has moved.
double frame_wait_seconds(const App& app, bool headless, int quiet_frames) {
    if (frames_driven(app)) return 0;
    // A measurement or screenshot run times or waits on frames: only the batch's progress ticks are thinned there.
    if (app.runs.state() == WorkerState::Running) return kBusyFrameSeconds;
    if (headless) return 0;
    if (background_busy(app)) return kBusyFrameSeconds;
    if (quiet_frames < kSettleFrames) return 0;
    return ImGui::IsAnyItemHovered() ? kHoverFrameSeconds : kIdleFrameSeconds;
}

/// Rejects a bad --panel, --lesson or --export-figure theme before any window opens; returns the window title
/// --panel names ("" for none).
std::string check_options(const GuiOptions& o) {
    std::string focus;
    if (!o.panel.empty()) focus = find_panel(o.panel).window;
    if (!o.lesson.empty()) find_lesson(o.lesson);
    if (!o.export_figure.empty()) figure::parse_theme(o.export_figure);
    return focus;
}

/// Dear ImGui and ImPlot on `window`: docking, no ini file (the layout lives in the session), the project's style,
/// colormaps and font.
void init_imgui(GLFWwindow* window) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImPlot::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.ConfigFlags |= ImGuiConfigFlags_DockingEnable;
    io.IniFilename = nullptr;
    ImGui::StyleColorsDark();
    ImGui::GetStyle().FrameRounding = 3;
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    add_plot_colormaps();
    load_font();
}

/// Ends what init_imgui and open_window started.
void shutdown_imgui(GLFWwindow* window) {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImPlot::DestroyContext();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
}

/// The state the run starts from: defaults, then the session (--session, or the last one when a person is at the
/// window), a --lesson on top of it and the session's dock layout. `status` becomes 2 when a headless run's
/// --session cannot be read.
std::unique_ptr<App> make_app(const GuiOptions& o, const std::string& focus, bool headless, int& status) {
    auto app = std::make_unique<App>();
    app->options = o;
    app->panel_to_focus = focus;
    app->input.reset();
    app->variants.reset();
    app->renderer.init();
    app->renderer.set_reduce_cells(o.reduce_cells);
    if (o.self_test_frames > 0) {
        const char* dir = std::getenv("ATTNSCOPE_EXPORT_DIR");
        app->exports.dir = dir && *dir ? dir : (std::filesystem::temp_directory_path() / "attnscope-self-test").string();
        app->perf.n_max_log2 = 9;
    }
    if (!o.session_path.empty()) {
        app->session_path = o.session_path;
        if (!load_session(*app, o.session_path)) {
            std::fprintf(stderr, "%s\n", app->exports.message.c_str());
            if (headless) status = 2;
        }
    } else if (!headless) {
        app->session_path = default_session_path();
        if (std::filesystem::exists(app->session_path)) load_session(*app, app->session_path);
    }
    if (!o.lesson.empty()) apply_lesson(*app, o.lesson);
    if (o.presentation) app->view.presentation = true;
    if (!app->pending_layout.empty()) {
        app->layout_loaded = true;
        ImGui::LoadIniSettingsFromMemory(app->pending_layout.c_str(), app->pending_layout.size());
        app->pending_layout.clear();
    }
    return app;
}

/// Frees the GL objects the App holds (before the context goes) and saves the session of a run a person used.
void close_app(App& app, bool headless) {
    if (!headless && !app.session_path.empty()) save_session(app, app.session_path);
    for (auto& pair : app.textures)
        for (auto& t : pair) t.release();
    for (auto& t : app.head_thumbs) t.release();
    app.renderer.shutdown();
}

/// The self-test's bounds; tests tighten them through ATTNSCOPE_SELF_TEST_* to prove each invariant can fail
/// (tests/gui/smoke_session.sh).
SelfTestLimits self_test_limits() {
    SelfTestLimits limits;
    if (const char* v = std::getenv("ATTNSCOPE_SELF_TEST_WEDGE_S")) limits.wedge_seconds = std::atof(v);
    if (const char* v = std::getenv("ATTNSCOPE_SELF_TEST_MAX_RSS_MIB")) limits.max_resident_bytes = std::atoll(v) << 20;
    if (const char* v = std::getenv("ATTNSCOPE_SELF_TEST_MAX_TRACKED_MIB")) limits.max_tracked_bytes = std::atoll(v) << 20;
    limits.inject_false_error = std::getenv("ATTNSCOPE_SELF_TEST_INJECT_FALSE_ERROR") != nullptr;
    return limits;
}

/// Wakes the throttled loop when a batch's first view is done and when the batch ends.
void wake_on_publish(App& app) {
    // Later partial views are drawn by the 10 Hz busy redraw. Each wake renders a frame, and with software GL on 2
    // cores a frame per published view (start and finish of each of six variants) takes the CPU the batch needs
    // (docs/PERFORMANCE.reasons.md).
    app.runs.set_on_publish([app = &app] {
        static std::atomic<uint64_t> first_view_generation{~uint64_t(0)};
        bool first_view = false;
        if (const auto snap = app->runs.run_snapshot(); snap && first_view_generation.load() != snap->generation)
            for (const auto& v : snap->variants)
                if (v.state == ViewState::Done) {
                    first_view_generation = snap->generation, first_view = true;
                    break;
                }
        if (first_view || app->runs.state() != WorkerState::Running) glfwPostEmptyEvent();
    });
}

/// One run of the frame loop: what its steps share from frame to frame.
struct FrameLoop {
    FrameLoop(const GuiOptions& options, GLFWwindow* w, App& a, bool is_headless, int start_status)
        : o(options), window(w), app(a), headless(is_headless), self_test(options.seed, self_test_limits()),
          measurement(options), status(start_status), presenter(w, !options.full_redraw) {}
    const GuiOptions& o;
    GLFWwindow* window;
    App& app;
    bool headless;                      // no person at the window: a screenshot, self-test or measurement run
    SelfTest self_test;
    Measurement measurement;            // --measure-latency / --measure-pan / --measure-first-view (measure.cpp)
    const std::chrono::steady_clock::time_point t_start = std::chrono::steady_clock::now();
    int status;                         // the exit status; the loop stops when it is not 0
    int settled = 0;                    // frames in a row with nothing left to wait for (screenshot)
    double last_frame_start = 0;        // [s, GLFW time]
    int quiet_frames = 0;               // frames in a row in which nothing changed (the loop sleeps after a few)
    bool input_arrived = false;         // this frame's events brought input
    bool woken = false;                 // the sleep before this frame ended early (the worker's wake, an empty event)
    std::shared_ptr<const RunSnapshot> last_snap;  // the snapshot the previous frame showed
    bool figure_exported = false;       // --export-figure done
    int figure_settled = 0;             // frames in a row whose figure inputs were final (--export-figure)
    FramePresenter presenter;           // copies the boxes drawn to the window, or swaps whole frames
    PartialRedraw redraw;               // draws only what changed, when the presenter keeps the back buffer
    std::vector<PixelBox> drawn;        // the boxes this frame drew
    int fb_w = 0, fb_h = 0;             // this frame's framebuffer size
    std::string redraw_broken;          // self-test: how drawing broke (pyramid, partial redraw, copy; "" while sound)
};

/// The frame loop's renderer: heatmap callbacks described, the test faults of ATTNSCOPE_SELF_TEST_BREAK_REDRAW and
/// ATTNSCOPE_SELF_TEST_BREAK_PRESENT, and the self-test's pyramid check.
void init_redraw(FrameLoop& l) {
    l.redraw.describe_callback(HeatmapRenderer::draw_callback(), &HeatmapRenderer::footprint);
    l.redraw.forget_old_boxes(l.o.self_test_frames > 0 && std::getenv("ATTNSCOPE_SELF_TEST_BREAK_REDRAW") != nullptr);
    l.presenter.skip_copies(l.o.self_test_frames > 0 && std::getenv("ATTNSCOPE_SELF_TEST_BREAK_PRESENT") != nullptr);
    if (l.o.self_test_frames > 0) l.redraw_broken = pyramid_paths_broken(l.app.renderer.pyramids(), l.o.seed);  // self_test.h
}

/// Waits when the loop may sleep, polls events and starts an ImGui frame with the self-test's or --mouse-x/y's
/// input; returns whether it waited. `frame_start` is when the frame began [s, GLFW time].
bool start_frame(FrameLoop& l, double& frame_start) {
    const double wait = frame_wait_seconds(l.app, l.headless, l.quiet_frames);
    const bool waited = wait > 0;
    const double sleep = waited ? std::max(0.0, wait - (glfwGetTime() - l.last_frame_start)) : 0.0;
    if (sleep > 0) glfwWaitEventsTimeout(sleep);
    frame_start = glfwGetTime();
    l.woken = sleep > 0 && frame_start - l.last_frame_start < wait - 1e-3;
    l.last_frame_start = frame_start;
    glfwPollEvents();
    // The platform backend queued whatever arrived (keys, pointer, focus, resize): a change to draw.
    l.input_arrived = !GImGui->InputEventsQueue.empty();
    int w = 0, h = 0;
    glfwGetWindowSize(l.window, &w, &h);
    if (l.o.self_test_frames > 0) l.self_test.inject(l.app, w, h);
    if (l.o.mouse_x >= 0 && l.o.mouse_y >= 0) ImGui::GetIO().AddMousePosEvent(l.o.mouse_x, l.o.mouse_y);
    // A headless picture without --mouse-x/y, or typed edits being timed: no pointer at all (Xvfb puts it at the
    // centre, where it would hover a matrix and redraw its tooltip in every frame of the screenshot or the edit).
    else if ((!l.o.screenshot_path.empty() || l.o.measure_latency > 0 || l.o.measure_first_view > 0) &&
             l.o.self_test_frames == 0)
        ImGui::GetIO().AddMousePosEvent(-FLT_MAX, -FLT_MAX);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    return waited;
}

/// Moves each finished file export's message to the status bar.
void collect_exports(App& app) {
    for (auto it = app.export_jobs.begin(); it != app.export_jobs.end();) {
        if (!(*it)->finished()) {
            ++it;
            continue;
        }
        const auto [message, ok] = (*it)->result().value_or(ExportMessage{"export cancelled", false});
        app.exports.message = message, app.exports.message_is_error = !ok;
        it = app.export_jobs.erase(it);
    }
}

/// Before the panels draw: the newest snapshot and sweep report, an edit's batch posted, and what every frame
/// records anew (layout record, banner, hover) cleared.
void update_app(FrameLoop& l, double frame_start, bool waited) {
    App& app = l.app;
    if (app.runs.state() == WorkerState::Running && app.frame > 2 && !waited)  // a throttled frame's delta is the wait
        app.busy_frame_ms.push_back(ImGui::GetIO().DeltaTime * 1000.0f);
    app.snap = app.runs.run_snapshot();
    app.bench_report = app.bench ? app.bench->report() : nullptr;
    l.measurement.before_frame(app);
    if (app.dirty) app.latency.note_edit(frame_start);
    // During a sweep the worker computes the batch between two of its runs, never beside one.
    if (app.dirty) {
        app.post_batch();
        app.dirty = false;
    }
    app.renderer.begin_frame();
    app.layout_record.clear();
    app.banner.clear();
    app.view.shown_i = app.view.hover_i, app.view.shown_j = app.view.hover_j;
    app.view.hover_i = app.view.hover_j = -1;
    collect_exports(app);
}

/// Renders the frame and takes the captures asked for during it; returns whether the frame was presented (software
/// GL makes that expensive: the self-test exercises the UI logic every frame and the GL path every 4th).
bool render_frame(FrameLoop& l) {
    App& app = l.app;
    ImGui::Render();
    int& fw = l.fb_w;
    int& fh = l.fb_h;
    glfwGetFramebufferSize(l.window, &fw, &fh);
    const bool present = l.o.self_test_frames == 0 || app.frame % 4 == 0 || !app.captures.empty();
    l.drawn.clear();
    if (present && fw > 0 && fh > 0) {
        l.drawn = l.redraw.render(ImGui::GetDrawData(), fw, fh, !l.presenter.keeps_back_buffer());
        // The self-test's invariant: what the back buffer holds is what drawing everything would show.
        if (l.o.self_test_frames > 0 && l.redraw_broken.empty())
            if (const int64_t n = l.redraw.pixels_differing_from_full_redraw(ImGui::GetDrawData()); n > 0)
                l.redraw_broken = "the partial redraw differs from a full redraw in " + std::to_string(n) +
                                  " pixels (partial_redraw.h: a changed list's box was not drawn again)";
    }
    for (const Capture& c : app.captures) {
        try {
            capture(l.window, c);
            app.exports.message = "saved " + c.path, app.exports.message_is_error = false;
        } catch (const std::exception& e) {
            app.exports.message = e.what(), app.exports.message_is_error = true;
        }
    }
    app.captures.clear();
    return present;
}

/// What a figure export reads is final: the frame's snapshot is the newest and complete, the frame's sweep report is
/// the newest, and nothing that feeds a panel still computes. The snapshot and report were copied when the frame
/// began, so the live state alone can say "done" about data this frame never saw.
bool figure_inputs_final(const App& app) {
    if (!app.snap || !app.snap->complete || app.runs.run_snapshot() != app.snap) return false;
    if (app.bench && app.bench->report() != app.bench_report) return false;
    return app.runs.state() != WorkerState::Running && !app.dirty && !any_panel_busy(app);
}

/// --export-figure: File → Export figure of the --panel panel once, after the --frames frames, when the inputs have
/// been final for a few frames in a row (so the panels have drawn from them at least once, as for a screenshot).
void export_figure_when_ready(FrameLoop& l) {
    if (l.o.export_figure.empty() || l.figure_exported || l.app.frame + 1 < l.o.frames) return;
    l.figure_settled = figure_inputs_final(l.app) ? l.figure_settled + 1 : 0;
    if (l.figure_settled < 3) return;
    const PanelEntry& shown = l.o.panel.empty() ? panel("matrices") : find_panel(l.o.panel);
    export_panel_figure(l.app, shown, figure::parse_theme(l.o.export_figure));
    l.figure_exported = true;
}

/// Something the screenshot must show is still on its way: the batch, exports, the figure, an edit, the lesson's
/// check or any panel's work (its row's busy).
bool screenshot_waits(const FrameLoop& l) {
    const App& app = l.app;
    return app.runs.state() == WorkerState::Running || !app.export_jobs.empty() ||
           (!l.o.export_figure.empty() && !l.figure_exported) || app.dirty || lesson_check_busy(app) ||
           any_panel_busy(app);
}

/// What a screenshot run prints after a picture without an error banner: the status bar, the lesson and sweep, the
/// hovered cell (--mouse-x/y) and the frame times while computing.
void print_screenshot_report(const App& app, const GuiOptions& o) {
    std::printf("gui: saved %s (no error banner)\n", o.screenshot_path.c_str());
    std::printf("gui: status bar message: %s\n", app.exports.message.c_str());
    if (const std::string l = lessons_status(app); !l.empty()) std::printf("gui: %s\n", l.c_str());
    if (o.mouse_x >= 0)
        std::printf("gui: mouse (%.0f, %.0f) over window '%s', cell i = %d, j = %d\n", ImGui::GetIO().MousePos.x,
                    ImGui::GetIO().MousePos.y, GImGui->HoveredWindow ? GImGui->HoveredWindow->Name : "none",
                    app.view.shown_i, app.view.shown_j);
    const auto& ms = app.busy_frame_ms;
    if (!ms.empty()) {
        const TimingStats t = summarize_times(std::vector<double>(ms.begin(), ms.end()));
        std::printf("gui: %zu frames drawn while computing: median %.1f ms, p95 %.1f ms, max %.1f ms\n", ms.size(),
                    t.median_ms, t.p95_ms, t.max_ms);
    }
}

/// Saves the screenshot with its layout record (--layout-json) and session (--save-session), and sets the exit
/// status: 2 when the session cannot be written, 3 when an error banner was shown.
void take_screenshot(FrameLoop& l) {
    App& app = l.app;
    const GuiOptions& o = l.o;
    capture(l.window, {o.screenshot_path, ImVec4(0, 0, 0, 0)});
    if (!o.layout_json_path.empty()) {
        nlohmann::json layout = layout_json(app.layout_record);
        layout["lesson"] = lesson_check_json(app);
        layout["screenshot"] = o.screenshot_path;
        write_file_atomically(o.layout_json_path, layout.dump(1));
    }
    if (!o.save_session_path.empty()) {
        save_session(app, o.save_session_path);
        if (app.exports.message_is_error) {
            std::fprintf(stderr, "%s\n", app.exports.message.c_str());
            l.status = 2;
        }
    }
    if (l.status == 0 && app.banner_was_shown) {
        std::fprintf(stderr, "gui: screenshot taken with an error banner:");
        for (const auto& b : app.banner) std::fprintf(stderr, " %s", b.c_str());
        std::fprintf(stderr, "\n");
        l.status = 3;
    } else if (l.status == 0) {
        print_screenshot_report(app, o);
    }
}

/// --screenshot, after the --frames frames: takes the picture once nothing is left to wait for (a few settled
/// frames for hover and layout) or after 300 s (the streaming-llm lesson's check runs the decoder over 4 700 tokens
/// for about two minutes); returns true when it was taken and the loop ends.
bool screenshot_step(FrameLoop& l) {
    const GuiOptions& o = l.o;
    if (o.screenshot_path.empty() || o.measure_first_view != 0 || l.app.frame + 1 < o.frames) return false;
    const bool busy = screenshot_waits(l);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - l.t_start).count();
    l.settled = busy ? 0 : l.settled + 1;
    if (l.settled >= 6 || waited > 300) {
        take_screenshot(l);
        return true;
    }
    if (busy) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return false;
}

/// --self-test-frames: the invariants after this frame (exit 4 when one broke) and the summary after the last
/// frame; returns true when the loop ends.
bool self_test_step(FrameLoop& l) {
    const GuiOptions& o = l.o;
    if (o.self_test_frames <= 0) return false;
    if (const std::string broken = l.redraw_broken.empty() ? l.self_test.check(l.app) : l.redraw_broken;
        !broken.empty()) {
        std::fprintf(stderr, "self-test: invariant broken at frame %d (seed %llu): %s\n", l.app.frame,
                     static_cast<unsigned long long>(o.seed), broken.c_str());
        l.status = 4;
        return true;
    }
    if (l.app.frame + 1 >= o.self_test_frames) {
        const RedrawStats& r = l.redraw.stats();
        std::printf("self-test: seed %llu: %s; %lld frames drawn, %lld of them whole, %.0f%% of the pixels redrawn "
                    "on average, each equal to a full redraw%s; every invariant held\n",
                    static_cast<unsigned long long>(o.seed), l.self_test.summary(l.app).c_str(),
                    static_cast<long long>(r.frames), static_cast<long long>(r.full_frames),
                    r.frames ? 100.0 * r.redrawn_fraction_sum / double(r.frames) : 0.0,
                    l.presenter.keeps_back_buffer() ? " and to the window's pixels" : "");
        return true;
    }
    return false;
}

/// After the frame: presents it, holds the window to 4 frames a second while a benchmark measures, and tells the
/// latency bookkeeping and the measurement what was shown; returns true when a measurement ends the loop.
bool finish_frame(FrameLoop& l, double frame_start, bool present) {
    App& app = l.app;
    if (present) {
        l.presenter.present(l.drawn, l.fb_w, l.fb_h);
        // The self-test's invariant: what the window shows is the frame drawn.
        if (l.o.self_test_frames > 0 && l.presenter.keeps_back_buffer() && l.redraw_broken.empty())
            if (const int64_t n = l.presenter.pixels_front_differs_from_back(l.fb_w, l.fb_h); n > 0)
                l.redraw_broken = "the window shows " + std::to_string(n) +
                                  " pixels other than the frame drawn (frame_present.h: a box drawn was not copied)";
    }
    // Software rendering would otherwise take a core from the timed runs (the Performance panel says so beside its
    // times).
    if (app.bench && !app.bench->finished() && !l.headless) {
        const double spare = 0.25 - (glfwGetTime() - frame_start);
        if (spare > 0) glfwWaitEventsTimeout(spare);
    }
    if (app.snap) {
        bool any_view = false;
        for (const auto& v : app.snap->variants) any_view = any_view || v.state == ViewState::Done;
        app.latency.on_shown(app.snap->generation, glfwGetTime(), app.snap->complete, any_view);
    }
    if (l.measurement.after_frame(app, (glfwGetTime() - frame_start) * 1000.0)) {
        l.status = l.measurement.exit_status();
        return true;
    }
    return false;
}

/// Runs frames until the window closes, the status is set, or a screenshot, self-test or measurement is done.
void run_frames(FrameLoop& l) {
    App& app = l.app;
    for (app.frame = 0; l.status == 0 && !glfwWindowShouldClose(l.window); ++app.frame) {
        double frame_start = 0;
        const bool waited = start_frame(l, frame_start);
        update_app(l, frame_start, waited);
        draw_frame(app, l.window);
        // An edit made by a widget this frame: its input event arrived before the frame started.
        if (app.dirty) app.latency.note_edit(frame_start);
        const bool changed = l.input_arrived || l.woken || app.snap != l.last_snap || app.dirty;
        l.quiet_frames = changed ? 0 : l.quiet_frames + 1;
        l.last_snap = app.snap;
        app.banner_was_shown = !app.banner.empty();
        const bool present = render_frame(l);
        export_figure_when_ready(l);
        if (screenshot_step(l) || self_test_step(l) || finish_frame(l, frame_start, present)) break;
    }
}

}  // namespace

int run_gui(const GuiOptions& o) {
    const bool headless = is_headless(o);
    const std::string focus = check_options(o);  // before a window opens
    GLFWwindow* window = open_window(o);
    init_imgui(window);
    int status = 0;
    {
        const std::unique_ptr<App> app = make_app(o, focus, headless, status);
        FrameLoop loop(o, window, *app, headless, status);
        init_redraw(loop);
        wake_on_publish(*app);
        run_frames(loop);
        status = loop.status;
        loop.redraw.shutdown();
        close_app(*app, headless);
    }
    shutdown_imgui(window);
    return status;
}

}  // namespace attnscope::gui

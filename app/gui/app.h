// attnscope — GUI state: plain structs with reset(), one per panel, plus the App that owns the workers.
// Panels (app/gui/panel_*.cpp) read the newest worker snapshot and edit these structs; they never compute.
// Index: [SECTION] Panel state  [SECTION] Layer grid  [SECTION] Latency  [SECTION] Lessons and sweeps state
//        [SECTION] Analysis views  [SECTION] App  [SECTION] Panels  [SECTION] Lessons and sweeps  [SECTION] Session
#pragma once
#include <imgui.h>

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/analysis/block_tiles.h"
#include "core/analysis/layer_spectra.h"
#include "core/bench/bench_job.h"
#include "core/bench/cost_model.h"
#include "core/backend/factory/make_backend.h"
#include "core/figure/figure.h"
#include "core/session/error_cost.h"
#include "core/session/head_mass.h"
#include "core/session/streaming_view.h"
#include "core/session/worker.h"
#include "app/gui/gl_heatmap.h"
#include "app/gui/gui_options.h"
#include "app/gui/layout_record.h"
#include "app/gui/view_job.h"

namespace attnscope::gui {

// [SECTION] Panel state

/// Input panel: where Q/K/V come from.
struct InputState {
    InputSpec spec;             // scenario, text or loaded tensors
    std::string tensors_edit;   // the path box of "Loaded tensors" (spec.tensors_path changes on Load)
    std::string model_edit;     // the path box of "your own model" (spec.model_dir changes on Load)
    int max_matrix_n = 4096;    // materialise P_eff up to this n
    int view_size = 1024;       // pooled texture side
    /// First start: the default sample text through the encoder when the model is installed, else a
    /// synthetic scenario (the Input panel then says how to install the model).
    void reset();
};

/// One selected variant with the values the user set (unset auto parameters stay unset).
struct VariantSlot {
    std::string id;          // variant id
    Params params;           // user values on top of defaults
    std::string edit_error;  // last rejected edit, shown under the widget
    int uid = 0;             // stable ImGui id across reorders
};

/// Variants panel: the ordered selection.
struct VariantsState {
    std::vector<VariantSlot> slots;
    int next_uid = 1;
    int add_choice = 0;  // index into all_variants() of the "add" combo
    bool causal_default = false;  // the input is a decoder's text: variants are added (and switched) causal
    /// Adds a variant with default parameters (causal when causal_default).
    void add(const std::string& id);
    /// Makes `causal` the default and sets every slot's causal form to it (causal=1, or bidirectional=0, where the
    /// variant has one): switching between the encoder and a decoder switches the variants with it.
    void set_causal_default(bool causal);
    void reset();
};

/// Matrix panels: shared view (linked zoom/pan and hover) and display toggles.
struct MatrixViewState {
    int head = 0;                  // head shown
    bool show_mask = true;         // reason overlay
    bool show_diff = false;        // P_eff − P (diverging)
    bool log_scale = true;         // log10 colour scale
    float decades = 4;             // log range
    bool shared_scale = true;      // one colour scale across panels
    float shared_max = 0, shared_diff_max = 0;  // this frame's common top of the scale (derived, not saved)
    double x_min = 0, x_max = 1, y_min = 0, y_max = 1;  // linked plot limits (keys on x, queries on y)
    bool fit_next = true;          // re-fit limits to the matrix on the next frame
    int fitted_n = 0;              // n the limits were last fitted to (a new n re-fits)
    int hover_i = -1, hover_j = -1;  // cell hovered this frame in any panel or token strip (-1 = none)
    int shown_i = -1, shown_j = -1;  // last frame's hover: what crosshairs and highlights show
    int columns = 0;               // 0 = automatic
    DisplayOrder order = DisplayOrder::Positions;  // how both axes are ordered (LSH's sorted order, clusters)
    int order_round = 0;           // the lsh round whose sorted order is shown
    bool show_blocks = false;      // draw a block-sparse kernel's b×b tiles (full / partial / skipped) over the mask
    bool presentation = false;     // F5: only the matrices (and a lesson window), for a projector
    float font_scale = 1.0f;       // Ctrl + / Ctrl − / Ctrl 0: every font, saved in the session
    bool robust_diff_scale = true; // difference view: colour scale at kDiffScaleQuantile of |Δ| (else its max)
    bool show_points = true;       // outline the open lesson's "what to look at" features
    bool mean_badges = false;      // badges give the means over heads (a lesson's checks compare those) instead of
                                   // the drawn head's own values
    std::vector<ImVec2> plot_decoration;  // per view, last frame's plot frame minus its data area (axes, ticks): sizes
                                          // that view's next plot so its heatmap is exactly side × side
    float last_side = 0;           // last frame's heatmap side in pixels (the strip says how many cells a pixel shows)
    void reset() { *this = MatrixViewState{}; }
};

/// Smallest and largest font scale (Ctrl −/+): 60% keeps labels legible on a laptop, 300% reads across a room.
inline constexpr float kMinFontScale = 0.6f, kMaxFontScale = 3.0f;

/// LSH panel.
struct LshState {
    int head = 0;          // head whose buckets are shown
    int variant = 0;       // which lsh slot when several
    bool preview = false;  // Debug window: fill the panel with buckets hashed by the panel itself
    VariantView preview_view;       // that preview, for the input of generation preview_for
    uint64_t preview_for = 0;
    // The 2-D view's points per bucket for one (run, head), projected once rather than every frame (n·d at
    // n = 65536); a weak owner so a later run at the same address is never taken for this one.
    std::weak_ptr<const RunResult> plane_run;
    int plane_head = -1;
    std::vector<std::vector<double>> plane_x, plane_y;
    void reset() { *this = LshState{}; }
};

/// Spectrum panel.
struct SpectrumState {
    bool enabled = true;   // ask the worker for spectra (costly for large n)
    int k = 32;            // index where the captured energy is read
    bool log_y = true;     // singular values on a log axis
    bool visible = false;  // the tab was visible last frame (spectra are computed only then)
    int grid_index = 0;    // text: index read in the layers × heads heatmap (0 = grid_fraction · n)
    double grid_fraction = 0.125;  // that index as a share of n when grid_index is 0 (a lesson may set n/4)
    void reset() { *this = SpectrumState{}; }
};

/// Performance panel (a sweep of the benchmark engine, like `attnscope bench`).
struct PerfState {
    int n_min_log2 = 7, n_max_log2 = 11;  // sweep n = 2^a … 2^b
    int heads = 1, dim = 64;              // sweep input shape
    int runs = 3;                         // timed runs per point (median), after one warm-up
    double budget_s = 2;                  // per point: larger n of a variant are skipped past it
    bool references = true;               // add flash and full when not selected (speed-up, memory saving)
    bool measure_machine = false;         // also measure the GEMM and bandwidth roofs (a few seconds)
    bool show_slopes = true;              // cost-model curves and the O(n), O(n²) guides
    bool run_on_start = false;            // start a sweep on the first frame (set by a session file)
    bool start_pending = false;           // post a sweep on the next frame
    bool quick_pending = false;           // the pending start is the quick first look
    int table_n = 0;                      // n of the comparison table (0 = the largest n with two results)
    bool opened = false;                  // the tab has been visible (its first opening starts a quick sweep)
    bool quick = false;                   // the shown sweep is the quick first look (small n, 2 runs)
    std::string model_key;                // variants, n range and shape the cost model was computed for
    std::shared_ptr<const std::vector<ModelPoint>> model;             // cost-model curves (no measurement)
    std::shared_ptr<ResultJob<std::shared_ptr<const std::vector<ModelPoint>>>> model_job;  // computing `model` (short job)
    std::shared_ptr<const BenchReport> derived;  // the shown report with speed-ups filled (fill_derived_figures)
    const BenchReport* derived_from = nullptr;   // the report `derived` was made from
    void reset() { *this = PerfState{}; }
};

// [SECTION] Layer grid
/// Text input: spectra of every layer and head (Spectrum panel heatmap), computed as a worker job once the text
/// has been stable for a moment and the views are done (so it never delays the matrix views).
struct LayerGridJob {
    using Job = ResultJob<std::shared_ptr<const LayerHeadSpectra>>;  // null result: cancelled between heads
    std::string key;                                   // text, model and truncation of `result` / the running job
    std::shared_ptr<const LayerHeadSpectra> result;    // newest finished grid
    std::string error;                                 // why the newest attempt failed
    std::shared_ptr<Job> job;                          // the queued or running computation
    std::string job_key;                               // key of the running computation
    std::string seen_key;                              // key of the input last frame (debounce)
    double seen_since = 0;                             // when seen_key was first seen [s, ImGui time]
    bool pending = false;                              // a job runs or is due (screenshots wait for it)
};

// [SECTION] Latency
/// Edit → views latency: the time from the edit that started a request to the frame that shows its result.
struct LatencyState {
    double edit_time = -1;                 // steady seconds of the frame holding an edit not yet posted (-1 none)
    std::map<uint64_t, double> pending;    // posted generation → its edit time, until all its views show
    std::map<uint64_t, double> first_pending;  // the same, until the first finished view of it shows
    std::vector<float> samples_ms;         // every measured latency (edit → all views), in order
    std::vector<float> first_view_ms;      // every edit → first view latency, in order
    /// Records an edit made in the frame that started at `frame_start` (the first edit of a batch counts).
    void note_edit(double frame_start) {
        if (edit_time < 0) edit_time = frame_start;
    }
    /// The request of generation `g` was posted for the pending edit.
    void on_post(uint64_t g) {
        if (edit_time >= 0) pending[g] = edit_time, first_pending[g] = edit_time;
        edit_time = -1;
    }
    /// The frame finished at `now` showed a snapshot of generation `g`: with a finished view (`any_view`) the first
    /// views of every edit up to g are on screen; when `complete`, all of them.
    void on_shown(uint64_t g, double now, bool complete, bool any_view) {
        if (any_view || complete)
            while (!first_pending.empty() && first_pending.begin()->first <= g) {
                first_view_ms.push_back(float((now - first_pending.begin()->second) * 1000.0));
                first_pending.erase(first_pending.begin());
            }
        while (complete && !pending.empty() && pending.begin()->first <= g) {
            samples_ms.push_back(float((now - pending.begin()->second) * 1000.0));
            pending.erase(pending.begin());
        }
    }
};

/// Debug window.
struct DebugState {
    bool imgui_demo = false, implot_demo = false;
    std::array<float, 240> frame_ms{};  // ring buffer of frame times
    int frame_index = 0;
    void reset() { *this = DebugState{}; }
};

/// Exports: where files go and what happened last.
struct ExportState {
    std::string dir = "attnscope-export";  // relative to the working directory
    std::string message;                   // last result, shown in the status bar
    bool message_is_error = false;
    std::string focused = "matrices";      // alias of the panel focused last: File → Export figure of this panel
    bool dark_figures = false;             // the figure exports' theme
    void reset() { *this = ExportState{}; }
};

/// A pending capture of part of the framebuffer, taken after the frame is rendered.
struct Capture {
    std::string path;
    ImVec4 rect;  // x0, y0, x1, y1 in screen coordinates; zero size = whole window
};

// [SECTION] Lessons and sweeps state

/// The Lesson window's title: a lesson opens and closes it, so it is not a row of the panel table (panels.h).
inline constexpr const char* kLessonWindow = "Lesson";

struct LessonCheckJob;  // a lesson's check as a worker job (panel_lessons.cpp)
struct MetricSweepJob;  // a metric sweep as a worker job (panel_sweep.cpp)

/// The Lesson window: the lesson shown and its check.
struct LessonState {
    std::string id;                          // lesson shown ("" = none)
    bool open = false;                       // the window is shown
    bool dock_pending = false;               // dock the window beside the panels on the next frame
    std::vector<std::string> focus;          // preset panels to bring to the front once docked
    bool run_check_on_start = false;         // start the check on the first frame (set by a session file)
    std::shared_ptr<LessonCheckJob> check;   // newest check: queued, running or finished
    bool check_on_open = true;               // opening a lesson starts its check (off: only "Run check" does)
    std::string layout_for;                  // the lesson whose dock layout is applied ("" = the default layout)
    bool layout_presentation = false;        // whether that layout was built for presentation mode
};

/// Sweep panel: a metric against one parameter, several variants, seeds averaged with a min–max band.
struct MetricSweepState {
    std::vector<std::string> variants = {"performer"};  // chosen ids; the first owns the swept parameter
    std::string param = "features";          // a parameter of the first variant, or "n"
    double start = 16, stop = 256;           // range, inclusive
    bool geometric = true;                   // ×factor (else +step)
    double factor = 2, step = 16;
    std::string metric = "rel_err_out";      // a sweepable metric's id (parse_sweep_metric)
    int seeds = 3;                           // seeds averaged per point
    bool log_x = true, log_y = true;         // plot axes
    bool run_on_start = false;               // start a sweep on the first frame (set by a session file)
    std::shared_ptr<MetricSweepJob> job;     // newest sweep: queued, running or finished
    void reset() { *this = MetricSweepState{}; }
};

// [SECTION] Analysis views

struct ErrorCostMap;       // panel_error_cost.cpp
struct KeyAttentionView;   // panel_sinks.cpp
struct PerplexityView;     // panel_perplexity.cpp
struct StreamingView;      // panel_streaming.cpp

/// Error–cost panel: every instance (and swept value) as a point of cost against error, Pareto front marked.
struct ErrorCostState {
    std::string x = "time";          // parse_cost_axis
    std::string y = "rel_err_out";   // parse_error_axis
    std::string param;               // swept parameter ("" = none, "budget" = each card's own)
    double start = 4, stop = 64, factor = 2;  // geometric range of the swept values
    int repeats = kDefaultErrorCostRepeats;   // timed runs per point, in interleaved rounds
    bool log_x = true, log_y = true;
    bool visible = false;            // the tab was visible this frame (the map is computed only then)
    ViewJob<ErrorCostMap> map;
    void reset() { *this = ErrorCostState{}; }
};

/// Heads panel: mass kept per layer × head for each masked instance.
struct HeadsState {
    bool visible = false;
    ViewJob<LayerHeadMass> grid;
    void reset() { *this = HeadsState{}; }
};

/// Sinks panel: mean exact attention each key receives.
struct SinksState {
    bool log_y = false;              // received weight on a log axis
    bool visible = false;
    ViewJob<KeyAttentionView> profile;
    void reset() { *this = SinksState{}; }
};

/// Perplexity panel: the decoder's next-token loss with each Variants instance in its attention.
struct PerplexityState {
    std::string layers = "all";   // the decoder layers each instance replaces: L, A-B or all (parse_layer_span)
    std::string layers_edit = "all";  // the box's text until it parses
    std::string layers_error;     // why the box's text was refused
    bool visible = false;
    ViewJob<PerplexityView> whatif;
    std::shared_ptr<std::atomic<int>> done;  // instances the running job has finished (its progress)
    int total = 0;                            // instances it runs
    void reset() { *this = PerplexityState{}; }
};

/// Streaming panel: StreamingLLM's perplexity table on the decoder's text.
struct StreamingState {
    StreamingSettings settings;
    std::string windows_edit = StreamingSettings{}.windows;  // the box's text until Enter
    std::string error;                                       // why the box's text was refused
    bool visible = false;
    ViewJob<StreamingView> table;
    std::shared_ptr<std::string> step;        // what the running job computes now (under step_mutex)
    std::shared_ptr<std::mutex> step_mutex;
    void reset() { *this = StreamingState{}; }
};

// [SECTION] App

/// The status-bar message of a finished export and whether it succeeded.
using ExportMessage = std::pair<std::string, bool>;
/// A file export as a short worker job (it may run between a sweep's steps).
using ExportJob = ResultJob<ExportMessage>;

/// Everything the GUI owns.
struct App {
    GuiOptions options;
    Worker runs{make_backend, "auto", interactive_cpu_threads(), kBackgroundNiceness};  // every core, below the renderer
    std::shared_ptr<BenchJob> bench;              // the performance panel's newest sweep (null before the first)
    HeatmapRenderer renderer;
    InputState input;
    VariantsState variants;
    MatrixViewState view;
    LshState lsh;
    SpectrumState spectrum;
    PerfState perf;
    DebugState debug;
    ExportState exports;
    std::shared_ptr<const RunSnapshot> snap;      // newest batch, read once per frame
    std::shared_ptr<const BenchReport> bench_report;  // newest sweep report (partial while running)
    LayerGridJob layer_grid;                      // text: the layers × heads spectra
    LatencyState latency;                         // edit → views latency (Debug window, --measure-latency)
    bool dirty = true;                            // input or variants changed: post a new batch
    bool run_on_cpu = false;                      // "Run on CPU" after a GPU out-of-memory: batches use the CPU
    std::unique_ptr<GlInterop> gl_interop;        // CUDA–OpenGL interop, made on the GUI thread on first use
    std::vector<std::string> banner;              // error sentences shown this frame
    bool banner_was_shown = false;                // any banner in the last rendered frame
    std::vector<Capture> captures;                // exports of panels / the window
    std::vector<std::array<MatrixTexture, 2>> textures;  // per shown variant: pooled base + zoomed detail
    std::vector<MatrixTexture> head_thumbs;               // the all-heads grid (exact P per head)
    std::vector<std::shared_ptr<ExportJob>> export_jobs;  // file exports on the worker (short jobs)
    std::string session_path;                     // where the session is saved on exit ("" = nowhere)
    std::string pending_layout;                   // ini text to load before the first frame
    bool layout_loaded = false;
    std::string panel_to_focus;                   // --panel
    std::vector<float> busy_frame_ms;             // frame times while the run worker was busy (responsiveness)
    int frame = 0;
    LessonState lesson;
    MetricSweepState metric_sweep;
    ErrorCostState error_cost;
    /// Block tiles of the shown snapshot's layouts per (layout, head), computed once (the snapshot keeps them alive).
    std::map<std::pair<const BlockLayout*, int>, BlockTiles> block_tiles;
    const RunSnapshot* block_tiles_of = nullptr;  // the snapshot `block_tiles` belongs to
    HeadsState heads_view;
    SinksState sinks;
    PerplexityState perplexity;
    StreamingState streaming;
    LayoutRecord layout_record;                   // what this frame drew where (--layout-json)
    /// Posts a new batch to the run worker from the current input and variants.
    void post_batch();
    /// The input the views show: the chosen one, or the synthetic scenario when text mode has no model.
    InputSpec effective_input() const;
};

// [SECTION] Panels
// What several panels share. A panel's own draw, session and busy functions are declared beside its row in
// panels.cpp, which alone calls them.

/// What the analysis views' inputs are: the text (model, truncation) for text input, else the newest posted
/// generation (any edit of a synthetic or loaded input).
std::string analysis_input_key(const App& app);
/// Every variant slot as "id:NAME=VALUE…", one per line: the instances a view was computed for.
std::string slots_key(const App& app);
/// The worker has no batch to compute and no edit is waiting: an analysis job may start.
bool worker_free_for_views(const App& app);
/// The block tiles of the matrix panel: draws head `head` of `v`'s block layout over the current plot (call between
/// BeginPlot and EndPlot), or says in `note` why it cannot (permuted head, reordered view).
void draw_block_tiles(App& app, const RunSnapshot& snap, const VariantView& v, int head, std::string& note);
/// The block and token density badges of `v` at head `head` (nothing when it ran no block layout).
void block_density_badges(App& app, const VariantView& v, int head);
/// Starts the layers × heads spectra job when due (text input, Spectrum visible); called every frame.
void update_layer_grid(App& app);
/// True when the text model folder of `spec` (or the default one) holds model.safetensors.
bool text_model_present(const InputSpec& spec);
/// For query head `head` of a grouped-query model (the text input's): " · KV g" when `brief`, else ", reads KV head g
/// with heads a–b"; "" for any other input.
std::string kv_head_note(const RunSnapshot& snap, int head, bool brief = false);

/// Registers the project's colormaps with ImPlot (colour bars use the same tables as the shader).
void add_plot_colormaps();
/// ImPlot colormap index of a project colormap.
int plot_colormap(Colormap map);
/// A one-line grey sentence telling what would appear here and which variant provides it.
void hint_text(const char* text);
/// Token text or position label of index i, e.g. "12 'fox'".
std::string position_label(const Heads* heads, int i);
/// Starts writing head `head` of v's P_eff as "csv" or every head as "npy" off the UI thread; the status bar
/// reports the result. Throws Error when the export folder cannot be created.
void export_matrix(App& app, const VariantView& v, int head, const std::string& format);
/// A file name in the export directory (created when missing).
std::string export_path(App& app, const std::string& name);

// [SECTION] Lessons and sweeps

/// The Lessons menu of the main menu bar (call between BeginMainMenuBar and EndMainMenuBar).
void draw_lessons_menu(App& app);
/// The Lesson window (explanation, what to look at, the check); nothing when no lesson is shown.
void draw_lesson_panel(App& app);
/// Applies lesson `id`'s preset (input, variants, panels) and shows its window; throws Error for an unknown id
/// (listing the ids) or a preset this build cannot apply.
void apply_lesson(App& app, const std::string& id);
/// True while the lesson's check is running or about to start (screenshots wait for it; the Sweep panel's busy is
/// its row's, panels.h).
bool lesson_check_busy(const App& app);
/// True while a metric sweep is running or about to start.
bool sweep_busy(const App& app);
/// Cancels the running metric sweep (its finished points stay shown); nothing when none runs.
void cancel_metric_sweep(App& app);
/// One line for the screenshot log: the lesson shown and its check's verdict, the sweep's curves and points
/// ("" when there is neither).
std::string lessons_status(const App& app);
/// The sweep part of lessons_status ("" when no sweep ran).
std::string sweep_status(const App& app);
/// The shown lesson and its check as the layout record reports them: id, state, each line, and the check's screen
/// values (ScreenValue) by preset view; null when no lesson is shown.
nlohmann::json lesson_check_json(const App& app);
/// Writes the "lesson" part of a session (the shown lesson).
void lessons_to_json(const App& app, nlohmann::json& session);
/// Reads it back ("check": true starts the lesson's check); throws Error on an unknown lesson.
void lessons_from_json(App& app, const nlohmann::json& session);

// [SECTION] Session

/// Session JSON (input, variants, parameters, view toggles, dock layout) of the app.
std::string session_to_json(const App& app);
/// Restores a session; throws Error with what was wrong in the file.
void session_from_json(App& app, const std::string& text);
/// ~/.config/attnscope/session.json (or $XDG_CONFIG_HOME/attnscope/session.json).
std::string default_session_path();
/// Copies a session file that could not be read to PATH.bad (PATH.bad.2, … when that exists) so that saving the
/// session later cannot lose it; returns the copy's file name (no folder).
std::string keep_unreadable_session(const std::string& path);

}  // namespace attnscope::gui

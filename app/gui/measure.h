// attnscope — headless responsiveness measurements, driven from the frame loop:
//   --measure-latency N  types N edits into a ~128-token text with six variants selected and prints the
//                        edit → views latency;
//   --measure-first-view N  makes N edits of a synthetic n = 65536 input (flash, longformer, lsh, linformer,
//                        performer) and prints edit → first view and edit → all views;
//   --measure-pan N      pans the linked matrix view N frames at two zoom levels of a large matrix
//                        (n = 16384 unless --session), holds it still N frames, then pans N frames while the last
//                        variant computes again with a new seed (the others stay drawn), and prints frame times
//                        and the stages of three such re-runs.
// The targets they are held to are in docs/PERFORMANCE.md.
// Both print one summary and end the app. Numbers are as noisy as the machine: not a timed test.
#pragma once
#include <chrono>
#include <string>
#include <vector>

#include "core/session/worker.h"
#include "app/gui/gui_options.h"

namespace attnscope::gui {

struct App;

/// The measurement selected by the options (or none).
class Measurement {
public:
    explicit Measurement(const GuiOptions& options);
    /// At the start of every frame, before the panels: sets up the input, makes edits, moves the view.
    void before_frame(App& app);
    /// After the frame was presented (`frame_ms`: its wall time). True when the app should exit.
    bool after_frame(App& app, double frame_ms);
    /// Exit status once finished (2 when the measurement could not run, e.g. no model).
    int exit_status() const { return m_status; }

private:
    enum class Kind { None, Latency, Pan, FirstView };
    void setup_latency(App& app);
    void setup_first_view(App& app);
    /// First view: the next edit when due, and the mid-run screenshot; true when finished.
    bool first_view_after_frame(App& app);
    void setup_pan(App& app);
    bool result_on_screen(const App& app) const;
    /// Latency, and pan while computing: records the stage times of a shown batch.
    void note_stages(const RunSnapshot& snap);
    /// Latency, and pan's batches while computing: prints the median wall and CPU time per stage, lines led by `prefix`.
    void print_stages(const char* prefix) const;

    Kind m_kind = Kind::None;
    int m_count = 0;          // edits (latency) or frames per zoom level (pan)
    bool m_use_session = false;
    bool m_setup = false;
    int m_status = 0;
    int m_phase = 0;          // latency: edits made; pan: 0 wait, 1 coarse, 2 fine, 3 idle, 4 coarse while computing
    static constexpr int kPanComputing = 4;  // pan: the phase that pans while a batch computes
    bool m_batch_running_at_start = false;   // pan: a batch was running when this frame started
    int m_phase_frames = 0;   // frames in the current phase
    // Pan: when the current phase began. Its waits are limited in seconds, not frames: an idle frame takes ~1 ms,
    // so a frame limit expires before a slow machine's first n = 16384 batch is done.
    std::chrono::steady_clock::time_point m_phase_started = std::chrono::steady_clock::now();
    static constexpr double kPanWaitLimitS = 600;
    /// Seconds since the current phase began.
    double phase_seconds() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_phase_started).count();
    }
    int m_quiet_frames = 0;   // frames since the last result reached the screen
    bool m_appended = false;  // latency: the last edit appended a word
    int m_warmup = 2;         // latency: first edits not counted (caches, first textures)
    size_t m_first_sample = 0;      // index of the first counted edit → all views sample
    size_t m_first_view_sample = 0; // and of the first counted edit → first view sample
    std::vector<float> m_batch_ms;              // latency: worker time of each shown batch
    std::vector<float> m_batch_cpu_ms;          // latency: the worker thread's CPU time of each shown batch
    std::vector<std::string> m_stage_names;     // latency, pan: stages in the order they first ran
    std::vector<std::vector<float>> m_stage_wall_ms, m_stage_cpu_ms;  // per stage name: one sample per batch
    std::vector<float> m_frame_ms[kPanComputing + 1];  // pan: frame times per phase
    unsigned long long m_last_generation = 0;
    std::string m_text;
    int m_tokens = 0;
    std::string m_screenshot;       // first view: captured once, a moment after the first view of an edit shows
    bool m_shot_taken = false;
    double m_first_shown_at = -1;   // first view: when the current edit's first view reached the screen
};

}  // namespace attnscope::gui

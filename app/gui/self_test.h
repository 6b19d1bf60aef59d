// attnscope — the GUI self-test (`gui --self-test-frames N`): random input and random edits of every kind a user
// makes, with invariants checked every frame, so a long run proves more than "no crash".
#pragma once
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "app/gui/app.h"

namespace attnscope::gui {

/// Limits of the self-test's invariants.
struct SelfTestLimits {
    double wedge_seconds = 120;       // a posted batch must show within this (wall time, edits paused meanwhile)
    int64_t max_tracked_bytes = 8ll << 30;  // tracked tensor bytes held at any frame (a lesson at n = 4096 with
                                            // four variants, a sweep and a direct re-run beside it holds ~1–4 GiB)
    int64_t max_resident_bytes = 12ll << 30;  // resident set of the process at any frame (half of this machine)
    bool inject_false_error = false;  // tests only: once, mark a variant of a shown batch failed although its
                                      // request runs, so the banner check must fire (the fault it exists to catch)
};

/// The self-test's check that the host and the GPU build one reduction pyramid (gl_heatmap.h): a random signed
/// matrix with a random reason mask, of odd sides (remainders at several levels), under both reductions, read back
/// level by level. Returns what differed, "" when nothing; ATTNSCOPE_SELF_TEST_BREAK_PYRAMID gives the host the
/// other reduction (the check's fault test). Needs the GUI thread's GL context.
std::string pyramid_paths_broken(const PyramidBuilder& pyramids, uint64_t seed);

/// Drives the app with random mouse input and edits (input switches, variant add/remove/reorder, every
/// parameter, zoom/pan/hover, lessons, exports, sweeps and benchmarks started and cancelled) and checks after
/// every frame that no error banner shows without a cause, that the worker answers every posted batch, and
/// that memory stays bounded.
class SelfTest {
public:
    SelfTest(uint64_t seed, SelfTestLimits limits = {});
    /// Before the frame: queues mouse events and, every 12th frame, one random edit.
    void inject(App& app, int width, int height);
    /// After the frame: "" when every invariant holds, else the sentence saying which broke and how.
    std::string check(App& app);
    /// One line of what ran: frames, edits by kind, batches shown, banners reproduced, memory peaks.
    std::string summary(const App& app) const;
    int edits = 0;

private:
    void edit(App& app);
    void start_and_cancel_jobs(App& app);
    std::string check_banner_cause(const App& app);
    /// SelfTestLimits::inject_false_error: replaces the shown snapshot by a copy with one healthy view failed.
    void inject_false_error(App& app);
    /// What the worker runs and what the app asks for, for an invariant's message.
    std::string describe_state(const App& app) const;
    std::string write_tensor_folder_in(App& app) const;

    struct Posted {  // what a generation asked for, to reproduce its errors
        InputSpec input;
        std::vector<VariantRequest> variants;
    };
    std::mt19937_64 m_rng;
    SelfTestLimits m_limits;
    bool m_exported = false;
    int m_hold = 0;
    float m_mx = 0, m_my = 0;
    std::map<uint64_t, Posted> m_posted;    // recent generations (the oldest dropped)
    uint64_t m_checked_generation = 0;      // newest snapshot whose banner was checked
    double m_unanswered_since = -1;         // wall time since a posted batch waits for its snapshot (-1: none)
    std::string m_tensor_dir;               // q/k/v.npy written at start for the tensors input
    std::map<std::string, int> m_kinds;     // edits by kind
    int m_snapshots = 0, m_banners_reproduced = 0;
    int64_t m_peak_tracked = 0, m_peak_resident = 0;
    int m_cancel_at = -1;                   // frame at which the started sweep / benchmark is cancelled
};

}  // namespace attnscope::gui

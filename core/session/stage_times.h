// attnscope — per-stage timers of a run batch (input, reference, each variant, spectra, pooling): where an edit's
// time goes. Each stage records wall time and the calling thread's CPU time; on a shared machine the CPU time is
// the figure other processes do not inflate (the batch runs its OpenMP regions on one thread beside the renderer).
#pragma once
#include <string>
#include <vector>

namespace attnscope {

/// One timed stage of a batch.
struct StageTime {
    std::string name;    // "input", "reference", "run lsh", "spectrum lsh", "pool lsh", …
    double wall_ms = 0;  // elapsed wall-clock time
    double cpu_ms = 0;   // CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID) over the stage
    bool reused = false; // the result came from the worker's cache: nothing was computed
};

/// CPU time consumed so far by the calling thread, in ms.
double thread_cpu_ms();

/// Times consecutive stages: each stop() closes the stage begun by the previous stop() (or construction).
class StageClock {
public:
    /// Starts the first stage now.
    StageClock();
    /// Ends the current stage as `name`, appends it to `out` and starts the next one.
    void stop(const std::string& name, std::vector<StageTime>& out, bool reused = false);
    /// Ends the current stage by adding its times to `t`, and starts the next one.
    void stop_into(StageTime& t);
    /// Starts the next stage now without recording the time since the last stop.
    void restart();

private:
    double m_wall0 = 0, m_cpu0 = 0;
};

/// Adds t's times to the stage of the same name in `stages` (appending t when there is none).
void add_stage(std::vector<StageTime>& stages, const StageTime& t);

}  // namespace attnscope

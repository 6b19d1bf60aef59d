// attnscope — a benchmark sweep on a background thread, for the GUI's performance panel: start() posts a
// sweep, the UI reads progress(), state() and the newest report() snapshot every frame (points appear as they
// finish), cancel() stops it between runs. A newer start() cancels and replaces the older sweep.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "sweep.h"

namespace attnscope {

/// One background sweep at a time.
class BenchJob {
public:
    enum class State {
        Idle,       // nothing started
        Running,    // the sweep is measuring
        Done,       // finished; report() is complete
        Cancelled,  // stopped by cancel() or a newer start(); report() holds the points measured so far
        Failed,     // the configuration was refused; error() says why
    };

    BenchJob() = default;
    BenchJob(const BenchJob&) = delete;
    BenchJob& operator=(const BenchJob&) = delete;
    /// Cancels and joins a running sweep.
    ~BenchJob();

    /// Starts `config` on `backend` (owned by the job while it runs); cancels and joins any running sweep first.
    void start(BenchConfig config, std::unique_ptr<Backend> backend);
    /// Asks the sweep to stop after the current run (non-blocking).
    void cancel() { m_cancel = true; }
    /// Blocks until the current sweep (if any) has finished.
    void wait();

    State state() const { return m_state.load(); }
    /// The latest progress (copy).
    BenchProgress progress() const;
    /// The newest snapshot: the points finished so far while running, the whole report afterwards.
    std::shared_ptr<const BenchReport> report() const;
    /// Why the sweep failed (empty otherwise).
    std::string error() const;

private:
    void run(BenchConfig config, std::unique_ptr<Backend> backend);

    std::thread m_thread;
    std::atomic<State> m_state{State::Idle};
    std::atomic<bool> m_cancel{false};
    mutable std::mutex m_mutex;  // guards the three fields below
    BenchProgress m_progress;
    std::shared_ptr<const BenchReport> m_report;
    std::string m_error;
};

}  // namespace attnscope

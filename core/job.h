// attnscope — one unit of background work (a benchmark sweep, a metric sweep, a lesson check, layer spectra, an
// export) run on the worker's thread with the worker's backend (core/session/worker.h). Jobs never overlap each
// other or a run batch, so the process-wide memory counters and every timing a job takes belong to that job alone.
// A job publishes its own typed results (guarded by its own mutex); the UI keeps a shared_ptr and reads them.
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

namespace attnscope {

class Backend;

/// Where a job is in its life.
enum class JobState : int {
    Queued,     // posted, waiting for the worker
    Running,    // on the worker's thread
    Done,       // finished every step
    Cancelled,  // stopped by cancel() (or the worker shutting down) before the end
    Failed,     // threw; error() says why
};

/// "queued", "running", "done", "cancelled" or "failed".
const char* job_state_name(JobState state);

/// What a running job may ask of the worker.
class JobContext {
public:
    virtual ~JobContext() = default;
    /// The worker's backend: only this thread uses it while the job runs.
    virtual Backend& backend() = 0;
    /// Whether the job should stop at its next step (its own cancel() or the worker shutting down).
    virtual bool cancelled() const = 0;
    /// A point between two measurements: an edit's pending run batch is computed here, so views stay
    /// interactive during a long sweep without ever running beside a measurement.
    virtual void between_steps() = 0;
};

/// A background job; subclasses implement run() and expose their results.
class Job {
public:
    virtual ~Job() = default;
    /// A few words for the status bar and the Debug window, e.g. "benchmark sweep".
    virtual std::string kind() const = 0;
    /// Measurements use every core, as the CLI does; other jobs keep the interactive cap (one core for the UI).
    virtual bool uses_all_cores() const { return false; }
    /// A short job that measures nothing and needs no backend (an export, a cost model): it may also run between
    /// another job's steps instead of waiting for a long sweep to end.
    virtual bool runs_between_steps() const { return false; }

    /// Asks the job to stop at its next step (a queued job then never starts). Non-blocking.
    void cancel() { m_cancel = true; }
    bool cancel_requested() const { return m_cancel.load(); }
    JobState state() const { return m_state.load(); }
    /// Done, Cancelled or Failed.
    bool finished() const;
    /// 0..1 as reported by the job.
    float progress() const { return m_progress.load(); }
    /// Why it failed (empty otherwise).
    std::string error() const;
    /// Wall time from start to end (so far, while running); 0 before it starts.
    double seconds() const;

    /// Runs the job on the calling thread and records its state, error and time. Called by the worker (and by
    /// tests and command-line tools that run a job in place); never twice.
    void execute(JobContext& ctx);

protected:
    /// The work; throws Error (or anything) to fail with its message. Checks ctx.cancelled() between steps.
    virtual void run(JobContext& ctx) = 0;
    void set_progress(float p) { m_progress = p; }

private:
    std::atomic<bool> m_cancel{false};
    std::atomic<JobState> m_state{JobState::Queued};
    std::atomic<float> m_progress{0};
    mutable std::mutex m_mutex;  // guards the fields below
    std::string m_error;
    std::chrono::steady_clock::time_point m_start{}, m_end{};
};

/// A job that computes one value with a function (layer spectra, an export's message, cost-model curves).
template <class T>
class ResultJob final : public Job {
public:
    using Work = std::function<T(JobContext&)>;
    /// `kind` names it; `short_job`: see runs_between_steps().
    ResultJob(std::string kind, Work work, bool short_job = false)
        : m_kind(std::move(kind)), m_work(std::move(work)), m_short(short_job) {}
    std::string kind() const override { return m_kind; }
    bool runs_between_steps() const override { return m_short; }
    /// The value once the work returned (nullopt before, and when it threw or was cancelled before starting).
    std::optional<T> result() const {
        std::lock_guard<std::mutex> lock(m_result_mutex);
        return m_result;
    }

protected:
    void run(JobContext& ctx) override {
        T value = m_work(ctx);
        std::lock_guard<std::mutex> lock(m_result_mutex);
        m_result = std::move(value);
    }

private:
    const std::string m_kind;
    const Work m_work;
    const bool m_short;
    mutable std::mutex m_result_mutex;
    std::optional<T> m_result;
};

/// A JobContext for running a job in place on the calling thread with a given backend (tests, CLI).
class InPlaceJobContext final : public JobContext {
public:
    InPlaceJobContext(Backend& backend, const Job& job) : m_backend(backend), m_job(job) {}
    Backend& backend() override { return m_backend; }
    bool cancelled() const override { return m_job.cancel_requested(); }
    void between_steps() override {}

private:
    Backend& m_backend;
    const Job& m_job;
};

}  // namespace attnscope

// attnscope — the one background thread the GUI talks to. It owns one backend and runs, one at a time, the
// newest run batch (post: the views of the current edit) and queued jobs (post_job: benchmark and metric sweeps,
// lesson checks, layer spectra, exports — core/job.h). The UI thread never computes: it posts and, every frame,
// reads run_snapshot(), state() and its jobs' own results. A newer batch cancels an older one at the next variant
// boundary; a cancelled run never publishes; a pending batch runs before the next job and between a running job's
// steps. Snapshots are shared_ptr<const ...>, so the UI may hold one as long as it likes.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/job.h"
#include "core/session/batch.h"

namespace attnscope {

/// State of the worker, readable every frame without locking.
enum class WorkerState : int {
    Idle,     // nothing posted yet
    Running,  // a request is being computed
    Done,     // the newest request finished and its snapshot is published
    Failed,   // the newest request failed (the snapshot carries the message)
};

/// OpenMP threads for interactive compute beside a render thread: every core. The renderer keeps its frames by
/// priority instead (kBackgroundNiceness), so no core idles while a view waits.
int interactive_cpu_threads();

/// Niceness of a GUI's worker thread and the OpenMP threads it starts: below the render thread, which then gets a
/// core whenever it draws, while the worker takes every cycle the renderer leaves. Within one process this only
/// orders its own threads; against other processes the whole process keeps its share (autogroup).
inline constexpr int kBackgroundNiceness = 2;
/// Caps the OpenMP threads of parallel regions started by the calling thread at interactive_cpu_threads().
void use_interactive_cpu_threads();

/// The thread computing the newest posted run batch and the queued jobs.
class Worker {
public:
    /// Makes a backend by name ("cpu", "cuda", "auto"): the registry above the core (core/backend/factory/make_backend.h) is handed in.
    using BackendFactory = std::function<std::unique_ptr<Backend>(const std::string&)>;
    /// Starts the thread with its own backend, made by `make` from `backend` ("auto": CUDA when present).
    /// `cpu_threads` > 0 caps the OpenMP threads of its CPU work (interactive_cpu_threads() for a GUI); 0 uses them all.
    /// `niceness` > 0 lowers the thread's priority (and its OpenMP threads') below the caller's (kBackgroundNiceness
    /// for a GUI).
    Worker(BackendFactory make, const std::string& backend = "auto", int cpu_threads = 0, int niceness = 0);
    /// Cancels the current request and every job, and joins the thread.
    ~Worker();
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    /// Replaces any pending request; the running one is cancelled at its next boundary. Returns its generation.
    uint64_t post(RunBatchRequest request);

    /// Queues a job behind the others (the pending batch still goes first). Cancel it through the job itself.
    void post_job(std::shared_ptr<Job> job);
    /// The job on the thread now (nullptr when none).
    std::shared_ptr<const Job> running_job() const;
    /// Jobs waiting behind the running one.
    int queued_jobs() const;

    /// The newest finished batch (nullptr before the first).
    std::shared_ptr<const RunSnapshot> run_snapshot() const;
    WorkerState state() const { return m_state.load(); }
    /// 0..1 progress of the running request.
    float progress() const { return m_progress.load(); }
    /// Generation of the newest posted request.
    uint64_t posted_generation() const { return m_generation.load(); }
    /// One line describing the backend, for the debug window.
    std::string backend_description() const { return m_backend_description; }
    /// Calls `wake` (from the worker thread) whenever a snapshot, partial or final, is published and whenever a job
    /// ends: a GUI that sleeps while nothing changes is woken to show it. Set before the first post.
    void set_on_publish(std::function<void()> wake) { m_on_publish = std::move(wake); }

private:
    void loop();
    /// With m_mutex held, after one pending request replaced the other: cancels the running one, wakes the
    /// thread and returns the new generation.
    uint64_t supersede_locked();
    void do_batch(const RunBatchRequest& request, uint64_t generation);
    /// Shows a partial snapshot of the running request `generation` (dropped when a newer one was posted).
    void publish(std::shared_ptr<const RunSnapshot> partial, uint64_t generation);
    /// Takes the pending batch, if any, and computes it; returns whether there was one.
    bool run_pending_batch();
    /// Removes and returns the oldest queued job that runs_between_steps() (nullptr when none).
    std::shared_ptr<Job> take_short_job();
    /// Runs `job` with its thread count, then restores the interactive one.
    void run_job(Job& job);
    class Context;

    BackendFactory m_make_backend;  // for a one-off CPU backend ("Run on CPU" after a device out-of-memory)
    std::unique_ptr<Backend> m_backend;
    std::string m_backend_description;
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::optional<RunBatchRequest> m_pending_batch;
    std::atomic<bool> m_pending_batch_flag{false};  // m_pending_batch is set (read without the lock between steps)
    std::deque<std::shared_ptr<Job>> m_jobs;  // queued, oldest first
    std::shared_ptr<Job> m_running_job;
    int m_all_threads = 1;                    // OpenMP threads of a measuring job: the process default (all cores)
    int m_cpu_threads = 1;                    // OpenMP threads of batches and other jobs
    std::shared_ptr<const RunSnapshot> m_run;
    std::atomic<uint64_t> m_generation{0};
    std::atomic<bool> m_cancel{false};
    std::atomic<WorkerState> m_state{WorkerState::Idle};
    std::atomic<float> m_progress{0};
    std::unique_ptr<BatchCache> m_cache;      // what batches reuse from earlier ones (worker thread only)
    std::function<void()> m_on_publish;
    bool m_quit = false;
    std::thread m_thread;
};

}  // namespace attnscope

// attnscope — background worker: run batches (batch.h) and jobs off the UI thread.
#include "core/session/worker.h"

#include <omp.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <new>

#include "core/session/batch_cache.h"
#include "core/data/text_input.h"
#include "core/data/text_model.h"
#include "core/variants/registry.h"

namespace attnscope {


int interactive_cpu_threads() { return std::max(1, omp_get_num_procs()); }

void use_interactive_cpu_threads() { omp_set_num_threads(interactive_cpu_threads()); }

Worker::Worker(BackendFactory make, const std::string& backend, int cpu_threads, int niceness)
    : m_make_backend(std::move(make)), m_backend(m_make_backend(backend)),
      m_all_threads(omp_get_max_threads()), m_cpu_threads(cpu_threads > 0 ? cpu_threads : m_all_threads),
      m_cache(std::make_unique<BatchCache>()) {
    m_backend_description = m_backend->description();
    m_thread = std::thread([this, niceness] {
        pthread_setname_np(pthread_self(), "attnscope-run");  // named in profilers and debuggers
        // Linux keeps a niceness per thread, and threads inherit it: set before OpenMP starts this thread's team.
        if (niceness > 0) setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), niceness);
        omp_set_num_threads(m_cpu_threads);  // this thread's parallel regions only
        loop();
    });
}

Worker::~Worker() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_quit = true;
        m_cancel = true;
        if (m_running_job) m_running_job->cancel();
        for (const auto& job : m_jobs) job->cancel();
    }
    m_cv.notify_all();
    m_thread.join();
}

uint64_t Worker::post(RunBatchRequest request) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_pending_batch = std::move(request);
    m_pending_batch_flag = true;
    return supersede_locked();
}

uint64_t Worker::supersede_locked() {
    m_cancel = true;
    m_state = WorkerState::Running;
    m_progress = 0;
    const uint64_t g = ++m_generation;
    m_cv.notify_all();
    return g;
}

std::shared_ptr<const RunSnapshot> Worker::run_snapshot() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_run;
}

void Worker::post_job(std::shared_ptr<Job> job) {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_quit) job->cancel();
        m_jobs.push_back(std::move(job));
    }
    m_cv.notify_all();
}

std::shared_ptr<const Job> Worker::running_job() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_running_job;
}

int Worker::queued_jobs() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return int(m_jobs.size());
}

/// The worker as a running job sees it.
class Worker::Context final : public JobContext {
public:
    Context(Worker& worker, Job& job) : m_worker(worker), m_job(job) {}
    Backend& backend() override { return *m_worker.m_backend; }
    bool cancelled() const override {
        if (m_job.cancel_requested()) return true;
        std::lock_guard<std::mutex> lock(m_worker.m_mutex);
        return m_worker.m_quit;
    }
    void between_steps() override {
        omp_set_num_threads(m_worker.m_cpu_threads);
        m_worker.run_pending_batch();
        while (std::shared_ptr<Job> short_job = m_worker.take_short_job()) {
            Context ctx(m_worker, *short_job);
            short_job->execute(ctx);
        }
        if (m_job.uses_all_cores()) omp_set_num_threads(m_worker.m_all_threads);
    }

private:
    Worker& m_worker;
    Job& m_job;
};

std::shared_ptr<Job> Worker::take_short_job() {
    std::lock_guard<std::mutex> lock(m_mutex);
    const auto it = std::find_if(m_jobs.begin(), m_jobs.end(), [](const auto& job) { return job->runs_between_steps(); });
    if (it == m_jobs.end()) return nullptr;
    std::shared_ptr<Job> job = std::move(*it);
    m_jobs.erase(it);
    return job;
}

bool Worker::run_pending_batch() {
    if (!m_pending_batch_flag.load()) return false;
    std::optional<RunBatchRequest> batch;
    uint64_t generation = 0;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_pending_batch || m_quit) return false;  // shutting down: a job's last step must not start a batch
        batch.swap(m_pending_batch);
        m_pending_batch_flag = false;
        generation = m_generation.load();
        m_cancel = false;
    }
    do_batch(*batch, generation);
    return true;
}

void Worker::run_job(Job& job) {
    if (job.uses_all_cores()) omp_set_num_threads(m_all_threads);
    Context ctx(*this, job);
    job.execute(ctx);
    omp_set_num_threads(m_cpu_threads);
}

void Worker::loop() {
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_cv.wait(lock, [this] { return m_quit || m_pending_batch || !m_jobs.empty(); });
            if (m_quit) return;
        }
        if (run_pending_batch()) continue;  // the current edit's views first
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_running_job = std::move(m_jobs.front());
            m_jobs.pop_front();
        }
        run_job(*m_running_job);
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_running_job.reset();
        }
        if (m_on_publish) m_on_publish();  // the job's result is there to show
    }
}

void Worker::do_batch(const RunBatchRequest& request, uint64_t generation) {
    std::shared_ptr<const RunSnapshot> snap;
    std::string failure;
    try {
        // "Run on CPU" after a device out-of-memory: this batch only, on a CPU backend made for it.
        std::unique_ptr<Backend> cpu;
        if (request.backend == "cpu" && m_backend->name() != "cpu") cpu = m_make_backend("cpu");
        snap = run_batch(request, cpu ? *cpu : *m_backend, &m_cancel, m_cache.get(),
                         [&](std::shared_ptr<const RunSnapshot> partial) { publish(std::move(partial), generation); });
    } catch (const std::exception& e) {  // anything unexpected still reaches the user as a sentence
        auto s = std::make_shared<RunSnapshot>();
        s->input_error = std::string("unexpected failure: ") + e.what();
        snap = s;
    }
    if (!snap) return;  // cancelled: a newer request is pending
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (generation != m_generation.load()) return;
        auto published = std::const_pointer_cast<RunSnapshot>(snap);
        published->generation = generation;
        published->complete = true;
        m_run = snap;
        bool failed = !snap->input_error.empty();
        for (const auto& v : snap->variants) failed = failed || !v.error.empty();
        m_progress = 1;
        m_state = failed ? WorkerState::Failed : WorkerState::Done;
    }
    if (m_on_publish) m_on_publish();
}

void Worker::publish(std::shared_ptr<const RunSnapshot> partial, uint64_t generation) {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (generation != m_generation.load()) return;  // superseded: the newer request's views replace these
        auto p = std::const_pointer_cast<RunSnapshot>(partial);
        p->generation = generation;
        int done = 0;
        for (const auto& v : p->variants) done += v.state == ViewState::Done && !v.metrics_pending;
        m_progress = p->variants.empty() ? 0.0f : float(done) / float(p->variants.size());
        m_run = std::move(partial);
    }
    if (m_on_publish) m_on_publish();
}

}  // namespace attnscope

// attnscope — background worker: run batches off the UI thread.
// Index: [SECTION] Input  [SECTION] Pooling and spectra  [SECTION] Batch  [SECTION] Worker thread
#include "core/session/worker.h"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <new>

#include "core/analysis/spectrum.h"
#include "core/session/batch_cache.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/data/tensor_import.h"
#include "core/data/text_input.h"
#include "core/data/text_model.h"
#include "core/variants/registry.h"

namespace attnscope {

// [SECTION] Input

namespace {

/// Q, K, V from the user's files. A path to one of q.npy / k.npy / v.npy stands for its folder.
Heads build_tensor_input(const InputSpec& spec) {
    if (spec.tensors_path.empty())
        throw Error("no tensor file chosen: type the path of a .safetensors file (tensors q, k, v) or of a folder "
                    "with q.npy, k.npy, v.npy, then press Load");
    std::filesystem::path p(spec.tensors_path);
    std::error_code ec;
    if (p.extension() == ".npy" && !std::filesystem::is_directory(p, ec)) {
        if (!std::filesystem::exists(p, ec))
            throw Error("'" + spec.tensors_path + "' does not exist: check the path (q.npy, k.npy, v.npy belong in one folder)");
        p = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
    }
    try {
        return load_tensor_input(p.string());
    } catch (const Error& e) {  // the loader speaks to the CLI ("--tensors 'F' ..."); here the path came from a file box
        const std::string m = e.what();
        throw Error(m.rfind("--tensors ", 0) == 0 ? "file " + m.substr(10) : m);
    }
}

}  // namespace

Heads build_input(const InputSpec& spec, InputInfo* info) {
    if (spec.mode == InputMode::Synthetic) return make_scenario(spec.scenario);
    if (spec.mode == InputMode::Tensors) return build_tensor_input(spec);
    TextInput in = text_input_of_layer(encode_input_text(spec, info), spec.layer, -1);
    if (info) info->truncated = in.truncated;
    return std::move(in.heads);
}

TextLayers encode_input_text(const InputSpec& spec, InputInfo* info) {
    TextInputSpec t;
    t.text = spec.text;
    t.model_dir = spec.model_dir.empty() ? default_model_dir() : spec.model_dir;
    t.layer = spec.layer;
    t.head = -1;
    t.truncate = spec.truncate;  // off by default: too long a text is an error the user can act on, not a silent cut
    if (info) {  // count first, so the panel can say how long the text is even when it is refused
        const auto model = load_text_model(t.model_dir);
        info->max_tokens = model->encoder.config().max_positions;
        info->tokens = static_cast<int>(model->tokenizer.encode(spec.text).ids.size());
        info->too_long = info->tokens > info->max_tokens && !spec.truncate;
        if (info->too_long)
            throw Error("the text has " + std::to_string(info->tokens) + " tokens but the model reads at most " +
                        std::to_string(info->max_tokens) + ": truncate it to the first " +
                        std::to_string(info->max_tokens) + " tokens or shorten it");
    }
    TextLayers layers = encode_text_layers(t);
    if (info) info->truncated = layers.input.truncated;
    return layers;
}

// [SECTION] Pooling and spectra

std::vector<uint8_t> pool_mask(const ReasonMask& mask, int size) {
    const int H = mask.heads, n = mask.n, s = std::min(n, size);
    std::vector<uint8_t> out(static_cast<size_t>(H) * s * s, 0);
    constexpr int kReasons = static_cast<int>(Reason::Count);
    if (s == n) {  // one cell per bin (every text): the pooled mask is the mask, unknown codes as "none"
        for (size_t k = 0; k < out.size(); ++k) out[k] = mask.cells[k] < kReasons ? mask.cells[k] : 0;
        return out;
    }
    // The most salient reason of the bin (core/reason.h): a one-cell sink or global column among window cells stays
    // visible at any zoom, as the GUI's pixels do (shaders/heatmap.frag).
#pragma omp parallel for schedule(static)
    for (int hb = 0; hb < H * s; ++hb) {
        const int h = hb / s, bi = hb % s;
        const int64_t i0 = pool_bin_begin(bi, n, s), i1 = pool_bin_end(bi, n, s);
        for (int bj = 0; bj < s; ++bj) {
            const int64_t j0 = pool_bin_begin(bj, n, s), j1 = pool_bin_end(bj, n, s);
            uint8_t best = 0;
            for (int64_t i = i0; i < i1; ++i) {
                const uint8_t* row = mask.cells.data() + (static_cast<size_t>(h) * n + i) * n;
                for (int64_t j = j0; j < j1; ++j) best = most_salient(best, row[j]);
            }
            out[(static_cast<size_t>(h) * s + bi) * s + bj] = best;
        }
    }
    return out;
}

SpectrumView matrix_spectrum(const Tensor3& M, int h) {
    CpuBackend cpu;
    return matrix_spectrum(M, h, cpu);
}

SpectrumView matrix_spectrum(const Tensor3& M, int h, Backend& backend) {
    SpectrumView s;
    if (h >= 0) h = M.plane_for(h);
    if (h < 0 || h >= M.heads()) {
        s.note = "head " + std::to_string(h) + " does not exist";
        return s;
    }
    const Spectrum sp = compute_spectrum(M, h, backend);
    s.singular_values = sp.singular_values;
    s.cumulative = sp.cumulative;
    s.exact = sp.exact;
    return s;
}

// [SECTION] Worker thread

int interactive_cpu_threads() { return std::max(1, omp_get_num_procs() - 1); }

void use_interactive_cpu_threads() { omp_set_num_threads(interactive_cpu_threads()); }

Worker::Worker(BackendFactory make, const std::string& backend, int cpu_threads)
    : m_make_backend(std::move(make)), m_backend(m_make_backend(backend)),
      m_all_threads(omp_get_max_threads()), m_cpu_threads(cpu_threads > 0 ? cpu_threads : m_all_threads),
      m_cache(std::make_unique<BatchCache>()) {
    m_backend_description = m_backend->description();
    m_thread = std::thread([this] {
        pthread_setname_np(pthread_self(), "attnscope-run");  // named in profilers and debuggers
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
        std::lock_guard<std::mutex> lock(m_mutex);
        m_running_job.reset();
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

// attnscope — background worker: run batches off the UI thread.
// Index: [SECTION] Input  [SECTION] Pooling and spectra  [SECTION] Batch  [SECTION] Worker thread
#include "worker.h"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <new>

#include "../analysis/spectrum.h"
#include "../primitives/cpu_backend.h"
#include "../data/tensor_import.h"
#include "../data/text_input.h"
#include "../data/text_model.h"
#include "../variants/registry.h"

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
    TextInput in = load_text_input(t);
    if (info) info->truncated = in.truncated;
    return std::move(in.heads);
}

// [SECTION] Pooling and spectra

std::vector<uint8_t> pool_mask(const ReasonMask& mask, int size) {
    const int H = mask.heads, n = mask.n, s = std::min(n, size);
    std::vector<uint8_t> out(static_cast<size_t>(H) * s * s, 0);
    constexpr int kReasons = static_cast<int>(Reason::Count);
    for (int h = 0; h < H; ++h)
        for (int bi = 0; bi < s; ++bi) {
            const int64_t i0 = pool_bin_begin(bi, n, s), i1 = pool_bin_end(bi, n, s);
            for (int bj = 0; bj < s; ++bj) {
                const int64_t j0 = pool_bin_begin(bj, n, s), j1 = pool_bin_end(bj, n, s);
                std::array<int, kReasons> count{};
                for (int64_t i = i0; i < i1; ++i)
                    for (int64_t j = j0; j < j1; ++j) {
                        const uint8_t r = mask.cells[(static_cast<size_t>(h) * n + i) * n + j];
                        if (r > 0 && r < kReasons) ++count[r];
                    }
                int best = 0;
                for (int r = 1; r < kReasons; ++r)
                    if (count[r] > count[best] || (best == 0 && count[r] > 0)) best = r;
                out[(static_cast<size_t>(h) * s + bi) * s + bj] = static_cast<uint8_t>(best);
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

// [SECTION] Batch

namespace {

std::string out_of_memory_message(const std::string& what, int n, int H) {
    return what + ": out of memory at n = " + std::to_string(n) + ", H = " + std::to_string(H) +
           ": lower n or the number of heads, or lower 'materialise up to n'";
}

/// Pools `view.matrix` for display (max keeps sparse patterns visible; mean keeps the sign of signed matrices)
/// and records each head's range.
void pool_for_display(VariantView& view, int view_size, Backend& backend) {
    const Tensor3& M = *view.matrix;
    for (int h = 0; h < M.heads(); ++h) {
        view.head_min.push_back(M.head(h).minCoeff());
        view.head_max.push_back(M.head(h).maxCoeff());
        // The map follows what the matrix means, not the sign of its entries: a mixing matrix (FNet) is signed by
        // definition; every other P̃ stands for attention weights, so an approximation's negatives (a truncated
        // SVD's −0.001) stay on the weights' map, drawn as its lowest colour with a note.
        view.head_signed.push_back(find_variant(view.id).info().signed_matrix);
        view.signed_matrix = view.signed_matrix || view.head_signed.back();
    }
    Tensor3 pooled;
    backend.pooled_view(M, view_size, view.signed_matrix ? PoolMode::Mean : PoolMode::Max, pooled);
    view.pooled = std::move(pooled);
}

/// The auxiliary views of a run: one per display matrix of its structure (FNet's S_n beside C_n), not yet pooled.
std::vector<VariantView> auxiliary_views(const VariantView& main) {
    std::vector<VariantView> out;
    const std::shared_ptr<const RunResult>& r = main.result;
    for (const DisplayMatrix& shown : r->structure.display_matrices) {
        const Tensor3& m = shown.matrix;
        if (!r->P_eff || m.heads() != r->P_eff->heads() || m.rows() != r->P_eff->rows() || m.cols() != r->P_eff->cols())
            continue;
        VariantView aux;
        aux.id = main.id, aux.name = main.name, aux.result = r, aux.auxiliary = true, aux.title = shown.title;
        aux.matrix = std::shared_ptr<const Tensor3>(r, &m);
        out.push_back(std::move(aux));
    }
    return out;
}

/// Display slot → position per head (H·n) for the requested order, or empty for the positions' own order (or
/// when the order's source is missing: no lsh run, no groups in the input).
std::vector<int> display_permutation(const RunBatchRequest& request, const Heads& heads,
                                     const std::vector<VariantView>& views) {
    const int H = heads.heads(), n = heads.n();
    if (request.display_order == DisplayOrder::LshBuckets) {
        const int round = std::max(0, request.display_round);
        for (const VariantView& v : views) {
            if (!v.result || !v.result->structure.lsh || round >= v.result->structure.lsh->rounds) continue;
            const std::vector<int>& perm = v.result->structure.lsh->perm_q[round];
            if (perm.size() == size_t(H) * n) return perm;
        }
    } else if (request.display_order == DisplayOrder::Groups && heads.groups.size() == size_t(H) * n) {
        std::vector<int> perm(size_t(H) * n);
        for (int h = 0; h < H; ++h) {
            int* p = perm.data() + size_t(h) * n;
            const int* g = heads.groups.data() + size_t(h) * n;
            for (int i = 0; i < n; ++i) p[i] = i;
            std::stable_sort(p, p + n, [&](int a, int b) { return g[a] < g[b]; });
        }
        return perm;
    }
    return {};
}

/// M with rows and columns of head h taken in the order perm[h·n …] (display slot → position).
Tensor3 permuted_matrix(const Tensor3& M, const std::vector<int>& perm) {
    const int H = M.heads(), n = M.rows();
    Tensor3 out(H, n, n);
#pragma omp parallel for collapse(2)
    for (int h = 0; h < H; ++h)
        for (int s = 0; s < n; ++s) {
            const int* p = perm.data() + size_t(h % (int(perm.size()) / n)) * n;
            for (int t = 0; t < n; ++t) out.at(h, s, t) = M.at(h, p[s], p[t]);
        }
    return out;
}

/// The same for a reason mask.
ReasonMask permuted_mask(const ReasonMask& m, const std::vector<int>& perm) {
    ReasonMask out = m;
    const int n = m.n;
    for (int h = 0; h < m.heads; ++h) {
        const int* p = perm.data() + size_t(h % (int(perm.size()) / n)) * n;
        for (int s = 0; s < n; ++s)
            for (int t = 0; t < n; ++t)
                out.cells[(size_t(h) * n + s) * n + t] = m.cells[(size_t(h) * n + p[s]) * n + p[t]];
    }
    return out;
}

}  // namespace

std::shared_ptr<const RunSnapshot> run_batch(const RunBatchRequest& request, Backend& backend,
                                             const std::atomic<bool>* cancelled) {
    const auto t0 = std::chrono::steady_clock::now();
    StageClock clock;
    auto snap = std::make_shared<RunSnapshot>();
    auto is_cancelled = [&] { return cancelled && cancelled->load(); };
    std::shared_ptr<Heads> heads;
    try {
        heads = std::make_shared<Heads>(build_input(request.input, &snap->input_info));
        validate_heads(*heads);
    } catch (const Error& e) {
        snap->input_error = e.what();
        return snap;
    } catch (const std::bad_alloc&) {
        snap->input_error = "input: out of memory building the tensors: lower n, heads or d";
        return snap;
    }
    clock.stop("input", snap->stages);
    snap->heads = heads;
    const int n = heads->n(), H = heads->heads();
    const bool want_P = n <= request.max_matrix_n;
    snap->view_size = std::min(n, std::max(1, request.view_size));
    ReferenceCache refs(*heads, want_P);

    // Pass 1: run every variant against the shared references.
    std::vector<VariantView> views;
    for (const VariantRequest& vr : request.variants) {
        if (is_cancelled()) return nullptr;
        VariantView view;
        view.id = vr.id;
        try {
            const Variant& variant = find_variant(vr.id);
            view.name = variant.info().name;
            RunOptions options;
            options.explain = want_P;
            options.max_matrix_n = request.max_matrix_n;
            const StageTime ref_before = refs.time_spent();
            auto result = std::make_shared<RunResult>(run_variant(*heads, vr, options, backend, &refs));
            StageTime run{"run " + vr.id};
            clock.stop_into(run);
            StageTime ref = refs.time_spent();  // the reference a variant asked for first is its own stage
            ref.wall_ms -= ref_before.wall_ms, ref.cpu_ms -= ref_before.cpu_ms;
            run.wall_ms -= ref.wall_ms, run.cpu_ms -= ref.cpu_ms;
            if (ref.wall_ms > 0) add_stage(snap->stages, ref);
            add_stage(snap->stages, run);
            if (result->P_eff) {
                view.matrix = std::shared_ptr<const Tensor3>(result, &*result->P_eff);
            } else if (!variant.info().has_matrix) {
                view.matrix_note = view.name + " defines no effective attention matrix P̃ (it mixes tokens without one)";
            } else if (!want_P) {
                view.matrix_note = "n = " + std::to_string(n) + " is above 'materialise up to n' = " +
                                   std::to_string(request.max_matrix_n) +
                                   ": P̃ was not built (raise the limit in Input to see it; memory grows as H·n²)";
            } else {
                view.matrix_note = view.name + " returned no P̃ for this input";
            }
            if (result->P_eff && request.want_spectrum) {  // singular values do not depend on the display order
                view.spectrum = matrix_spectrum(*result->P_eff, request.spectrum_head, backend);
                clock.stop("spectrum " + vr.id, snap->stages);
            }
            view.result = std::move(result);
        } catch (const DeviceMemoryError& e) {
            view.error = e.what();
            view.device_memory = true;
        } catch (const Error& e) {
            view.error = e.what();
        } catch (const std::bad_alloc&) {
            view.error = out_of_memory_message(vr.id, n, H);
        }
        clock.stop("run " + vr.id, snap->stages);  // what a failed run took (zero after a stop above)
        views.push_back(std::move(view));
        if (views.back().matrix) {
            for (VariantView& a : auxiliary_views(views.back())) views.push_back(std::move(a));
        }
    }
    for (const auto& v : views)  // the exact P of every causality a variant used, moved out of the cache
        if (v.result && !snap->exact_P.count(v.result->causal))
            if (auto P = refs.take_P(v.result->causal))
                snap->exact_P[v.result->causal] = std::make_shared<const Tensor3>(std::move(*P));
    if (request.want_spectrum && !is_cancelled()) {
        for (const auto& [causal, P] : snap->exact_P) {
            snap->exact_spectrum = matrix_spectrum(*P, request.spectrum_head, backend);
            if (!causal) break;  // prefer the non-causal reference (the map orders false first)
        }
        clock.stop("spectrum exact", snap->stages);
    }

    // Pass 2: the display, in the requested order (every matrix of the snapshot in display coordinates).
    snap->display_perm = display_permutation(request, *heads, views);
    const bool ordered = !snap->display_perm.empty();
    if (ordered)
        for (auto& [causal, P] : snap->exact_P) P = std::make_shared<const Tensor3>(permuted_matrix(*P, snap->display_perm));
    // Mean pooling is linear, so the pooled difference is mean(P̃) − mean(P): no n×n difference is ever built
    // (at n = 16384 that would be another GiB per head).
    std::map<bool, Tensor3> ref_mean;  // causal → (H, s, s) mean-pooled exact P
    for (const auto& [causal, P] : snap->exact_P) {
        if (is_cancelled()) return nullptr;
        backend.pooled_view(*P, request.view_size, PoolMode::Mean, ref_mean[causal]);
        Tensor3 ep;
        backend.pooled_view(*P, request.view_size, PoolMode::Max, ep);
        snap->exact_pooled[causal] = std::make_shared<const Tensor3>(std::move(ep));
        if (!snap->exact_thumbs) {
            Tensor3 thumbs;
            backend.pooled_view(*P, 128, PoolMode::Max, thumbs);
            snap->exact_thumbs = std::move(thumbs);
        }
    }
    clock.stop("pool exact", snap->stages);
    for (VariantView& view : views) {
        if (is_cancelled()) return nullptr;
        if (!view.matrix) continue;
        try {
            if (ordered) view.matrix = std::make_shared<const Tensor3>(permuted_matrix(*view.matrix, snap->display_perm));
            pool_for_display(view, request.view_size, backend);
            const RunResult& result = *view.result;
            if (view.auxiliary) continue;
            const auto rm = ref_mean.find(result.causal);
            if (rm != ref_mean.end() && view.matrix->heads() == H && view.matrix->rows() == n && view.matrix->cols() == n) {
                Tensor3 diff;
                if (view.signed_matrix) diff = *view.pooled;  // already mean-pooled
                else backend.pooled_view(*view.matrix, request.view_size, PoolMode::Mean, diff);
                const int64_t count = diff.size();
                const float* b = rm->second.data();
                float* d = diff.data();
                for (int64_t k = 0; k < count; ++k) d[k] -= b[k];
                view.pooled_diff = std::move(diff);
            }
            if (result.structure.mask)
                view.pooled_mask = pool_mask(ordered ? permuted_mask(*result.structure.mask, snap->display_perm)
                                                     : *result.structure.mask,
                                             request.view_size);
        } catch (const std::bad_alloc&) {
            view.error = out_of_memory_message(view.id + " (display)", n, H);
        }
        clock.stop("pool " + view.id, snap->stages);
    }
    snap->variants = std::move(views);
    snap->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return snap;
}

// [SECTION] Worker thread

int interactive_cpu_threads() { return std::max(1, omp_get_num_procs() - 1); }

void use_interactive_cpu_threads() { omp_set_num_threads(interactive_cpu_threads()); }

Worker::Worker(BackendFactory make, const std::string& backend, int cpu_threads)
    : m_make_backend(std::move(make)), m_backend(m_make_backend(backend)),
      m_all_threads(omp_get_max_threads()), m_cpu_threads(cpu_threads > 0 ? cpu_threads : m_all_threads) {
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
        snap = run_batch(request, cpu ? *cpu : *m_backend, &m_cancel);
    } catch (const std::exception& e) {  // anything unexpected still reaches the user as a sentence
        auto s = std::make_shared<RunSnapshot>();
        s->input_error = std::string("unexpected failure: ") + e.what();
        snap = s;
    }
    if (!snap) return;  // cancelled: a newer request is pending
    std::lock_guard<std::mutex> lock(m_mutex);
    if (generation != m_generation.load()) return;
    auto published = std::const_pointer_cast<RunSnapshot>(snap);
    published->generation = generation;
    m_run = snap;
    bool failed = !snap->input_error.empty();
    for (const auto& v : snap->variants) failed = failed || !v.error.empty();
    m_progress = 1;
    m_state = failed ? WorkerState::Failed : WorkerState::Done;
}

}  // namespace attnscope

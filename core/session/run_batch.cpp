// attnscope — one run batch (worker.h run_batch): the input, every variant against the shared exact reference,
// spectra and pooled views. With the worker's BatchCache it recomputes only what the edit invalidated, and with a
// publish callback each view is shown as soon as it is ready (views still queued say which one is computing).
// Index: [SECTION] Display helpers  [SECTION] Batch
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <new>
#include <numeric>
#include <set>

#include "core/backend/cpu/cpu_primitives.h"
#include "core/variants/registry.h"
#include "core/session/batch_cache.h"
#include "core/session/shown_reference.h"
#include "core/session/streamed_view.h"
#include "core/session/worker.h"

namespace attnscope {

// [SECTION] Display helpers

namespace {

std::string out_of_memory_message(const std::string& what, int n, int H) {
    return what + ": out of memory at n = " + std::to_string(n) + ", H = " + std::to_string(H) +
           ": lower n or the number of heads, or lower 'materialise up to n'";
}

/// Pools `view.matrix` for display (max keeps sparse patterns visible; a signed matrix keeps each bin's entry of
/// largest magnitude with its sign) and records each head's range.
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
    backend.pooled_view(M, view_size, view.signed_matrix ? PoolMode::SignedMaxAbs : PoolMode::Max, pooled);
    view.pooled = std::make_shared<const Tensor3>(std::move(pooled));
}

/// Shows a max-pooled picture of a view's P̃ drawn without materialising it (P̃ ≥ 0: its range starts at 0).
void show_picture(VariantView& view, std::shared_ptr<const Tensor3> picture) {
    for (int h = 0; h < picture->heads(); ++h) {
        view.head_min.push_back(0.0f);  // P̃ ≥ 0, and a pattern leaves cells at 0
        view.head_max.push_back(picture->head(h).maxCoeff());
        view.head_signed.push_back(false);
    }
    view.pooled = std::move(picture);
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

/// Display slot → position per head (H·n) for the requested order (display_order.h), from the views' lsh runs.
std::vector<int> display_permutation(const RunBatchRequest& request, const Heads& heads,
                                     const std::vector<VariantView>& views) {
    std::vector<const LshBuckets*> lsh;
    for (const VariantView& v : views)
        if (v.result && v.result->structure.lsh) lsh.push_back(&*v.result->structure.lsh);
    return attnscope::display_permutation(request.display_order, request.display_round, heads, lsh);
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


// [SECTION] Batch

double steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// One batch while it runs: the snapshot being filled, each requested variant's views (Queued until its run starts)
/// and the pooled exact references the difference views subtract.
class BatchRun {
public:
    BatchRun(const RunBatchRequest& request, Backend& backend, const std::atomic<bool>* cancelled, BatchCache* cache,
             const PublishPartial& publish)
        : m_request(request), m_backend(backend), m_cancelled(cancelled), m_cache(cache), m_publish(publish),
          m_t0(std::chrono::steady_clock::now()), m_snap(std::make_shared<RunSnapshot>()) {}

    std::shared_ptr<const RunSnapshot> run();

private:
    bool cancelled() const { return m_cancelled && m_cancelled->load(); }
    /// Builds (or takes from the cache) the input into the snapshot; false with snap.input_error when it failed.
    bool prepare_input();
    /// What this n allows: materialised matrices, deferred metrics, late display order; and the references.
    void choose_modes();
    /// A Queued view per requested variant, with its cache key; returns the order to run them in.
    std::vector<size_t> queue_views();
    /// Reuses cached views, then runs the rest in `order`, publishing as each starts; false when cancelled.
    bool run_views(const std::vector<size_t>& order);
    /// With the display order from a variant's result: pools every view in that order; false when cancelled.
    bool pool_in_late_order();
    /// The exact P's spectrum at the requested head (the non-causal P's when both exist), through the cache.
    void fill_exact_spectrum();
    /// Hands a copy of the snapshot so far to `publish` (views flattened, complete = false).
    void publish_partial();
    /// The snapshot's views in request order: each variant's main view, then its auxiliary views.
    std::vector<VariantView> flattened() const;
    /// Runs variant k (metrics inline unless deferred) into its slot: spectrum, pooling, cache.
    void run_variant_slot(size_t k);
    /// Takes variant k's views from the cache when they are there; true when it did.
    bool reuse_slot(size_t k);
    /// Above the materialise limit: draws each main view streamed_view can draw (a max-pooled picture from Q and K).
    void streamed_views();
    /// The spectrum of the main view of slot k at the requested head (cached per head).
    void fill_spectrum(size_t k, CachedViews* cached);
    /// Puts the exact P of this causality (when materialised) into the snapshot with its pooled views.
    void ensure_exact(bool causal);
    /// Pools `view` for display: the matrix, the difference to the exact P, the reason mask.
    void pool_view(VariantView& view);
    /// Large n: the errors against exact attention of every finished view, after all views are shown.
    void deferred_metrics();

    const RunBatchRequest& m_request;
    Backend& m_backend;
    const std::atomic<bool>* m_cancelled;
    BatchCache* m_cache;
    const PublishPartial& m_publish;
    const std::chrono::steady_clock::time_point m_t0;
    StageClock m_clock;
    std::shared_ptr<RunSnapshot> m_snap;
    std::shared_ptr<const Heads> m_heads;
    std::unique_ptr<ReferenceCache> m_local_refs;
    ReferenceCache* m_refs = nullptr;
    bool m_want_P = false;        // P̃ and the exact P are materialised (n ≤ max_matrix_n)
    bool m_defer_metrics = false; // the exact reference would hold back every view: metrics come last
    bool m_late_order = false;    // the display order comes from a variant's result (LSH buckets): pool at the end
    std::vector<std::vector<VariantView>> m_slots;  // per requested variant
    std::vector<std::string> m_keys;                // per requested variant: its cache key ("" = not cached)
};

std::vector<VariantView> BatchRun::flattened() const {
    std::vector<VariantView> out;
    for (const auto& slot : m_slots) out.insert(out.end(), slot.begin(), slot.end());
    return out;
}

void BatchRun::publish_partial() {
    if (!m_publish) return;
    auto copy = std::make_shared<RunSnapshot>(*m_snap);
    copy->variants = flattened();
    copy->complete = false;
    copy->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
    m_publish(std::move(copy));
}

void BatchRun::ensure_exact(bool causal) {
    if (m_snap->exact_P.count(causal)) return;
    std::shared_ptr<const Tensor3> P = m_refs->shared_P(causal);
    if (!P) return;
    const bool input_order = m_snap->display_perm.empty();
    if (!input_order) P = std::make_shared<const Tensor3>(permuted_matrix(*P, m_snap->display_perm));
    m_snap->exact_P[causal] = P;
    // In the input's order the pictures depend on the references alone: a batch that kept them (a variant's edit)
    // takes the last batch's.
    BatchCache* keeper = input_order && !m_local_refs ? m_cache : nullptr;
    if (const ExactPictures* kept = keeper ? keeper->exact_pictures(causal, m_request.view_size) : nullptr) {
        m_snap->exact_pooled[causal] = kept->pooled;
        if (!m_snap->exact_thumbs) m_snap->exact_thumbs = kept->thumbs;
        m_clock.stop("pool exact (cached)", m_snap->stages, true);
        return;
    }
    ExactPictures made;
    Tensor3 ep;
    m_backend.pooled_view(*P, m_request.view_size, PoolMode::Max, ep);
    made.pooled = std::make_shared<const Tensor3>(std::move(ep));
    Tensor3 thumbs;
    m_backend.pooled_view(*P, 128, PoolMode::Max, thumbs);
    made.thumbs = std::make_shared<const Tensor3>(std::move(thumbs));
    m_snap->exact_pooled[causal] = made.pooled;
    if (!m_snap->exact_thumbs) m_snap->exact_thumbs = made.thumbs;
    if (keeper) keeper->store_exact_pictures(causal, m_request.view_size, std::move(made));
    m_clock.stop("pool exact", m_snap->stages);
}

void BatchRun::pool_view(VariantView& view) {
    if (!view.matrix) return;
    const int n = m_heads->n(), H = m_heads->heads();
    try {
        const bool ordered = !m_snap->display_perm.empty();
        if (ordered) view.matrix = std::make_shared<const Tensor3>(permuted_matrix(*view.matrix, m_snap->display_perm));
        pool_for_display(view, m_request.view_size, m_backend);
        const RunResult& result = *view.result;
        if (view.auxiliary) return;
        ensure_exact(result.causal);
        const auto exact = m_snap->exact_P.find(result.causal);
        if (exact != m_snap->exact_P.end() && view.matrix->heads() == H && view.matrix->rows() == n &&
            view.matrix->cols() == n) {
            // Each bin's largest |P̃ − P| with its sign, read from both matrices (no n×n difference is built: at
            // n = 16384 that would be another GiB per head); the mean of a bin would hide a one-cell error.
            Tensor3 diff;
            pooled_difference(*view.matrix, *exact->second, m_request.view_size, diff);
            for (int h = 0; h < diff.heads(); ++h) {
                std::vector<float> magnitudes(diff.head_data(h), diff.head_data(h) + int64_t(diff.rows()) * diff.cols());
                for (float& m : magnitudes) m = std::fabs(m);
                const size_t at = size_t(kDiffScaleQuantile * double(magnitudes.size() - 1));
                std::nth_element(magnitudes.begin(), magnitudes.begin() + at, magnitudes.end());
                view.diff_robust.push_back(magnitudes[at]);
                view.diff_max.push_back(*std::max_element(magnitudes.begin() + at, magnitudes.end()));
            }
            view.pooled_diff = std::make_shared<const Tensor3>(std::move(diff));
        }
        if (result.structure.mask) {
            view.pooled_mask = std::make_shared<const std::vector<uint8_t>>(
                pool_mask(ordered ? permuted_mask(*result.structure.mask, m_snap->display_perm) : *result.structure.mask,
                          m_request.view_size));
            view.mask_reasons = reasons_per_plane(*view.pooled_mask, result.structure.mask->heads);
        }
    } catch (const std::bad_alloc&) {
        view.error = out_of_memory_message(view.id + " (display)", n, H);
    }
}

void BatchRun::streamed_views() {
    if (m_want_P) return;
    const int n = m_heads->n(), s = std::min(n, m_request.view_size);
    // Masked views first: they cost O(kept cells·d), a dense one O(n²·d) (seconds at n = 65536).
    std::vector<size_t> order(m_slots.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_partition(order.begin(), order.end(), [&](size_t k) {
        return !m_slots[k].empty() && m_slots[k].front().result && m_slots[k].front().result->structure.blocks;
    });
    for (size_t k : order) {
        if (cancelled()) return;
        std::vector<VariantView>& slot = m_slots[k];
        if (slot.empty() || !slot.front().result || slot.front().matrix || slot.front().pooled || !slot.front().error.empty())
            continue;
        VariantView& view = slot.front();
        std::string why;
        if (!can_stream_view(*view.result, why) || !m_snap->display_perm.empty()) continue;
        const std::string note = view.matrix_note;
        view.matrix_note = "n = " + std::to_string(n) + " is above 'materialise up to n': drawing P̃ from Q and K row by "
                           "row into a max-pooled " + std::to_string(s) + "² picture…";
        publish_partial();
        std::optional<Tensor3> pooled = streamed_view(*view.result, *m_heads, m_request.view_size, [this] { return cancelled(); });
        view.matrix_note = note;
        if (!pooled) return;
        show_picture(view, std::make_shared<const Tensor3>(std::move(*pooled)));
        if (!m_keys[k].empty())
            if (CachedViews* cached = m_cache->views(m_keys[k]); cached && !cached->views.empty()) cached->views.front() = view;
        m_clock.stop("picture " + view.id, m_snap->stages);
        publish_partial();
    }
}

void BatchRun::fill_spectrum(size_t k, CachedViews* cached) {
    VariantView& main = m_slots[k].front();
    if (!m_request.want_spectrum || !main.result || !main.result->P_eff) return;
    if (cached)
        if (const auto it = cached->spectra.find(m_request.spectrum_head); it != cached->spectra.end()) {
            main.spectrum = it->second;
            return;
        }
    // Singular values do not depend on the display order.
    main.spectrum = matrix_spectrum(*main.result->P_eff, m_request.spectrum_head, m_backend);
    m_clock.stop("spectrum " + main.id, m_snap->stages);
    if (cached) cached->spectra[m_request.spectrum_head] = *main.spectrum;
}

bool BatchRun::reuse_slot(size_t k) {
    if (m_keys[k].empty()) return false;
    CachedViews* cached = m_cache->views(m_keys[k]);
    if (!cached) return false;
    m_slots[k] = cached->views;
    for (VariantView& v : m_slots[k]) v.reused = true;
    const VariantView& main = m_slots[k].front();
    if (main.result && m_want_P) {
        m_refs->get(main.result->causal, m_backend);  // kept by the cache: only looked up
        ensure_exact(main.result->causal);
    }
    fill_spectrum(k, cached);
    m_clock.stop("reused " + main.id, m_snap->stages, true);
    return true;
}

void BatchRun::run_variant_slot(size_t k) {
    const VariantRequest& vr = m_request.variants[k];
    const int n = m_heads->n(), H = m_heads->heads();
    VariantView view;
    view.id = vr.id;
    try {
        const Variant& variant = find_variant(vr.id);
        view.name = variant.info().name;
        RunOptions options;
        options.explain = m_want_P;
        options.max_matrix_n = m_request.max_matrix_n;
        // Unmaterialised, flash draws its picture inside its pass, and its O and L stand as the reference (adopt):
        // the one exact pass of the batch.
        if (!m_want_P) options.picture_size = m_request.view_size;
        const StageTime ref_before = m_refs->time_spent();
        auto result = std::make_shared<RunResult>(
            run_variant(*m_heads, vr, options, m_backend, m_defer_metrics ? nullptr : m_refs));
        StageTime run{"run " + vr.id};
        m_clock.stop_into(run);
        StageTime ref = m_refs->time_spent();  // the reference a variant asked for first is its own stage
        ref.wall_ms -= ref_before.wall_ms, ref.cpu_ms -= ref_before.cpu_ms;
        run.wall_ms -= ref.wall_ms, run.cpu_ms -= ref.cpu_ms;
        if (ref.wall_ms > 0) add_stage(m_snap->stages, ref);
        add_stage(m_snap->stages, run);
        if (result->P_eff) {
            view.matrix = std::shared_ptr<const Tensor3>(result, &*result->P_eff);
        } else if (!variant.info().has_matrix) {
            view.matrix_note = view.name + " defines no effective attention matrix P̃ (it mixes tokens without one)";
        } else if (!m_want_P) {
            view.matrix_note = "n = " + std::to_string(n) + " is above 'materialise up to n' = " +
                               std::to_string(m_request.max_matrix_n) +
                               ": P̃ was not built (raise the limit in Input to see it; memory grows as H·n²)";
        } else {
            view.matrix_note = view.name + " returned no P̃ for this input";
        }
        if (!m_want_P) m_refs->adopt(*result);
        if (result->structure.picture && m_snap->display_perm.empty() && !m_late_order)
            show_picture(view, result->structure.picture);
        view.metrics_pending = m_defer_metrics;
        view.result = std::move(result);
    } catch (const DeviceMemoryError& e) {
        view.error = e.what();
        view.device_memory = true;
    } catch (const Error& e) {
        view.error = e.what();
    } catch (const std::bad_alloc&) {
        view.error = out_of_memory_message(vr.id, n, H);
    }
    m_clock.stop("run " + vr.id, m_snap->stages);  // what a failed run took (zero after the stop above)
    std::vector<VariantView> views{std::move(view)};
    if (views.front().matrix)
        for (VariantView& a : auxiliary_views(views.front())) views.push_back(std::move(a));
    const bool ok = views.front().error.empty();
    if (m_late_order) {  // pooled once the order is known (after every run)
        for (VariantView& v : views) v.state = ViewState::Running, v.started_s = m_slots[k].front().started_s;
        m_slots[k] = std::move(views);
        return;
    }
    m_slots[k] = std::move(views);
    fill_spectrum(k, nullptr);
    for (VariantView& v : m_slots[k]) pool_view(v);
    m_clock.stop("pool " + vr.id, m_snap->stages);
    if (ok && !m_keys[k].empty()) {
        CachedViews& c = m_cache->store(m_keys[k], CachedViews{m_slots[k], {}});
        if (const auto& s = m_slots[k].front().spectrum) c.spectra[m_request.spectrum_head] = *s;
    }
}

void BatchRun::deferred_metrics() {
    for (size_t k = 0; k < m_slots.size(); ++k) {
        if (cancelled()) return;
        std::vector<VariantView>& views = m_slots[k];
        if (views.empty() || !views.front().metrics_pending) continue;
        if (!views.front().result) {
            for (VariantView& v : views) v.metrics_pending = false;
            continue;
        }
        try {
            // A copy without the views' matrices: at this n no P̃ is materialised, so O and the structure are all.
            auto result = std::make_shared<RunResult>(*views.front().result);
            const StageTime ref_before = m_refs->time_spent();
            const Reference* model_ref = m_refs->own_model(*result, m_backend);
            compute_metrics(m_refs->get(result->causal, m_backend), model_ref, find_variant(result->variant).info(), *result);
            StageTime ref = m_refs->time_spent();
            ref.wall_ms -= ref_before.wall_ms, ref.cpu_ms -= ref_before.cpu_ms;
            StageTime metrics{"metrics " + views.front().id};
            m_clock.stop_into(metrics);
            metrics.wall_ms -= ref.wall_ms, metrics.cpu_ms -= ref.cpu_ms;
            if (ref.wall_ms > 0) add_stage(m_snap->stages, ref);
            add_stage(m_snap->stages, metrics);
            for (VariantView& v : views) v.result = result, v.metrics_pending = false;
        } catch (const Error& e) {
            for (VariantView& v : views) v.metrics_pending = false;
            views.front().matrix_note += (views.front().matrix_note.empty() ? "" : " ") +
                                         std::string("Errors against exact attention: ") + e.what();
        } catch (const std::bad_alloc&) {
            for (VariantView& v : views) v.metrics_pending = false;
            views.front().matrix_note += " Errors against exact attention: out of memory for the exact reference.";
        }
        if (!m_keys[k].empty())
            if (CachedViews* c = m_cache->views(m_keys[k])) c->views = views;
        publish_partial();
    }
}

bool BatchRun::prepare_input() {
    RunSnapshot& snap = *m_snap;
    bool reused_input = false, encoded = false;
    try {
        if (m_cache) {
            m_heads = m_cache->input(m_request.input, snap.input_info, reused_input, encoded);
        } else {
            auto heads = std::make_shared<Heads>(build_input(m_request.input, &snap.input_info));
            validate_heads(*heads);
            m_heads = std::move(heads);
            encoded = m_request.input.mode == InputMode::Text;
        }
    } catch (const Error& e) {
        snap.input_error = e.what();
        return false;
    } catch (const std::bad_alloc&) {
        snap.input_error = "input: out of memory building the tensors: lower n, heads or d";
        return false;
    }
    m_clock.stop(reused_input ? "input (cached)" : m_request.input.mode == InputMode::Text && !encoded
                                                       ? "input (encoded layers cached)"
                                                       : "input",
                 snap.stages, reused_input);
    snap.heads = m_heads;
    return true;
}

void BatchRun::choose_modes() {
    RunSnapshot& snap = *m_snap;
    const int n = m_heads->n();
    m_want_P = n <= m_request.max_matrix_n;
    // Above the materialise limit the exact reference is a dense O(n²) pass (minutes at n = 65536): every view
    // first, cheapest first, then the errors against it.
    m_defer_metrics = !m_want_P;
    m_late_order = m_request.display_order == DisplayOrder::LshBuckets;
    snap.view_size = std::min(n, std::max(1, m_request.view_size));
    if (m_cache) {
        m_refs = &m_cache->references(m_want_P);
    } else {
        m_local_refs = std::make_unique<ReferenceCache>(*m_heads, m_want_P);
        m_refs = m_local_refs.get();
    }
    m_refs->want_rank_ceilings(m_request.rank_ceilings);
    if (m_request.display_order == DisplayOrder::Groups) snap.display_perm = display_permutation(m_request, *m_heads, {});
}

std::vector<size_t> BatchRun::queue_views() {
    const int n = m_heads->n();
    const size_t count = m_request.variants.size();
    m_slots.assign(count, {});
    m_keys.assign(count, "");
    std::vector<size_t> order(count);
    std::vector<double> flops(count, 0);
    for (size_t k = 0; k < count; ++k) {
        const VariantRequest& vr = m_request.variants[k];
        VariantView queued;
        queued.id = vr.id, queued.state = ViewState::Queued;
        try {
            const Variant& v = find_variant(vr.id);
            queued.name = v.info().name;
            if (m_defer_metrics) {
                const Shape shape = m_heads->shape();
                flops[k] = v.estimate_flops(m_heads->heads(), n, m_heads->d(), m_heads->dv(), v.resolve(vr.params, shape));
            }
        } catch (const Error&) {  // the run says what is wrong, in its view
        }
        m_slots[k] = {std::move(queued)};
        if (m_cache && !m_cache->input_key().empty() && !m_late_order) m_keys[k] = view_key(*m_cache, m_request, vr);
        order[k] = k;
    }
    if (m_defer_metrics) std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return flops[a] < flops[b]; });
    return order;
}

bool BatchRun::run_views(const std::vector<size_t>& order) {
    // Reused views first: they cost nothing and show with the input.
    std::vector<size_t> to_run;
    for (size_t k : order)
        if (!reuse_slot(k)) to_run.push_back(k);
    publish_partial();
    for (size_t k : to_run) {
        if (cancelled()) return false;
        for (VariantView& v : m_slots[k]) v.state = ViewState::Running, v.started_s = steady_seconds();
        publish_partial();
        run_variant_slot(k);
        if (!m_late_order) publish_partial();
    }
    return true;
}

bool BatchRun::pool_in_late_order() {
    std::vector<VariantView> all = flattened();
    m_snap->display_perm = display_permutation(m_request, *m_heads, all);
    for (auto& slot : m_slots) {
        if (cancelled()) return false;
        for (VariantView& v : slot) v.state = ViewState::Done, pool_view(v);
    }
    m_clock.stop("pool (reordered)", m_snap->stages);
    return true;
}

void BatchRun::fill_exact_spectrum() {
    RunSnapshot& snap = *m_snap;
    std::vector<bool> causalities;  // one per causality the instances run (the snapshot's exact Ps)
    for (const auto& [c, P] : snap.exact_P) causalities.push_back(c);
    const bool causal = shown_reference_causal(causalities);
    if (const auto it = snap.exact_P.find(causal); it != snap.exact_P.end() && it->second) {
        SpectrumView* cached = m_cache ? m_cache->exact_spectrum(causal, m_request.spectrum_head) : nullptr;
        if (cached) {
            snap.exact_spectrum = *cached;
        } else {
            snap.exact_spectrum = matrix_spectrum(*it->second, m_request.spectrum_head, m_backend);
            if (m_cache && m_request.display_order != DisplayOrder::LshBuckets)
                m_cache->store_exact_spectrum(causal, m_request.spectrum_head, *snap.exact_spectrum);
        }
    }
    m_clock.stop("spectrum exact", snap.stages);
}

std::shared_ptr<const RunSnapshot> BatchRun::run() {
    if (!prepare_input()) return m_snap;
    choose_modes();
    // Queued views first, so the panels lay out every view at once and say which one is computing.
    const std::vector<size_t> order = queue_views();
    const std::set<std::string> used(m_keys.begin(), m_keys.end());  // what the cache keeps at the end
    if (!run_views(order) || cancelled()) return nullptr;
    // The lsh run's order is known only now: pool every view in it.
    if (m_late_order && !pool_in_late_order()) return nullptr;
    streamed_views();
    if (cancelled()) return nullptr;
    if (m_want_P)  // the exact P of every causality a variant used (a reused view's may be missing)
        for (const auto& slot : m_slots)
            if (!slot.empty() && slot.front().result) ensure_exact(slot.front().result->causal);
    if (m_request.want_spectrum && !cancelled()) fill_exact_spectrum();
    if (m_defer_metrics) deferred_metrics();
    if (cancelled()) return nullptr;
    RunSnapshot& snap = *m_snap;
    snap.variants = flattened();
    if (m_cache) m_cache->keep_only(used);
    snap.complete = true;
    snap.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
    return m_snap;
}

}  // namespace

int RunSnapshot::views_shown() const {
    return int(std::count_if(variants.begin(), variants.end(), [](const VariantView& v) { return v.state == ViewState::Done; }));
}

int RunSnapshot::views_awaiting_errors() const {
    return int(std::count_if(variants.begin(), variants.end(),
                             [](const VariantView& v) { return v.state == ViewState::Done && v.metrics_pending; }));
}

std::shared_ptr<const RunSnapshot> run_batch(const RunBatchRequest& request, Backend& backend,
                                             const std::atomic<bool>* cancelled, BatchCache* cache,
                                             const PublishPartial& publish) {
    return BatchRun(request, backend, cancelled, cache, publish).run();
}

}  // namespace attnscope

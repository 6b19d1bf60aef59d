// attnscope — one run batch, the unit of work behind every edit: its input (InputSpec, built into Heads), the
// request (variants, view sizes, spectra), the views it produces and the snapshot that carries them, and run_batch,
// which computes it (run_batch.cpp). The worker (worker.h) runs batches on its thread; the batch cache
// (batch_cache.h) keeps what the next batch may reuse.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/data/scenarios.h"
#include "core/data/text_input.h"
#include "core/session/display_order.h"
#include "core/session/experiment.h"
#include "core/session/stage_times.h"

namespace attnscope {

/// Where the input tensors come from.
enum class InputMode {
    Synthetic,  // a seeded scenario (core/data/scenarios.h)
    Text,       // a real encoder on user text (core/data/text_input.h, when this build has it)
    Tensors,    // Q, K, V the user loaded from .npy / .safetensors (core/data/tensor_import.h)
};

/// The input of a run: a scenario or text (and its encoder layer/head).
struct InputSpec {
    InputMode mode = InputMode::Synthetic;  // which source
    ScenarioSpec scenario;                  // used in Synthetic mode
    std::string text;                       // used in Text mode
    std::string model_dir;                  // --model: empty = the encoder, "smollm2", a BERT folder or a .gguf file
    int layer = 0;                          // model layer whose Q/K/V are used
    bool truncate = false;                  // Text: cut to the model's max positions instead of failing
    std::string tensors_path;               // Tensors: a .safetensors file, or a folder (or one file) of q/k/v.npy
};

/// What building the input found out beside the tensors (the Input panel reports it).
struct InputInfo {
    int tokens = 0;         // Text: token count before any truncation
    int max_tokens = 0;     // Text: the model's max positions (512 for all-MiniLM-L6-v2)
    bool truncated = false; // Text: the text was cut to max_tokens
    bool too_long = false;  // Text: tokens > max_tokens and truncation is off (the build failed)
    TextModelFacts model;   // Text: the model's name, family, layer and head counts (KV heads shared under GQA)
};

/// Builds the Heads of an input; throws Error with a sentence the user can act on. `info` (optional)
/// receives token counts and truncation, also when the text is too long and the build fails.
Heads build_input(const InputSpec& spec, InputInfo* info = nullptr);

/// The encoder input of a text InputSpec (all heads; the default model when none is named).
TextInputSpec text_input_spec(const InputSpec& spec);

/// Text input: counts the tokens into `info` (refusing too long a text with a sentence the Input panel shows), then
/// encodes the text up to spec.layer. Throws Error like build_input.
TextLayers encode_input_text(const InputSpec& spec, InputInfo* info);

/// One batch of variants on one input, for the matrix, spectrum and LSH panels.
struct RunBatchRequest {
    InputSpec input;                        // what to run on
    std::vector<VariantRequest> variants;   // in display order
    int view_size = 1024;                   // side of the pooled level-of-detail view per head
    int max_matrix_n = 4096;                // materialise P̃ (and the exact P) only up to this n
    bool want_spectrum = false;             // compute singular values of P and of each P̃
    int spectrum_head = 0;                  // head whose spectra are computed
    std::string backend;                    // "" = the worker's own backend; "cpu" = this batch on the CPU
    DisplayOrder display_order = DisplayOrder::Positions;  // how the views order both axes
    int display_round = 0;                  // the lsh round whose sorted order LshBuckets shows
    bool rank_ceilings = false;             // also Metrics::rank_ceiling of low-rank variants (an SVD of every head
                                            // of P): a lesson that compares them with the svd oracle asks for it
};

/// Singular values of one matrix head, descending, with the normalised cumulative energy.
struct SpectrumView {
    std::vector<double> singular_values;  // σ_1 ≥ σ_2 ≥ ...
    std::vector<double> cumulative;       // Σ_{k≤i} σ_k / Σ σ (Linformer Fig. 1)
    bool exact = true;                    // false when a randomized top-k was used
    std::string note;                     // why it is missing, when empty
};

/// The quantile of |P̃ − P| the difference view's colour scale ends at by default: larger differences saturate, so a
/// few outliers (FAVOR+'s ±0.97 among errors of 0.005) do not wash out the rest.
inline constexpr double kDiffScaleQuantile = 0.95;

/// Where one variant of a batch still computing stands (a finished snapshot has only Done views).
enum class ViewState {
    Queued,   // waiting for the variants before it
    Running,  // computing now (run, spectrum, pooling)
    Done,     // finished (or failed: `error`)
};

/// What the UI needs of one variant's run.
struct VariantView {
    ViewState state = ViewState::Done;                // Queued / Running: a view still computing, in a partial snapshot
    double started_s = 0;                             // Running: steady-clock seconds it started (elapsed time shown)
    bool metrics_pending = false;                     // the errors against exact attention follow (large n: the
                                                      // exact reference runs after every view is shown)
    bool reused = false;                              // taken from the worker's cache: nothing was recomputed
    std::string id;                                   // variant id
    std::string name;                                 // display name
    std::string error;                                // non-empty when the run failed (the sentence to show)
    bool device_memory = false;                       // it failed for lack of device memory: the CPU can run it
    std::shared_ptr<const RunResult> result;          // full result (P̃ and mask included when materialised)
    std::shared_ptr<const Tensor3> matrix;            // (H, n, n) the matrix shown: P̃, or for an auxiliary view one
                                                      // of the variant's display matrices (shares result's storage)
    std::string title;                                // auxiliary view: what its matrix is, e.g. "S_n = sin(2πij/n)"
    bool auxiliary = false;                           // a display matrix of the variant in the view before it
    std::shared_ptr<const Tensor3> pooled;            // (H, s, s) `matrix` for display: max-pooled; signed: each bin's largest |·| with its sign
    bool signed_matrix = false;                       // the matrix is signed by meaning (VariantInfo::signed_matrix)
    std::vector<char> head_signed;                    // per head: drawn diverging (today the same for every head)
    /// Whether head h is drawn as a signed matrix (diverging colours, linear scale).
    bool is_signed(int h) const { return h < int(head_signed.size()) ? head_signed[h] != 0 : signed_matrix; }
    /// The plane of this view's matrices that stands for `head` (Tensor3::plane_for of its pooled view).
    int plane(int head) const { return pooled ? pooled->plane_for(head) : head; }
    std::vector<float> head_min, head_max;            // per head: smallest and largest entry of P̃
    std::shared_ptr<const Tensor3> pooled_diff;       // (H, s, s) P̃ − P: each bin's largest |·| with its sign
    std::vector<float> diff_max, diff_robust;         // per head: max and kDiffScaleQuantile of |P̃ − P| over the
                                                      // pooled bins (a few outliers must not set the whole scale)
    std::shared_ptr<const std::vector<uint8_t>> pooled_mask;  // (H, s, s) reason per bin (most frequent allowed reason)
    std::vector<uint32_t> mask_reasons;               // per plane of pooled_mask: bit r set when a bin holds reason r
                                                      // (the legend reads these, not a million bins every frame)
    std::optional<SpectrumView> spectrum;             // of P̃ head `spectrum_head`, when requested
    std::string matrix_note;                          // why there is no matrix, when there is none
};

/// The newest finished batch.
struct RunSnapshot {
    uint64_t generation = 0;                          // the request it answers
    std::shared_ptr<const Heads> heads;               // the input (tokens included)
    std::string input_error;                          // non-empty when the input could not be built
    InputInfo input_info;                             // token counts and truncation (text input)
    std::map<bool, std::shared_ptr<const Tensor3>> exact_P;  // causal → (H, n, n) exact P, when materialised
    std::map<bool, std::shared_ptr<const Tensor3>> exact_pooled;  // causal → (H, s, s) max-pooled exact P
    std::optional<SpectrumView> exact_spectrum;       // of the exact P (non-causal, or the first causal one)
    std::shared_ptr<const Tensor3> exact_thumbs;      // (H, t, t) max-pooled exact P, t ≤ 128: the all-heads grid
    std::vector<VariantView> variants;                // in request order
    std::vector<int> display_perm;                    // (H·n) display slot → position; empty: positions' order. Every
                                                      // matrix, pooled view and exact P above is in display order
    int view_size = 0;                                // s: pooled side (= n when n ≤ view_size)
    bool complete = true;                             // false: published while the batch still computes (views
                                                      // Queued / Running, or metrics pending); same generation
    double seconds = 0;                               // wall time of the whole batch (so far, when not complete)
    std::vector<StageTime> stages;                    // where that time went, in the order the stages ran
    /// Views on screen (their run finished), whether or not their errors against exact attention are known yet.
    int views_shown() const;
    /// Shown views whose errors against exact attention still compute (large n: the reference runs last).
    int views_awaiting_errors() const;
};

class BatchCache;  // batch_cache.h

/// Receives a partial snapshot (complete = false) of the batch being computed.
using PublishPartial = std::function<void(std::shared_ptr<const RunSnapshot>)>;

/// Runs one batch: builds the input, runs every variant against the shared exact reference, pools views.
/// `cancelled` is polled between variants; returns nullptr when it fired. With a `cache`, reuses what an earlier
/// batch computed for the same input and variant (and stores what this one computes); with `publish`, hands over a
/// partial snapshot whenever a view starts or finishes, so each view shows as soon as it is ready.
std::shared_ptr<const RunSnapshot> run_batch(const RunBatchRequest& request, Backend& backend,
                                             const std::atomic<bool>* cancelled, BatchCache* cache = nullptr,
                                             const PublishPartial& publish = {});

/// Reason per pooled bin of a (H, n, n) mask: the most salient reason of the bin (core/reason.h), 0 when none.
std::vector<uint8_t> pool_mask(const ReasonMask& mask, int size);
/// Per plane of a pooled mask (`planes` planes of equal size): bit r set when some bin of that plane holds reason r.
std::vector<uint32_t> reasons_per_plane(const std::vector<uint8_t>& pooled_mask, int planes);

/// Singular values of head h of M (n×m), exact for n ≤ 2048; `note` says why when it cannot.
SpectrumView matrix_spectrum(const Tensor3& M, int h);
/// Same through `backend`'s singular_values primitive (cuSOLVER on CUDA).
SpectrumView matrix_spectrum(const Tensor3& M, int h, Backend& backend);

}  // namespace attnscope

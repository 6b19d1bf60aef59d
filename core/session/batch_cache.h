// attnscope — what the run worker keeps from one batch to the next, so that an edit recomputes only what it
// invalidates: the encoded layers of the current text (a layer or head change reads them again instead of running
// the encoder), the current input with its exact references (a variant change reuses both), and each variant
// instance's finished views with their spectra per head (a change of one variant reruns that variant alone).
// One entry per kind — the current text, the current input, the views of the last batch — so memory stays that
// of one batch: typing a new text always encodes it (an undo does not hit an older entry).
#pragma once
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/data/text_input.h"
#include "core/session/batch.h"

namespace attnscope {

/// Finished views of one variant instance, and its spectra by head.
struct CachedViews {
    std::vector<VariantView> views;       // the main view, then its auxiliary views (pooled, metrics filled)
    std::map<int, SpectrumView> spectra;  // spectrum_head → spectrum of the main view's matrix
};

/// Max-pooled pictures of one causality's exact P in the input's own order (a batch's "pool exact" stage).
struct ExactPictures {
    std::shared_ptr<const Tensor3> pooled;  // (H, s, s) at the request's pooled view size s
    std::shared_ptr<const Tensor3> thumbs;  // (H, t, t), t ≤ 128: the all-heads grid
};

/// The worker's memory of earlier batches (worker thread only; not thread-safe).
class BatchCache {
public:
    /// The Heads of `spec` (built, or the cached ones when nothing changed); `reused` says which, `encoded` whether
    /// the text encoder ran. Fills `info`. Throws Error like build_input. Loaded tensors are read again every time
    /// (the files may have changed since).
    std::shared_ptr<const Heads> input(const InputSpec& spec, InputInfo& info, bool& reused, bool& encoded);
    /// A string naming the current input (what view keys start with); empty before input() succeeded.
    const std::string& input_key() const { return m_input_key; }
    /// The exact references of the current input for `want_P`, kept while the input stays.
    ReferenceCache& references(bool want_P);
    /// The cached views under `key`, or nullptr.
    CachedViews* views(const std::string& key);
    /// Stores (or replaces) the views under `key`.
    CachedViews& store(const std::string& key, CachedViews views);
    /// Drops every view entry but `keys` (those the batch that just finished showed).
    void keep_only(const std::set<std::string>& keys);
    /// The exact spectrum of causality `causal` at `head` of the current input, when computed before.
    SpectrumView* exact_spectrum(bool causal, int head);
    /// Stores it.
    void store_exact_spectrum(bool causal, int head, SpectrumView s);
    /// The pictures of causality `causal`'s exact P at pooled size `size`, when made before from the current
    /// references (at n = 16384 each is a pass over a GiB), or nullptr.
    const ExactPictures* exact_pictures(bool causal, int size) const;
    /// Stores them.
    void store_exact_pictures(bool causal, int size, ExactPictures pictures);

private:
    std::string m_text_key;                    // model, truncation and text of m_layers
    std::shared_ptr<const TextLayers> m_layers;
    InputInfo m_text_info;                     // token counts of m_layers
    std::string m_input_key;                   // input of m_heads
    std::shared_ptr<const Heads> m_heads;
    InputInfo m_info;
    std::unique_ptr<ReferenceCache> m_refs;    // of m_heads
    bool m_refs_want_P = false;
    std::map<std::string, CachedViews> m_views;
    std::map<std::pair<bool, int>, SpectrumView> m_exact_spectra;  // of m_heads
    std::map<std::pair<bool, int>, ExactPictures> m_exact_pictures;  // of m_refs: (causal, size) → pictures
};

/// The key of one variant instance's views on the cache's current input under `request`'s display settings
/// (materialise limit, pooled size, order, backend); the spectrum head is not part of it.
std::string view_key(const BatchCache& cache, const RunBatchRequest& request, const VariantRequest& variant);

}  // namespace attnscope

// attnscope — StreamingLLM (Xiao et al. 2023) on the decoder, as the paper measures it: perplexity with a KV cache of
// the w most recent tokens, with and without s initial "sink" tokens, against full attention and against recomputing
// each window from scratch. The paper assigns positions within the cache: once the window has moved on, the sinks sit
// right before it (cache positions 0 … s − 1, the window s … s + w − 1), so a sink key is rotated by RoPE as if it
// were δ_t = t − (s + w − 1) positions later than in the text. A plain mask over text positions (the `sink` variant)
// leaves them where they are; both are here, side by side.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/data/llama_decoder.h"
#include "core/heads.h"

namespace attnscope {

/// Where a sink key sits for a query that has moved past the window.
enum class SinkPositions {
    Text,   // at its text position (a mask over text positions: the `sink` variant)
    Cache,  // next to the window, positions assigned within the cache (StreamingLLM's rule)
};

/// Causal attention of every head in which query t reads keys j ≤ t with j < sinks or j > t − window, scaled by
/// `scale`; under SinkPositions::Cache a sink key outside the window is first turned by RoPE (`rope_frequencies`, one
/// per dimension pair (2i, 2i + 1)) through δ_t = t − (sinks + window − 1) positions. Q and K are after RoPE. Returns O.
Tensor3 streaming_attention(const Heads& heads, int sinks, int window, SinkPositions positions,
                            const std::vector<double>& rope_frequencies, float scale);

/// Throws Error unless a table of n tokens can be measured: n ≥ 2, at least one window, each in 1 … n − 1,
/// 0 ≤ sinks < n, recompute_samples ≥ 0 (the message says which and what to give).
void check_streaming_sizes(int n, const std::vector<int>& windows, int sinks, int recompute_samples);

/// One window size of the StreamingLLM table: perplexities over the same text.
struct StreamingRow {
    int window = 0;             // recent tokens w in the cache
    double window_only = 0;     // a cache of the w recent tokens alone
    double sinks_cache = 0;     // sinks + w recent tokens, positions within the cache (the paper's rule)
    double sinks_text = 0;      // sinks + w recent tokens, text positions (a mask only)
    double recompute = 0;       // the paper's baseline: each sampled position predicted by a fresh pass over its
                                // w preceding tokens (positions 0 … w − 1); over `recompute_positions`
    double full_at_sampled = 0; // full attention over the same sampled positions (the recompute column's pair)
};

/// The StreamingLLM measurement over one text.
struct StreamingTable {
    int tokens = 0;                       // n
    int sinks = 4;                        // s
    double full = 0;                      // full attention's perplexity over positions 0 … n − 2
    std::vector<int> recompute_positions; // the positions t (predicting token t + 1) the recompute baseline samples
    std::vector<StreamingRow> rows;       // one per window
    std::vector<double> sink_mass;        // per layer: mean over heads and rows t ≥ 1 of the exact attention on keys < s
};

/// Measures the table on `ids` (every layer replaced, every head) for each window w (1 ≤ w < n); the recompute baseline
/// samples `recompute_samples` positions evenly over [max w, n − 2] (0: skipped). `progress` (optional) receives the
/// sentence of the running pass before each of its layers and returns false to cancel (then Error("cancelled")).
/// Throws Error for bad sizes.
StreamingTable measure_streaming(const LlamaDecoder& decoder, const std::vector<int>& ids, const std::vector<int>& windows,
                                 int sinks, int recompute_samples,
                                 const std::function<bool(const std::string&)>& progress = {});

/// measure_streaming(), remembered in this process for the last few (decoder, ids, windows, sinks, samples): a lesson's
/// check and its Streaming panel, run one after the other on the worker, compute the table once. A cancelled or
/// failed measurement is not remembered.
std::shared_ptr<const StreamingTable> remembered_streaming(const LlamaDecoder& decoder, const std::vector<int>& ids,
                                                           const std::vector<int>& windows, int sinks,
                                                           int recompute_samples,
                                                           const std::function<bool(const std::string&)>& progress = {});

/// Parses a comma-separated list of window sizes ("64,512"); throws Error naming `what` for anything else.
std::vector<int> parse_window_list(const std::string& text, const std::string& what);

}  // namespace attnscope

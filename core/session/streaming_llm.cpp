#include "core/session/streaming_llm.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <mutex>
#include <sstream>

#include "core/data/rope_table.h"
#include "core/error.h"

namespace attnscope {

namespace {

/// Query rows per task: the window block of a tile is rows × (window + rows) scores.
constexpr int kRowTile = 64;

/// q · (k turned by RoPE through row `delta` of the table): pairs (2i, 2i + 1) rotate by δ · frequency_i.
float turned_dot(const float* q, const float* k, const RopeTable& shift, int delta, int dh) {
    float s = 0;
    for (int i = 0; i < dh / 2; ++i) {
        const float c = shift.cos(delta, i), sn = shift.sin(delta, i), a = k[2 * i], b = k[2 * i + 1];
        s += q[2 * i] * (a * c - b * sn) + q[2 * i + 1] * (a * sn + b * c);
    }
    return s;
}

}  // namespace

Tensor3 streaming_attention(const Heads& heads, int sinks, int window, SinkPositions positions,
                            const std::vector<double>& rope_frequencies, float scale) {
    const int H = heads.heads(), n = heads.n(), dh = heads.d(), dv = heads.dv();
    if (sinks < 0 || window < 1) throw Error("streaming attention needs sinks ≥ 0 and a window ≥ 1");
    if (positions == SinkPositions::Cache && int(rope_frequencies.size()) * 2 != dh)
        throw Error("cache positions need one RoPE frequency per dimension pair of the head");
    // δ_t = t − (s + w − 1) is at most n − 1 − (s + w − 1) = n − s − w: rows of the table 0 … n − 1 cover it.
    const RopeTable shift = positions == SinkPositions::Cache ? rope_table(rope_frequencies, n) : RopeTable{};
    Tensor3 O(H, n, dv);
    const int tiles = (n + kRowTile - 1) / kRowTile;
#pragma omp parallel for collapse(2) schedule(dynamic)
    for (int h = 0; h < H; ++h)
        for (int tile = 0; tile < tiles; ++tile) {
            const auto Q = heads.Q.head(h), K = heads.K.head(h), V = heads.V.head(h);
            auto out = O.head(h);
            const int r0 = tile * kRowTile, r1 = std::min(n, r0 + kRowTile), rows = r1 - r0;
            // Window keys of this tile's rows: j in (r0 − w, r1), never below s (sinks are scored apart).
            const int c0 = std::max({0, sinks, r0 - window + 1}), cols = std::max(0, r1 - c0);
            MatrixRM S(rows, cols);
            if (cols > 0) S.noalias() = scale * (Q.middleRows(r0, rows) * K.middleRows(c0, cols).transpose());
            std::vector<float> sink_scores(size_t(std::max(sinks, 0)));
            for (int r = 0; r < rows; ++r) {
                const int t = r0 + r, own_sinks = std::min(sinks, t + 1);
                const int delta = positions == SinkPositions::Cache ? std::max(0, t - (sinks + window - 1)) : 0;
                float mx = -std::numeric_limits<float>::infinity();
                for (int j = 0; j < own_sinks; ++j) {
                    const float* q = Q.row(t).data();
                    const float* k = K.row(j).data();
                    sink_scores[size_t(j)] = delta > 0 ? scale * turned_dot(q, k, shift, delta, dh) : scale * Q.row(t).dot(K.row(j));
                    mx = std::max(mx, sink_scores[size_t(j)]);
                }
                // This row's window columns: j in (t − w, t], j ≥ c0.
                const int lo = std::max(c0, t - window + 1) - c0, hi = t - c0;  // inclusive, may be empty (hi < lo)
                for (int c = lo; c <= hi; ++c) mx = std::max(mx, S(r, c));
                double sum = 0;
                for (int j = 0; j < own_sinks; ++j) sum += sink_scores[size_t(j)] = std::exp(sink_scores[size_t(j)] - mx);
                for (int c = lo; c <= hi; ++c) sum += S(r, c) = std::exp(S(r, c) - mx);
                const float inv = static_cast<float>(1.0 / sum);
                auto o = out.row(t);
                o.setZero();
                for (int j = 0; j < own_sinks; ++j) o.noalias() += (sink_scores[size_t(j)] * inv) * V.row(j);
                if (hi >= lo) o.noalias() += inv * (S.row(r).segment(lo, hi - lo + 1) * V.middleRows(c0 + lo, hi - lo + 1));
            }
        }
    return O;
}

namespace {

/// Perplexity of ids with every layer's attention replaced by the streaming attention of (sinks, window, positions);
/// `poll` runs before each layer (it throws to stop a pass early).
double streaming_perplexity(const LlamaDecoder& decoder, const std::vector<int>& ids, int sinks, int window,
                            SinkPositions positions, const std::vector<double>& frequencies,
                            const std::function<void()>& poll) {
    DecoderOptions options;
    options.keep_qkv = false;
    options.logits = true;
    const float scale = 1.0f / std::sqrt(static_cast<float>(decoder.config().head_dim));
    options.hook = [&](int, const Heads& heads) -> std::optional<Tensor3> {
        poll();
        return streaming_attention(heads, sinks, window, positions, frequencies, scale);
    };
    return std::exp(mean_next_token_nll(decoder.forward(ids, options).logits, ids));
}

/// −log softmax(logits)[target] of one row, in float64 (plain loops: GCC 12 warns inside Eigen's AVX-512 double code).
double row_nll(const float* logits, int count, int target) {
    double mx = logits[0];
    for (int k = 1; k < count; ++k) mx = std::max(mx, double(logits[k]));
    double sum = 0;
    for (int k = 0; k < count; ++k) sum += std::exp(double(logits[k]) - mx);
    return mx + std::log(sum) - logits[target];
}

/// exp(mean) of the values of `nll` at `positions`.
double perplexity_at(const std::vector<double>& nll, const std::vector<int>& positions) {
    double sum = 0;
    for (int t : positions) sum += nll[size_t(t)];
    return std::exp(sum / double(positions.size()));
}

}  // namespace

void check_streaming_sizes(int n, const std::vector<int>& windows, int sinks, int recompute_samples) {
    if (n < 2) throw Error("the StreamingLLM table needs at least two tokens");
    if (windows.empty()) throw Error("the StreamingLLM table needs at least one window size");
    if (sinks < 0 || sinks >= n) throw Error("sinks must be 0 to n − 1 (" + std::to_string(n - 1) + ")");
    if (recompute_samples < 0) throw Error("the recompute sample count must be ≥ 0");
    for (int w : windows)
        if (w < 1 || w >= n)
            throw Error("window " + std::to_string(w) + " is outside 1 … n − 1 (" + std::to_string(n - 1) +
                        "): a window as long as the text is full attention");
}

StreamingTable measure_streaming(const LlamaDecoder& decoder, const std::vector<int>& ids, const std::vector<int>& windows,
                                 int sinks, int recompute_samples,
                                 const std::function<bool(const std::string&)>& progress) {
    const int n = static_cast<int>(ids.size());
    check_streaming_sizes(n, windows, sinks, recompute_samples);
    const int widest = *std::max_element(windows.begin(), windows.end());
    std::string now;  // what runs, for the progress callback
    auto poll = [&] {
        if (progress && !progress(now)) throw Error("cancelled");
    };
    auto step = [&](const std::string& what) { now = what, poll(); };
    StreamingTable table;
    table.tokens = n;
    table.sinks = sinks;
    const std::vector<double> frequencies = decoder.rope_frequencies();

    step("full attention");
    DecoderOptions full_options;
    full_options.keep_qkv = false;
    full_options.logits = true;
    full_options.received = true;
    full_options.hook = [&](int, const Heads&) -> std::optional<Tensor3> { return poll(), std::nullopt; };  // exact
    const DecoderOutput full = decoder.forward(ids, full_options);
    std::vector<double> full_nll;
    table.full = std::exp(mean_next_token_nll(full.logits, ids, &full_nll));
    const int H = decoder.config().heads;
    for (const std::vector<double>& received : full.received) {
        double mass = 0;
        for (int h = 0; h < H; ++h)
            for (int j = 0; j < sinks; ++j) mass += received[size_t(h) * n + j];
        table.sink_mass.push_back(mass / (double(H) * n));
    }
    // The recompute baseline's positions: every window is full there (t ≥ widest), spread evenly to the end.
    const int lo = std::min(widest, n - 2), hi = n - 2;
    for (int k = 0; k < recompute_samples; ++k) {
        const int t = recompute_samples == 1 ? hi : lo + int(std::llround(double(hi - lo) * k / (recompute_samples - 1)));
        if (table.recompute_positions.empty() || table.recompute_positions.back() != t) table.recompute_positions.push_back(t);
    }
    for (int w : windows) {
        StreamingRow row;
        row.window = w;
        const std::string of = " (window " + std::to_string(w) + ")";
        step("window only" + of);
        row.window_only = streaming_perplexity(decoder, ids, 0, w, SinkPositions::Text, frequencies, poll);
        step(std::to_string(sinks) + " sinks at cache positions" + of);
        row.sinks_cache = streaming_perplexity(decoder, ids, sinks, w, SinkPositions::Cache, frequencies, poll);
        step(std::to_string(sinks) + " sinks at text positions" + of);
        row.sinks_text = streaming_perplexity(decoder, ids, sinks, w, SinkPositions::Text, frequencies, poll);
        if (!table.recompute_positions.empty()) {
            double sum = 0;
            for (int t : table.recompute_positions) {
                step("recomputing position " + std::to_string(t) + of);
                const int start = std::max(0, t - w + 1);
                const std::vector<int> slice(ids.begin() + start, ids.begin() + t + 1);
                DecoderOptions o;
                o.keep_qkv = false;
                o.logits = true;
                o.last_logits_only = true;
                const MatrixRM last = decoder.forward(slice, o).logits;
                sum += row_nll(last.row(0).data(), int(last.cols()), ids[size_t(t) + 1]);
            }
            row.recompute = std::exp(sum / double(table.recompute_positions.size()));
            row.full_at_sampled = perplexity_at(full_nll, table.recompute_positions);
        }
        table.rows.push_back(row);
    }
    return table;
}

std::shared_ptr<const StreamingTable> remembered_streaming(const LlamaDecoder& decoder, const std::vector<int>& ids,
                                                           const std::vector<int>& windows, int sinks,
                                                           int recompute_samples,
                                                           const std::function<bool(const std::string&)>& progress) {
    struct Entry {
        const LlamaDecoder* decoder;
        std::vector<int> ids, windows;
        int sinks, samples;
        std::shared_ptr<const StreamingTable> table;
    };
    static std::mutex mutex;
    static std::deque<Entry> remembered;  // newest first, at most kRemembered
    constexpr size_t kRemembered = 4;
    {
        std::lock_guard<std::mutex> lock(mutex);
        for (const Entry& e : remembered)
            if (e.decoder == &decoder && e.sinks == sinks && e.samples == recompute_samples && e.windows == windows &&
                e.ids == ids)
                return e.table;
    }
    auto table = std::make_shared<const StreamingTable>(
        measure_streaming(decoder, ids, windows, sinks, recompute_samples, progress));
    std::lock_guard<std::mutex> lock(mutex);
    remembered.push_front({&decoder, ids, windows, sinks, recompute_samples, table});
    if (remembered.size() > kRemembered) remembered.pop_back();
    return table;
}

std::vector<int> parse_window_list(const std::string& text, const std::string& what) {
    std::vector<int> out;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');) {
        while (!item.empty() && item.front() == ' ') item.erase(item.begin());
        while (!item.empty() && item.back() == ' ') item.pop_back();
        const bool digits = !item.empty() && item.size() <= 7 && item.find_first_not_of("0123456789") == std::string::npos;
        const int w = digits ? std::stoi(item) : 0;
        if (w < 1) throw Error(what + " '" + text + "': '" + item + "' is not a whole number ≥ 1; give sizes like 64,256,1024");
        out.push_back(w);
    }
    if (out.empty()) throw Error(what + " is empty; give sizes like 64,256,1024");
    return out;
}

}  // namespace attnscope

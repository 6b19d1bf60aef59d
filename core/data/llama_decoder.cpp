#include "core/data/llama_decoder.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/data/rope_table.h"

namespace attnscope {

namespace {

/// Query rows per attention task: bounds a task's score block to rows × (its last row + 1) and balances the causal
/// triangle over the threads.
constexpr int kAttentionRowTile = 128;

/// y = x·Wᵀ for W (out, in) row-major, the output columns split over the threads: each thread packs all of x (small)
/// and its own rows of W, which is what a weight-bound GEMM wants (EIGEN_DONT_PARALLELIZE keeps Eigen single-threaded).
void linear(const MatrixRM& x, const MatrixRM& w, MatrixRM& y) {
    const Eigen::Index out = w.rows();
    y.resize(x.rows(), out);
    const int threads = std::max(1, omp_get_max_threads());
    const Eigen::Index chunk = ((out + threads - 1) / threads + 15) / 16 * 16;
    // Worth a fork from ~256k multiply-adds: an edit's one or two new rows are a matrix-vector product that reads all of
    // W, and two cores read it at twice the bandwidth.
#pragma omp parallel for schedule(static) if (threads > 1 && x.rows() * out * w.cols() >= (int64_t(1) << 18))
    for (int t = 0; t < threads; ++t) {
        const Eigen::Index c0 = t * chunk, cols = std::min(chunk, out - c0);
        if (cols <= 0) continue;
        y.middleCols(c0, cols).noalias() = x * w.middleRows(c0, cols).transpose();
    }
}

/// Row-wise RMSNorm: x / √(mean(x²) + ε) · g.
MatrixRM rms_norm(const MatrixRM& x, const Eigen::RowVectorXf& gain, double eps) {
    const Eigen::VectorXf inv = (x.array().square().rowwise().mean() + static_cast<float>(eps)).rsqrt().matrix();
    MatrixRM y = (x.array().colwise() * inv.array()).matrix();
    y.array().rowwise() *= gain.array();
    return y;
}

/// Rows [first, first + m.rows()) of a (heads, n, dh) tensor from columns [offset, offset + heads·dh) of m, rotated by
/// RoPE at their positions when `rope` is given: GGUF's llama tensors pair dimensions (2i, 2i + 1) (the converter
/// permuted q and k for this layout). Rows before `first` are copied from `previous` (an earlier pass's tensor).
Tensor3 split_heads(const MatrixRM& m, int offset, int heads, int dh, const RopeTable* rope, int first = 0,
                    const Tensor3* previous = nullptr) {
    const int rows = static_cast<int>(m.rows()), n = first + rows;
    Tensor3 t(heads, n, dh);
    for (int h = 0; h < heads; ++h) {
        MatView out = t.head(h);
        if (first > 0) out.topRows(first) = previous->head(h).topRows(first);
        out.bottomRows(rows) = m.middleCols(offset + h * dh, dh);
        if (!rope) continue;
        for (int p = first; p < n; ++p) {
            float* row = out.row(p).data();
            for (int i = 0; i < dh / 2; ++i) {
                const float c = rope->cos(p, i), s = rope->sin(p, i), a = row[2 * i], b = row[2 * i + 1];
                row[2 * i] = a * c - b * s;
                row[2 * i + 1] = a * s + b * c;
            }
        }
    }
    return t;
}

/// Causal softmax(scale·QKᵀ)·V of query rows [first, n) with grouped KV heads into the context's head columns (its row
/// 0 is query row `first`), tiled over query rows so the masked half is never computed; fills probs (heads, n, n) when
/// it is non-empty (first = 0 then).
void causal_attention(const Tensor3& Q, const Tensor3& K, const Tensor3& V, int group, float scale, int first,
                      Tensor3& probs, MatrixRM& context, std::vector<double>* received = nullptr) {
    const int H = Q.heads(), n = Q.rows(), dh = V.cols();
    const int tiles = (n - first + kAttentionRowTile - 1) / kAttentionRowTile;
    // Column sums per thread (tasks of one head run on several threads), added up after the loop.
    const int threads = std::max(1, omp_get_max_threads());
    std::vector<double> partial(received ? size_t(threads) * H * n : 0, 0.0);
#pragma omp parallel for schedule(dynamic, 1) if (int64_t(n - first) * n * H >= 65536)
    for (int task = 0; task < H * tiles; ++task) {
        const int h = task / tiles, r0 = first + (task % tiles) * kAttentionRowTile;
        const int rows = std::min(kAttentionRowTile, n - r0), keys = r0 + rows;
        const int kv = h / group;
        MatrixRM s = scale * (Q.head(h).middleRows(r0, rows) * K.head(kv).topRows(keys).transpose());
        for (int r = 0; r < rows; ++r) {
            auto row = s.row(r);
            const int allowed = r0 + r + 1;
            row.tail(keys - allowed).setConstant(-std::numeric_limits<float>::infinity());
            const float mx = row.head(allowed).maxCoeff();
            row = (row.array() - mx).exp().matrix();
            row /= row.head(allowed).sum();
        }
        context.block(r0 - first, h * dh, rows, dh).noalias() = s * V.head(kv).topRows(keys);
        if (probs.heads()) probs.head(h).block(r0, 0, rows, keys) = s;
        if (received) {
            double* sums = partial.data() + (size_t(omp_get_thread_num()) * H + h) * n;
            for (int r = 0; r < rows; ++r)
                for (int j = 0; j <= r0 + r; ++j) sums[j] += s(r, j);
        }
    }
    if (received) {
        received->assign(size_t(H) * n, 0.0);
        for (int t = 0; t < threads; ++t)
            for (size_t k = 0; k < received->size(); ++k) (*received)[k] += partial[size_t(t) * H * n + k];
    }
}

}  // namespace

Tensor3 expand_kv_heads(const Tensor3& kv, int heads) {
    const int group = heads / std::max(1, kv.heads());
    Tensor3 out(heads, kv.rows(), kv.cols());
    for (int h = 0; h < heads; ++h) out.head(h) = kv.head(h / group);
    return out;
}

int64_t LlamaDecoder::weight_bytes() const {
    int64_t floats = m_weights.embed.size() + m_weights.output.size() + m_weights.output_norm.size();
    for (const LlamaLayerWeights& L : m_weights.layers)
        floats += L.attn_norm.size() + L.qkv.size() + L.out.size() + L.ffn_norm.size() + L.gate_up.size() + L.down.size();
    return floats * int64_t(sizeof(float));
}

std::vector<double> LlamaDecoder::rope_frequencies() const {
    const LlamaConfig& c = m_config;
    std::vector<double> f(size_t(c.head_dim / 2));
    for (int i = 0; i < c.head_dim / 2; ++i) {
        f[size_t(i)] = std::pow(c.rope_base, -2.0 * i / c.head_dim) / c.rope_linear;
        if (m_weights.rope_factors.size()) f[size_t(i)] /= m_weights.rope_factors(i);
    }
    return f;
}

DecoderOutput LlamaDecoder::forward(const std::vector<int>& ids, const DecoderOptions& options) const {
    return forward_rows(ids, options, nullptr, 0);
}

DecoderOutput LlamaDecoder::extend(const std::vector<int>& ids, const DecoderOutput& previous, int reuse,
                                   const DecoderOptions& options) const {
    const int run_layers = options.last_layer < 0 ? m_config.layers : std::min(options.last_layer + 1, m_config.layers);
    const bool usable = !options.hook && !options.keep_probs && !options.logits && !options.received && options.keep_qkv &&
                        reuse > 0 &&
                        reuse < int(ids.size()) && int(previous.Q.size()) >= run_layers &&
                        int(previous.hidden.size()) >= run_layers && previous.Q.front().rows() >= reuse;
    return forward_rows(ids, options, usable ? &previous : nullptr, usable ? reuse : 0);
}

DecoderOutput LlamaDecoder::forward_rows(const std::vector<int>& ids, const DecoderOptions& options,
                                         const DecoderOutput* previous, int first) const {
    const LlamaConfig& c = m_config;
    const int n = static_cast<int>(ids.size()), H = c.heads, Hkv = c.kv_heads, dh = c.head_dim, m = n - first;
    if (n < 1 || n > c.context)
        throw Error("the decoder takes 1 to " + std::to_string(c.context) + " tokens (its context), got " +
                    std::to_string(n) + "; shorten the text or truncate it");
    MatrixRM x(m, c.hidden);  // the rows computed here: positions first … n − 1
    for (int i = 0; i < n; ++i) {
        if (ids[size_t(i)] < 0 || ids[size_t(i)] >= c.vocab)
            throw Error("token id " + std::to_string(ids[size_t(i)]) + " at position " + std::to_string(i) +
                        " is outside the vocabulary of " + std::to_string(c.vocab));
        if (i >= first) x.row(i - first) = m_weights.embed.row(ids[size_t(i)]);
    }
    const RopeTable rope = rope_table(rope_frequencies(), n);
    const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
    const int run_layers = options.last_layer < 0 ? c.layers : std::min(options.last_layer + 1, c.layers);
    DecoderOutput out;
    MatrixRM qkv, context(m, H * dh), projected, gate_up, down;
    for (int l = 0; l < run_layers; ++l) {
        const LlamaLayerWeights& w = m_weights.layers[size_t(l)];
        const auto L = size_t(l);
        Tensor3 layer_input(1, n, c.hidden);
        if (first > 0) layer_input.head(0).topRows(first) = previous->hidden[L].head(0).topRows(first);
        layer_input.head(0).bottomRows(m) = x;
        linear(rms_norm(x, w.attn_norm, c.rms_eps), w.qkv, qkv);
        const Tensor3* before_q = first > 0 ? &previous->Q[L] : nullptr;
        const Tensor3* before_k = first > 0 ? &previous->K[L] : nullptr;
        const Tensor3* before_v = first > 0 ? &previous->V[L] : nullptr;
        Tensor3 Q = split_heads(qkv, 0, H, dh, &rope, first, before_q),
                K = split_heads(qkv, H * dh, Hkv, dh, &rope, first, before_k),
                V = split_heads(qkv, (H + Hkv) * dh, Hkv, dh, nullptr, first, before_v);
        std::optional<Tensor3> replaced;
        if (options.hook) {  // first = 0 here (extend() does not reuse rows under a hook)
            Heads heads;
            heads.Q = Q, heads.K = expand_kv_heads(K, H), heads.V = expand_kv_heads(V, H), heads.X = layer_input;
            heads.source = "text";
            replaced = options.hook(l, heads);
        }
        Tensor3 probs;
        if (replaced) {
            require_shape(*replaced, H, n, dh, "the replacing attention output");
            for (int h = 0; h < H; ++h) context.middleCols(h * dh, dh) = replaced->head(h);
        } else {
            if (options.keep_probs) probs = Tensor3(H, n, n);
            std::vector<double> received;
            causal_attention(Q, K, V, H / Hkv, scale, first, probs, context, options.received ? &received : nullptr);
            if (options.received) out.received.push_back(std::move(received));
        }
        linear(context, w.out, projected);
        x += projected;
        linear(rms_norm(x, w.ffn_norm, c.rms_eps), w.gate_up, gate_up);
        auto gate = gate_up.leftCols(c.ffn).array();
        MatrixRM act = (gate / (1.0f + (-gate).exp()) * gate_up.rightCols(c.ffn).array()).matrix();
        linear(act, w.down, down);
        x += down;
        out.hidden.push_back(std::move(layer_input));
        if (options.keep_qkv) out.Q.push_back(std::move(Q)), out.K.push_back(std::move(K)), out.V.push_back(std::move(V));
        if (options.keep_probs) out.probs.push_back(std::move(probs));
    }
    if (options.logits && run_layers == c.layers) {
        const MatrixRM last = options.last_logits_only ? MatrixRM(x.bottomRows(1)) : MatrixRM();
        linear(rms_norm(options.last_logits_only ? last : x, m_weights.output_norm, c.rms_eps),
               m_weights.logits_matrix(), out.logits);
    }
    return out;
}

double mean_next_token_nll(const MatrixRM& logits, const std::vector<int>& ids, std::vector<double>* per_position) {
    const int n = static_cast<int>(ids.size());
    if (logits.rows() != n || n < 2) throw Error("perplexity needs the logits of at least two tokens");
    std::vector<double> nll(size_t(n - 1));
#pragma omp parallel for schedule(static)
    for (int t = 0; t < n - 1; ++t) {
        const auto row = logits.row(t).cast<double>();
        const double mx = row.maxCoeff();
        const double lse = mx + std::log((row.array() - mx).exp().sum());
        nll[size_t(t)] = lse - row(ids[size_t(t) + 1]);
    }
    double sum = 0;
    for (double v : nll) sum += v;
    if (per_position) *per_position = nll;
    return sum / (n - 1);
}

}  // namespace attnscope

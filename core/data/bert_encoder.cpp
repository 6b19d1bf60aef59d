#include "core/data/bert_encoder.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <unsupported/Eigen/SpecialFunctions>

namespace attnscope {

namespace {

// Sequences at least this long use every core (see forward()).
constexpr int kParallelMinTokens = 64;

/// Row-wise LayerNorm in place: (x − mean) / √(var + eps) · gain + bias, biased variance like torch.
void layer_norm(MatrixRM& x, const RowVec& gain, const RowVec& bias, double eps) {
    const Eigen::VectorXf mean = x.rowwise().mean();
    x.colwise() -= mean;
    const Eigen::VectorXf inv =
        (x.array().square().rowwise().mean() + static_cast<float>(eps)).rsqrt().matrix();
    x = (x.array().colwise() * inv.array()).matrix();
    x.array().rowwise() *= gain.array();
    x.rowwise() += bias;
}

/// GELU in place: x·Φ(x) with the erf form, or the tanh approximation when the config asks for it.
void gelu(MatrixRM& x, bool tanh_form) {
    auto a = x.array();
    if (tanh_form) {
        const float c = std::sqrt(2.0f / std::numbers::pi_v<float>);
        a = 0.5f * a * (1.0f + (c * (a + 0.044715f * a.cube())).tanh());
    } else {
        a = 0.5f * a * (1.0f + (a * (1.0f / std::numbers::sqrt2_v<float>)).erf());
    }
}

/// Splits columns [offset, offset + H·dh) of (n, ·) rows into a (H, n, dh) tensor.
Tensor3 split_heads(const MatrixRM& m, int offset, int H, int dh) {
    const int n = static_cast<int>(m.rows());
    Tensor3 t(H, n, dh);
    for (int h = 0; h < H; ++h) t.head(h) = m.middleCols(offset + h * dh, dh);
    return t;
}

/// The embeddings of `ids` (word + position + token type 0), layer-normalised: the first layer's input (n, hidden).
MatrixRM embed(const BertConfig& c, const BertWeights& weights, const std::vector<int>& ids) {
    const int n = static_cast<int>(ids.size()), hd = c.hidden;
    if (n < 1 || n > c.max_positions)
        throw Error("the encoder takes 1 to " + std::to_string(c.max_positions) + " tokens, got " + std::to_string(n) +
                    "; shorten the text or truncate it");
    MatrixRM x(n, hd);
    for (int i = 0; i < n; ++i) {
        if (ids[i] < 0 || ids[i] >= c.vocab_size)
            throw Error("token id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
                        " is outside the vocabulary of " + std::to_string(c.vocab_size));
        x.row(i) = weights.word.row(ids[i]) + weights.position.row(i) + weights.token_type.row(0);
    }
    layer_norm(x, weights.ln_gain, weights.ln_bias, c.layer_norm_eps);
    return x;
}

/// How a pass splits its rows over threads.
///
/// Row blocks, one per thread: every step but the attention itself is row-local, so each runs as one
/// parallel region of single-threaded Eigen products. (Eigen's own threaded GEMM spin-waits between
/// blocks, which turns a busy machine's time slices into seconds.) Only very short sequences run on one core:
/// with passive OpenMP waits (app/main.cpp) the 18 fork-joins of a pass cost less than the second core saves from
/// ~64 tokens on (docs/PERFORMANCE.reasons.md).
struct RowBlocks {
    bool parallel = false;  // n ≥ kParallelMinTokens
    int threads = 1;        // the caller's OpenMP thread count
    int blocks = 1, block_rows = 0, n = 0;

    /// Runs f(first row, row count) for every non-empty block, a thread per block when parallel.
    template <class F>
    void for_each(const F& f) const {
#pragma omp parallel for schedule(static) if (parallel)
        for (int b = 0; b < blocks; ++b) {
            const int r0 = b * block_rows, rows = std::min(block_rows, n - r0);
            if (rows <= 0) continue;
            f(r0, rows);
        }
    }
};

/// The row blocks of n tokens under this thread's OpenMP setting.
RowBlocks row_blocks(int n) {
    RowBlocks r;
    r.parallel = n >= kParallelMinTokens;
    r.threads = omp_get_max_threads();
    r.blocks = r.parallel ? std::max(1, std::min(n, r.threads)) : 1;
    r.block_rows = (n + r.blocks - 1) / r.blocks;
    r.n = n;
    return r;
}

/// Restores this thread's OpenMP thread count on scope exit.
struct ThreadLimit {
    int saved;
    ~ThreadLimit() { omp_set_num_threads(saved); }
};

/// [Q|K|V] = X·W + b, (n, 3·hidden).
void project_qkv(const MatrixRM& x, const BertLayerWeights& w, const RowBlocks& blocks, MatrixRM& qkv) {
    blocks.for_each([&](int r0, int rows) {
        qkv.middleRows(r0, rows).noalias() = x.middleRows(r0, rows) * w.qkv;
        qkv.middleRows(r0, rows).rowwise() += w.qkv_bias;
    });
}

/// Asks the hook for layer l's attention output, with the layer input as X; the hook runs a variant, so it gets the
/// caller's thread count, and a short sequence's single thread is set again after it.
std::optional<Tensor3> run_hook(const AttentionHook& hook, int l, Heads& heads, const Tensor3& layer_input,
                                const RowBlocks& blocks) {
    heads.X = layer_input;
    heads.source = "text";
    omp_set_num_threads(blocks.threads);
    std::optional<Tensor3> replaced = hook(l, heads);
    if (!blocks.parallel) omp_set_num_threads(1);
    return replaced;
}

/// The hook's output as the concatenated context (n, hidden): per-head outputs side by side, or a (1, n, hidden)
/// output (a mixing of X such as FNet's) as it is.
void take_replaced_context(const Tensor3& replaced, int H, int dh, MatrixRM& context) {
    const int n = static_cast<int>(context.rows()), hd = static_cast<int>(context.cols());
    if (replaced.heads() == 1 && replaced.rows() == n && replaced.cols() == hd) {
        context = replaced.head(0);
    } else {
        require_shape(replaced, H, n, dh, "the replacing attention output");
        for (int h = 0; h < H; ++h) context.middleCols(h * dh, dh) = replaced.head(h);
    }
}

/// softmax(scale·QKᵀ)·V per head into the context's head columns; returns the probabilities (H, n, n) when
/// keep_probs, else an empty tensor.
Tensor3 softmax_attention(const Heads& heads, float scale, bool keep_probs, bool parallel, MatrixRM& context) {
    const int H = heads.Q.heads(), n = heads.Q.rows(), dh = heads.V.cols();
    Tensor3 probs;
    if (keep_probs) probs = Tensor3(H, n, n);
#pragma omp parallel for schedule(static) if (parallel)
    for (int h = 0; h < H; ++h) {
        MatrixRM local;
        if (!keep_probs) local.resize(n, n);
        MatView p = keep_probs ? probs.head(h) : MatView(local.data(), n, n);
        p.noalias() = scale * (heads.Q.head(h) * heads.K.head(h).transpose());
        const Eigen::VectorXf row_max = p.rowwise().maxCoeff();
        p.colwise() -= row_max;
        p = p.array().exp().matrix();
        const Eigen::VectorXf inv = p.rowwise().sum().cwiseInverse();
        p = (p.array().colwise() * inv.array()).matrix();
        context.middleCols(h * dh, dh).noalias() = p * heads.V.head(h);
    }
    return probs;
}

/// The rest of the layer, in place on x: output projection, + X, LayerNorm, GELU feed-forward, +, LayerNorm.
void add_and_feed_forward(const BertConfig& c, const BertLayerWeights& w, const MatrixRM& context,
                          const RowBlocks& blocks, MatrixRM& x) {
    blocks.for_each([&](int r0, int rows) {
        MatrixRM xb = x.middleRows(r0, rows);
        MatrixRM attn = context.middleRows(r0, rows) * w.out;
        attn.rowwise() += w.out_bias;
        xb += attn;
        layer_norm(xb, w.ln1_gain, w.ln1_bias, c.layer_norm_eps);
        MatrixRM ffn = xb * w.ffn_in;
        ffn.rowwise() += w.ffn_in_bias;
        gelu(ffn, c.gelu_tanh);
        MatrixRM ffn_out = ffn * w.ffn_out;
        ffn_out.rowwise() += w.ffn_out_bias;
        xb += ffn_out;
        layer_norm(xb, w.ln2_gain, w.ln2_bias, c.layer_norm_eps);
        x.middleRows(r0, rows) = xb;
    });
}

/// Mean pooling over every token (the attention mask is all ones for one unpadded sequence), then L2.
std::vector<float> sentence_embedding(const MatrixRM& x) {
    Eigen::RowVectorXd pooled = x.cast<double>().colwise().mean();
    const double norm = pooled.norm();
    if (norm > 0) pooled /= norm;
    std::vector<float> embedding(static_cast<size_t>(x.cols()));
    for (size_t j = 0; j < embedding.size(); ++j) embedding[j] = static_cast<float>(pooled(static_cast<Eigen::Index>(j)));
    return embedding;
}

}  // namespace

BertEncoder BertEncoder::load(const std::string& dir) {
    BertConfig config = read_bert_config(dir);
    BertWeights weights = load_bert_weights(dir, config);
    return BertEncoder(std::move(config), std::move(weights));
}

EncoderOutput BertEncoder::forward(const std::vector<int>& ids, const EncoderOptions& options) const {
    const BertConfig& c = m_config;
    const int n = static_cast<int>(ids.size()), hd = c.hidden, H = c.heads, dh = c.head_dim();
    MatrixRM x = embed(c, m_weights, ids);
    EncoderOutput out;
    auto keep_hidden = [&] {
        Tensor3 t(1, n, hd);
        t.head(0) = x;
        out.hidden.push_back(std::move(t));
    };
    keep_hidden();
    const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
    MatrixRM qkv(n, 3 * hd), context(n, hd);
    const RowBlocks blocks = row_blocks(n);
    // One core also for Eigen: outside a parallel region its products would start their own team. The
    // limit is this thread's OpenMP setting, restored on exit and around the hook (the variant's own run).
    const ThreadLimit restore{blocks.threads};
    if (!blocks.parallel) omp_set_num_threads(1);
    const int run_layers = options.last_layer < 0 ? c.layers : std::min(options.last_layer + 1, c.layers);
    for (int l = 0; l < run_layers; ++l) {
        const BertLayerWeights& w = m_weights.layers[static_cast<size_t>(l)];
        project_qkv(x, w, blocks, qkv);
        Heads heads;
        heads.Q = split_heads(qkv, 0, H, dh);
        heads.K = split_heads(qkv, hd, H, dh);
        heads.V = split_heads(qkv, 2 * hd, H, dh);
        std::optional<Tensor3> replaced;
        if (options.hook) replaced = run_hook(options.hook, l, heads, out.hidden.back(), blocks);
        Tensor3 probs;
        if (replaced)
            take_replaced_context(*replaced, H, dh, context);
        else
            probs = softmax_attention(heads, scale, options.keep_probs, blocks.parallel, context);
        add_and_feed_forward(c, w, context, blocks, x);
        keep_hidden();
        if (options.keep_qkv) {
            out.Q.push_back(std::move(heads.Q));
            out.K.push_back(std::move(heads.K));
            out.V.push_back(std::move(heads.V));
        }
        out.probs.push_back(std::move(probs));
    }
    if (run_layers < c.layers) return out;
    out.embedding = sentence_embedding(x);
    return out;
}

double cosine_similarity(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) throw Error("cosine_similarity: vectors of length " + std::to_string(a.size()) + " and " +
                                          std::to_string(b.size()));
    double ab = 0, aa = 0, bb = 0;
    for (size_t k = 0; k < a.size(); ++k) ab += double(a[k]) * b[k], aa += double(a[k]) * a[k], bb += double(b[k]) * b[k];
    return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0.0;
}

}  // namespace attnscope

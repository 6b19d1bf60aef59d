// attnscope — attention sinks (see key_attention.h).
#include "core/analysis/key_attention.h"

#include <cctype>

#include "core/data/text_input.h"
#include "core/data/text_model.h"
#include "core/error.h"

namespace attnscope {

std::vector<double> mean_received_attention(const std::vector<const Tensor3*>& probs) {
    if (probs.empty()) throw Error("no attention matrix to average: run the input first");
    const int n = probs.front()->cols();
    std::vector<double> sum(static_cast<size_t>(n), 0.0);
    double rows = 0;
    for (const Tensor3* P : probs) {
        if (P->cols() != n || P->rows() != n)
            throw Error("attention matrices of " + std::to_string(P->rows()) + "×" + std::to_string(P->cols()) +
                        " and n = " + std::to_string(n) + " cannot be averaged: every layer must have the same tokens");
        for (int h = 0; h < P->heads(); ++h) {
            const auto column_sums = P->head(h).colwise().sum();
            for (int j = 0; j < n; ++j) sum[static_cast<size_t>(j)] += double(column_sums(j));
            rows += P->rows();
        }
    }
    for (double& s : sum) s /= rows;
    return sum;
}

std::vector<double> uniform_received_share(int n, bool causal) {
    std::vector<double> share(size_t(std::max(0, n)), n > 0 ? 1.0 / n : 0.0);
    if (!causal) return share;
    double tail = 0;  // Σ_{i ≥ j} 1/(i + 1), from the last key back
    for (int j = n - 1; j >= 0; --j) tail += 1.0 / (j + 1), share[size_t(j)] = tail / n;
    return share;
}

TokenKind token_kind(const std::string& token) {
    if (token.size() >= 3 && token.front() == '[' && token.back() == ']') return TokenKind::Special;
    if (token.empty()) return TokenKind::Word;
    for (unsigned char c : token)
        if (!std::ispunct(c)) return TokenKind::Word;
    return TokenKind::Punctuation;
}

const char* token_kind_name(TokenKind kind) {
    switch (kind) {
        case TokenKind::Special: return "special";
        case TokenKind::Punctuation: return "punctuation";
        case TokenKind::Word: break;
    }
    return "word";
}

namespace {

/// text_key_attention for a decoder: the column sums are added up inside its attention, tile by tile, so no layer's
/// n×n matrix is ever held (8192 tokens would need 2.4 GB per layer, 72 GB for all 30).
std::optional<TextKeyAttention> decoder_key_attention(const TextInputSpec& spec, const std::function<bool()>& cancelled) {
    TextInputSpec first = spec;  // tokenizes and truncates exactly as the variants' input does
    first.layer = 0, first.head = -1;
    const TextInput in = load_text_input(first);
    if (cancelled && cancelled()) return std::nullopt;
    const auto model = load_decoder_model(resolve_model(spec.model_dir).path);
    DecoderOptions options;
    options.keep_qkv = false, options.received = true;
    const DecoderOutput out = model->decoder.forward(in.token_ids, options);
    TextKeyAttention r;
    r.layers = static_cast<int>(out.received.size());
    r.heads = model->decoder.config().heads;
    r.tokens = in.heads.tokens;
    r.truncated = in.truncated;
    r.causal = true;
    const size_t n = in.token_ids.size();
    r.received.assign(n, 0.0);
    for (const std::vector<double>& layer : out.received)
        for (size_t k = 0; k < layer.size(); ++k) r.received[k % n] += layer[k];
    const double rows = double(r.layers) * r.heads * double(n);
    for (double& v : r.received) v /= rows;
    return r;
}

}  // namespace

std::optional<TextKeyAttention> text_key_attention(const TextInputSpec& spec, const std::function<bool()>& cancelled) {
    if (resolve_model(spec.model_dir).decoder) return decoder_key_attention(spec, cancelled);
    const auto out = text_layer_probs(spec, cancelled);
    if (!out || (cancelled && cancelled())) return std::nullopt;
    const TextInput& in = out->input;
    std::vector<const Tensor3*> probs;
    for (const Tensor3& P : out->probs) probs.push_back(&P);
    TextKeyAttention r;
    r.layers = static_cast<int>(out->probs.size());
    r.heads = r.layers > 0 ? out->probs[0].heads() : 0;
    r.tokens = in.heads.tokens;
    r.truncated = in.truncated;
    r.causal = in.causal;
    r.received = mean_received_attention(probs);
    return r;
}

KeyAttentionProfile key_attention_profile(const TextKeyAttention& text) {
    KeyAttentionProfile p;
    p.tokens = text.tokens, p.received = text.received, p.text = true, p.truncated = text.truncated;
    p.causal = text.causal;
    p.uniform = uniform_received_share(int(text.received.size()), text.causal);
    p.over = std::to_string(text.layers) + " layers × " + std::to_string(text.heads) + " heads × " +
             std::to_string(text.tokens.size()) + " query rows of the " + (text.causal ? "causal " : "") +
             "exact softmax P";
    return p;
}

KeyAttentionProfile key_attention_profile(const Tensor3& P, const std::vector<std::string>& tokens, bool causal,
                                          const std::string& source) {
    KeyAttentionProfile p;
    p.received = mean_received_attention({&P});
    p.causal = causal;
    p.uniform = uniform_received_share(int(p.received.size()), causal);
    if (tokens.size() == p.received.size()) p.tokens = tokens;
    else
        for (size_t j = 0; j < p.received.size(); ++j) p.tokens.push_back(std::to_string(j));
    p.over = std::to_string(P.heads()) + " heads × " + std::to_string(P.rows()) + " query rows of the " +
             (causal ? "causal " : "") + "exact softmax P (" + source + ", one layer)";
    return p;
}

}  // namespace attnscope

// attnscope — attention sinks: the mean exact attention each key position receives, over layers, heads and query
// rows. Trained encoders park much of their weight on a few keys ([CLS], [SEP], punctuation); their columns stand
// far above the uniform share 1/n.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/data/text_input.h"
#include "core/tensor.h"

namespace attnscope {

/// Per key j: the mean of P[h, i, j] over every matrix, head and query row i of `probs` ((H, n, n) each, one n).
/// Rows of a probability matrix sum to 1, so the values sum to 1 and uniform attention gives 1/n each.
/// Throws Error when the list is empty or the matrices differ in n or are not square.
std::vector<double> mean_received_attention(const std::vector<const Tensor3*>& probs);

/// What a token string is, for highlighting sinks.
enum class TokenKind {
    Special,      // [CLS], [SEP], [PAD], [MASK], [UNK] (any "[...]" the tokenizer adds)
    Punctuation,  // only ASCII punctuation (".", ",", "?", "'", …)
    Word,         // anything else (word pieces included)
};

/// The kind of one token string.
TokenKind token_kind(const std::string& token);
/// "special", "punctuation" or "word".
const char* token_kind_name(TokenKind kind);

/// The mean received attention of a text, over every layer and head of the encoder.
struct TextKeyAttention {
    int layers = 0, heads = 0;        // what the mean is over
    std::vector<std::string> tokens;  // n token strings
    std::vector<double> received;     // n values (sum 1)
    bool truncated = false;           // the text was cut to the model's max positions
    bool causal = false;              // a decoder's text: every row attends to keys j ≤ i only
};

/// Runs the encoder once on spec.text (spec.layer and spec.head are ignored; spec.truncate applies) and averages
/// every layer's exact softmax probabilities. `cancelled` is polled between layers; returns nothing when it fired.
/// Throws Error like load_text_input.
std::optional<TextKeyAttention> text_key_attention(const TextInputSpec& spec,
                                                   const std::function<bool()>& cancelled = {});

/// What a sinks view shows (the Sinks panel, `run --sinks-csv`, `figure --view sinks`): the mean received attention
/// per key, the keys' labels and what the mean is over.
struct KeyAttentionProfile {
    std::vector<std::string> tokens;  // n labels: token strings, or positions for input without tokens
    std::vector<double> received;     // n mean received weights (sum 1)
    std::vector<double> uniform;      // n: what each key would receive if every row spread its weight evenly over
                                      // the keys it may attend to (uniform_received_share)
    bool causal = false;              // rows attend to keys j ≤ i only (a decoder's text, a causal reference)
    std::string over;                 // what the mean is over, e.g. "6 layers × 12 heads × 24 query rows of …"
    bool text = false;                // through the encoder: tokens are its token strings (kinds apply)
    bool truncated = false;           // the text was cut to the model's max positions
};

/// The mean weight key j of n receives when every row spreads its weight evenly over its allowed keys: 1/n each
/// without a mask; causal, (1/n)·Σ_{i ≥ j} 1/(i + 1) (key 0 gets the most, from every row; the last key 1/n²).
std::vector<double> uniform_received_share(int n, bool causal);

/// The profile of a text over every layer and head of the encoder.
KeyAttentionProfile key_attention_profile(const TextKeyAttention& text);

/// The profile of one exact softmax P (H, n, n) of an input named `source` (not text: one layer); `tokens` label
/// the keys when they number n, else positions do.
KeyAttentionProfile key_attention_profile(const Tensor3& P, const std::vector<std::string>& tokens, bool causal,
                                          const std::string& source);

}  // namespace attnscope

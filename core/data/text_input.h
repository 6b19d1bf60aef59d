// attnscope — text as an attention input: tokenize, run the encoder, hand one layer's Q, K, V to the variants.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/data/model_paths.h"
#include "core/heads.h"

namespace attnscope {

/// What text to encode and which layer/head to look at.
struct TextInputSpec {
    std::string text;        // UTF-8
    std::string model_dir;   // --model: empty or "minilm" (the encoder), "smollm2", a BERT folder or a .gguf file
    int layer = 0;           // 0 .. layers − 1
    int head = -1;           // −1: all heads; else one head 0 .. heads − 1
    bool truncate = false;   // cut to the model's max positions instead of failing
};

/// The encoded text: Heads of the chosen layer with tokens filled, plus what the UI reports beside it.
struct TextInput {
    Heads heads;                  // Q, K, V (H|1, n, dh); X = layer input (1, n, hidden); tokens; source "text"
    std::vector<int> token_ids;   // n vocabulary ids, [CLS] … [SEP]
    int layers = 0, model_heads = 0;  // the model's layer and (query) head counts
    int kv_heads = 0;             // the model's K/V head count: model_heads / kv_heads query heads share one
    bool causal = false;          // a decoder's text: every variant's causal default is on, the exact reference causal
    std::string model_name;       // "all-MiniLM-L6-v2 (encoder)", "SmolLM2 135M Instruct (decoder)" 
    int untruncated_tokens = 0;   // token count before truncation (== n unless truncated)
    bool truncated = false;       // true when the text was cut to max positions
};

/// One text through the encoder once, every layer up to a last one kept: what a change of layer or head re-reads
/// instead of encoding again.
struct TextLayers {
    TextInput input;                 // tokens, ids, counts and truncation; `heads` left empty
    std::vector<Tensor3> Q, K, V;    // per layer 0 … last: (H, n, dh); a decoder's K and V expanded to its query heads
    std::vector<Tensor3> X;          // per layer 0 … last: its input (1, n, hidden)
};

/// Throws Error unless 0 ≤ spec.layer < layers and −1 ≤ spec.head < heads, naming the model's range.
void check_text_layer_and_head(const TextInputSpec& spec, int layers, int heads);

/// Tokenizes and runs the encoder up to spec.layer (spec.head ignored). Throws Error like load_text_input.
TextLayers encode_text_layers(const TextInputSpec& spec);
/// The TextInput of `layer` (all heads when head = −1) from encoded layers; throws Error when the layer was not
/// encoded or the head does not exist.
TextInput text_input_of_layer(const TextLayers& layers, int layer, int head);

/// Tokenizes, runs the encoder, returns Q/K/V of `layer` (all heads when head = −1) with tokens filled.
/// Throws Error: missing model (run scripts/setup.sh), > max positions without truncate, bad UTF-8,
/// layer or head out of range.
TextInput load_text_input(const TextInputSpec& spec);

/// What a text model is, read from its loaded config (nothing is run).
struct TextModelFacts {
    bool decoder = false;     // a llama decoder (causal) rather than the BERT encoder
    std::string path;         // the folder or file loaded (resolve_model's path)
    std::string name;         // "all-MiniLM-L6-v2 (encoder)", "SmolLM2 135M Instruct (decoder)"
    int layers = 0, heads = 0, kv_heads = 0;
    int max_tokens = 0;       // the encoder's positions or the decoder's context
};

/// Loads the model `model_dir` names (see resolve_model) and returns its facts; throws Error like load_text_input.
TextModelFacts text_model_facts(const std::string& model_dir);


/// The exact softmax attention of every layer of one text, with the text's tokens.
struct TextLayerProbs {
    TextInput input;             // layer 0's input (tokens, truncation) as load_text_input gives it
    std::vector<Tensor3> probs;  // per layer (H, n, n)
};

/// Runs the encoder once on spec.text (spec.layer and spec.head ignored; spec.truncate applies) keeping every
/// layer's probabilities; nothing when `cancelled` fired between the two passes. Throws Error like load_text_input.
std::optional<TextLayerProbs> text_layer_probs(const TextInputSpec& spec, const std::function<bool()>& cancelled = {});

/// Token ids of `text` for the model `model_dir` names (empty: the encoder), [CLS] … [SEP] for the encoder; the ids may exceed
/// the model's max positions (the caller decides). Throws Error like load_text_input.
std::vector<int> tokenize_text(const std::string& text, const std::string& model_dir);

}  // namespace attnscope

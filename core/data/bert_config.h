// attnscope — the config.json of a BERT-family model folder: sizes and the few switches the encoder honours.
#pragma once
#include <string>

namespace attnscope {

/// Hyper-parameters of a BERT encoder (transformers' BertConfig names in comments).
struct BertConfig {
    std::string model_type = "bert";  // model_type
    int vocab_size = 0;               // vocab_size
    int hidden = 0;                   // hidden_size
    int layers = 0;                   // num_hidden_layers
    int heads = 0;                    // num_attention_heads
    int intermediate = 0;             // intermediate_size
    int max_positions = 0;            // max_position_embeddings
    int type_vocab = 0;               // type_vocab_size
    double layer_norm_eps = 1e-12;    // layer_norm_eps
    bool gelu_tanh = false;           // hidden_act "gelu_new"/"gelu_pytorch_tanh" (tanh form) instead of "gelu" (erf)

    /// Head dimension hidden / heads.
    int head_dim() const { return heads > 0 ? hidden / heads : 0; }
};

/// Reads DIR/config.json; throws Error when it is missing (pointing at scripts/setup.sh), malformed, or
/// describes an architecture the encoder does not run (model_type other than bert, relative positions, ...).
BertConfig read_bert_config(const std::string& dir);

}  // namespace attnscope

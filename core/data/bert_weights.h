// attnscope — the weights of a BERT encoder, read from model.safetensors and converted to float.
// Linear weights are stored transposed, (in, out), so every projection is a plain X·W + b; Q, K and V of a
// layer are fused into one (hidden, 3·hidden) matrix so one GEMM computes all three.
#pragma once
#include <string>
#include <vector>

#include "core/tensor.h"
#include "core/data/bert_config.h"

namespace attnscope {

/// Row vector of biases and LayerNorm parameters.
using RowVec = Eigen::Matrix<float, 1, Eigen::Dynamic>;

/// One transformer layer.
struct BertLayerWeights {
    MatrixRM qkv;        // (hidden, 3·hidden): columns [Q | K | V]
    RowVec qkv_bias;     // (3·hidden)
    MatrixRM out;        // (hidden, hidden) attention output projection
    RowVec out_bias;     // (hidden)
    RowVec ln1_gain, ln1_bias;  // (hidden) LayerNorm after attention
    MatrixRM ffn_in;     // (hidden, intermediate)
    RowVec ffn_in_bias;  // (intermediate)
    MatrixRM ffn_out;    // (intermediate, hidden)
    RowVec ffn_out_bias; // (hidden)
    RowVec ln2_gain, ln2_bias;  // (hidden) LayerNorm after the feed-forward
};

/// Embeddings and every layer.
struct BertWeights {
    MatrixRM word;        // (vocab, hidden)
    MatrixRM position;    // (max_positions, hidden)
    MatrixRM token_type;  // (type_vocab, hidden)
    RowVec ln_gain, ln_bias;  // (hidden) LayerNorm of the embeddings
    std::vector<BertLayerWeights> layers;
};

/// Reads DIR/model.safetensors (names with or without the "bert." prefix) and checks every shape against
/// `config`; throws Error naming the missing or mis-shaped tensor (an unsupported architecture).
BertWeights load_bert_weights(const std::string& dir, const BertConfig& config);

}  // namespace attnscope

#include "core/data/bert_weights.h"

#include <filesystem>

#include "core/data/safetensors.h"

namespace attnscope {

namespace {

/// Reads tensors by name with shape checks, naming the file and the architecture in errors.
class WeightReader {
public:
    WeightReader(const SafetensorsFile& file, std::string prefix) : m_file(file), m_prefix(std::move(prefix)) {}

    std::vector<float> read(const std::string& name, std::vector<int64_t> shape) const {
        const std::string full = m_prefix + name;
        if (!m_file.contains(full))
            throw Error(m_file.path() + " has no tensor '" + full +
                        "': not a BERT encoder checkpoint attnscope can run (expected transformers' BertModel names)");
        const SafetensorsEntry& e = m_file.entry(full);
        if (e.shape != shape) {
            SafetensorsEntry want;
            want.shape = shape;
            throw Error(m_file.path() + ": tensor '" + full + "' has shape " + e.shape_string() + " but config.json implies " +
                        want.shape_string() + "; the weights do not match the config");
        }
        return m_file.read_float(full);
    }
    /// (rows, cols) matrix as stored.
    MatrixRM matrix(const std::string& name, int rows, int cols) const {
        const std::vector<float> v = read(name, {rows, cols});
        return Eigen::Map<const MatrixRM>(v.data(), rows, cols);
    }
    /// A torch Linear weight (out, in), returned transposed as (in, out).
    MatrixRM linear(const std::string& name, int out, int in) const { return matrix(name, out, in).transpose(); }
    RowVec vector(const std::string& name, int size) const {
        const std::vector<float> v = read(name, {size});
        return Eigen::Map<const RowVec>(v.data(), size);
    }

private:
    const SafetensorsFile& m_file;
    std::string m_prefix;
};

}  // namespace

BertWeights load_bert_weights(const std::string& dir, const BertConfig& c) {
    const std::filesystem::path path = std::filesystem::path(dir) / "model.safetensors";
    if (!std::filesystem::exists(path))
        throw Error("no model.safetensors in '" + dir + "': run scripts/setup.sh to install all-MiniLM-L6-v2, or pass " +
                    "--model DIR with a BERT folder holding model.safetensors (pytorch_model.bin is not read)");
    const SafetensorsFile file(path.string());
    const std::string prefix = file.contains("embeddings.word_embeddings.weight") ? "" : "bert.";
    const WeightReader r(file, prefix);
    const int h = c.hidden, f = c.intermediate;
    BertWeights w;
    w.word = r.matrix("embeddings.word_embeddings.weight", c.vocab_size, h);
    w.position = r.matrix("embeddings.position_embeddings.weight", c.max_positions, h);
    w.token_type = r.matrix("embeddings.token_type_embeddings.weight", c.type_vocab, h);
    w.ln_gain = r.vector("embeddings.LayerNorm.weight", h);
    w.ln_bias = r.vector("embeddings.LayerNorm.bias", h);
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "encoder.layer." + std::to_string(l) + ".";
        BertLayerWeights L;
        L.qkv.resize(h, 3 * h);
        L.qkv_bias.resize(3 * h);
        const char* names[3] = {"query", "key", "value"};
        for (int k = 0; k < 3; ++k) {
            L.qkv.middleCols(k * h, h) = r.linear(p + "attention.self." + names[k] + ".weight", h, h);
            L.qkv_bias.segment(k * h, h) = r.vector(p + "attention.self." + names[k] + ".bias", h);
        }
        L.out = r.linear(p + "attention.output.dense.weight", h, h);
        L.out_bias = r.vector(p + "attention.output.dense.bias", h);
        L.ln1_gain = r.vector(p + "attention.output.LayerNorm.weight", h);
        L.ln1_bias = r.vector(p + "attention.output.LayerNorm.bias", h);
        L.ffn_in = r.linear(p + "intermediate.dense.weight", f, h);
        L.ffn_in_bias = r.vector(p + "intermediate.dense.bias", f);
        L.ffn_out = r.linear(p + "output.dense.weight", h, f);
        L.ffn_out_bias = r.vector(p + "output.dense.bias", h);
        L.ln2_gain = r.vector(p + "output.LayerNorm.weight", h);
        L.ln2_bias = r.vector(p + "output.LayerNorm.bias", h);
        w.layers.push_back(std::move(L));
    }
    return w;
}

}  // namespace attnscope

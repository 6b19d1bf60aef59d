#include "core/data/text_model.h"

#include <filesystem>
#include <map>
#include <mutex>

#include "core/data/gguf_file.h"

namespace attnscope {

namespace {

/// The cache key of a path: its canonical form when it exists.
std::string canonical_key(const std::string& path) {
    std::error_code ec;
    std::string key = std::filesystem::weakly_canonical(path, ec).string();
    return ec ? path : key;
}

}  // namespace

std::shared_ptr<const TextModel> load_text_model(const std::string& dir) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const TextModel>> cache;
    std::error_code ec;
    if (resolve_model(dir).decoder)
        throw Error("'" + dir + "' is a decoder (GGUF file): this needs the encoder (the sentence-embedding what-if, "
                    "embedding_cosine, reads the encoder's embedding); choose --model minilm or the encoder in the Input panel");
    if (!std::filesystem::is_directory(dir, ec))
        throw Error("no model folder at '" + dir + "': run scripts/setup.sh to install all-MiniLM-L6-v2, or pass " +
                    "--model DIR with a BERT-family folder (config.json, model.safetensors, vocab.txt)");
    const std::string key = canonical_key(dir);
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    // Config first: its error is the clearest one for a folder that is not a model.
    BertEncoder encoder = BertEncoder::load(dir);
    WordPieceTokenizer tokenizer = WordPieceTokenizer::load(dir);
    if (tokenizer.vocab_size() > encoder.config().vocab_size)
        throw Error("'" + dir + "': vocab.txt has " + std::to_string(tokenizer.vocab_size()) +
                    " tokens but config.json says vocab_size " + std::to_string(encoder.config().vocab_size) +
                    "; the files belong to different models");
    auto model = std::make_shared<const TextModel>(TextModel{dir, std::move(tokenizer), std::move(encoder)});
    cache.emplace(key, model);
    return model;
}

DecoderModel decoder_model_from(const GgufFile& file) {
    LlamaConfig config = read_llama_config(file);
    LlamaTokenizer tokenizer = LlamaTokenizer::load(file);
    if (tokenizer.vocab_size() > config.vocab)
        throw Error("'" + file.name() + "': the tokenizer has " + std::to_string(tokenizer.vocab_size()) +
                    " tokens but token_embd.weight only " + std::to_string(config.vocab) + " rows; the file is inconsistent");
    LlamaWeights weights = load_llama_weights(file, config);
    return DecoderModel{file.name(), std::move(tokenizer), LlamaDecoder(std::move(config), std::move(weights))};
}

std::shared_ptr<const DecoderModel> load_decoder_model(const std::string& path) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const DecoderModel>> cache;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw Error("no GGUF model file at '" + path + "': " +
                    (path == default_decoder_path() ? "run scripts/setup.sh to install SmolLM2-135M-Instruct"
                                                    : "give the path of a llama-architecture .gguf file, or --model smollm2"));
    const std::string key = canonical_key(path);
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    auto model = std::make_shared<const DecoderModel>(decoder_model_from(*GgufFile::open(path)));
    cache.emplace(key, model);
    return model;
}

}  // namespace attnscope

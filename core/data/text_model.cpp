#include "core/data/text_model.h"

#include <filesystem>
#include <map>
#include <mutex>

namespace attnscope {

std::shared_ptr<const TextModel> load_text_model(const std::string& dir) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const TextModel>> cache;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw Error("no model folder at '" + dir + "': run scripts/setup.sh to install all-MiniLM-L6-v2, or pass " +
                    "--model DIR with a BERT-family folder (config.json, model.safetensors, vocab.txt)");
    std::string key = std::filesystem::weakly_canonical(dir, ec).string();
    if (ec) key = dir;
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

}  // namespace attnscope

#include "core/data/model_paths.h"

#include <cstdlib>
#include <filesystem>

namespace attnscope {

namespace {

std::string cache_base() {
    if (const char* cache = std::getenv("ATTNSCOPE_CACHE"); cache && *cache) return cache;
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/attnscope";
    return ".cache/attnscope";
}

}  // namespace

std::string default_model_dir() {
    if (const char* env = std::getenv("ATTNSCOPE_MODEL_DIR"); env && *env) return env;
    return cache_base() + "/models/all-MiniLM-L6-v2";
}

std::string default_decoder_path() {
    return cache_base() + "/models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf";
}

ModelChoice resolve_model(const std::string& model) {
    if (model.empty() || model == "minilm" || model == "all-MiniLM-L6-v2") return {false, default_model_dir()};
    if (model == "smollm2" || model == "SmolLM2-135M") return {true, default_decoder_path()};
    std::error_code ec;
    const bool folder = std::filesystem::is_directory(model, ec);
    const bool gguf = model.size() >= 5 && model.compare(model.size() - 5, 5, ".gguf") == 0;
    if (gguf || (!folder && std::filesystem::is_regular_file(model, ec))) return {true, model};
    return {false, model};
}

}  // namespace attnscope

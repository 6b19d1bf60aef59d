// attnscope — where the text models live and what a --model value names: the installed encoder folder, the installed
// decoder file, or a path of the user's. Names and paths only: nothing is loaded here.
#pragma once
#include <string>

namespace attnscope {

/// ~/.cache/attnscope/models/all-MiniLM-L6-v2 (or $ATTNSCOPE_MODEL_DIR when set; under $ATTNSCOPE_CACHE when set).
std::string default_model_dir();

/// ~/.cache/attnscope/models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf (under $ATTNSCOPE_CACHE when set).
std::string default_decoder_path();

/// What a --model value names: the encoder folder or the decoder file, and the path to load.
struct ModelChoice {
    bool decoder = false;  // a GGUF file (llama decoder) rather than a BERT folder
    std::string path;      // folder or file
};

/// Resolves a --model value: "" or "minilm" → the installed all-MiniLM-L6-v2 folder, "smollm2" → the installed
/// SmolLM2-135M-Instruct GGUF, a path ending in .gguf (or a file that is not a folder) → that decoder file, anything
/// else → a BERT folder.
ModelChoice resolve_model(const std::string& model);

}  // namespace attnscope

// attnscope — the two split-file helpers llama.cpp's metadata loader links against, which live in libllama's model
// file (llama.cpp) that attnscope does not compile (cmake/LlamaVocab.cmake). attnscope reads one-file GGUF models
// only; the loader calls these for a model split over several files, which gets this message instead.
#include <stdexcept>

#include <llama.h>

int32_t llama_split_path(char*, size_t, const char*, int32_t, int32_t) {
    throw std::runtime_error("models split over several GGUF files are not supported: merge them into one file "
                             "(llama.cpp's llama-gguf-split --merge)");
}

int32_t llama_split_prefix(char*, size_t, const char*, int32_t, int32_t) {
    throw std::runtime_error("models split over several GGUF files are not supported: merge them into one file "
                             "(llama.cpp's llama-gguf-split --merge)");
}

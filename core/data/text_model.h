// attnscope — the text models: a BERT encoder folder (WordPiece + BertEncoder) or a llama decoder GGUF file
// (llama.cpp's tokenizer + LlamaDecoder), each loaded once per path and shared (the GUI re-tokenizes on every
// keystroke; the weights must not be re-read).
#pragma once
#include <memory>
#include <string>

#include "core/data/bert_encoder.h"
#include "core/data/llama_decoder.h"
#include "core/data/llama_tokenizer.h"
#include "core/data/model_paths.h"
#include "core/data/wordpiece.h"

namespace attnscope {

class GgufFile;

/// Tokenizer and encoder of one model folder.
struct TextModel {
    std::string dir;                // the folder it was loaded from
    WordPieceTokenizer tokenizer;   // vocab.txt + tokenizer_config.json
    BertEncoder encoder;            // config.json + model.safetensors
};

/// Tokenizer and decoder of one GGUF file.
struct DecoderModel {
    std::string path;          // the GGUF file it was loaded from
    LlamaTokenizer tokenizer;  // llama.cpp's, from the file's tokenizer.* metadata
    LlamaDecoder decoder;      // llama.* metadata + dequantised weights
};

/// Loads DIR once per process (thread-safe) and returns the shared model; throws Error when the folder is
/// missing (the message says to run scripts/setup.sh) or holds an unsupported architecture.
std::shared_ptr<const TextModel> load_text_model(const std::string& dir);

/// Loads the GGUF file at PATH once per process (thread-safe); throws Error when it is missing (run
/// scripts/setup.sh for SmolLM2), not GGUF, truncated, of another architecture or of a type ggml cannot dequantise.
std::shared_ptr<const DecoderModel> load_decoder_model(const std::string& path);

/// The decoder of a parsed GGUF file: config, llama.cpp's tokenizer, dequantised weights (load_decoder_model's work
/// once the file is read, and the GGUF fuzz target's entry). Throws Error saying what is wrong and what is supported.
DecoderModel decoder_model_from(const GgufFile& file);

}  // namespace attnscope

// attnscope — a text model: the WordPiece tokenizer and the BERT encoder of one model folder, loaded once
// per folder and shared (the GUI re-tokenizes on every keystroke; the weights must not be re-read).
#pragma once
#include <memory>
#include <string>

#include "core/data/bert_encoder.h"
#include "core/data/wordpiece.h"

namespace attnscope {

/// Tokenizer and encoder of one model folder.
struct TextModel {
    std::string dir;                // the folder it was loaded from
    WordPieceTokenizer tokenizer;   // vocab.txt + tokenizer_config.json
    BertEncoder encoder;            // config.json + model.safetensors
};

/// Loads DIR once per process (thread-safe) and returns the shared model; throws Error when the folder is
/// missing (the message says to run scripts/setup.sh) or holds an unsupported architecture.
std::shared_ptr<const TextModel> load_text_model(const std::string& dir);

}  // namespace attnscope

// attnscope — a GGUF model's tokenizer, run by llama.cpp's own vocabulary code (llama-vocab.cpp: byte-level BPE with
// the model's pre-tokenizer, SentencePiece, WordPiece, …), so the ids are exactly those llama.cpp feeds the model.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace attnscope {

class GgufFile;

/// llama.cpp's tokenizer of one GGUF file (immutable, shareable across threads).
class LlamaTokenizer {
public:
    /// Reads the tokenizer.* metadata of `file`; throws Error saying what is missing or unsupported.
    static LlamaTokenizer load(const GgufFile& file);
    LlamaTokenizer(LlamaTokenizer&&) noexcept;
    LlamaTokenizer& operator=(LlamaTokenizer&&) noexcept;
    ~LlamaTokenizer();

    /// Token ids of `text` as llama.cpp runs a prompt: the model's own BOS/EOS rules, special-token text kept as text.
    std::vector<int> encode(const std::string& text) const;
    /// The bytes token `id` stands for (a leading space is a space; a byte of a multi-byte character may stand alone).
    std::string piece(int id) const;
    /// `piece(id)` made printable: whole UTF-8 kept, a stray byte of a split character shown as "\xNN", a newline as
    /// "↵" and a tab as "⇥" (the token strip's labels).
    std::string display(int id) const;
    /// Number of tokens in the vocabulary.
    int vocab_size() const;
    /// The tokenizer's kind and pre-tokenizer, e.g. "gpt2 (smollm)".
    std::string kind() const;

private:
    struct Impl;
    explicit LlamaTokenizer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

/// `bytes` with every invalid UTF-8 byte written as "\xNN", newlines as "↵" and tabs as "⇥".
std::string printable_token(const std::string& bytes);

}  // namespace attnscope

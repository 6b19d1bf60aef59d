#include "core/data/llama_tokenizer.h"

#include <cstdio>
#include <stdexcept>
#include <unordered_set>

#include "core/data/ggml_messages.h"
#include "core/data/gguf_file.h"
#include "core/error.h"
#include <gguf.h>
#include <llama-arch.h>
#include <llama-model-loader.h>
#include <llama-vocab.h>

namespace attnscope {

struct LlamaTokenizer::Impl {
    llama_vocab vocab;
};

LlamaTokenizer::LlamaTokenizer(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
LlamaTokenizer::LlamaTokenizer(LlamaTokenizer&&) noexcept = default;
LlamaTokenizer& LlamaTokenizer::operator=(LlamaTokenizer&&) noexcept = default;
LlamaTokenizer::~LlamaTokenizer() = default;

namespace {

/// What llama.cpp's vocabulary loader asserts instead of reporting (a duplicate token string aborts it), and tokenizer
/// kinds no llama-architecture model uses, refused first with a sentence.
void check_tokenizer_metadata(const GgufFile& file) {
    const std::optional<std::string> model = file.string_value("tokenizer.ggml.model");
    if (!model) throw Error("'" + file.name() + "' has no tokenizer (no tokenizer.ggml.model): attnscope needs a model that tokenizes text");
    if (*model == "none" || *model == "no_vocab")
        throw Error("'" + file.name() + "' has no vocabulary (tokenizer.ggml.model is '" + *model +
                    "'): attnscope needs a model that tokenizes text");
    if (*model != "gpt2" && *model != "llama")
        throw Error("'" + file.name() + "' has a '" + *model + "' tokenizer: attnscope reads the tokenizers of "
                    "llama-architecture models, byte-level BPE (gpt2: Llama 3, SmolLM2) and SentencePiece (llama: "
                    "Llama 2, TinyLlama)");
    gguf_context* ctx = file.metadata();
    const int64_t id = gguf_find_key(ctx, "tokenizer.ggml.tokens");
    if (id < 0 || gguf_get_kv_type(ctx, id) != GGUF_TYPE_ARRAY || gguf_get_arr_type(ctx, id) != GGUF_TYPE_STRING)
        throw Error("'" + file.name() + "' has no list of token strings (tokenizer.ggml.tokens): its tokenizer is incomplete");
    const size_t n = gguf_get_arr_n(ctx, id);
    std::unordered_set<std::string> seen;
    seen.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        std::string token = gguf_get_arr_str(ctx, id, i);
        if (token.empty()) token = "[EMPTY_" + std::to_string(i) + "]";  // as llama.cpp names an empty token
        if (!seen.insert(token).second)
            throw Error("'" + file.name() + "': token " + std::to_string(i) + " ('" + printable_token(token) +
                        "') appears twice in tokenizer.ggml.tokens; the vocabulary is corrupt");
    }
}

}  // namespace

LlamaTokenizer LlamaTokenizer::load(const GgufFile& file) {
    check_tokenizer_metadata(file);
    GgmlMessages messages;
    auto impl = std::make_unique<Impl>();
    try {
        // Metadata only: the loader reads the keys of the context ggml already parsed (no second open, no tensors).
        std::vector<std::string> splits;
        llama_model_loader loader(file.metadata(), nullptr, nullptr, "", splits, nullptr, LLAMA_LOAD_MODE_NONE, false,
                                  true, false, nullptr, nullptr);
        impl->vocab.load(loader, LLM_KV(loader.get_arch()));
    } catch (const std::exception& e) {
        throw Error("'" + file.name() + "': llama.cpp cannot read its tokenizer (" + messages.text(e.what()) +
                    "); the file's tokenizer.* metadata is missing or of a kind llama.cpp does not know");
    }
    // "none" is sized from llama.vocab_size and cannot tokenize (llama.cpp asserts on the first call).
    if (impl->vocab.get_type() == LLAMA_VOCAB_TYPE_NONE || impl->vocab.n_tokens() == 0)
        throw Error("'" + file.name() + "' has no vocabulary (tokenizer.ggml.model is 'none'): attnscope needs a model "
                    "that tokenizes text");
    return LlamaTokenizer(std::move(impl));
}

std::vector<int> LlamaTokenizer::encode(const std::string& text) const {
    GgmlMessages messages;  // a failed internal check of llama.cpp's tokenizer is an Error, not an abort
    try {
        const std::vector<llama_token> ids = m_impl->vocab.tokenize(text, /*add_special=*/true, /*parse_special=*/false);
        return std::vector<int>(ids.begin(), ids.end());
    } catch (const std::exception& e) {  // a vocabulary without a byte this text needs (llama.cpp looks it up with at())
        throw Error(std::string("the model's tokenizer cannot encode this text (") + e.what() +
                    "): its vocabulary lacks a piece the text needs");
    }
}

std::string LlamaTokenizer::piece(int id) const {
    if (id < 0 || id >= vocab_size()) throw Error("token id " + std::to_string(id) + " is outside the vocabulary");
    GgmlMessages messages;
    char buf[256];
    const int32_t n = m_impl->vocab.token_to_piece(id, buf, sizeof buf, 0, /*special=*/true);
    if (n >= 0) return std::string(buf, static_cast<size_t>(n));
    std::string big(static_cast<size_t>(-n), '\0');
    const int32_t m = m_impl->vocab.token_to_piece(id, big.data(), -n, 0, true);
    big.resize(static_cast<size_t>(std::max(0, m)));
    return big;
}

std::string LlamaTokenizer::display(int id) const { return printable_token(piece(id)); }

int LlamaTokenizer::vocab_size() const { return static_cast<int>(m_impl->vocab.n_tokens()); }

std::string LlamaTokenizer::kind() const {
    const std::string pre = m_impl->vocab.get_tokenizer_pre();
    return m_impl->vocab.get_tokenizer_model() + (pre.empty() ? "" : " (" + pre + ")");
}

std::string printable_token(const std::string& bytes) {
    std::string out;
    size_t i = 0;
    auto stray = [&](unsigned char b) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02X", b);
        out += hex;
    };
    while (i < bytes.size()) {
        const auto b = static_cast<unsigned char>(bytes[i]);
        if (b == '\n') { out += "\u21b5"; ++i; continue; }
        if (b == '\t') { out += "\u21e5"; ++i; continue; }
        if (b == '\r') { out += "\u240d"; ++i; continue; }
        if (b < 0x80) {
            if (b < 0x20 || b == 0x7F) stray(b); else out += static_cast<char>(b);
            ++i;
            continue;
        }
        const int len = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b <= 0xDF ? 2 : 0;
        bool whole = len > 0 && i + size_t(len) <= bytes.size() && b < 0xF5;
        for (int k = 1; whole && k < len; ++k) whole = (static_cast<unsigned char>(bytes[i + size_t(k)]) & 0xC0) == 0x80;
        if (whole && len == 3) {  // no overlong forms or surrogates
            const auto c1 = static_cast<unsigned char>(bytes[i + 1]);
            whole = !(b == 0xE0 && c1 < 0xA0) && !(b == 0xED && c1 >= 0xA0);
        }
        if (whole && len == 4) {
            const auto c1 = static_cast<unsigned char>(bytes[i + 1]);
            whole = !(b == 0xF0 && c1 < 0x90) && !(b == 0xF4 && c1 >= 0x90);
        }
        if (whole) {
            out.append(bytes, i, size_t(len));
            i += size_t(len);
        } else {
            stray(b);
            ++i;
        }
    }
    return out;
}

}  // namespace attnscope

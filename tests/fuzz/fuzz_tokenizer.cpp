// Fuzz target: UTF-8 decoding, BERT's basic tokenizer and WordPiece on arbitrary bytes. The first byte picks the
// normalisation switches; the rest is the text. Invalid UTF-8 must end in attnscope::Error; valid text must
// decode and re-encode to the same bytes and tokenize to [CLS] … [SEP] with one string per id.
#include "core/data/utf8.h"
#include "core/data/wordpiece.h"
#include "core/error.h"
#include "tests/fuzz/fuzz_util.h"

using namespace attnscope;

namespace {

/// A small vocabulary: the special tokens, every ASCII letter and digit alone and as a "##" continuation, a few
/// words and pieces, punctuation and one CJK ideograph, so that most paths of the greedy match are reachable.
std::vector<std::string> small_vocab() {
    std::vector<std::string> v = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "quick", "brown", "fox",
                                  "##ing", "##s", "##ed", "jump", "un", "##able", ".", ",", "!", "?", "'", "\xe4\xb8\xad"};
    for (char c = 'a'; c <= 'z'; ++c) v.push_back(std::string(1, c)), v.push_back(std::string("##") + c);
    for (char c = '0'; c <= '9'; ++c) v.push_back(std::string(1, c)), v.push_back(std::string("##") + c);
    return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    TokenizerConfig config;
    config.basic.lower_case = data[0] & 1;
    config.basic.strip_accents = data[0] & 2;
    config.basic.split_cjk = data[0] & 4;
    config.max_word_chars = (data[0] & 8) ? 4 : 100;
    static const WordPieceTokenizer* tokenizers[16] = {};
    const WordPieceTokenizer*& tokenizer = tokenizers[data[0] & 15];
    if (!tokenizer) tokenizer = new WordPieceTokenizer(small_vocab(), config);

    const std::string_view text = fuzz::as_text(data + 1, size - 1);
    std::u32string decoded;
    try {
        decoded = utf8_decode(text);
    } catch (const Error&) {
        bool refused = false;
        try {
            tokenizer->encode(text);
        } catch (const Error&) {
            refused = true;
        }
        ATTNSCOPE_FUZZ_REQUIRE(refused);  // what the decoder refuses the tokenizer refuses too
        return 0;
    }
    ATTNSCOPE_FUZZ_REQUIRE(utf8_encode(decoded) == text);
    const Encoding e = tokenizer->encode(text);
    ATTNSCOPE_FUZZ_REQUIRE(e.ids.size() == e.tokens.size() && e.ids.size() >= 2);
    ATTNSCOPE_FUZZ_REQUIRE(e.tokens.front() == "[CLS]" && e.tokens.back() == "[SEP]");
    for (size_t k = 0; k < e.ids.size(); ++k) ATTNSCOPE_FUZZ_REQUIRE(tokenizer->token(e.ids[k]) == e.tokens[k]);
    for (const std::u32string& word : basic_tokenize(decoded, config.basic)) ATTNSCOPE_FUZZ_REQUIRE(!word.empty());
    return 0;
}

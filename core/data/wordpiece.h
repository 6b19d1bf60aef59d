// attnscope — the WordPiece tokenizer of BERT-family models: basic tokenization (basic_tokenizer.h), then
// greedy longest-match-first subwords with the "##" continuation prefix, [UNK] for a word longer than
// 100 code points or with no match, and [CLS] … [SEP] around the sequence. Special-token strings typed in
// the text (e.g. "[MASK]") become those tokens, as in transformers.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/data/basic_tokenizer.h"

namespace attnscope {

/// Tokenizer settings: normalisation plus the special tokens (tokenizer_config.json when present).
struct TokenizerConfig {
    BasicTokenizerOptions basic;    // lower-case, strip accents, CJK
    int max_word_chars = 100;       // longer words become [UNK]
    std::string unk = "[UNK]";      // unknown word
    std::string cls = "[CLS]";      // first token
    std::string sep = "[SEP]";      // last token
    std::string pad = "[PAD]";      // padding (never produced here; recognised in text)
    std::string mask = "[MASK]";    // masked token (recognised in text)
};

/// Token ids and their vocabulary strings, [CLS] and [SEP] included.
struct Encoding {
    std::vector<int> ids;             // n vocabulary ids
    std::vector<std::string> tokens;  // n token strings ("##" marks a continuation)
};

/// A WordPiece vocabulary with its normalisation rules.
class WordPieceTokenizer {
public:
    /// Vocabulary in id order; throws Error when a special token of `config` is missing from it.
    WordPieceTokenizer(std::vector<std::string> vocab, TokenizerConfig config);
    /// Reads DIR/vocab.txt (one token per line, id = line number) and DIR/tokenizer_config.json when present.
    /// Throws Error naming the file when one is missing or unreadable.
    static WordPieceTokenizer load(const std::string& dir);

    /// Tokenizes UTF-8 text into [CLS] pieces… [SEP]; throws Error on invalid UTF-8 (with the byte offset).
    Encoding encode(std::string_view utf8_text) const;
    /// WordPiece ids of one normalised word (no special tokens); {unk} when it cannot be split.
    void append_word_pieces(const std::u32string& word, std::vector<int>& ids) const;

    /// Vocabulary id of a token string, or -1.
    int find(const std::string& token) const;
    /// Token string of an id (throws Error when out of range).
    const std::string& token(int id) const;
    int vocab_size() const { return static_cast<int>(m_vocab.size()); }
    const TokenizerConfig& config() const { return m_config; }

private:
    int require_id(const std::string& token) const;
    void encode_plain(const std::u32string& text, std::vector<int>& ids) const;

    std::vector<std::string> m_vocab;
    std::unordered_map<std::string, int> m_ids;
    TokenizerConfig m_config;
    int m_unk = 0, m_cls = 0, m_sep = 0;
    std::vector<std::pair<std::u32string, int>> m_specials;  // special-token strings matched in the text
};

}  // namespace attnscope

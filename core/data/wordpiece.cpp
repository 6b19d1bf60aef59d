#include "core/data/wordpiece.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "core/data/utf8.h"

namespace attnscope {

namespace {

std::string read_text_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read " + path.string() + ": the model folder is incomplete; run scripts/setup.sh");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Reads tokenizer_config.json keys transformers' BertTokenizer honours; absent keys keep BERT defaults.
TokenizerConfig read_tokenizer_config(const std::filesystem::path& path) {
    TokenizerConfig c;
    if (!std::filesystem::exists(path)) return c;
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(read_text_file(path));
    } catch (const nlohmann::json::exception& e) {
        throw Error(path.string() + " is not valid JSON (" + e.what() + "); reinstall the model");
    }
    auto flag = [&](const char* key, bool def) { return j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : def; };
    auto text = [&](const char* key, const std::string& def) {
        if (!j.contains(key)) return def;
        if (j[key].is_string()) return j[key].get<std::string>();
        if (j[key].is_object() && j[key].contains("content")) return j[key]["content"].get<std::string>();
        return def;
    };
    c.basic.lower_case = flag("do_lower_case", true);
    c.basic.strip_accents = flag("strip_accents", c.basic.lower_case);  // null: follow lower-casing
    c.basic.split_cjk = flag("tokenize_chinese_chars", true);
    c.unk = text("unk_token", c.unk);
    c.cls = text("cls_token", c.cls);
    c.sep = text("sep_token", c.sep);
    c.pad = text("pad_token", c.pad);
    c.mask = text("mask_token", c.mask);
    return c;
}

}  // namespace

WordPieceTokenizer::WordPieceTokenizer(std::vector<std::string> vocab, TokenizerConfig config)
    : m_vocab(std::move(vocab)), m_config(std::move(config)) {
    m_ids.reserve(m_vocab.size());
    for (size_t i = 0; i < m_vocab.size(); ++i) m_ids.emplace(m_vocab[i], static_cast<int>(i));  // first wins
    m_unk = require_id(m_config.unk);
    m_cls = require_id(m_config.cls);
    m_sep = require_id(m_config.sep);
    for (const std::string* s : {&m_config.unk, &m_config.cls, &m_config.sep, &m_config.pad, &m_config.mask}) {
        const int id = find(*s);
        if (id >= 0 && !s->empty()) m_specials.emplace_back(utf8_decode(*s, "special token"), id);
    }
}

WordPieceTokenizer WordPieceTokenizer::load(const std::string& dir) {
    const std::filesystem::path folder(dir);
    const std::string text = read_text_file(folder / "vocab.txt");
    std::vector<std::string> vocab;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        vocab.push_back(line);
    }
    if (vocab.empty()) throw Error((folder / "vocab.txt").string() + " is empty; reinstall the model (scripts/setup.sh)");
    return WordPieceTokenizer(std::move(vocab), read_tokenizer_config(folder / "tokenizer_config.json"));
}

int WordPieceTokenizer::find(const std::string& token) const {
    const auto it = m_ids.find(token);
    return it == m_ids.end() ? -1 : it->second;
}

int WordPieceTokenizer::require_id(const std::string& token) const {
    const int id = find(token);
    if (id < 0) throw Error("the vocabulary has no special token '" + token + "'; is this a BERT-family vocab.txt?");
    return id;
}

const std::string& WordPieceTokenizer::token(int id) const {
    if (id < 0 || id >= vocab_size())
        throw Error("token id " + std::to_string(id) + " is outside the vocabulary [0, " + std::to_string(vocab_size()) + ")");
    return m_vocab[static_cast<size_t>(id)];
}

void WordPieceTokenizer::append_word_pieces(const std::u32string& word, std::vector<int>& ids) const {
    if (static_cast<int>(word.size()) > m_config.max_word_chars) {
        ids.push_back(m_unk);
        return;
    }
    // Byte offset of each code point, so every candidate piece is a byte slice of the UTF-8 word.
    std::string bytes;
    std::vector<size_t> at;
    for (char32_t c : word) at.push_back(bytes.size()), utf8_append(c, bytes);
    at.push_back(bytes.size());
    const size_t mark = ids.size();
    size_t start = 0;
    std::string candidate;
    while (start < word.size()) {
        int found = -1;
        size_t end = word.size();
        for (; end > start; --end) {
            candidate.assign(start > 0 ? "##" : "");
            candidate.append(bytes, at[start], at[end] - at[start]);
            found = find(candidate);
            if (found >= 0) break;
        }
        if (found < 0) {
            ids.resize(mark);
            ids.push_back(m_unk);
            return;
        }
        ids.push_back(found);
        start = end;
    }
}

void WordPieceTokenizer::encode_plain(const std::u32string& text, std::vector<int>& ids) const {
    for (const std::u32string& word : basic_tokenize(text, m_config.basic)) append_word_pieces(word, ids);
}

Encoding WordPieceTokenizer::encode(std::string_view utf8_text) const {
    const std::u32string text = utf8_decode(utf8_text, "the text");
    Encoding e;
    e.ids.push_back(m_cls);
    // Special-token strings typed in the text stay whole; the text between them is tokenized normally.
    size_t start = 0, k = 0;
    while (k < text.size()) {
        int special = -1;
        size_t length = 0;
        for (const auto& [s, id] : m_specials)
            if (s.size() > length && text.compare(k, s.size(), s) == 0) special = id, length = s.size();
        if (special < 0) {
            ++k;
            continue;
        }
        encode_plain(text.substr(start, k - start), e.ids);
        e.ids.push_back(special);
        k += length;
        start = k;
    }
    encode_plain(text.substr(start), e.ids);
    e.ids.push_back(m_sep);
    e.tokens.reserve(e.ids.size());
    for (int id : e.ids) e.tokens.push_back(m_vocab[static_cast<size_t>(id)]);
    return e;
}

}  // namespace attnscope

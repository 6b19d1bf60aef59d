#include "core/data/basic_tokenizer.h"

#include "core/data/unicode_data.h"

namespace attnscope {

bool is_bert_whitespace(char32_t c) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029) return true;
    return c > 0x7F && char_class(c) == CharClass::Zs;
}

bool is_bert_punctuation(char32_t c) {
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
    return c > 0x7F && char_class(c) == CharClass::Punct;
}

bool is_cjk_ideograph(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

namespace {

bool is_removed(char32_t c) {
    if (c == 0 || c == 0xFFFD) return true;
    if (c == '\t' || c == '\n' || c == '\r') return false;
    const CharClass k = char_class(c);
    return k == CharClass::Control || k == CharClass::Private || k == CharClass::Unassigned;
}

/// Lower-cases and strips accents of one word as the options ask.
std::u32string normalise_word(const std::u32string& word, const BasicTokenizerOptions& o) {
    std::u32string w = word;
    if (o.lower_case) {
        std::u32string low;
        low.reserve(w.size());
        for (char32_t c : w) append_lowercase(c, low);
        w.swap(low);
    }
    if (o.strip_accents) {
        std::u32string kept;
        for (char32_t c : nfd(w))
            if (char_class(c) != CharClass::Mn) kept.push_back(c);
        w.swap(kept);
    }
    return w;
}

}  // namespace

std::vector<std::u32string> basic_tokenize(const std::u32string& text, const BasicTokenizerOptions& o) {
    // Clean and isolate CJK ideographs by surrounding spaces.
    std::u32string clean;
    clean.reserve(text.size());
    for (char32_t c : text) {
        if (is_removed(c)) continue;
        if (is_bert_whitespace(c)) {
            clean.push_back(' ');
        } else if (o.split_cjk && is_cjk_ideograph(c)) {
            clean.push_back(' ');
            clean.push_back(c);
            clean.push_back(' ');
        } else {
            clean.push_back(c);
        }
    }
    std::vector<std::u32string> words;
    size_t k = 0;
    while (k < clean.size()) {
        if (clean[k] == ' ') {
            ++k;
            continue;
        }
        size_t end = k;
        while (end < clean.size() && clean[end] != ' ') ++end;
        const std::u32string word = normalise_word(clean.substr(k, end - k), o);
        std::u32string current;
        for (char32_t c : word) {
            if (is_bert_punctuation(c)) {
                if (!current.empty()) words.push_back(current), current.clear();
                words.push_back(std::u32string(1, c));
            } else {
                current.push_back(c);
            }
        }
        if (!current.empty()) words.push_back(current);
        k = end;
    }
    return words;
}

}  // namespace attnscope

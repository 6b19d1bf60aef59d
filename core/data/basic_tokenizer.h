// attnscope — BERT's basic tokenization: the step before WordPiece that cleans the text and splits it into
// words. Semantics follow transformers' BasicTokenizer / tokenizers' BertNormalizer + BertPreTokenizer:
//   1. clean: drop U+0000, U+FFFD and every code point of category C* except \t \n \r; whitespace → ' ';
//   2. put spaces around CJK ideographs (when split_cjk);
//   3. per whitespace-separated word: lower-case (when lower_case), strip accents (NFD, drop Mn) when
//      strip_accents, then split every punctuation character (ASCII punctuation or category P*) off.
#pragma once
#include <string>
#include <vector>

namespace attnscope {

/// How a vocabulary expects its text normalised (tokenizer_config.json of the model folder).
struct BasicTokenizerOptions {
    bool lower_case = true;     // do_lower_case: true for uncased vocabularies
    bool strip_accents = true;  // strip_accents; null in the config means "same as lower_case"
    bool split_cjk = true;      // tokenize_chinese_chars: one token per CJK ideograph
};

/// True for the code points BERT treats as whitespace (\t \n \r, space separators Zs, U+2028, U+2029).
bool is_bert_whitespace(char32_t c);
/// True for ASCII punctuation and general category P*.
bool is_bert_punctuation(char32_t c);
/// True for the CJK Unified Ideograph blocks BERT splits one by one.
bool is_cjk_ideograph(char32_t c);

/// Splits decoded text into words (code points), normalised per `options`.
std::vector<std::u32string> basic_tokenize(const std::u32string& text, const BasicTokenizerOptions& options);

}  // namespace attnscope

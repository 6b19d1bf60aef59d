// The tokenizer: strict UTF-8 with byte offsets, BERT basic tokenization (clean, lower-case, strip accents,
// punctuation, CJK) and greedy longest-match WordPiece on a small hand-made vocabulary, so every expectation
// is computed by hand. The real vocabulary is checked against transformers in test_text_golden.cpp.
#include <gtest/gtest.h>

#include "core/data/basic_tokenizer.h"
#include "core/error.h"
#include "core/data/unicode_data.h"
#include "core/data/utf8.h"
#include "core/data/wordpiece.h"

namespace attnscope::test {
namespace {

std::vector<std::string> words_utf8(const std::string& text, BasicTokenizerOptions o = {}) {
    std::vector<std::string> out;
    for (const std::u32string& w : basic_tokenize(utf8_decode(text), o)) out.push_back(utf8_encode(w));
    return out;
}

WordPieceTokenizer tiny_tokenizer() {
    std::vector<std::string> vocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "un",   "##aff", "##able",
                                      "##a",   "a",     "hello", ",",     "world",  "!",    "café", "cafe"};
    return WordPieceTokenizer(vocab, TokenizerConfig{});
}

TEST(Utf8, RejectsInvalidWithByteOffset) {
    struct Case {
        std::string bytes, needle;
    };
    const std::vector<Case> cases = {
        {std::string("ab\xC3(", 4), "missing continuation byte at byte offset 3"},
        {std::string("\xFF", 1), "invalid lead byte at byte offset 0"},
        {std::string("ok \x80", 4), "unexpected continuation byte at byte offset 3"},
        {std::string("x\xC0\xAF", 3), "overlong encoding at byte offset 1"},
        {std::string("hi \xE2\x82", 5), "truncated multi-byte sequence at byte offset 3"},
        {std::string("\xED\xA0\x80", 3), "encoded surrogate at byte offset 0"},
        {std::string("\xF4\x90\x80\x80", 4), "code point above U+10FFFF at byte offset 0"},
    };
    for (const Case& c : cases) {
        std::cout << "[case] invalid UTF-8 -> '" << c.needle << "'\n";
        try {
            utf8_decode(c.bytes, "the text");
            ADD_FAILURE() << "accepted invalid UTF-8 (" << c.needle << ")";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(c.needle), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("the text is not valid UTF-8"), std::string::npos) << e.what();
        }
    }
    const std::string ok = "h\xC3\xA9 \xE6\x9D\xB1 \xF0\x9F\x99\x82";  // hé 東 🙂
    EXPECT_EQ(utf8_decode(ok), (std::u32string{U'h', 0xE9, U' ', 0x6771, U' ', 0x1F642}));
    EXPECT_EQ(utf8_encode(utf8_decode(ok)), ok);
}

TEST(UnicodeData, CategoriesDecompositionLowercase) {
    std::cout << "[case] tables from Unicode " << unicode_tables_version() << "\n";
    EXPECT_EQ(char_class(0x301), CharClass::Mn);        // combining acute
    EXPECT_EQ(char_class(0x2014), CharClass::Punct);    // em dash
    EXPECT_EQ(char_class(0x3002), CharClass::Punct);    // ideographic full stop
    EXPECT_EQ(char_class(0x3000), CharClass::Zs);       // ideographic space
    EXPECT_EQ(char_class(0x200B), CharClass::Control);  // zero-width space (Cf)
    EXPECT_EQ(char_class(0xE000), CharClass::Private);
    EXPECT_EQ(char_class('a'), CharClass::Other);
    EXPECT_EQ(nfd(U"\u00E9"), std::u32string(U"e\u0301"));
    EXPECT_EQ(nfd(U"\u1EC7"), std::u32string(U"e\u0323\u0302"));  // ệ: dot below (220) before circumflex (230)
    EXPECT_EQ(nfd(U"e\u0302\u0323"), std::u32string(U"e\u0323\u0302"));  // canonical ordering
    EXPECT_EQ(nfd(U"\uD55C"), std::u32string(U"\u1112\u1161\u11AB"));   // 한 (Hangul, algorithmic)
    std::u32string low;
    for (char32_t c : std::u32string(U"ÀΣİЖ")) append_lowercase(c, low);
    EXPECT_EQ(low, std::u32string(U"àσi\u0307ж"));
}

TEST(BasicTokenizer, CleansSplitsLowersAndStripsAccents) {
    std::cout << "[case] uncased basic tokenization\n";
    EXPECT_EQ(words_utf8("Héllo, WORLD!"), (std::vector<std::string>{"hello", ",", "world", "!"}));
    EXPECT_EQ(words_utf8("  tab\tnew\nline\r "), (std::vector<std::string>{"tab", "new", "line"}));
    EXPECT_EQ(words_utf8("a\x07" "b\xE2\x80\x8B" "c"), (std::vector<std::string>{"abc"}));  // BEL and ZWSP removed
    EXPECT_EQ(words_utf8("東京abc"), (std::vector<std::string>{"東", "京", "abc"}));
    EXPECT_EQ(words_utf8("x—y"), (std::vector<std::string>{"x", "—", "y"}));
    EXPECT_EQ(words_utf8("$5.00"), (std::vector<std::string>{"$", "5", ".", "00"}));
    EXPECT_TRUE(words_utf8("").empty());
    std::cout << "[case] cased, accents kept, CJK not split\n";
    BasicTokenizerOptions cased;
    cased.lower_case = false, cased.strip_accents = false, cased.split_cjk = false;
    EXPECT_EQ(words_utf8("Héllo 東京", cased), (std::vector<std::string>{"Héllo", "東京"}));
}

TEST(WordPiece, GreedyLongestMatchAndUnknown) {
    const WordPieceTokenizer tok = tiny_tokenizer();
    std::cout << "[case] unaffable, unknown word, special tokens in text\n";
    Encoding e = tok.encode("Unaffable, hello world! xyz");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"[CLS]", "un", "##aff", "##able", ",", "hello", "world", "!", "[UNK]",
                                                  "[SEP]"}));
    EXPECT_EQ(e.ids, (std::vector<int>{2, 5, 6, 7, 11, 10, 12, 13, 1, 3}));
    e = tok.encode("hello[MASK]world");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"[CLS]", "hello", "[MASK]", "world", "[SEP]"}));
    e = tok.encode("Café");  // accents stripped before lookup: "cafe", not "café"
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"[CLS]", "cafe", "[SEP]"}));
    e = tok.encode("");
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"[CLS]", "[SEP]"}));
    EXPECT_THROW(tok.encode("bad \xC3"), Error);
}

TEST(WordPiece, WordsOver100CharactersAreUnknown) {
    const WordPieceTokenizer tok = tiny_tokenizer();
    std::cout << "[case] 100 vs 101 characters of 'a'\n";
    const Encoding at_limit = tok.encode(std::string(100, 'a'));
    ASSERT_EQ(at_limit.ids.size(), 102u);  // [CLS] a ##a ×99 [SEP]
    EXPECT_EQ(at_limit.tokens[1], "a");
    EXPECT_EQ(at_limit.tokens[100], "##a");
    const Encoding over = tok.encode(std::string(101, 'a'));
    EXPECT_EQ(over.tokens, (std::vector<std::string>{"[CLS]", "[UNK]", "[SEP]"}));
}

TEST(WordPiece, MissingSpecialTokenIsAnError) {
    std::cout << "[case] vocabulary without [CLS]\n";
    EXPECT_THROW(WordPieceTokenizer({"[UNK]", "[SEP]", "a"}, TokenizerConfig{}), Error);
}

}  // namespace
}  // namespace attnscope::test

// The text path against the PyPI reference stack (tests/golden/text_golden.json, made by
// tests/golden/make_text_golden.py with transformers + sentence-transformers on all-MiniLM-L6-v2):
// token ids exactly, attention probabilities of layers 0 and 5 within 1e-4, embedding cosine ≥ 0.9999.
#include <gtest/gtest.h>

#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>

#include "core/data/text_model.h"
#include "tests/unit/text_test_util.h"

namespace attnscope::test {
namespace {

nlohmann::json load_golden(const std::string& name = "text_golden.json") {
    const std::string path = std::string(ATTNSCOPE_TEST_DATA_DIR) + "/" + name;
    std::ifstream in(path);
    if (!in) throw Error("cannot read " + path);
    return nlohmann::json::parse(in);
}

std::string printable(const std::string& text) {
    std::string s;
    for (char c : text) s += (static_cast<unsigned char>(c) < 0x20) ? '.' : c;
    if (s.size() <= 50) return s;
    size_t cut = 50;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
    return s.substr(0, cut) + "…";
}

/// Compares one model's tokens, attention probabilities and embedding with a golden file's cases.
void expect_matches_golden(const TextModel& model, const nlohmann::json& golden) {
    for (const auto& c : golden["cases"]) {
        const std::string text = c["text"];
        const Encoding e = model.tokenizer.encode(text);
        EXPECT_EQ(e.ids, c["ids"].get<std::vector<int>>()) << text;
        EXPECT_EQ(e.tokens, c["tokens"].get<std::vector<std::string>>()) << text;
        const std::vector<int> ids = c["ids"];
        const int n = static_cast<int>(ids.size());
        const EncoderOutput out = model.encoder.forward(ids);
        double worst = 0;
        for (const auto& [key, values] : c["attention_e6"].items()) {
            const int layer = std::stoi(key.substr(0, key.find('/'))), head = std::stoi(key.substr(key.find('/') + 1));
            const Tensor3& P = out.probs[static_cast<size_t>(layer)];
            ASSERT_EQ(values.size(), static_cast<size_t>(n) * n);
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    const double want = values[static_cast<size_t>(i) * n + j].get<double>() * 1e-6;
                    worst = std::max(worst, std::abs(double(P.at(head, i, j)) - want));
                }
        }
        const double cosine = cosine_similarity(out.embedding, c["embedding"].get<std::vector<float>>());
        std::cout << "[case] n=" << n << " '" << printable(text) << "': tokens "
                  << (e.ids == c["ids"].get<std::vector<int>>() ? "equal" : "DIFFER") << ", max |ΔP| = " << worst
                  << " (tol 1e-4, golden rounded to 5e-7), embedding cosine = " << std::setprecision(9) << cosine
                  << " (≥ 0.9999)\n";
        EXPECT_LE(worst, 1e-4);
        EXPECT_GE(cosine, 0.9999);
    }
}

TEST(TextGolden, TinyCasedF16BertFolderMatchesTransformers) {
    // A BertForMaskedLM checkpoint ("bert." names, extra "cls." tensors), F16 weights, cased vocabulary,
    // tanh GELU, eps 1e-6: the --model DIR path for a BERT other than the default (always runs: it is
    // committed under tests/golden/tiny_bert, made by make_tiny_bert.py).
    const auto model = load_text_model(std::string(ATTNSCOPE_TEST_DATA_DIR) + "/tiny_bert");
    EXPECT_FALSE(model->tokenizer.config().basic.lower_case);
    EXPECT_TRUE(model->encoder.config().gelu_tanh);
    expect_matches_golden(*model, load_golden("tiny_bert_golden.json"));
}

TEST(TextGolden, MiniLmMatchesTransformers) {
    ATTNSCOPE_MODEL_OR_SKIP(dir);
    const nlohmann::json golden = load_golden();
    ASSERT_GE(golden["cases"].size(), 8u);
    expect_matches_golden(*load_text_model(dir), golden);
}

}  // namespace
}  // namespace attnscope::test

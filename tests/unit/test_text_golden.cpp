// The text path against the PyPI reference stack (tests/golden/text_golden.json, made by
// tests/golden/make_text_golden.py with transformers + sentence-transformers on all-MiniLM-L6-v2):
// token ids exactly, attention probabilities of layers 0 and 5 within 1e-4, embedding cosine ≥ 0.9999.
#include <gtest/gtest.h>

#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>

#include "core/data/text_model.h"
#include "text_test_util.h"

namespace attnscope::test {
namespace {

nlohmann::json load_golden() {
    const std::string path = std::string(ATTNSCOPE_TEST_DATA_DIR) + "/text_golden.json";
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

TEST(TextGolden, TokenIdsMatchTransformers) {
    ATTNSCOPE_MODEL_OR_SKIP(dir);
    const auto model = load_text_model(dir);
    const nlohmann::json golden = load_golden();
    ASSERT_GE(golden["cases"].size(), 8u);
    for (const auto& c : golden["cases"]) {
        const std::string text = c["text"];
        std::cout << "[case] tokenize '" << printable(text) << "'\n";
        const Encoding e = model->tokenizer.encode(text);
        EXPECT_EQ(e.ids, c["ids"].get<std::vector<int>>()) << text;
        EXPECT_EQ(e.tokens, c["tokens"].get<std::vector<std::string>>()) << text;
    }
}

TEST(TextGolden, AttentionAndEmbeddingMatchTransformers) {
    ATTNSCOPE_MODEL_OR_SKIP(dir);
    const auto model = load_text_model(dir);
    const nlohmann::json golden = load_golden();
    for (const auto& c : golden["cases"]) {
        const std::vector<int> ids = c["ids"];
        const int n = static_cast<int>(ids.size());
        const EncoderOutput out = model->encoder.forward(ids);
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
        std::cout << "[case] n=" << n << " '" << printable(c["text"]) << "': max |ΔP| = " << worst
                  << " (tol 1e-4, golden rounded to 5e-7), embedding cosine = " << std::setprecision(9) << cosine << " (≥ 0.9999)\n";
        EXPECT_LE(worst, 1e-4);
        EXPECT_GE(cosine, 0.9999);
    }
}

}  // namespace
}  // namespace attnscope::test

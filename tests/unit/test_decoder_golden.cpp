// The decoder against llama.cpp and an independent numpy forward (tests/golden/decoder_golden.json, made by
// tests/golden/make_decoder_golden.py on the pinned SmolLM2-135M-Instruct GGUF): token ids equal llama.cpp's on every
// golden string, logits equal numpy's fp32 forward within 1e-4 of the row's largest |logit|, the perplexity of
// assets/samples/harbour.txt within 1e-4 of numpy's and within 1% of llama.cpp's (whose CPU dot products quantise the
// activations to 8 bits), and the first-token attention mass of every layer and head equal to numpy's.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>

#include "core/data/text_model.h"
#include "tests/unit/text_test_util.h"

namespace attnscope::test {
namespace {

nlohmann::json decoder_golden() {
    const std::string path = std::string(ATTNSCOPE_TEST_DATA_DIR) + "/decoder_golden.json";
    std::ifstream in(path);
    if (!in) throw Error("cannot read " + path);
    return nlohmann::json::parse(in);
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(DecoderGolden, TokenIdsEqualLlamaCpp) {
    ATTNSCOPE_DECODER_OR_SKIP(path);
    const auto model = load_decoder_model(path);
    const nlohmann::json golden = decoder_golden();
    ASSERT_GE(golden["tokenizer"].size(), 20u);
    int equal = 0;
    for (const auto& c : golden["tokenizer"]) {
        const std::string text = c["text"];
        const std::vector<int> ids = model->tokenizer.encode(text);
        EXPECT_EQ(ids, c["ids"].get<std::vector<int>>()) << "'" << printable_token(text) << "'";
        equal += ids == c["ids"].get<std::vector<int>>();
    }
    std::cout << "[tokenizer] " << equal << " of " << golden["tokenizer"].size() << " strings tokenized as llama.cpp does\n";
}

TEST(DecoderGolden, LogitsEqualAnIndependentNumpyForward) {
    ATTNSCOPE_DECODER_OR_SKIP(path);
    const auto model = load_decoder_model(path);
    const nlohmann::json g = decoder_golden()["logits"];
    const std::vector<int> ids = g["ids"];
    EXPECT_EQ(model->tokenizer.encode(g["text"]), ids);
    DecoderOptions options;
    options.keep_qkv = false, options.keep_probs = true, options.logits = true;
    const DecoderOutput out = model->decoder.forward(ids, options);
    const std::vector<int> probe_ids = g["probe_ids"];
    double worst = 0;
    for (size_t t = 0; t < ids.size(); ++t) {
        const auto& row = g["rows"][t];
        const double scale = row["row_max_abs"].get<double>();
        auto check = [&](int id, double want) { worst = std::max(worst, std::abs(out.logits(long(t), id) - want) / scale); };
        for (size_t k = 0; k < row["top_ids"].size(); ++k) check(row["top_ids"][k], row["top_logits"][k]);
        for (size_t k = 0; k < probe_ids.size(); ++k) check(probe_ids[k], row["probe"][k]);
        // Plain loops in double: GCC 12 warns inside its own AVX-512 intrinsics on Eigen's double max (bug 105593).
        Eigen::Index top = 0;
        out.logits.row(long(t)).maxCoeff(&top);
        double sum = 0;
        const double mx = out.logits(long(t), top);
        for (Eigen::Index j = 0; j < out.logits.cols(); ++j) sum += std::exp(double(out.logits(long(t), j)) - mx);
        const double lse = mx + std::log(sum);
        worst = std::max(worst, std::abs(lse - row["lse"].get<double>()) / scale);
        EXPECT_EQ(int(top), row["top_ids"][0].get<int>())
            << "position " << t;
    }
    std::cout << "[logits] n = " << ids.size() << ": max |Δlogit| / max|logit| of the row = " << worst
              << " (tol 1e-4) over the top 10, 32 probe ids and the log-sum-exp of every row\n";
    EXPECT_LE(worst, 1e-4);
    // The attention sink: each head's mean probability on the first token over rows i ≥ 1, every layer.
    double worst_mass = 0;
    for (int l = 0; l < model->decoder.config().layers; ++l)
        for (int h = 0; h < model->decoder.config().heads; ++h) {
            const Tensor3& P = out.probs[size_t(l)];
            double mass = 0;
            for (int i = 1; i < P.rows(); ++i) mass += P.at(h, i, 0);
            mass /= P.rows() - 1;
            worst_mass = std::max(worst_mass, std::abs(mass - g["first_token_mass"][size_t(l)][size_t(h)].get<double>()));
        }
    std::cout << "[sinks] max |Δ first-token mass| over 30 layers × 9 heads = " << worst_mass << " (tol 1e-4)\n";
    EXPECT_LE(worst_mass, 1e-4);
}

TEST(DecoderGolden, PerplexityAgreesWithNumpyAndLlamaCpp) {
    ATTNSCOPE_DECODER_OR_SKIP(path);
    const auto model = load_decoder_model(path);
    const nlohmann::json g = decoder_golden()["perplexity"];
    const std::string text = read_text(std::string(ATTNSCOPE_TEST_DATA_DIR) + "/../../" + g["file"].get<std::string>());
    const std::vector<int> ids = model->tokenizer.encode(text);
    ASSERT_EQ(ids, g["ids"].get<std::vector<int>>());
    DecoderOptions options;
    options.keep_qkv = false, options.logits = true;
    const double ppl = std::exp(mean_next_token_nll(model->decoder.forward(ids, options).logits, ids));
    const double numpy = g["numpy_ppl"], llama = g["llama_cpp_ppl"];
    std::cout << std::setprecision(6) << "[perplexity] " << g["file"].get<std::string>() << ", n = " << ids.size()
              << ": attnscope " << ppl << ", numpy fp32 " << numpy << " (Δ " << (ppl / numpy - 1) << ", tol 1e-4), llama.cpp "
              << llama << " (Δ " << (ppl / llama - 1) << ", tol 1e-2)\n";
    EXPECT_NEAR(ppl / numpy, 1.0, 1e-4);
    EXPECT_NEAR(ppl / llama, 1.0, 1e-2);
}

TEST(DecoderGolden, TokenStripShowsSpacesAndSplitCharactersReadably) {
    ATTNSCOPE_DECODER_OR_SKIP(path);
    const auto model = load_decoder_model(path);
    const std::vector<int> ids = model->tokenizer.encode("The capital\n🙂");
    std::vector<std::string> shown;
    for (int id : ids) shown.push_back(model->tokenizer.display(id));
    ASSERT_GE(shown.size(), 3u);
    EXPECT_EQ(shown[0], "The");
    EXPECT_EQ(shown[1], " capital");  // GPT-2's Ġ is the space it stands for
    EXPECT_EQ(shown[2], "\u21b5");
    EXPECT_EQ(printable_token("\xF0\x9F"), "\\xF0\\x9F");  // half an emoji: its bytes, not U+FFFD or broken UTF-8
    EXPECT_EQ(printable_token("caf\xC3\xA9"), "caf\xC3\xA9");
}

}  // namespace
}  // namespace attnscope::test

// The text input and the what-if through the encoder on the installed model: replacing every layer's
// attention by `full` reproduces the exact embedding; a broken replacement does not (the check can fail);
// truncation, layer/head selection and the errors for missing or unsupported models.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iomanip>

#include "core/backend/factory/make_backend.h"
#include "core/data/samples.h"
#include "core/data/text_model.h"
#include "core/session/text_whatif.h"
#include "tests/unit/text_test_util.h"

namespace attnscope::test {
namespace {

const char* kSample =
    "Sparse attention keeps a few keys per query; low-rank attention compresses the keys instead. "
    "Which one works depends on the text.";

TEST(TextWhatIf, FullEverywhereGivesTheExactEmbedding) {
    ATTNSCOPE_MODEL_OR_SKIP(dir);
    const auto model = load_text_model(dir);
    auto backend = make_backend("cpu");
    const std::vector<int> ids = model->tokenizer.encode(kSample).ids;
    const std::vector<float> exact = exact_text_embedding(*model, ids);
    for (const char* id : {"full", "flash"}) {
        for (int layer : {kAllLayers, 0, 5}) {
            const WhatIfResult r = run_text_whatif(*model, ids, exact, layer, parse_variant_request(id, {}), *backend);
            std::cout << "[case] what-if " << id << " at layer " << (layer == kAllLayers ? "all" : std::to_string(layer))
                      << ", n=" << ids.size() << ": cosine " << std::setprecision(10) << r.embedding_cosine
                      << " (tol 1e-6)\n";
            EXPECT_NEAR(r.embedding_cosine, 1.0, 1e-6);
        }
    }
}

TEST(TextWhatIf, ABrokenAttentionMovesTheEmbedding) {
    ATTNSCOPE_MODEL_OR_SKIP(dir);
    const auto model = load_text_model(dir);
    const std::vector<int> ids = model->tokenizer.encode(kSample).ids;
    const std::vector<float> exact = exact_text_embedding(*model, ids);
    // Uniform attention (every row the mean of V) at every layer: the cosine must drop visibly, so the
    // what-if measurement is able to report a difference.
    EncoderOptions options;
    options.keep_probs = false;
    options.hook = [](int, const Heads& h) -> std::optional<Tensor3> {
        Tensor3 O(h.heads(), h.n(), h.dv());
        for (int k = 0; k < h.heads(); ++k) O.head(k).rowwise() = h.V.head(k).colwise().mean();
        return O;
    };
    const double cosine = cosine_similarity(model->encoder.forward(ids, options).embedding, exact);
    std::cout << "[case] uniform attention at every layer: cosine " << cosine << " (expect < 0.99)\n";
    EXPECT_LT(cosine, 0.99);
}

TEST(TextInput, LayerHeadSelectionAndTokens) {
    ATTNSCOPE_MODEL_OR_SKIP(dir);
    TextInputSpec spec;
    spec.text = kSample;
    spec.model_dir = dir;
    spec.layer = 3;
    const TextInput all = load_text_input(spec);
    spec.head = 7;
    const TextInput one = load_text_input(spec);
    std::cout << "[case] layer 3, all heads vs head 7, n=" << all.heads.n() << "\n";
    EXPECT_EQ(all.layers, 6);
    EXPECT_EQ(all.model_heads, 12);
    EXPECT_EQ(all.heads.heads(), 12);
    EXPECT_EQ(all.heads.d(), 32);
    EXPECT_EQ(one.heads.heads(), 1);
    EXPECT_EQ(all.heads.X.cols(), 384);
    EXPECT_EQ(all.heads.X.rows(), all.heads.n());
    EXPECT_EQ(all.heads.tokens.size(), static_cast<size_t>(all.heads.n()));
    EXPECT_EQ(all.heads.tokens.front(), "[CLS]");
    EXPECT_EQ(all.heads.tokens.back(), "[SEP]");
    EXPECT_EQ(all.token_ids.size(), all.heads.tokens.size());
    EXPECT_TRUE(one.heads.Q.head(0) == all.heads.Q.head(7));
    EXPECT_TRUE(one.heads.V.head(0) == all.heads.V.head(7));
    spec.layer = 6;
    expect_error_containing([&] { load_text_input(spec); }, "layer 6 is out of range: the model has layers 0 to 5");
    spec.layer = 0, spec.head = 12;
    expect_error_containing([&] { load_text_input(spec); }, "head 12 is out of range");
}

TEST(TextInput, LongTextNeedsTruncate) {
    ATTNSCOPE_MODEL_OR_SKIP(dir);
    TextInputSpec spec;
    spec.model_dir = dir;
    for (int k = 0; k < 60; ++k) spec.text += "one two three four five six seven eight nine ten ";
    std::cout << "[case] 600 words without and with truncation\n";
    expect_error_containing([&] { load_text_input(spec); }, "the text has 602 tokens but the model takes at most 512");
    spec.truncate = true;
    const TextInput t = load_text_input(spec);
    EXPECT_TRUE(t.truncated);
    EXPECT_EQ(t.untruncated_tokens, 602);
    EXPECT_EQ(t.heads.n(), 512);
    EXPECT_EQ(t.heads.tokens.back(), "[SEP]");
    EXPECT_EQ(t.heads.tokens[510], "ten");  // 51 full repetitions end at position 510
}

TEST(TextInput, SamplesFitTheModel) {
    ATTNSCOPE_MODEL_OR_SKIP(dir);
    const auto model = load_text_model(dir);
    for (const SampleText& s : sample_texts()) {
        const size_t n = model->tokenizer.encode(s.text).ids.size();
        std::cout << "[case] sample '" << s.id << "': " << n << " tokens\n";
        EXPECT_GE(n, 20u);
        // 'harbour' is the long sample of the low-rank lesson: more than the model's 512 positions (it is cut to
        // a full context); 'ferry' is the decoder's long text (StreamingLLM); the others stay short so the GUI
        // answers an edit at once.
        if (s.id == "harbour" || s.id == "ferry") EXPECT_GT(n, 512u);
        else EXPECT_LE(n, 128u);
    }
    const size_t n = model->tokenizer.encode(default_sample_text()).ids.size();
    EXPECT_GE(n, 60u);  // the GUI's default: 60–120 tokens
    EXPECT_LE(n, 120u);
}

TEST(TextModel, MissingAndUnsupportedModels) {
    TempDir tmp("model");
    std::cout << "[case] missing folder, missing config, non-BERT config, missing tensors\n";
    expect_error_containing([&] { load_text_model(tmp.file("nothing")); }, "run scripts/setup.sh");
    expect_error_containing([&] { load_text_model(tmp.path().string()); }, "run scripts/setup.sh");
    write_bytes(tmp.file("config.json"), R"({"model_type": "roberta", "hidden_size": 8})");
    expect_error_containing([&] { load_text_model(tmp.path().string()); }, "model_type 'roberta' is not supported");
    write_bytes(tmp.file("config.json"),
                R"({"model_type": "bert", "vocab_size": 4, "hidden_size": 8, "num_hidden_layers": 1,
                    "num_attention_heads": 2, "intermediate_size": 16, "max_position_embeddings": 8})");
    expect_error_containing([&] { load_text_model(tmp.path().string()); }, "no model.safetensors");
    write_bytes(tmp.file("model.safetensors"),
                safetensors_bytes(R"({"embeddings.word_embeddings.weight":{"dtype":"F32","shape":[4,8],"data_offsets":[0,128]}})",
                                  std::string(128, '\0')));
    expect_error_containing([&] { load_text_model(tmp.path().string()); },
                            "has no tensor 'embeddings.position_embeddings.weight': not a BERT encoder");
}

}  // namespace
}  // namespace attnscope::test

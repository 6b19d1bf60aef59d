// A llama GGUF of the user's own (tests/golden/tiny_llama, made by make_tiny_llama.py): a 2-layer model whose tensors
// are stored in eight ggml types (F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0) with an untied output matrix,
// tokenized as llama.cpp does and run with the logits of an independent numpy forward; and every bad file a user may
// bring refused with a sentence that says what is wrong and what is read.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/analysis/key_attention.h"
#include "core/data/ggml_messages.h"
#include "core/data/gguf_file.h"
#include "core/data/text_input.h"
#include "core/data/text_model.h"
#include <ggml.h>
#include <gguf.h>
#include "tests/unit/text_test_util.h"

namespace attnscope::test {
namespace {

std::string tiny(const std::string& name) { return std::string(ATTNSCOPE_TEST_DATA_DIR) + "/tiny_llama/" + name; }

nlohmann::json tiny_golden() {
    std::ifstream in(tiny("tiny_llama_golden.json"));
    return nlohmann::json::parse(in);
}

TEST(DecoderFiles, MixedTypeLlamaMatchesLlamaCppTokensAndNumpyLogits) {
    const auto model = load_decoder_model(tiny("tiny-llama-mixed.gguf"));
    const nlohmann::json g = tiny_golden();
    for (const auto& c : g["tokenizer"]) EXPECT_EQ(model->tokenizer.encode(c["text"]), c["ids"].get<std::vector<int>>());
    const LlamaConfig& cfg = model->decoder.config();
    EXPECT_EQ(cfg.layers, 2);
    EXPECT_EQ(cfg.heads, 4);
    EXPECT_EQ(cfg.kv_heads, 2);
    EXPECT_FALSE(cfg.tied_output);
    const std::vector<int> ids = g["logits"]["ids"];
    DecoderOptions options;
    options.logits = true;
    const MatrixRM logits = model->decoder.forward(ids, options).logits;
    double worst = 0, scale = 0;
    for (size_t t = 0; t < ids.size(); ++t)
        for (size_t v = 0; v < g["logits"]["numpy"][t].size(); ++v) {
            const double want = g["logits"]["numpy"][t][v];
            worst = std::max(worst, std::abs(logits(long(t), long(v)) - want));
            scale = std::max(scale, std::abs(want));
        }
    std::cout << "[tiny llama] 8 ggml types, untied output: max |Δlogit| = " << worst << " of max |logit| " << scale << "\n";
    EXPECT_LE(worst, 1e-4 * scale);
}

TEST(DecoderFiles, TextInputOfADecoderIsCausalWithGroupedKeys) {
    TextInputSpec spec;
    spec.text = "The quick brown fox jumps over the lazy dog.";
    spec.model_dir = tiny("tiny-llama-mixed.gguf");
    spec.layer = 1;
    const TextInput in = load_text_input(spec);
    EXPECT_TRUE(in.causal);
    EXPECT_EQ(in.model_heads, 4);
    EXPECT_EQ(in.kv_heads, 2);
    ASSERT_EQ(in.heads.heads(), 4);
    // Query heads 0 and 1 read KV head 0, heads 2 and 3 KV head 1: the same K and V, and different Q.
    EXPECT_EQ(in.heads.K.head(0), in.heads.K.head(1));
    EXPECT_EQ(in.heads.V.head(2), in.heads.V.head(3));
    EXPECT_NE(in.heads.K.head(1), in.heads.K.head(2));
    EXPECT_NE(in.heads.Q.head(0), in.heads.Q.head(1));
    EXPECT_EQ(in.heads.tokens.size(), in.token_ids.size());
    EXPECT_EQ(in.heads.tokens[0], "T");  // the tiny vocabulary has no "The"
    spec.layer = 2;
    EXPECT_THROW(load_text_input(spec), Error);
}

TEST(DecoderFiles, ExtendingAPrefixEqualsTheWholePass) {
    // An edit at the end of a text recomputes only the new positions: in a causal model the earlier ones do not change.
    const auto model = load_decoder_model(tiny("tiny-llama-mixed.gguf"));
    const std::vector<int> ids = tiny_golden()["logits"]["ids"];
    const std::vector<int> prefix(ids.begin(), ids.begin() + 20);
    DecoderOptions options;
    options.last_layer = 1;
    const DecoderOutput whole = model->decoder.forward(ids, options);
    const DecoderOutput extended = model->decoder.extend(ids, model->decoder.forward(prefix, options), 20, options);
    ASSERT_EQ(extended.Q.size(), whole.Q.size());
    double worst = 0;  // relative to the tensor's largest |value|: the GEMMs see other shapes, so rounding differs
    for (size_t l = 0; l < whole.Q.size(); ++l)
        for (const auto& [a, b] : {std::pair{&whole.Q[l], &extended.Q[l]}, {&whole.K[l], &extended.K[l]},
                                   {&whole.V[l], &extended.V[l]}, {&whole.hidden[l], &extended.hidden[l]}}) {
            ASSERT_EQ(a->rows(), int(ids.size()));
            ASSERT_EQ(b->rows(), int(ids.size()));
            for (int h = 0; h < a->heads(); ++h)
                worst = std::max(worst, double((a->head(h) - b->head(h)).cwiseAbs().maxCoeff()) /
                                            double(a->head(h).cwiseAbs().maxCoeff()));
        }
    std::cout << "[extend] 20 of " << ids.size() << " positions reused: max |Δ| / max |x| of Q, K, V and layer inputs = "
              << worst << "\n";
    EXPECT_LE(worst, 1e-5);
    // Rows it would have to recompute under a different prefix are recomputed: a changed token 5 changes row 5 on.
    std::vector<int> edited = ids;
    edited[5] = edited[5] == 10 ? 11 : 10;
    const DecoderOutput wrong_reuse = model->decoder.extend(edited, whole, 20, options);  // a caller's bug: 20 is wrong
    const DecoderOutput right = model->decoder.extend(edited, whole, 5, options);
    const DecoderOutput fresh = model->decoder.forward(edited, options);
    const double q_scale = fresh.Q[1].head(0).cwiseAbs().maxCoeff();
    EXPECT_LE((right.Q[1].head(0) - fresh.Q[1].head(0)).cwiseAbs().maxCoeff(), 1e-5 * q_scale);
    EXPECT_GT((wrong_reuse.Q[1].head(0) - fresh.Q[1].head(0)).cwiseAbs().maxCoeff(), 1e-3 * q_scale);
}

TEST(DecoderFiles, TextInputAfterAnEditAtTheEndEqualsAFreshOne) {
    TextInputSpec spec;
    spec.model_dir = tiny("tiny-llama-mixed.gguf");
    spec.layer = 1;
    spec.text = "The quick brown fox";
    load_text_input(spec);  // cached: the next text starts with its tokens
    spec.text = "The quick brown fox jumps.";
    const TextInput edited = load_text_input(spec);
    spec.text = "x";
    load_text_input(spec);  // another text replaces the cache, so the next pass is a whole one
    spec.text = "The quick brown fox jumps.";
    const TextInput fresh = load_text_input(spec);
    ASSERT_EQ(edited.token_ids, fresh.token_ids);
    const auto close = [](const ConstMatView& a, const ConstMatView& b) {
        return (a - b).cwiseAbs().maxCoeff() <= 1e-5 * b.cwiseAbs().maxCoeff();
    };
    EXPECT_TRUE(close(edited.heads.K.head(3), fresh.heads.K.head(3)));
    EXPECT_TRUE(close(edited.heads.Q.head(1), fresh.heads.Q.head(1)));
    EXPECT_TRUE(close(edited.heads.X.head(0), fresh.heads.X.head(0)));
}

/// The message of loading `file`, or "" when it loads.
std::string load_error(const std::string& file) {
    try {
        load_decoder_model(tiny(file));
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(DecoderFiles, BadFilesAreRefusedWithWhatIsWrongAndWhatIsRead) {
    const struct {
        const char* file;
        std::vector<const char*> says;
    } cases[] = {
        {"not-gguf.gguf", {"not a GGUF file", "does not start with the bytes 'GGUF'"}},
        {"header-only.gguf", {"not a readable GGUF file", "truncated or corrupt"}},
        {"truncated.gguf", {"is truncated", "ends at byte", "download it again"}},
        {"bad-tensor-type.gguf", {"blk.0.attn_q.weight", "type 4", "a type ggml does not read", "Q4_K"}},
        {"other-arch.gguf", {"is a 'gpt2' model", "llama-architecture"}},
        {"missing-tensor.gguf", {"has no tensor 'blk.1.ffn_down.weight'"}},
        {"no-vocab.gguf", {"no vocabulary"}},
        {"absent.gguf", {"no GGUF model file at", "llama-architecture .gguf"}},
    };
    for (const auto& c : cases) {
        const std::string message = load_error(c.file);
        std::cout << "[bad file] " << c.file << ": " << message << "\n";
        EXPECT_FALSE(message.empty()) << c.file << " loaded";
        for (const char* s : c.says) EXPECT_NE(message.find(s), std::string::npos) << c.file << ": " << message;
    }
}

TEST(DecoderFiles, AFailedInternalCheckOfGgmlIsAnErrorNotAnAbort) {
    // llama.cpp asserts (GGML_ASSERT → ggml_abort → abort()) where it trusts its input; inside a GgmlMessages scope the
    // failed check throws instead, through ggml's C frames, and the app keeps running.
    GgmlMessages scope;
    try {
        ggml_abort("somewhere.c", 7, "GGML_ASSERT(%s) failed", "x == y");
        FAIL() << "ggml_abort returned";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("internal check: somewhere.c:7: GGML_ASSERT(x == y) failed"), std::string::npos)
            << e.what();
    }
}

TEST(DecoderFiles, ADuplicateTokenIsRefusedBeforeLlamaCppAssertsOnIt) {
    // The tiny llama with token 70's string also at 71 (llama.cpp's loader asserts that all strings differ).
    const std::string source = tiny("tiny-llama-mixed.gguf");
    gguf_context* meta = gguf_init_from_file(source.c_str(), gguf_init_params{true, nullptr});
    ASSERT_NE(meta, nullptr);
    const size_t data_offset = gguf_get_data_offset(meta);
    const int64_t key = gguf_find_key(meta, "tokenizer.ggml.tokens");
    std::vector<std::string> tokens(gguf_get_arr_n(meta, key));
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = gguf_get_arr_str(meta, key, i);
    tokens[71] = tokens[70];
    std::vector<const char*> pointers;
    for (const std::string& t : tokens) pointers.push_back(t.c_str());
    gguf_set_arr_str(meta, "tokenizer.ggml.tokens", pointers.data(), pointers.size());
    TempDir dir("gguf-duplicate");
    const std::string path = dir.file("duplicate-token.gguf");
    ASSERT_TRUE(gguf_write_to_file(meta, path.c_str(), /*only_meta=*/true));  // padded to the data's alignment
    gguf_free(meta);
    {  // the tensor data after the new metadata, at the same offsets from the data section's start
        std::ifstream in(source, std::ios::binary);
        in.seekg(std::streamoff(data_offset));
        std::ofstream(path, std::ios::binary | std::ios::app) << in.rdbuf();
    }
    try {
        load_decoder_model(path);
        FAIL() << "a vocabulary with a duplicate token loaded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("token 71 ('" + printable_token(tokens[70]) + "') appears twice"),
                  std::string::npos) << e.what();
    }
}

TEST(DecoderFiles, ReceivedAttentionSummedInsideTheDecoderEqualsTheMeanOfItsMatrices) {
    // The Sinks panel's decoder path never holds an n×n matrix: its tile-by-tile column sums must equal the mean of
    // every layer's and head's causal P computed whole.
    TextInputSpec spec;
    spec.text = "The quick brown fox jumps over the lazy dog.";
    spec.model_dir = tiny("tiny-llama-mixed.gguf");
    const std::optional<TextKeyAttention> streamed = text_key_attention(spec);
    const std::optional<TextLayerProbs> whole = text_layer_probs(spec);
    ASSERT_TRUE(streamed && whole);
    std::vector<const Tensor3*> probs;
    for (const Tensor3& P : whole->probs) probs.push_back(&P);
    const std::vector<double> expected = mean_received_attention(probs);
    ASSERT_EQ(streamed->received.size(), expected.size());
    EXPECT_TRUE(streamed->causal);
    EXPECT_EQ(streamed->layers, 2);
    for (size_t j = 0; j < expected.size(); ++j) EXPECT_NEAR(streamed->received[j], expected[j], 1e-6) << "key " << j;
    // Causal: the last key is seen by one row of each head only, the first by all of them.
    EXPECT_GT(streamed->received.front(), streamed->received.back());
}

TEST(DecoderFiles, TextLongerThanTheContextIsRefusedOrCut) {
    TextInputSpec spec;
    for (int k = 0; k < 40; ++k) spec.text += "word ";
    spec.model_dir = tiny("tiny-llama-mixed.gguf");  // context 64
    try {
        load_text_input(spec);
        FAIL() << "a text longer than the context was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("takes at most 64 (its context)"), std::string::npos) << e.what();
    }
    spec.truncate = true;
    const TextInput in = load_text_input(spec);
    EXPECT_TRUE(in.truncated);
    EXPECT_EQ(in.heads.n(), 64);
}

TEST(DecoderFiles, ResolveModelNamesTheTwoInstalledModelsAndPaths) {
    EXPECT_FALSE(resolve_model("").decoder);
    EXPECT_EQ(resolve_model("minilm").path, default_model_dir());
    EXPECT_TRUE(resolve_model("smollm2").decoder);
    EXPECT_EQ(resolve_model("smollm2").path, default_decoder_path());
    EXPECT_TRUE(resolve_model("/somewhere/x.gguf").decoder);
    EXPECT_TRUE(resolve_model(tiny("not-gguf.gguf")).decoder);
    EXPECT_FALSE(resolve_model(std::string(ATTNSCOPE_TEST_DATA_DIR) + "/tiny_bert").decoder);
}

}  // namespace
}  // namespace attnscope::test

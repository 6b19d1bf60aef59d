// Regression tests for the fuzzers' findings in the JSON readers (tests/fuzz, docs/RELIABILITY.md): a value of the
// wrong type or a missing key is an Error naming the key, never an escaped nlohmann exception.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/data/bert_config.h"
#include "core/error.h"
#include "core/lessons/lessons.h"
#include "core/lessons/preset.h"

namespace attnscope {
namespace {

std::string config_error(const std::string& json) {
    const auto dir = std::filesystem::temp_directory_path() / ("attnscope-config-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "config.json") << json;
    try {
        read_bert_config(dir.string());
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

const char* kMiniLm = R"({"model_type": "bert", "vocab_size": 30522, "hidden_size": 384, "num_hidden_layers": 6,
  "num_attention_heads": 12, "intermediate_size": 1536, "max_position_embeddings": 512)";

TEST(BertConfigReader, AValueOfTheWrongTypeNamesItsKey) {
    // fuzz finding: {"model_type": 12, ...} escaped as nlohmann::type_error ("type must be string, but is number").
    EXPECT_NE(config_error(R"({"model_type": 12})").find("'model_type' must be a string"), std::string::npos);
    EXPECT_NE(config_error(std::string(kMiniLm) + R"(, "hidden_act": 1})").find("'hidden_act' must be a string"), std::string::npos);
    EXPECT_NE(config_error(std::string(kMiniLm) + R"(, "is_decoder": "no"})").find("'is_decoder' must be true or false"), std::string::npos);
    EXPECT_NE(config_error(std::string(kMiniLm) + R"(, "layer_norm_eps": "x"})").find("'layer_norm_eps' must be a number"), std::string::npos);
    EXPECT_NE(config_error(std::string(kMiniLm) + R"(, "layer_norm_eps": -1e-12})").find("'layer_norm_eps'"), std::string::npos);
    EXPECT_NE(config_error("[1, 2]").find("is not a JSON object"), std::string::npos);
    EXPECT_EQ(config_error(std::string(kMiniLm) + "}"), "");  // the real model's settings still read
}

TEST(LessonReader, AMalformedPresetVariantIsAnErrorNamingIt) {
    // fuzz finding: a variant without "id" escaped as nlohmann::out_of_range from preset_variants.
    const auto preset = nlohmann::json::parse(R"({"variants": [{"id": "full"}, {"tiid": "lsh", "params": {"rounds": 4}}]})");
    try {
        preset_variants(preset);
        FAIL() << "accepted a variant without an id";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("variant #2"), std::string::npos) << e.what();
    }
    EXPECT_THROW(preset_variants(nlohmann::json::parse(R"({"variants": 3})")), Error);
    EXPECT_THROW(preset_variants(nlohmann::json::parse(R"({"variants": [{"id": "full", "params": [1]}]})")), Error);
    EXPECT_THROW(parse_lesson(R"({"id": "x", "order": "first"})"), Error);
    EXPECT_THROW(parse_lesson(R"({"id": "x", "order": 1, "title": "t", "preset": 4, "check": {"id": "c"}})"), Error);
}

}  // namespace
}  // namespace attnscope

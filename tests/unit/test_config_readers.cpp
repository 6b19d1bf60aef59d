// Regression tests for the fuzzers' findings in the JSON readers (tests/fuzz, docs/RELIABILITY.md): a value of the
// wrong type or a missing key is an Error naming the key, never an escaped nlohmann exception.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/data/bert_config.h"
#include "core/error.h"
#include "core/json_fields.h"
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

TEST(JsonFields, AFloatWhereAWholeNumberBelongsIsAnErrorNamingTheKey) {
    // fuzz finding: "order": 1e90 reached nlohmann's get<int>, an undefined float-to-int conversion (UBSan).
    try {
        parse_lesson(R"({"id": "x", "order": 1e90, "title": "t", "check": {"id": "c"}})");
        FAIL() << "accepted order 1e90";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'order' is 1e+90; it must be a whole number in [0, 1000]"), std::string::npos)
            << e.what();
    }
    const auto j = nlohmann::json::parse(R"({"n": 2.5, "big": 18446744073709551615, "neg": -3, "ok": 7, "t": "x"})");
    EXPECT_THROW(json_int(j, "n", 0, 1, 100, "here"), Error);
    EXPECT_THROW(json_int(j, "big", 0, 1, 100, "here"), Error);
    EXPECT_THROW(json_int(j, "neg", 0, 0, 100, "here"), Error);
    EXPECT_THROW(json_number(j, "t", 0, 0, 1, "here"), Error);
    EXPECT_EQ(json_int(j, "ok", 0, 1, 100, "here"), 7);
    EXPECT_EQ(json_int(j, "absent", 5, 1, 100, "here"), 5);
}

}  // namespace
}  // namespace attnscope

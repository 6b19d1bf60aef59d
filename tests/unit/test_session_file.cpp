// The input and session formats (core/session/input_json.h, core/session/session_file.h): what the writer writes
// the reader reads back equal, an absent key takes the one default that sessions and lesson presets share, and a
// bad value is an Error naming its key.
#include <gtest/gtest.h>

#include <string>

#include "core/data/samples.h"
#include "core/error.h"
#include "core/lessons/lessons.h"
#include "core/lessons/preset.h"
#include "core/session/input_json.h"
#include "core/session/session_file.h"
#include "core/session/variant_spec.h"

namespace attnscope::test {
namespace {

void expect_same_input(const InputSpec& a, const InputSpec& b) {
    EXPECT_EQ(a.mode, b.mode);
    EXPECT_EQ(a.scenario.kind, b.scenario.kind);
    EXPECT_EQ(a.scenario.n, b.scenario.n);
    EXPECT_EQ(a.scenario.heads, b.scenario.heads);
    EXPECT_EQ(a.scenario.dim, b.scenario.dim);
    EXPECT_EQ(a.scenario.temperature, b.scenario.temperature);
    EXPECT_EQ(a.scenario.seed, b.scenario.seed);
    EXPECT_EQ(a.scenario.structure, b.scenario.structure);
    EXPECT_EQ(a.text, b.text);
    EXPECT_EQ(a.model_dir, b.model_dir);
    EXPECT_EQ(a.layer, b.layer);
    EXPECT_EQ(a.truncate, b.truncate);
    EXPECT_EQ(a.tensors_path, b.tensors_path);
}

/// The message of the Error `read` throws ("" when it throws none).
template <class F>
std::string error_of(F read) {
    try {
        read();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

InputSpec unusual_input() {
    InputSpec in;
    in.mode = InputMode::Text;
    in.scenario.kind = ScenarioKind::Periodic;
    in.scenario.n = 384, in.scenario.heads = 3, in.scenario.dim = 24, in.scenario.temperature = 0.35;
    in.scenario.seed = (uint64_t(1) << 40) + 7;
    in.scenario.structure = 12;
    in.text = "Sparse attention keeps a few keys.";
    in.model_dir = "/models/tiny";
    in.layer = 3, in.truncate = true;
    in.tensors_path = "/data/qkv.safetensors";
    return in;
}

TEST(InputJson, WriterThenReaderGivesTheSameInput) {
    std::cout << "[case] a text input with a periodic fallback scenario (period 12), and the defaults, written and "
                 "read back\n";
    const InputSpec in = unusual_input();
    const nlohmann::json j = input_spec_to_json(in);
    EXPECT_EQ(j.at("period"), 12) << j.dump();
    expect_same_input(input_spec_from_json(j, "the test's input"), in);
    const InputSpec defaults = input_json_defaults();
    EXPECT_FALSE(input_spec_to_json(defaults).contains("band")) << "an unset structure is written as absent";
    expect_same_input(input_spec_from_json(input_spec_to_json(defaults), "the test's input"), defaults);
}

TEST(InputJson, AbsentKeysTakeOneSetOfDefaults) {
    std::cout << "[case] {} as a session's input and as a lesson preset's input\n";
    const InputSpec d = input_json_defaults();
    EXPECT_EQ(d.mode, InputMode::Synthetic);
    EXPECT_EQ(d.scenario.kind, ScenarioKind::Local);
    EXPECT_EQ(d.scenario.n, 256);
    EXPECT_EQ(d.scenario.heads, 4);
    EXPECT_EQ(d.scenario.dim, 64);
    EXPECT_EQ(d.scenario.temperature, 1.0);
    EXPECT_EQ(d.scenario.seed, 0u);
    EXPECT_EQ(d.scenario.structure, 0);
    EXPECT_EQ(d.text, default_sample_text());
    EXPECT_EQ(d.layer, 0);
    EXPECT_FALSE(d.truncate);
    EXPECT_TRUE(d.model_dir.empty() && d.tensors_path.empty());
    expect_same_input(input_spec_from_json(nlohmann::json::object(), "the test's input"), d);
    expect_same_input(session_input_from_json({{"version", 1}, {"input", nlohmann::json::object()}}), d);
    expect_same_input(preset_input_spec({{"input", nlohmann::json::object()}}), d);
}

TEST(InputJson, SampleNamesASampleTextAndTextWins) {
    std::cout << "[case] \"sample\": an id, \"default\", and beside a literal \"text\"\n";
    const SampleText& last = sample_texts().back();
    EXPECT_EQ(input_spec_from_json({{"sample", last.id}}, "in").text, last.text);
    EXPECT_EQ(input_spec_from_json({{"sample", "default"}}, "in").text, default_sample_text());
    EXPECT_EQ(input_spec_from_json({{"sample", last.id}, {"text", "own words"}}, "in").text, "own words");
}

TEST(InputJson, ABadValueNamesItsKey) {
    std::cout << "[case] each input key with a value out of range or of the wrong type, as a file would hold it\n";
    const std::string where = "the session's input";
    struct Case {
        std::string input;
        std::string expected;
    };
    const Case cases[] = {
        {R"({"n": 2000000})", "the session's input: 'n' is 2000000; it must be a whole number in [1, 1048576]"},
        {R"({"n": 0})", "the session's input: 'n' is 0; it must be a whole number in [1, 1048576]"},
        {R"({"heads": "four"})", "'heads' is \"four\""},
        {R"({"dim": 2048})", "'dim' is 2048"},
        {R"({"temperature": -1})", "'temperature' is -1"},
        {R"({"seed": 1.5})", "'seed' is 1.5"},
        {R"({"mode": "video"})", "'mode' is \"video\"; it must be synthetic, text or tensors"},
        {R"({"scenario": "zzz"})", "'scenario' is \"zzz\": unknown scenario 'zzz'"},
        {R"({"scenario": "local", "band": -3})", "'band' is -3"},
        {R"({"sample": "nope"})", "'sample' is \"nope\"; it must be one of default,"},
        {R"({"text": 5})", "'text' is 5"},
        {R"({"layer": 1001})", "'layer' is 1001"},
        {R"({"truncate": "yes"})", "'truncate' is \"yes\"; it must be true or false"},
        {R"({"tensors_path": false})", "'tensors_path' is false"},
        {R"([])", "the session's input is []; it must be an object"},
    };
    for (const Case& c : cases) {
        const std::string message = error_of([&] { input_spec_from_json(nlohmann::json::parse(c.input), where); });
        EXPECT_TRUE(contains(message, c.expected)) << c.input << " gave: " << message;
    }
    EXPECT_TRUE(contains(error_of([] { preset_input_spec(nlohmann::json::parse(R"({"input": {"heads": 65}})")); }),
                         "the lesson preset's input: 'heads' is 65"));
}

TEST(SessionFile, WriterThenReaderGivesTheSameSession) {
    std::cout << "[case] input, two instances and a difference view on head 2, written as text and read back\n";
    const std::vector<VariantRequest> variants = {parse_variant_request("longformer", {{"window", "8"}}),
                                                  parse_variant_request("full", {{"causal", "true"}})};
    SessionView view;
    view.head = 2, view.show_mask = false, view.show_diff = true, view.log_scale = false, view.decades = 6.5f;
    nlohmann::json j = {{"version", kSessionVersion}, {"view", {{"zoom", {0, 1, 0, 1}}}}};
    session_input_to_json(unusual_input(), j);
    session_variants_to_json(variants, j);
    session_view_to_json(view, j);
    EXPECT_TRUE(j.at("view").contains("zoom")) << "the GUI's own view keys stay beside the session's";
    const SessionFile s = session_from_text(j.dump(2));
    expect_same_input(s.input, unusual_input());
    ASSERT_EQ(s.variants.size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(s.variants[k].id, variants[k].id);
        EXPECT_EQ(s.variants[k].params, variants[k].params) << variants[k].id;
    }
    EXPECT_EQ(s.view.head, 2);
    EXPECT_FALSE(s.view.show_mask);
    EXPECT_TRUE(s.view.show_diff);
    EXPECT_FALSE(s.view.log_scale);
    EXPECT_EQ(s.view.decades, 6.5f);
}

TEST(SessionFile, AbsentSectionsTakeTheFirstStartDefaults) {
    std::cout << "[case] {\"version\": 1} alone\n";
    const SessionFile s = session_from_text("{\"version\": 1}");
    expect_same_input(s.input, default_session_input());
    EXPECT_EQ(s.input.layer, 5);
    ASSERT_EQ(s.variants.size(), 3u);
    EXPECT_EQ(s.variants[0].id, "full");
    EXPECT_EQ(s.variants[1].id, "bigbird");
    EXPECT_EQ(s.variants[2].id, "lsh");
    EXPECT_EQ(s.view.head, 0);
    EXPECT_TRUE(s.view.show_mask);
    EXPECT_FALSE(s.view.show_diff);
    EXPECT_TRUE(s.view.log_scale);
    EXPECT_EQ(s.view.decades, 4.0f);
}

TEST(SessionFile, ASessionNamingOnlyALessonMeansItsSetup) {
    std::cout << "[case] {\"lesson\": {\"id\": \"factorised\"}} alone, beside an input, and without an id\n";
    const SessionFile s = session_from_text(R"({"version": 1, "lesson": {"id": "factorised", "check": true}})");
    ASSERT_EQ(s.setup_lesson, "factorised");
    const SessionFile setup = lesson_setup(s.setup_lesson);
    expect_same_input(setup.input, preset_input_spec(find_lesson("factorised").preset));
    EXPECT_EQ(setup.input.scenario.kind, ScenarioKind::Periodic);
    ASSERT_EQ(setup.variants.size(), 3u);
    EXPECT_EQ(setup.variants[1].id, "strided");
    EXPECT_TRUE(setup.view.show_mask);
    const SessionFile saved = session_from_text(R"({"version": 1, "lesson": {"id": "factorised"}, "input": {}})");
    EXPECT_TRUE(saved.setup_lesson.empty()) << "a saved session's own input and variants win over its lesson's";
    EXPECT_TRUE(contains(error_of([] { session_from_text(R"({"version": 1, "lesson": {"check": true}})"); }),
                         "'lesson' is {\"check\":true}; it must be {\"id\": \"...\"} naming a lesson"));
}

TEST(SessionFile, ReadsASessionTheGuiSaved) {
    std::cout << "[case] tests/gui/sessions/causal_diff.json\n";
    const SessionFile s = read_session_file(std::string(ATTNSCOPE_TEST_DATA_DIR) + "/../gui/sessions/causal_diff.json");
    EXPECT_EQ(s.input.mode, InputMode::Synthetic);
    EXPECT_EQ(s.input.scenario.kind, ScenarioKind::Periodic);
    EXPECT_EQ(s.input.scenario.n, 192);
    EXPECT_EQ(s.input.scenario.heads, 2);
    EXPECT_EQ(s.input.scenario.dim, 32);
    EXPECT_EQ(s.input.scenario.temperature, 0.7);
    EXPECT_EQ(s.input.scenario.seed, 3u);
    ASSERT_EQ(s.variants.size(), 2u);
    EXPECT_EQ(s.variants[0].id, "full");
    EXPECT_EQ(s.variants[1].id, "flash");
    EXPECT_EQ(s.variants[1].params.get_int("tile_rows"), 32);
    EXPECT_EQ(s.view.head, 1);
    EXPECT_TRUE(s.view.show_diff);
    EXPECT_EQ(s.view.decades, 8.0f);
}

TEST(SessionFile, ErrorsSayWhatIsWrongAndWhatToDo) {
    std::cout << "[case] a missing file, broken JSON, a list, a future version, bad view and variant values\n";
    struct Case {
        std::string text;
        std::string expected;
    };
    const Case cases[] = {
        {R"({"version": 1, "input": {"n": 1)", "the session file is not valid JSON"},
        {R"([1, 2])", "the session file is not a JSON object: fix or delete it"},
        {R"({"version": 99})", "session version 99 is not 1: delete the file to start fresh"},
        {R"({"input": {}})", "session version 0 is not 1"},
        {R"({"version": 1, "view": {"mask": "yes"}})", "the session's view: 'mask' is \"yes\"; it must be true or false"},
        {R"({"version": 1, "view": {"head": -1}})", "the session's view: 'head' is -1"},
        {R"({"version": 1, "input": {"mode": "text", "layer": "top"}})", "the session's input: 'layer' is \"top\""},
        {R"({"version": 1, "variants": [{"id": "svd", "params": {"rank": "eight"}}]})", "variant #1: svd"},
    };
    for (const Case& c : cases) {
        const std::string message = error_of([&] { session_from_text(c.text); });
        EXPECT_TRUE(contains(message, c.expected)) << c.text << " gave: " << message;
    }
    EXPECT_TRUE(contains(error_of([] { read_session_file("/nonexistent/session.json"); }),
                         "cannot read the session '/nonexistent/session.json': check the path"));
}

}  // namespace
}  // namespace attnscope::test

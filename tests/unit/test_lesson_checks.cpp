// Every lesson check can fail: each test puts a deliberately broken stand-in in place of the variant the lesson
// is about and expects the claim it breaks to fail (the intact checks pass in the ctest `lesson.*` cases).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>

#include "core/backend/cpu/cpu_backend.h"
#include "core/lessons/lessons.h"
#include "core/lessons/checks.h"
#include "core/lessons/preset.h"
#include "core/session/experiment.h"
#include "core/variants/registry.h"
#include "tests/unit/text_test_util.h"

namespace attnscope::test {
namespace {

using RunFn = std::function<RunResult(const Heads&, const Params&, const RunOptions&, Backend&)>;

/// The registered variant with its whole run replaced by a RunFn (its execute() runs it without matrices, its
/// explain() again with them), and optionally its decoder. Without a RunFn every phase is the real variant's.
class StandIn : public Variant {
public:
    StandIn(const std::string& id, RunFn run) : m_real(find_variant(id)), m_run(std::move(run)) {
        m_info = m_real.info();
    }
    Params resolve(const Params& p, const Shape& s) const override { return m_real.resolve(p, s); }
    std::unique_ptr<Plan> plan(const Heads& h, const Params& p,
                               const std::shared_ptr<const VariantWeights>& w) const override {
        return m_run ? Variant::plan(h, p, w) : m_real.plan(h, p, w);
    }
    std::unique_ptr<Execution> execute(const Plan& plan, const Heads& h, Backend& b) const override {
        if (!m_run) return m_real.execute(plan, h, b);
        RunResult r = m_run(h, plan.params, RunOptions{}, b);
        auto e = std::make_unique<Execution>();
        e->O = std::move(r.O);
        e->flops = r.cost.flops, e->bytes = r.cost.bytes;
        e->structure = std::move(r.structure);
        return e;
    }
    void analyse(const Plan& plan, Execution& e, const Heads& h, Backend& b) const override {
        if (!m_run) m_real.analyse(plan, e, h, b);
    }
    void explain(const Plan& plan, Execution& e, const Heads& h, int max_matrix_n, Backend& b) const override {
        if (!m_run) return m_real.explain(plan, e, h, max_matrix_n, b);
        RunOptions o;
        o.explain = true, o.max_matrix_n = max_matrix_n;
        RunResult r = m_run(h, plan.params, o, b);
        e.P_eff = std::move(r.P_eff);
        e.structure = std::move(r.structure);
    }
    int64_t estimate_peak_bytes(int H, int n, int d, int dv, const Params& p) const override {
        return m_real.estimate_peak_bytes(H, n, d, dv, p);
    }
    double estimate_flops(int H, int n, int d, int dv, const Params& p) const override {
        return m_real.estimate_flops(H, n, d, dv, p);
    }
    ExactModel exact_model(const Params& p) const override { return m_real.exact_model(p); }
    std::unique_ptr<Decoder> make_decoder(int d, int dv, const Params& p) const override {
        return m_decoder ? m_decoder(d, dv, p) : m_real.make_decoder(d, dv, p);
    }
    std::function<std::unique_ptr<Decoder>(int, int, const Params&)> m_decoder;  // replaces the decoder when set

private:
    const Variant& m_real;
    RunFn m_run;
};

/// Runs `real_id` with `params` changed by `edit` (e.g. a parameter the broken variant ignores).
RunFn with_edited_params(const std::string& real_id, std::function<void(Params&)> edit) {
    return [real_id, edit](const Heads& h, const Params& p, const RunOptions& o, Backend& b) {
        Params q = p;
        edit(q);
        return find_variant(real_id).run(h, find_variant(real_id).resolve(q, h.shape()), o, b);
    };
}

/// A stand-in for `id` that runs the real variant with `edit` applied to its parameters (a setting it ignores).
std::shared_ptr<StandIn> ignoring(const std::string& id, std::function<void(Params&)> edit) {
    return std::make_shared<StandIn>(id, with_edited_params(id, std::move(edit)));
}

/// Runs another variant in place of this one (a "fast" variant that secretly computes something else).
RunFn runs_instead(const std::string& other, const std::vector<std::pair<std::string, std::string>>& sets) {
    return [other, sets](const Heads& h, const Params&, const RunOptions& o, Backend& b) {
        const Variant& v = find_variant(other);
        RunResult r = v.run(h, v.resolve(parse_variant_request(other, sets).params, h.shape()), o, b);
        return r;
    };
}

/// Checks `lesson` with `stand_ins` in place of the registered variants and expects a failed claim containing
/// `broken`.
void expect_lesson_fails(const Lesson& lesson, const std::map<std::string, std::shared_ptr<const Variant>>& stand_ins,
                         const std::string& broken) {
    CpuBackend cpu;
    CheckContext ctx{cpu, stand_ins, {}, {}};
    const CheckOutcome out = run_lesson_check(lesson, ctx);
    bool found = false;
    for (const CheckLine& line : out.lines) {
        std::cout << "  [" << (line.passed ? "pass" : "FAIL") << "] " << line.claim << ": " << line.measured << "\n";
        if (!line.passed && line.claim.find(broken) != std::string::npos) found = true;
    }
    EXPECT_FALSE(out.passed()) << lesson.id << " passed";
    EXPECT_TRUE(found) << lesson.id << ": no failed line mentions '" << broken << "'";
}

/// Checks lesson `id` with `stand_in` in place of `variant` and expects a failed claim containing `broken`.
/// `check_params` override the lesson's (e.g. a smaller size, where the broken stand-in would be quadratic).
void expect_check_fails(const std::string& lesson_id, const std::string& variant, std::shared_ptr<StandIn> stand_in,
                        const std::string& broken, const nlohmann::json& check_params = nlohmann::json::object()) {
    Lesson lesson = find_lesson(lesson_id);
    for (const auto& [key, value] : check_params.items()) lesson.check_params[key] = value;
    expect_lesson_fails(lesson, {{variant, stand_in}}, broken);
}

TEST(LessonChecksCanFail, LowRankWithAFlatSpectrum) {
    if (installed_model_dir().empty()) GTEST_SKIP() << "the text model is not installed (scripts/setup.sh)";
    std::cout << "[case] low-rank: `full` returns P = I (every σ = 1)\n";
    auto broken = std::make_shared<StandIn>("full", [](const Heads& h, const Params& p, const RunOptions& o, Backend& b) {
        RunResult r = find_variant("full").run(h, p, o, b);
        if (r.P_eff) {
            r.P_eff->head(0).setIdentity();
            for (int k = 1; k < r.P_eff->heads(); ++k) r.P_eff->head(k) = r.P_eff->head(0);
        }
        return r;
    });
    expect_check_fails("low-rank", "full", broken, "mean cumulative σ share");
}

TEST(LessonChecksCanFail, FavorPlusWithOrthogonalIgnored) {
    std::cout << "[case] favor-plus: performer draws i.i.d. features whatever `orthogonal` says\n";
    expect_check_fails("favor-plus", "performer",
                       ignoring("performer", [](Params& p) { p.set("orthogonal", 0); }),
                       "orthogonal over i.i.d.");
}

TEST(LessonChecksCanFail, LshRoundsWithRoundsIgnored) {
    std::cout << "[case] lsh-rounds: lsh hashes once whatever `rounds` says\n";
    expect_check_fails("lsh-rounds", "lsh",
                       ignoring("lsh", [](Params& p) { p.set("rounds", 1); }),
                       "doublings of the rounds");
}

TEST(LessonChecksCanFail, FactorisedWithoutTheStrideHead) {
    std::cout << "[case] factorised: strided uses pattern A (local) in every head\n";
    expect_check_fails("factorised", "strided",
                       ignoring("strided", [](Params& p) { p.set("head_pattern", 2); }),  // 2 = A, the local pattern
                       "strided: share of pairs j ≤ i reachable in two steps");
}

TEST(LessonChecksCanFail, WindowsGlobalsWithADenseWindow) {
    std::cout << "[case] windows-globals: longformer secretly computes full attention\n";
    expect_check_fails("windows-globals", "longformer",
                       std::make_shared<StandIn>("longformer", runs_instead("full", {})), "CPU time when n grows 4×",
                       {{"timing_n", 2048}});  // the dense stand-in at the lesson's 65536 would take minutes
}

TEST(LessonChecksCanFail, WindowsGlobalsWithGlobalsIgnored) {
    std::cout << "[case] windows-globals: longformer drops its global tokens whatever `global` says\n";
    expect_check_fails("windows-globals", "longformer",
                       ignoring("longformer", [](Params& p) { p.set_list("global", {}); }),
                       "globals on the hub keys");
}

TEST(LessonChecksCanFail, LinearRnnWithACacheForAState) {
    std::cout << "[case] linear-rnn: linear attention's decoder keeps every key and value\n";
    auto broken = std::make_shared<StandIn>("linear", RunFn{});
    broken->m_decoder = [](int d, int dv, const Params&) { return make_kv_cache_decoder(d, dv, 1.0f); };
    expect_check_fails("linear-rnn", "linear", broken, "linear: state bytes");
}

TEST(LessonChecksCanFail, XlMemoryWithoutTheCache) {
    std::cout << "[case] xl-memory: xl recomputes causal attention over everything\n";
    expect_check_fails("xl-memory", "xl", std::make_shared<StandIn>("xl", runs_instead("full", {{"causal", "1"}})),
                       "cached and recomputed outputs agree");
}

TEST(LessonChecksCanFail, LinformerTable3WithADenseLinformer) {
    std::cout << "[case] linformer-table3: linformer secretly computes full attention\n";
    expect_check_fails("linformer-table3", "linformer",
                       std::make_shared<StandIn>("linformer", runs_instead("full", {})), "time saved");
}

TEST(LessonChecksCanFail, FnetShowingTheCosineAlone) {
    std::cout << "[case] fnet: the run shows S_n as zeros (only C_n)\n";
    auto broken = std::make_shared<StandIn>("fnet", [](const Heads& h, const Params& p, const RunOptions& o, Backend& b) {
        RunResult r = find_variant("fnet").run(h, p, o, b);
        for (DisplayMatrix& shown : r.structure.display_matrices) shown.matrix.head(0).setZero();
        return r;
    });
    expect_check_fails("fnet", "fnet", broken, "‖Y − (C_n·Re(XF_d) + S_n·Im(XF_d))‖");
}

TEST(LessonChecksCanFail, LinformerVsSvdWithKIgnored) {
    std::cout << "[case] linformer-vs-svd: linformer projects to k = 16 whatever `k` says\n";
    expect_check_fails("linformer-vs-svd", "linformer",
                       ignoring("linformer", [](Params& p) { p.set("k", 16); }),
                       "pool: doublings of k");
}

TEST(LessonChecksCanFail, LinformerKernelsWithTheProjectionIgnored) {
    std::cout << "[case] linformer-kernels: linformer always pools, whatever `projection` says\n";
    expect_check_fails("linformer-kernels", "linformer",
                       ignoring("linformer", [](Params& p) { p.set("projection", 0); }),
                       "random E: share of P̃'s entries below 0");
}

TEST(LessonChecksCanFail, AttentionSinksWithSinksIgnored) {
    if (installed_model_dir().empty()) GTEST_SKIP() << "the text model is not installed (scripts/setup.sh)";
    std::cout << "[case] attention-sinks: sink keeps no sink positions whatever `sinks` says (the window alone)\n";
    expect_check_fails("attention-sinks", "sink", ignoring("sink", [](Params& p) { p.set("sinks", 0); }),
                       "sinks beat the window at equal keys per query");
}

TEST(LessonChecksCanFail, AttentionSinksOnAnInputWithoutSinks) {
    std::cout << "[case] attention-sinks: the same check on a synthetic local input, whose first tokens are not special\n";
    Lesson lesson = find_lesson("attention-sinks");
    lesson.preset["input"] = {{"mode", "synthetic"}, {"scenario", "local"}, {"n", 256}, {"heads", 2}, {"dim", 32}};
    expect_lesson_fails(lesson, {}, "sinks beat the window at equal keys per query");
}

TEST(Lessons, AttentionSinksSaysItsMassIsAProxyForPerplexity) {
    std::cout << "[case] attention-sinks: the text and every mass line say that kept mass stands in for StreamingLLM's "
                 "perplexity claim (an encoder cut to j ≤ i generates nothing)\n";
    Lesson lesson = find_lesson("attention-sinks");
    EXPECT_NE(lesson.explanation.find("proxy"), std::string::npos);
    EXPECT_NE(lesson.explanation.find("perplexity"), std::string::npos);
    // The check's own lines, on a small synthetic input (no model needed): the proxy is said where the numbers are.
    lesson.preset["input"] = {{"mode", "synthetic"}, {"scenario", "local"}, {"n", 128}, {"heads", 2}, {"dim", 16}};
    CpuBackend cpu;
    const CheckOutcome out = run_lesson_check(lesson, cpu);
    int mass_lines = 0;
    for (const CheckLine& line : out.lines)
        if (line.claim.find("mass kept") != std::string::npos) {
            ++mass_lines;
            EXPECT_NE(line.claim.find("proxy (mass kept, not perplexity)"), std::string::npos) << line.claim;
        }
    EXPECT_EQ(mass_lines, 2);
}

TEST(LessonChecksCanFail, AttentionSinksWithTheSinkKeysReplaced) {
    ATTNSCOPE_MODEL_OR_SKIP(model_dir);
    std::cout << "[case] attention-sinks: the lesson's text at layer 3 with the keys of positions 0–3 replaced by "
                 "those of positions 200–203 (the first tokens lose what made them sinks)\n";
    Lesson lesson = find_lesson("attention-sinks");
    const InputSpec spec = preset_input_spec(lesson.preset);
    TextInput in = load_text_input({spec.text, model_dir, spec.layer, -1, spec.truncate});
    Heads& h = in.heads;
    TempDir dir("sinks");
    const std::string shape = "(" + std::to_string(h.heads()) + ", " + std::to_string(h.n()) + ", " +
                              std::to_string(h.d()) + ")";
    const auto bytes = [](const Tensor3& t) { return f32_bytes(std::vector<float>(t.data(), t.data() + t.size())); };
    const auto write = [&] {
        write_bytes(dir.file("q.npy"), npy_bytes("<f4", shape, bytes(h.Q)));
        write_bytes(dir.file("k.npy"), npy_bytes("<f4", shape, bytes(h.K)));
        write_bytes(dir.file("v.npy"), npy_bytes("<f4", shape, bytes(h.V)));
    };
    lesson.preset["input"] = {{"mode", "tensors"}, {"tensors_path", dir.path().string()}};
    // Control: the same layer's tensors, unchanged, pass — so the failure below is the replaced keys'.
    write();
    CpuBackend cpu;
    EXPECT_TRUE(run_lesson_check(lesson, cpu).passed()) << "the unchanged layer-3 tensors should pass";
    for (int head = 0; head < h.heads(); ++head) h.K.head(head).topRows(4) = h.K.head(head).middleRows(200, 4);
    write();
    expect_lesson_fails(lesson, {}, "sinks beat the window at equal keys per query");
}

/// topk whose selection is made on −Q: each row keeps its k *smallest* scores, a broken oracle.
std::shared_ptr<StandIn> bottom_k_topk() {
    return std::make_shared<StandIn>("topk", [](const Heads& h, const Params& p, const RunOptions& o, Backend& b) {
        Heads flipped = h;
        for (int head = 0; head < flipped.heads(); ++head) flipped.Q.head(head) *= -1.0f;
        const Variant& topk = find_variant("topk");
        return topk.run_plan(*topk.plan(flipped, p, nullptr), h, o, b);  // attention itself on the real scores
    });
}

TEST(LessonChecksCanFail, TheCeilingWithABottomKOracle) {
    if (installed_model_dir().empty()) GTEST_SKIP() << "the text model is not installed (scripts/setup.sh)";
    std::cout << "[case] the-ceiling: topk keeps each row's k smallest scores\n";
    expect_check_fails("the-ceiling", "topk", bottom_k_topk(), "the topk variant at k = the mask's most keys");
}

TEST(LessonChecksCanFail, TheCeilingWithAMaskThatUnderstatesItsKeys) {
    if (installed_model_dir().empty()) GTEST_SKIP() << "the text model is not installed (scripts/setup.sh)";
    std::cout << "[case] the-ceiling: longformer's reason mask drops every other allowed cell while it keeps them all\n";
    auto broken = std::make_shared<StandIn>("longformer", [](const Heads& h, const Params& p, const RunOptions& o, Backend& b) {
        RunResult r = find_variant("longformer").run(h, p, o, b);
        if (r.structure.mask) {
            bool drop = false;
            for (uint8_t& cell : r.structure.mask->cells)
                if (cell != 0 && (drop = !drop)) cell = 0;  // the ceiling then counts half the keys the run keeps
        }
        return r;
    });
    expect_check_fails("the-ceiling", "longformer", broken, "each masked variant's ceiling");
}

/// A stand-in for `id` that runs the real variant with `edit` applied but reports the parameters it was asked for:
/// a variant whose mask differs from its own definition.
std::shared_ptr<StandIn> misreporting(const std::string& id, std::function<void(Params&)> edit) {
    return std::make_shared<StandIn>(id, [id, edit](const Heads& h, const Params& p, const RunOptions& o, Backend& b) {
        RunResult r = with_edited_params(id, edit)(h, p, o, b);
        r.params = p;
        return r;
    });
}

TEST(LessonChecksCanFail, TheCeilingWithAWindowOneKeyTooWide) {
    if (installed_model_dir().empty()) GTEST_SKIP() << "the text model is not installed (scripts/setup.sh)";
    std::cout << "[case] the-ceiling: longformer runs w + 2 (one key more on each side) and reports w; its mass stays "
                 "under its ceiling, so only the definition line can catch it\n";
    expect_check_fails("the-ceiling", "longformer",
                       misreporting("longformer", [](Params& p) { p.set("window", p.get_int("window") + 2); }),
                       "differ from their variant's definition");
}

TEST(LessonChecksCanFail, TheCeilingWithSinksDropped) {
    if (installed_model_dir().empty()) GTEST_SKIP() << "the text model is not installed (scripts/setup.sh)";
    std::cout << "[case] the-ceiling: sink runs without its sinks and reports s = 4\n";
    expect_check_fails("the-ceiling", "sink", misreporting("sink", [](Params& p) { p.set("sinks", 0); }),
                       "differ from their variant's definition");
}

TEST(LessonChecksCanFail, TheCeilingWithSvdAtHalfTheRank) {
    if (installed_model_dir().empty()) GTEST_SKIP() << "the text model is not installed (scripts/setup.sh)";
    std::cout << "[case] the-ceiling: svd truncates to half the rank it is given\n";
    expect_check_fails("the-ceiling", "svd",
                       ignoring("svd", [](Params& p) { p.set("rank", std::max(1, p.get_int("rank") / 2)); }),
                       "rel_err_attn minus svd's");
}

TEST(Lessons, PresetTensorsInputNeedsAPath) {
    std::cout << "[case] a preset input of mode tensors without a path is refused in words\n";
    try {
        preset_input_spec(nlohmann::json{{"input", {{"mode", "tensors"}}}});
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("has no \"tensors_path\""), std::string::npos) << e.what();
    }
    const InputSpec spec = preset_input_spec(nlohmann::json{{"input", {{"mode", "tensors"}, {"tensors_path", "/x/qkv"}}}});
    EXPECT_EQ(spec.mode, InputMode::Tensors);
    EXPECT_EQ(spec.tensors_path, "/x/qkv");
}

TEST(Lessons, ListedInTheirOwnOrder) {
    std::vector<int> orders;
    for (const Lesson& l : all_lessons()) orders.push_back(l.order);
    std::cout << "[case] " << orders.size() << " lessons ordered by their 'order' field\n";
    EXPECT_TRUE(std::is_sorted(orders.begin(), orders.end()));
    EXPECT_EQ(all_lessons().front().id, "low-rank");
}

}  // namespace
}  // namespace attnscope::test

namespace attnscope::test {
namespace {

TEST(LessonChecksCanFail, StreamingLlmWithTheSinksDropped) {
    ATTNSCOPE_DECODER_OR_SKIP(path);
    // The lesson with its sinks dropped (s = 0: the "sinks" cache is the window alone), on the shorter harbour sample
    // and one window so the test stays quick: the sinks win back nothing, while the window alone still degrades.
    Lesson lesson = find_lesson("streaming-llm");
    lesson.preset["input"]["sample"] = "harbour";
    lesson.preset["streaming"] = {{"windows", "64"}, {"sinks", 0}, {"recompute_samples", 0}};
    std::cout << "[case] streaming-llm on harbour.txt, w = 64, the sinks dropped (s = 0)\n";
    CpuBackend cpu;
    CheckContext ctx{cpu, {}, {}, {}};
    const CheckOutcome out = run_lesson_check(lesson, ctx);
    bool restore_failed = false, window_passed = false;
    for (const CheckLine& line : out.lines) {
        std::cout << "  [" << (line.passed ? "pass" : "FAIL") << "] " << line.claim << ": " << line.measured << "\n";
        restore_failed |= !line.passed && line.claim.find("win back") != std::string::npos;
        window_passed |= line.passed && line.claim.find("the window alone") != std::string::npos;
    }
    EXPECT_FALSE(out.passed());
    EXPECT_TRUE(restore_failed) << "the line on what the sinks win back did not fail without sinks";
    EXPECT_TRUE(window_passed) << "the window alone should still degrade: the failure must be the sinks'";
}

}  // namespace
}  // namespace attnscope::test

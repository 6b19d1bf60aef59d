// The classroom outputs (issue 18): instance labels and file stems, figures (layout, PNG pixels, SVG text), the
// colour map chosen by meaning, per-panel difference maxima, labelled CSV, and one JSON format for parameters.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/data/scenarios.h"
#include "core/figure/render.h"
#include "core/figure/run_figure.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/reason.h"
#include "core/session/experiment.h"
#include "core/session/export.h"
#include "core/session/metrics.h"
#include "core/session/variant_json.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"

namespace attnscope::test {
namespace {

std::string label(const std::string& id, const std::vector<std::pair<std::string, std::string>>& sets) {
    return instance_label(find_variant(id).info(), parse_variant_request(id, sets).params);
}
std::string slug(const std::string& id, const std::vector<std::pair<std::string, std::string>>& sets) {
    return instance_slug(find_variant(id).info(), parse_variant_request(id, sets).params);
}

TEST(InstanceLabel, TwoInstancesOfOneVariantAreToldApart) {
    EXPECT_EQ(label("svd", {{"rank", "8"}}), "SVD r = 8");
    EXPECT_EQ(label("svd", {{"rank", "32"}}), "SVD r = 32");
    EXPECT_EQ(slug("svd", {{"rank", "8"}}), "svd-r8");
    EXPECT_EQ(label("performer", {{"features", "256"}}), "Performer m = 256, orthogonal");
    EXPECT_EQ(label("performer", {{"features", "256"}, {"orthogonal", "0"}}), "Performer m = 256, orthogonal off");
    EXPECT_EQ(slug("performer", {{"features", "256"}, {"orthogonal", "0"}}), "performer-m256-no-orthogonal");
    // A parameter away from its default is named even when it is not a key parameter.
    EXPECT_EQ(label("longformer", {{"window", "16"}, {"causal", "1"}}), "Longformer w = 16, causal");
    EXPECT_EQ(slug("longformer", {{"global", "0,5"}, {"window", "64"}}), "longformer-w64-G0-5");
    EXPECT_EQ(label("full", {}), "Full softmax");
    // Modifiers are named in words after the variant's own parameters (and in the file stem).
    EXPECT_EQ(label("full", {{"score_mod", "alibi"}}), "Full softmax, ALiBi");
    EXPECT_EQ(label("sink", {{"window", "8"}, {"score_mod", "softcap"}, {"cap", "30"}, {"mask_mod", "document"}}),
              "Sink w = 8, s = 4, soft-cap c = 30, document by sentences");
    EXPECT_EQ(slug("full", {{"score_mod", "alibi"}}), "full-alibi");
    // Every registered variant's default instance has a file-safe stem.
    for (const auto& v : all_variants()) {
        const std::string s = instance_slug(v->info(), default_params(v->info().params));
        EXPECT_EQ(s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-."), std::string::npos) << s;
    }
}

Heads small_input(int n, int heads = 2) {
    ScenarioSpec spec;
    spec.kind = ScenarioKind::Gaussian, spec.n = n, spec.heads = heads, spec.dim = 16;
    Heads h = make_scenario(spec);
    for (int t = 0; t < n; ++t) h.tokens.push_back(t == 3 ? "a<b&\"c\"" : "tok" + std::to_string(t));
    return h;
}

struct Runs {
    Heads heads;
    std::vector<RunResult> results;
    std::map<bool, Tensor3> exact;
};

Runs run_all(int n, const std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>>& requests) {
    Runs r{small_input(n), {}, {}};
    CpuBackend cpu;
    ReferenceCache refs(r.heads, true);
    RunOptions options;
    options.explain = true;
    for (const auto& [id, sets] : requests) r.results.push_back(run_variant(r.heads, parse_variant_request(id, sets), options, cpu, &refs));
    refs.get(false, cpu);
    r.exact.emplace(false, *refs.take_P(false));
    return r;
}

figure::ExactMatrix exact_of(const Runs& r) {
    return [&r](bool causal) -> const Tensor3* {
        auto it = r.exact.find(causal);
        return it == r.exact.end() ? nullptr : &it->second;
    };
}

TEST(Figure, PanelsCarryInstanceTitlesTokensAndTheirOwnDifferenceMaximum) {
    const Runs r = run_all(24, {{"full", {}}, {"longformer", {{"window", "4"}}}, {"svd", {{"rank", "2"}}}});
    figure::RunFigureOptions o;
    o.view = figure::View::Difference;
    const figure::FigureSpec spec = figure::figure_of_runs(r.heads, r.results, o, exact_of(r));
    ASSERT_EQ(spec.panels.size(), 3u);
    EXPECT_EQ(spec.panels[1].title, "Longformer w = 4");
    EXPECT_EQ(spec.panels[2].title, "SVD r = 2");
    // Each panel states its own maximum: full softmax is exact (0), the others are not and differ.
    EXPECT_EQ(spec.panels[0].lines[0], "max |P_eff − P| = 0 (equal to exact)");
    EXPECT_NE(spec.panels[1].lines[0], spec.panels[2].lines[0]);
    EXPECT_EQ(spec.panels[1].lines[0].rfind("max |P_eff − P| = ", 0), 0u);
    for (const auto& p : spec.panels) EXPECT_EQ(p.scale.kind, ValueScale::Kind::Signed);
}

TEST(Figure, ColourMapFollowsMeaningNotTheSignOfARoundingError) {
    const Runs r = run_all(32, {{"svd", {{"rank", "2"}}}, {"fnet", {}}});
    const auto& svd = *r.results[0].P_eff;
    ASSERT_LT(svd.head(0).minCoeff(), 0.0f) << "the test needs an SVD approximation with negative entries";
    figure::RunFigureOptions o;
    o.view = figure::View::Weights;
    const figure::FigureSpec spec = figure::figure_of_runs(r.heads, r.results, o, exact_of(r));
    EXPECT_EQ(spec.panels[0].scale.kind, ValueScale::Kind::Log);     // weights, negatives or not
    EXPECT_NE(spec.panels[0].lines[0].find("negative entries"), std::string::npos);
    EXPECT_EQ(spec.panels[1].scale.kind, ValueScale::Kind::Signed);  // a mixing matrix is signed by definition
}

TEST(Figure, RasterDrawsEveryCellInItsColourAndSvgNamesEverything) {
    const Runs r = run_all(12, {{"longformer", {{"window", "2"}}}});
    figure::RunFigureOptions o;
    o.view = figure::View::Mask;
    o.width = 800;
    const figure::FigureSpec spec = figure::figure_of_runs(r.heads, r.results, o, exact_of(r));
    const figure::Canvas canvas = figure::layout_figure(spec);
    // Twelve tokens at this size: every one labels both axes.
    int labels = 0;
    for (const auto& t : canvas.texts) labels += t.text.rfind("tok", 0) == 0;
    EXPECT_EQ(labels, 2 * 11);
    const figure::ImageCmd& img = canvas.images.front();
    ASSERT_EQ(img.width, 12);
    const float scale = 2;
    int w = 0, h = 0;
    const std::vector<uint8_t> rgb = figure::rasterize(canvas, scale, w, h);
    EXPECT_EQ(w, int(canvas.width * scale));
    const figure::FigurePanel& p = spec.panels[0];
    for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j) {
            const int x = int((img.x + (j + 0.5f) * img.w / 12) * scale), y = int((img.y + (i + 0.5f) * img.h / 12) * scale);
            const figure::Rgb want = figure::cell_colour(p.values[size_t(i) * 12 + j], p.scale, Colormap::Viridis, true,
                                                        p.reasons[size_t(i) * 12 + j], figure::Rgb{236, 236, 240});
            const uint8_t* got = &rgb[(size_t(y) * w + x) * 3];
            EXPECT_TRUE(got[0] == want[0] && got[1] == want[1] && got[2] == want[2]) << "cell " << i << "," << j;
        }
    // The mask holds forbidden cells (drawn in the flat colour, checked above).
    EXPECT_EQ(p.reasons[5 * 12 + 11], uint8_t(Reason::None));  // outside the window, not the global row 0
    const std::string svg = figure::to_svg(canvas);
    EXPECT_NE(svg.find(">Longformer w = 2<"), std::string::npos);
    EXPECT_NE(svg.find("a&lt;b&amp;&quot;c&quot;"), std::string::npos);  // a token needing XML escapes
    EXPECT_EQ(svg.find("a<b"), std::string::npos);
    EXPECT_NE(svg.find("not allowed (never scored)"), std::string::npos);
}

TEST(Figure, LongAxesAreThinnedAndBadRequestsSayWhy) {
    const Runs r = run_all(300, {{"flash", {}}});
    figure::RunFigureOptions o;
    o.view = figure::View::Weights;
    o.width = 700;
    const figure::Canvas canvas = figure::layout_figure(figure::figure_of_runs(r.heads, r.results, o, exact_of(r)));
    int labels = 0;
    for (const auto& t : canvas.texts) labels += t.text.rfind("tok", 0) == 0 || t.text.rfind("a<b", 0) == 0;
    EXPECT_GT(labels, 20);
    EXPECT_LT(labels, 2 * 300 / 2);  // thinned: at most every second token
    o.head = 5;
    EXPECT_THROW(figure::figure_of_runs(r.heads, r.results, o, exact_of(r)), Error);
    EXPECT_THROW(figure::write_canvas("/tmp/attnscope-figure.jpg", canvas, 1), Error);
}

TEST(MatrixCsv, TokenHeadersQuoteWhatCsvNeeds) {
    Tensor3 M(1, 2, 2);
    M.at(0, 0, 0) = 1, M.at(0, 0, 1) = 0, M.at(0, 1, 0) = 0.25f, M.at(0, 1, 1) = 0.75f;
    const std::string path = (std::filesystem::temp_directory_path() / "attnscope-labelled.csv").string();
    write_matrix_csv(path, M, 0, {"[CLS]", "a,b"});
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), "query\\key,[CLS],\"a,b\"\n[CLS],1,0\n\"a,b\",0.25,0.75\n");
    EXPECT_THROW(write_matrix_csv(path, M, 0, {"only one"}), Error);
    std::filesystem::remove(path);
}

TEST(VariantJson, OneFormatForCliAndSessionAndOldFilesStillRead) {
    const VariantRequest lf = parse_variant_request("longformer", {{"global", "0,5"}, {"window", "16"}});
    const nlohmann::json j = variant_to_json(lf);
    EXPECT_EQ(j["params"]["global"], "0,5");  // as typed after --set, not [0, 5]
    const VariantRequest perf = parse_variant_request("linformer", {{"projection", "random"}});
    EXPECT_EQ(variant_to_json(perf)["params"]["projection"], "random");  // choices by name
    const auto back = variants_from_json(nlohmann::json::array({j, variant_to_json(perf)}), "the session file", false);
    EXPECT_EQ(back[0].params, lf.params);
    EXPECT_EQ(back[1].params, perf.params);
    // An older session's list and choice index read the same.
    const auto old = variants_from_json(nlohmann::json::parse(R"([{"id": "longformer", "params": {"global": [0, 5], "window": 16}}])"),
                                        "the session file", false);
    EXPECT_EQ(old[0].params, lf.params);
    // A wrong type names the file, the entry and the key.
    try {
        variants_from_json(nlohmann::json::parse(R"([{"id": "longformer", "params": {"window": {"x": 1}}}])"), "the session file", false);
        FAIL() << "an object as a window was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("the session file: variant #1 (longformer): 'window'"), std::string::npos) << e.what();
    }
    try {
        variants_from_json(nlohmann::json::parse(R"([{"id": "svd", "params": {"rank": "eight"}}])"), "the session file", false);
        FAIL() << "a word as a rank was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("rank"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(variants_from_json(nlohmann::json::parse(R"([{"id": "not-in-this-build"}])"), "the session file", true).empty());
}

// Teaching metrics: how concentrated rows are, and a warning when a sparse pattern is dense at this n. Each is
// shown to fail on purpose: a uniform matrix needs 90% of the keys; a short window on a long input is not dense.
TEST(TeachingMetrics, ConcentrationOfRowsAndTheDenseWarning) {
    const Runs r = run_all(64, {{"full", {}}, {"longformer", {{"window", "200"}}}, {"longformer", {{"window", "4"}}}});
    const Metrics& full = r.results[0].metrics;
    ASSERT_TRUE(full.keys_for_90 && full.row_entropy);
    EXPECT_GT(*full.keys_for_90, 1.0);
    EXPECT_LT(*full.keys_for_90, 0.9 * 64 + 1);
    EXPECT_LE(*full.row_entropy, std::log(64.0) + 1e-9);
    EXPECT_TRUE(full.dense_warning.empty());                       // full attention is dense by definition
    EXPECT_NE(r.results[1].metrics.dense_warning.find("dense at n = 64"), std::string::npos);
    EXPECT_TRUE(r.results[2].metrics.dense_warning.empty());
    // Independent check of keys_for_90 and the entropy on a matrix known by construction: uniform rows of n.
    RunResult uniform;
    uniform.O = Tensor3(1, 10, 1);
    uniform.P_eff = Tensor3(1, 10, 10);
    uniform.P_eff->head(0).setConstant(0.1f);
    Reference ref;
    ref.O = uniform.O;
    compute_metrics(ref, nullptr, find_variant("full").info(), uniform);
    EXPECT_DOUBLE_EQ(*uniform.metrics.keys_for_90, 9.0);
    EXPECT_NEAR(*uniform.metrics.row_entropy, std::log(10.0), 1e-6);
}

// keys_for_90 and the entropy against a brute force written here (sort each row, count until 90%; Σ −p log p in
// double) on rows of every shape: peaked, flat, with zeros and ties, long enough for the selection to recurse.
TEST(TeachingMetrics, ConcentrationMatchesASortedBruteForce) {
    const int H = 3, n = 300;
    RunResult r;
    r.O = Tensor3(H, n, 1);
    r.P_eff = Tensor3(H, n, n);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) {
            float* row = r.P_eff->head_data(h) + size_t(i) * n;
            const float sharp = 1.0f + 10.0f * float(i % 5);  // flat … peaked
            double sum = 0;
            for (int j = 0; j < n; ++j) {
                row[j] = (j + i) % 7 == 0 ? 0.0f : (i % 3 == 0 ? 1.0f : std::pow(u(rng), sharp));  // zeros; ties
                sum += row[j];
            }
            for (int j = 0; j < n; ++j) row[j] = float(row[j] / sum);
        }
    double keys = 0, entropy = 0;
    int rows = 0;
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; i += std::max(1, n / 256), ++rows) {
            std::vector<float> row(r.P_eff->head_data(h) + size_t(i) * n, r.P_eff->head_data(h) + size_t(i + 1) * n);
            double total = 0;
            for (float v : row) {
                total += v;
                if (v > 0) entropy -= double(v) * std::log(double(v));
            }
            std::sort(row.begin(), row.end(), std::greater<float>());
            double cumulative = 0;
            int k = 0;
            while (k < n && cumulative < 0.9 * total) cumulative += row[size_t(k++)];
            keys += k;
        }
    Reference ref;
    ref.O = r.O;
    std::cout << "[case] H=3 n=300 rows flat to peaked, with zeros and ties: keys_for_90 and entropy vs a sort\n";
    compute_metrics(ref, nullptr, find_variant("full").info(), r);
    ASSERT_TRUE(r.metrics.keys_for_90 && r.metrics.row_entropy);
    EXPECT_NEAR(*r.metrics.keys_for_90, keys / rows, 0.02);  // a tie at the 90% line may count one key apart
    EXPECT_NEAR(*r.metrics.row_entropy, entropy / rows, 1e-5);
    EXPECT_GT(keys / rows, 5.0);  // the rows are not all one-hot: the selection had work to do
}

// Defaults that stay sparse on short texts: Longformer's window and BigBird's block follow n below their caps.
TEST(TeachingMetrics, ShortInputsKeepTheirSparsityByDefault) {
    const Runs r = run_all(40, {{"longformer", {}}, {"bigbird", {}}, {"fixed", {}}, {"xl", {}}});
    EXPECT_EQ(r.results[0].params.get_int("window"), 10);
    EXPECT_EQ(r.results[1].params.get_int("block"), 2);
    EXPECT_EQ(r.results[2].params.get_int("block"), 8);
    EXPECT_EQ(r.results[2].params.get_int("summary"), 1);
    EXPECT_EQ(r.results[3].params.get_int("segment"), 8);
    for (const RunResult& x : r.results) EXPECT_TRUE(x.metrics.dense_warning.empty()) << x.variant << ": " << x.metrics.dense_warning;
    const Runs big = run_all(1024, {{"longformer", {}}, {"bigbird", {}}, {"fixed", {}}, {"xl", {}}});
    EXPECT_EQ(big.results[0].params.get_int("window"), 64);
    EXPECT_EQ(big.results[1].params.get_int("block"), 16);
    EXPECT_EQ(big.results[2].params.get_int("block"), 64);
    EXPECT_EQ(big.results[2].params.get_int("summary"), 8);
    EXPECT_EQ(big.results[3].params.get_int("segment"), 128);
}

}  // namespace
}  // namespace attnscope::test

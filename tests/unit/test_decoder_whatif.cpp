// The decoder's perplexity what-if and StreamingLLM's cache. Expectations come from definitions written here or from
// tests/golden/streaming_golden.json (tests/golden/make_streaming_golden.py: a float64 numpy forward of SmolLM2 whose
// attention is built per query from the paper's cache, RoPE re-applied at positions within the cache).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "core/backend/cpu/cpu_backend.h"
#include "core/session/decoder_whatif.h"
#include "core/session/streaming_llm.h"
#include "tests/unit/sparse_test_util.h"
#include "tests/unit/text_test_util.h"

namespace attnscope::test {
namespace {

nlohmann::json golden_file(const std::string& name) {
    const std::string path = std::string(ATTNSCOPE_TEST_DATA_DIR) + "/" + name;
    std::ifstream in(path);
    if (!in) throw Error("cannot read " + path);
    return nlohmann::json::parse(in);
}

TEST(LayerSpan, ParsesLayersRangesAndAllWithClearErrors) {
    std::cout << "[case] all, one layer, a range; then out of range, backwards, not a number\n";
    const LayerSpan all = parse_layer_span("all", 30, "--whatif-layer");
    EXPECT_EQ(all.first, 0);
    EXPECT_EQ(all.last, 29);
    EXPECT_EQ(all.text(30), "all 30 layers");
    const LayerSpan one = parse_layer_span("7", 30, "--whatif-layer");
    EXPECT_TRUE(one.contains(7) && !one.contains(6) && !one.contains(8));
    EXPECT_EQ(one.text(30), "layer 7");
    const LayerSpan range = parse_layer_span("3-12", 30, "--whatif-layer");
    EXPECT_TRUE(range.contains(3) && range.contains(12) && !range.contains(13));
    EXPECT_EQ(range.text(30), "layers 3-12");
    expect_error_containing([] { parse_layer_span("30", 30, "--whatif-layer"); }, "out of range: give a layer (0 to 29)");
    expect_error_containing([] { parse_layer_span("9-4", 30, "--whatif-layer"); }, "runs backwards");
    expect_error_containing([] { parse_layer_span("x", 30, "--whatif-layer"); }, "is not a layer, a range or 'all'");
    expect_error_containing([] { parse_layer_span("-3", 30, "--whatif-layer"); }, "is not a layer");
}

TEST(NextTokenComparison, KlAndAgreementFollowTheirDefinitions) {
    std::cout << "[case] two positions, a 3-token vocabulary: KL and top-1 by hand\n";
    ExactNextTokens exact;
    exact.ids = {0, 1, 2};
    exact.logits = MatrixRM(3, 3);
    exact.logits << 0, 1, 2, 2, 0, 0, 1, 1, 1;
    exact.perplexity = std::exp(mean_next_token_nll(exact.logits, exact.ids, &exact.nll));
    MatrixRM other = exact.logits;
    other.row(1) << 0, 3, 0;  // row 1 now prefers token 1 (exact: token 0)
    const NextTokenComparison c = compare_next_tokens(exact, other);
    auto softmax = [](std::vector<double> z) {
        double s = 0;
        for (double& v : z) s += v = std::exp(v);
        for (double& v : z) v /= s;
        return z;
    };
    const std::vector<double> p = softmax({2, 0, 0}), q = softmax({0, 3, 0});
    double kl1 = 0;
    for (int k = 0; k < 3; ++k) kl1 += p[size_t(k)] * std::log(p[size_t(k)] / q[size_t(k)]);
    EXPECT_NEAR(c.mean_kl, kl1 / 2, 1e-9);  // row 0 is unchanged (KL 0), row 1 moved
    EXPECT_DOUBLE_EQ(c.top1_agreement, 0.5);
    const double nll0 = -std::log(softmax({0, 1, 2})[1]), nll1 = -std::log(q[2]);
    EXPECT_NEAR(c.perplexity, std::exp((nll0 + nll1) / 2), 1e-9);
    EXPECT_NEAR(c.delta_perplexity, c.perplexity - exact.perplexity, 1e-12);
}

/// RoPE of one (n, d) head at the given positions with GGUF's adjacent pairs, written from its definition.
MatrixRM rope_at(const MatrixRM& x, const std::vector<int>& positions, double base) {
    MatrixRM y = x;
    const int d = int(x.cols());
    for (int r = 0; r < int(x.rows()); ++r)
        for (int i = 0; i < d / 2; ++i) {
            const double a = positions[size_t(r)] * std::pow(base, -2.0 * i / d);
            const double x0 = x(r, 2 * i), x1 = x(r, 2 * i + 1);
            y(r, 2 * i) = float(x0 * std::cos(a) - x1 * std::sin(a));
            y(r, 2 * i + 1) = float(x0 * std::sin(a) + x1 * std::cos(a));
        }
    return y;
}

TEST(StreamingAttention, CachePositionsEqualTheCacheBuiltPerQuery) {
    const int H = 2, n = 41, d = 8, sinks = 3, window = 6;
    const double base = 10000;
    std::cout << "[case] n = " << n << ", s = " << sinks << ", w = " << window
              << ": each query's cache rebuilt with RoPE at positions 0 … size − 1 within it\n";
    const Heads raw = random_heads(H, n, d, d, 11);  // before RoPE
    Heads heads = raw;
    std::vector<int> text_positions(static_cast<size_t>(n));
    for (int t = 0; t < n; ++t) text_positions[size_t(t)] = t;
    for (int h = 0; h < H; ++h) {
        heads.Q.head(h) = rope_at(MatrixRM(raw.Q.head(h)), text_positions, base);
        heads.K.head(h) = rope_at(MatrixRM(raw.K.head(h)), text_positions, base);
    }
    std::vector<double> frequencies(static_cast<size_t>(d / 2));
    for (int i = 0; i < d / 2; ++i) frequencies[size_t(i)] = std::pow(base, -2.0 * i / d);
    const float scale = 1.0f / std::sqrt(float(d));
    const Tensor3 got = streaming_attention(heads, sinks, window, SinkPositions::Cache, frequencies, scale);
    double worst = 0;
    for (int h = 0; h < H; ++h)
        for (int t = 0; t < n; ++t) {
            std::vector<int> cache;  // StreamingLLM: everything while it fits, then the sinks and the w recent tokens
            for (int j = 0; j <= t; ++j)
                if (t < sinks + window || j < sinks || j > t - window) cache.push_back(j);
            const int size = int(cache.size());
            MatrixRM k(size, d), v(size, d);
            std::vector<int> cache_positions(static_cast<size_t>(size));
            for (int c = 0; c < size; ++c) {
                k.row(c) = raw.K.head(h).row(cache[size_t(c)]);
                v.row(c) = raw.V.head(h).row(cache[size_t(c)]);
                cache_positions[size_t(c)] = c;
            }
            const MatrixRM kr = rope_at(k, cache_positions, base);
            const MatrixRM qr = rope_at(MatrixRM(raw.Q.head(h).row(t)), {size - 1}, base);
            std::vector<double> w(static_cast<size_t>(size));
            double mx = -1e300, sum = 0;
            for (int c = 0; c < size; ++c) mx = std::max(mx, w[size_t(c)] = scale * double(qr.row(0).dot(kr.row(c))));
            for (double& x : w) sum += x = std::exp(x - mx);
            for (int e = 0; e < d; ++e) {
                double o = 0;
                for (int c = 0; c < size; ++c) o += w[size_t(c)] / sum * v(c, e);
                worst = std::max(worst, std::abs(o - got.head(h)(t, e)));
            }
        }
    std::cout << "[streaming] largest |O − O_cache| " << worst << "\n";
    EXPECT_LT(worst, 2e-5);
    // A check that can fail: text positions (the mask) differ from the cache once the window has moved on.
    const Tensor3 text = streaming_attention(heads, sinks, window, SinkPositions::Text, frequencies, scale);
    EXPECT_GT((text.head(0).bottomRows(5) - got.head(0).bottomRows(5)).cwiseAbs().maxCoeff(), 1e-3);
}

TEST(StreamingAttention, TextPositionsEqualTheSinkVariant) {
    const Heads heads = random_heads(3, 70, 16, 16, 5);
    std::cout << "[case] n = 70, s = 4, w = 9 and s = 0, w = 16: the `sink` variant's O\n";
    CpuBackend backend;
    for (auto [sinks, window] : {std::pair{4, 9}, std::pair{0, 16}}) {
        const VariantRequest request =
            parse_variant_request("sink", {{"sinks", std::to_string(sinks)}, {"window", std::to_string(window)}});
        const RunResult r = run_variant(heads, request, RunOptions{}, backend, nullptr);
        const Tensor3 got = streaming_attention(heads, sinks, window, SinkPositions::Text, {}, 1.0f / std::sqrt(16.0f));
        double worst = 0;
        for (int h = 0; h < 3; ++h) worst = std::max(worst, double((got.head(h) - r.O.head(h)).cwiseAbs().maxCoeff()));
        std::cout << "[streaming] s = " << sinks << ", w = " << window << ": largest |O − O_sink| " << worst << "\n";
        EXPECT_LT(worst, 1e-5);
    }
}

TEST(DecoderWhatIf, CausalFullIsTheExactModelAndABidirectionalVariantIsRefused) {
    const auto model = load_decoder_model(std::string(ATTNSCOPE_TEST_DATA_DIR) + "/tiny_llama/tiny-llama-mixed.gguf");
    std::vector<int> ids;
    for (int t = 0; t < 40; ++t) ids.push_back((t * 7 + 3) % model->decoder.config().vocab);
    const ExactNextTokens exact = exact_next_tokens(model->decoder, ids);
    CpuBackend backend;
    const int layers = model->decoder.config().layers;
    std::cout << "[case] tiny llama, 40 tokens: causal full in every layer, then in one; full with causal=0\n";
    for (const LayerSpan span : {LayerSpan{0, layers - 1}, LayerSpan{layers - 1, layers - 1}}) {
        const PerplexityWhatIf full = run_perplexity_whatif(model->decoder, exact, span,
                                                            parse_variant_request("full", {{"causal", "1"}}), backend);
        EXPECT_NEAR(full.result.perplexity, exact.perplexity, 1e-5 * exact.perplexity);
        EXPECT_LT(full.result.mean_kl, 1e-8);
        EXPECT_DOUBLE_EQ(full.result.top1_agreement, 1.0);
    }
    expect_error_containing(
        [&] {
            run_perplexity_whatif(model->decoder, exact, LayerSpan{0, 0}, parse_variant_request("full", {{"causal", "0"}}),
                                  backend);
        },
        "reads later tokens");
}

TEST(StreamingLLM, AWindowThatHoldsEveryKeyIsFullAttentionAndTheTableIsRemembered) {
    const auto model = load_decoder_model(std::string(ATTNSCOPE_TEST_DATA_DIR) + "/tiny_llama/tiny-llama-mixed.gguf");
    std::vector<int> ids;
    for (int t = 0; t < 30; ++t) ids.push_back((t * 5 + 1) % model->decoder.config().vocab);
    const int n = int(ids.size());
    // With one sink and w = n − 1 every row keeps all its keys (the last row's key 0 is the sink), so every column
    // is full attention; the recomputed window at the last position is the whole text before it.
    std::cout << "[case] tiny llama, n = 30: s = 1, w = 29 (every key kept) and w = 4; the second call remembered\n";
    const auto t = remembered_streaming(model->decoder, ids, {n - 1, 4}, 1, 1);
    ASSERT_EQ(t->rows.size(), 2u);
    const StreamingRow& all = t->rows[0];
    EXPECT_NEAR(all.sinks_cache, t->full, 1e-4 * t->full);
    EXPECT_NEAR(all.sinks_text, t->full, 1e-4 * t->full);
    EXPECT_EQ(t->recompute_positions, std::vector<int>{n - 2});
    EXPECT_NEAR(all.recompute, all.full_at_sampled, 1e-4 * all.full_at_sampled);
    const StreamingRow& narrow = t->rows[1];
    EXPECT_GT(std::abs(narrow.window_only - t->full), 1e-6 * t->full);  // four keys of 30 change the predictions
    EXPECT_EQ(remembered_streaming(model->decoder, ids, {n - 1, 4}, 1, 1), t);
    expect_error_containing([&] { measure_streaming(model->decoder, ids, {n}, 1, 0); }, "outside 1 … n − 1");
}

TEST(DecoderWhatIf, SinkInEveryLayerMatchesNumpy) {
    ATTNSCOPE_DECODER_OR_SKIP(path);
    const auto model = load_decoder_model(path);
    const nlohmann::json g = golden_file("streaming_golden.json");
    const std::vector<int> ids = golden_file("decoder_golden.json")["perplexity"]["ids"];
    const ExactNextTokens exact = exact_next_tokens(model->decoder, ids);
    CpuBackend backend;
    const LayerSpan all{0, model->decoder.config().layers - 1};
    std::cout << "[case] harbour.txt (" << ids.size() << " tokens), every layer: sink w = " << g["window"] << ", s = "
              << g["sinks"] << " against numpy's mask over text positions\n";
    const VariantRequest sink = parse_variant_request(
        "sink", {{"window", std::to_string(g["window"].get<int>())}, {"sinks", std::to_string(g["sinks"].get<int>())}});
    const PerplexityWhatIf s = run_perplexity_whatif(model->decoder, exact, all, sink, backend);
    std::cout << "[what-if] exact " << exact.perplexity << ", sink " << s.result.perplexity << " (numpy "
              << g["sinks_text"] << "), KL " << s.result.mean_kl << ", top-1 " << s.result.top1_agreement << "\n";
    EXPECT_NEAR(s.result.perplexity, g["sinks_text"].get<double>(), 1e-3 * g["sinks_text"].get<double>());
    EXPECT_NEAR(s.result.delta_perplexity, s.result.perplexity - exact.perplexity, 1e-9);
    EXPECT_GT(s.result.mean_kl, 0.01);  // the window moved the predictions: KL and agreement must show it
    EXPECT_LT(s.result.top1_agreement, 0.95);
}

TEST(StreamingLLM, TableMatchesNumpysCacheMaskAndRecompute) {
    ATTNSCOPE_DECODER_OR_SKIP(path);
    const auto model = load_decoder_model(path);
    const nlohmann::json g = golden_file("streaming_golden.json");
    const std::vector<int> ids = golden_file("decoder_golden.json")["perplexity"]["ids"];
    std::cout << "[case] harbour.txt, w = " << g["window"] << ", s = " << g["sinks"] << ", 2 recomputed positions\n";
    const StreamingTable t = measure_streaming(model->decoder, ids, {g["window"].get<int>()}, g["sinks"].get<int>(), 2);
    ASSERT_EQ(t.rows.size(), 1u);
    EXPECT_EQ(t.recompute_positions, g["recompute_positions"].get<std::vector<int>>());
    const StreamingRow& r = t.rows[0];
    std::cout << "[streaming] window " << r.window_only << " (numpy " << g["window_only"] << "), sinks cache "
              << r.sinks_cache << " (" << g["sinks_cache"] << "), sinks text " << r.sinks_text << " ("
              << g["sinks_text"] << "), recompute " << r.recompute << " (" << g["recompute"] << ")\n";
    for (auto [got, key] : {std::pair{r.window_only, "window_only"}, std::pair{r.sinks_cache, "sinks_cache"},
                            std::pair{r.sinks_text, "sinks_text"}, std::pair{r.recompute, "recompute"}})
        EXPECT_NEAR(got, g[key].get<double>(), 1e-3 * g[key].get<double>()) << key;
    ASSERT_EQ(t.sink_mass.size(), size_t(model->decoder.config().layers));
    for (double m : t.sink_mass) EXPECT_TRUE(m > 0 && m < 1);
}

}  // namespace
}  // namespace attnscope::test

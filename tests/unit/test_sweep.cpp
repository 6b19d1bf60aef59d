// Sweep ranges, metric names and a real sweep over n on the CPU.
#include <gtest/gtest.h>

#include "core/session/metric_sweep.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/data/scenarios.h"

namespace attnscope::test {
namespace {

TEST(SweepRange, ParsesArithmeticAndGeometricForms) {
    EXPECT_EQ(parse_sweep_range("1:4").values(), (std::vector<double>{1, 2, 3, 4}));
    EXPECT_EQ(parse_sweep_range("2:10:+4").values(), (std::vector<double>{2, 6, 10}));
    EXPECT_EQ(parse_sweep_range("16:128:x2").values(), (std::vector<double>{16, 32, 64, 128}));
    EXPECT_EQ(parse_sweep_range("0.5:0.5").values(), (std::vector<double>{0.5}));
}

TEST(SweepRange, RejectsMalformedRanges) {
    for (const char* bad : {"", "5", "a:3", "1:2:3", "1:2:x1", "0:8:x2", "4:1", "1:5:+0", "1:5:+-1", "1:8:x0",
                            "1:8:x-2", "1:8:x0.5", "1:8:xnan", "1:8:+inf"}) {
        std::cout << "[case] range '" << bad << "'\n";
        EXPECT_THROW(parse_sweep_range(bad), Error) << bad;
    }
}

TEST(SweepMetric, NamesRoundTrip) {
    for (const char* name : {"rel_err_out", "rel_err_attn", "row_kl", "mass_recall", "density", "time", "memory",
                             "embedding_cosine"})
        EXPECT_EQ(sweep_metric_name(parse_sweep_metric(name)), name);
    EXPECT_THROW(parse_sweep_metric("accuracy"), Error);
}

TEST(Sweep, OverNAveragesSeedsAndKeepsBand) {
    CpuBackend backend;
    SweepSpec spec;
    spec.variant = "flash";
    spec.param = "n";
    spec.range = parse_sweep_range("8:32:x2");
    spec.metric = SweepMetric::RelErrOut;
    spec.seeds = 2;
    spec.fixed = {{"tile_cols", "3"}};  // another summation order than the reference: a small, non-zero error
    int calls = 0;
    const auto points = run_sweep(
        spec,
        [](uint64_t seed, int n) {
            ScenarioSpec s;
            s.n = n, s.heads = 2, s.dim = 8, s.seed = seed;
            return make_scenario(s);
        },
        backend, [&calls](int, int) { return ++calls > 0; });
    ASSERT_EQ(points.size(), 3u);
    EXPECT_EQ(calls, 6);
    for (const MetricSweepPoint& p : points) {
        EXPECT_EQ(p.samples, 2);
        EXPECT_LE(p.min, p.mean);
        EXPECT_LE(p.mean, p.max);
        EXPECT_LT(p.max, 1e-5);  // flash is exact up to float rounding
    }
    spec.param = "window";
    EXPECT_THROW(run_sweep(spec, [](uint64_t, int) { return Heads{}; }, backend), Error);
}

TEST(Sweep, ExternalMetricUsesTheEvaluatorPerSeedAndNeedsOne) {
    CpuBackend backend;
    SweepSpec spec;
    spec.variant = "performer";
    spec.param = "features";
    spec.range = parse_sweep_range("16:64:x2");
    spec.metric = SweepMetric::EmbeddingCosine;
    spec.seeds = 3;
    std::cout << "[case] performer features 16:64:x2, 3 seeds, evaluator = features + seed\n";
    EXPECT_THROW(run_sweep(spec, [](uint64_t, int) { return Heads{}; }, backend), Error);  // no evaluator
    spec.evaluate = [](const VariantRequest& r, Backend&) -> std::optional<double> {
        return r.params.get("features") + r.params.get("seed");
    };
    bool made_input = false;
    const auto points = run_sweep(spec, [&made_input](uint64_t, int) { return made_input = true, Heads{}; }, backend);
    EXPECT_FALSE(made_input);  // the evaluator needs no attention input
    ASSERT_EQ(points.size(), 3u);
    for (const MetricSweepPoint& p : points) {
        EXPECT_EQ(p.samples, 3);
        EXPECT_DOUBLE_EQ(p.min, p.value);
        EXPECT_DOUBLE_EQ(p.max, p.value + 2);
        EXPECT_DOUBLE_EQ(p.mean, p.value + 1);
    }
    spec.param = "n";
    EXPECT_THROW(run_sweep(spec, [](uint64_t, int) { return Heads{}; }, backend), Error);  // the text fixes n
}

}  // namespace
}  // namespace attnscope::test

// Sweep ranges, metric names and a real sweep over n on the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

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
        EXPECT_EQ(std::string(parse_sweep_metric(name).id), name);
    EXPECT_THROW(parse_sweep_metric("accuracy"), Error);
}

TEST(Sweep, OverNAveragesSeedsAndKeepsBand) {
    CpuBackend backend;
    SweepSpec spec;
    spec.variant = "flash";
    spec.param = "n";
    spec.range = parse_sweep_range("8:32:x2");
    spec.metric = &parse_sweep_metric("rel_err_out");
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
    spec.metric = &parse_sweep_metric("embedding_cosine");
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

// Each metric a run measures gives a point in a sweep: those read off P̃ and P (row_kl_rev too, which once found no
// matrices and gave no point) ask the run for its matrices.
TEST(Sweep, EveryMeasuredMetricOfAMaskGivesPoints) {
    CpuBackend backend;
    auto sweep = [&](const char* metric) {
        SweepSpec spec;
        spec.variant = "sink";
        spec.param = "window";
        spec.range = parse_sweep_range("4:8:x2");
        spec.metric = &parse_sweep_metric(metric);
        spec.fixed = {{"sinks", "1"}};
        spec.seeds = 1;
        return run_sweep(spec, [](uint64_t seed, int) {
            ScenarioSpec s;
            s.n = 32, s.heads = 2, s.dim = 8, s.seed = seed;
            return make_scenario(s);
        }, backend);
    };
    for (const char* metric : {"rel_err_out", "rel_err_attn", "row_kl_rev", "mass_recall", "density", "time", "memory"}) {
        std::printf("[case] sink window 4:8:x2, metric %s\n", metric);
        for (const MetricSweepPoint& p : sweep(metric)) EXPECT_EQ(p.samples, 1) << metric << " at window " << p.value;
    }
    // A renormalised mask keeping mass m_i of row i has KL(P̃_i ‖ P_i) = −log m_i, and the mean of −log m_i is at
    // least −log of the mean m_i (Jensen): row_kl_rev ≥ −log(mass_recall), per head and so for the means.
    const auto kl = sweep("row_kl_rev"), mass = sweep("mass_recall");
    for (size_t k = 0; k < kl.size(); ++k) EXPECT_GE(kl[k].mean, -std::log(mass[k].mean) - 1e-6) << kl[k].value;
}

}  // namespace
}  // namespace attnscope::test

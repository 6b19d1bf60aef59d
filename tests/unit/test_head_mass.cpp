// Heads at a glance: per-head mass kept, checked against the averaged mass_recall of the same run, and on two
// "layers" of different structure where a window must keep more on the local one.
#include <gtest/gtest.h>

#include "core/data/scenarios.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/session/head_mass.h"

namespace attnscope::test {
namespace {

Heads scenario(ScenarioKind kind, uint64_t seed) {
    ScenarioSpec spec;
    spec.kind = kind, spec.n = 192, spec.heads = 3, spec.dim = 16, spec.seed = seed;
    return make_scenario(spec);
}

TEST(HeadMass, PerHeadValuesAverageToTheRunsMassRecall) {
    CpuBackend cpu;
    const Heads local = scenario(ScenarioKind::Local, 1);
    const VariantRequest window = parse_variant_request("longformer", {{"window", "8"}});
    const auto grid = layer_head_mass({local}, {window}, cpu);
    ASSERT_TRUE(grid);
    ASSERT_EQ(grid->grids.size(), 1u);
    ASSERT_EQ(grid->grids[0].recall.size(), 3u);
    ReferenceCache refs(local, false);
    const RunResult r = run_variant(local, window, RunOptions{}, cpu, &refs);
    double mean = 0;
    for (double v : grid->grids[0].recall) {
        EXPECT_GT(v, 0.0);
        EXPECT_LE(v, 1.0 + 1e-6);
        mean += v / 3;
    }
    EXPECT_NEAR(mean, *r.metrics.mass_recall, 1e-6);
}

TEST(HeadMass, AWindowKeepsMoreOnTheLocalLayerAndFullHasNoMask) {
    CpuBackend cpu;
    const std::vector<Heads> layers = {scenario(ScenarioKind::Gaussian, 2), scenario(ScenarioKind::Local, 2)};
    const auto grid = layer_head_mass(
        layers, {parse_variant_request("longformer", {{"window", "8"}}), parse_variant_request("full", {})}, cpu);
    ASSERT_TRUE(grid);
    EXPECT_EQ(grid->layers, 2);
    const HeadMassGrid& w = grid->grids[0];
    ASSERT_EQ(w.recall.size(), 6u) << w.error;
    for (int h = 0; h < 3; ++h) EXPECT_GT(w.at(1, h, 3), w.at(0, h, 3) + 0.2) << "head " << h;
    EXPECT_TRUE(grid->grids[1].recall.empty());
    EXPECT_NE(grid->grids[1].error.find("no mask"), std::string::npos);
}

TEST(HeadMass, CancelledBeforeTheFirstRunGivesNothing) {
    CpuBackend cpu;
    EXPECT_FALSE(layer_head_mass({scenario(ScenarioKind::Local, 3)}, {parse_variant_request("longformer", {})}, cpu,
                                 [] { return true; }));
}

}  // namespace
}  // namespace attnscope::test

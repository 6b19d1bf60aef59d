// The error–cost map: its Pareto front on points made by hand (each dominance case), and real runs on one input
// where a wider window costs more and loses less mass.
#include <gtest/gtest.h>

#include "core/data/scenarios.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/error.h"
#include "core/session/error_cost.h"

namespace attnscope::test {
namespace {

ErrorCostPoint point(double time, std::optional<double> err) {
    ErrorCostPoint p;
    p.time_ms = time, p.rel_err_out = err;
    return p;
}

TEST(ErrorCost, ParetoFrontKeepsExactlyTheUndominatedPoints) {
    std::vector<ErrorCostPoint> pts = {point(1, 0.5), point(2, 0.2), point(3, 0.3), point(2, 0.2), point(4, 0.01),
                                       point(0.5, std::nullopt), point(5, 0.01)};
    mark_pareto_front(pts, CostAxis::Time, ErrorAxis::RelErrOut);
    const std::vector<bool> want = {true, true, false, true, true, false, false};
    for (size_t k = 0; k < pts.size(); ++k) EXPECT_EQ(pts[k].pareto, want[k]) << "point " << k;
    // (2, 0.2) twice: neither strictly better, both kept; (3, 0.3) is dominated by (2, 0.2); (5, 0.01) by (4, 0.01);
    // a point without the error (no mass_recall) is never on the front.
}

TEST(ErrorCost, AWiderWindowLosesLessMassOnABandedInput) {
    ScenarioSpec spec;
    spec.kind = ScenarioKind::Local, spec.n = 256, spec.heads = 2, spec.dim = 32;
    const Heads x = make_scenario(spec);
    CpuBackend cpu;
    std::vector<VariantRequest> requests;
    for (const char* w : {"4", "16", "64"}) requests.push_back(parse_variant_request("longformer", {{"window", w}}));
    requests.push_back(parse_variant_request("full", {}));
    const std::vector<ErrorCostPoint> pts = error_cost_points(x, requests, cpu);
    ASSERT_EQ(pts.size(), 4u);
    EXPECT_EQ(pts[1].instance, "Longformer w = 16");
    EXPECT_GT(*pts[0].mass_loss, *pts[1].mass_loss);
    EXPECT_GT(*pts[1].mass_loss, *pts[2].mass_loss);
    EXPECT_GT(pts[2].flops, pts[0].flops);
    EXPECT_LT(*pts[3].rel_err_out, 1e-5);
    EXPECT_FALSE(pts[3].mass_loss.has_value());  // full has no mask
}

TEST(ErrorCost, ASweptBudgetExpandsEveryInstanceAndKeepsTheOthersAsOnePoint) {
    const std::vector<VariantRequest> instances = {parse_variant_request("longformer", {{"window", "4"}}),
                                                   parse_variant_request("full", {})};
    std::vector<std::string> notes;
    const auto out = expand_error_cost_requests(instances, "window", {8, 16, 32}, &notes);
    ASSERT_EQ(out.size(), 4u);
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(out[size_t(k)].instance, 0);
        EXPECT_EQ(out[size_t(k)].swept, "window");
        EXPECT_EQ(out[size_t(k)].request.params.get("window"), 8.0 * (1 << k));
    }
    EXPECT_EQ(out[3].instance, 1);
    EXPECT_EQ(out[3].swept, "");
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("one point"), std::string::npos);
    EXPECT_EQ(expand_error_cost_requests(instances, "", {}).size(), 2u);
    EXPECT_THROW(expand_error_cost_requests(instances, "n", {64}), Error);
}

TEST(ErrorCost, EmbeddingLossComesFromTheMeasureAndDrivesItsOwnFront) {
    ScenarioSpec spec;
    spec.n = 64, spec.heads = 1, spec.dim = 16;
    const Heads x = make_scenario(spec);
    CpuBackend cpu;
    std::vector<VariantRequest> requests;
    for (const char* w : {"2", "8", "32"}) requests.push_back(parse_variant_request("longformer", {{"window", w}}));
    // A stand-in measure: the cosine rises with the window, except the middle one, made worst on purpose.
    auto cosine = [](const VariantRequest& r, Backend&) -> std::optional<double> {
        const double w = r.params.get("window");
        return w == 8 ? 0.5 : 1.0 - 1.0 / w;
    };
    std::vector<ErrorCostPoint> pts = error_cost_points(x, requests, cpu, cosine);
    ASSERT_EQ(pts.size(), 3u);
    EXPECT_NEAR(*pts[0].embedding_loss, 0.5, 1e-12);
    EXPECT_NEAR(*pts[1].embedding_loss, 0.5, 1e-12);
    EXPECT_NEAR(*pts[2].embedding_loss, 1.0 / 32, 1e-12);
    for (ErrorCostPoint& p : pts) p.flops = p.params.get("window");  // a cost order that cannot tie
    mark_pareto_front(pts, CostAxis::Flops, ErrorAxis::EmbeddingLoss);
    EXPECT_TRUE(pts[0].pareto);
    EXPECT_FALSE(pts[1].pareto);  // as wrong as window 2 and costlier
    EXPECT_TRUE(pts[2].pareto);
    EXPECT_EQ(parse_error_axis("embedding_loss"), ErrorAxis::EmbeddingLoss);
}

}  // namespace
}  // namespace attnscope::test

// The error–cost map: its Pareto front on points made by hand (each dominance case, and on time the rule that
// spreads must separate), the interleaved rounds of its timing, and real runs on one input where a wider window costs
// more and loses less mass.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/data/scenarios.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/error.h"
#include "core/session/error_cost.h"

namespace attnscope::test {
namespace {

/// A point timed once: no spread.
ErrorCostPoint point(double time, std::optional<double> err) {
    ErrorCostPoint p;
    p.time_ms = p.time_min_ms = p.time_max_ms = time, p.rel_err_out = err, p.repeats = 1;
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

/// A timed point: median `time` with its runs' min..max.
ErrorCostPoint timed_point(double lo, double time, double hi, double err) {
    ErrorCostPoint p = point(time, err);
    p.time_min_ms = lo, p.time_max_ms = hi, p.repeats = 5;
    return p;
}

std::vector<bool> front_of(std::vector<ErrorCostPoint> pts, CostAxis cost) {
    mark_pareto_front(pts, cost, ErrorAxis::RelErrOut);
    std::vector<bool> out;
    for (const ErrorCostPoint& p : pts) out.push_back(p.pareto);
    return out;
}

/// What the front was before spreads: one number per point, at most as costly and as wrong, one strictly.
std::vector<bool> median_only_front(const std::vector<ErrorCostPoint>& pts) {
    std::vector<bool> out;
    for (const ErrorCostPoint& p : pts)
        out.push_back(std::none_of(pts.begin(), pts.end(), [&](const ErrorCostPoint& q) {
            const double c = p.time_ms, d = q.time_ms, e = *p.rel_err_out, f = *q.rel_err_out;
            return &q != &p && d <= c && f <= e && (d < c || f < e);
        }));
    return out;
}

TEST(ErrorCost, OnTimeAPointIsDroppedOnlyWhereTheSpreadsSeparate) {
    // w = 16 and w = 32 as a noisy machine measures them: w = 32 is less wrong and its median happens to be lower,
    // but the two spreads overlap; full is less wrong than all and far slower; a copy of w = 32 made slower beyond
    // its spread is dominated by it.
    const std::vector<ErrorCostPoint> pts = {timed_point(0.30, 0.33, 0.36, 0.5),   // w = 16
                                             timed_point(0.31, 0.32, 0.35, 0.3),   // w = 32
                                             timed_point(1.80, 1.90, 2.10, 0.0),   // full
                                             timed_point(0.40, 0.42, 0.45, 0.3)};  // w = 32, slower beyond the spread
    EXPECT_EQ(front_of(pts, CostAxis::Time), (std::vector<bool>{true, true, true, false}));
    // The median-only rule on the same points drops w = 16 on a lucky median: the flip between identical runs.
    EXPECT_EQ(median_only_front(pts), (std::vector<bool>{false, true, true, false}));
    EXPECT_NE(front_of(pts, CostAxis::Time), median_only_front(pts));
    // Shift w = 32's runs so its slowest stays just below w = 16's fastest: now w = 16 is off the front.
    std::vector<ErrorCostPoint> separated = pts;
    separated[1] = timed_point(0.26, 0.27, 0.299, 0.3);
    EXPECT_EQ(front_of(separated, CostAxis::Time), (std::vector<bool>{false, true, true, false}));
    // Touching is not separating: a max equal to the other's min keeps both.
    separated[1].time_max_ms = 0.30;
    EXPECT_EQ(front_of(separated, CostAxis::Time), (std::vector<bool>{true, true, true, false}));
}

TEST(ErrorCost, OnFlopsAndMemoryTheCostIsExactAndComparedPlainly) {
    // The time spreads of these points overlap entirely; FLOPs and bytes do not, and decide alone.
    std::vector<ErrorCostPoint> pts = {timed_point(1, 2, 3, 0.5), timed_point(1, 2, 3, 0.3), timed_point(1, 2, 3, 0.3),
                                       timed_point(1, 2, 3, 0.1)};
    const double cost[] = {10, 20, 20, 15};
    for (size_t k = 0; k < pts.size(); ++k) pts[k].flops = cost[k], pts[k].peak_bytes = cost[k] * 1024;
    EXPECT_EQ(front_of(pts, CostAxis::Time), (std::vector<bool>{true, true, true, true}));
    // (20, 0.3) twice is dominated by (15, 0.1): cheaper and better; (10, 0.5) is the cheapest.
    EXPECT_EQ(front_of(pts, CostAxis::Flops), (std::vector<bool>{true, false, false, true}));
    EXPECT_EQ(front_of(pts, CostAxis::Memory), (std::vector<bool>{true, false, false, true}));
    // As costly and strictly better dominates on an exact axis (not on time, where equal spreads decide nothing).
    pts[3].flops = 20;
    EXPECT_EQ(front_of(pts, CostAxis::Flops), (std::vector<bool>{true, false, false, true}));
    EXPECT_TRUE(dominates(pts[3], pts[1], CostAxis::Flops, ErrorAxis::RelErrOut));
    EXPECT_FALSE(dominates(pts[3], pts[1], CostAxis::Time, ErrorAxis::RelErrOut));
}

TEST(ErrorCost, TimingRunsInRoundsThatTakeEveryPointOnce) {
    std::vector<std::string> calls;
    std::vector<std::function<double()>> runs;
    for (int k = 0; k < 3; ++k)
        runs.push_back([&calls, k] {
            calls.push_back(std::to_string(k));
            return double(10 * k + int(calls.size()));  // a clock that drifts: later rounds are slower for all
        });
    const std::vector<TimingStats> stats = time_in_rounds(runs, 3);
    // Every round takes every run once, each round starting one later: every run is first once.
    EXPECT_EQ(calls, (std::vector<std::string>{"0", "1", "2", "1", "2", "0", "2", "0", "1"}));
    ASSERT_EQ(stats.size(), 3u);
    EXPECT_EQ(stats[1].samples_ms, (std::vector<double>{12, 14, 19}));
    EXPECT_EQ(stats[1].median_ms, 14);
    EXPECT_EQ(stats[1].min_ms, 12);
    EXPECT_EQ(stats[1].max_ms, 19);
    int asked = 0;
    EXPECT_TRUE(time_in_rounds(runs, 3, [&asked] { return ++asked < 5; }).empty());  // stopped midway: no stats
}

TEST(ErrorCost, EveryPointCarriesItsRepeatsAndSpread) {
    ScenarioSpec spec;
    spec.n = 64, spec.heads = 1, spec.dim = 16;
    const Heads x = make_scenario(spec);
    CpuBackend cpu;
    const std::vector<VariantRequest> requests = {parse_variant_request("longformer", {{"window", "8"}}),
                                                  parse_variant_request("full", {})};
    ErrorCostOptions options;
    options.repeats = 3;
    const std::vector<ErrorCostPoint> pts = error_cost_points(x, requests, cpu, options);
    ASSERT_EQ(pts.size(), 2u);
    for (const ErrorCostPoint& p : pts) {
        EXPECT_EQ(p.repeats, 3);
        EXPECT_EQ(p.time_clock, "cpu");
        EXPECT_LE(p.time_min_ms, p.time_ms);
        EXPECT_LE(p.time_ms, p.time_max_ms);
        EXPECT_GT(p.wall_ms, 0);
    }
    int runs = 0;
    options.proceed = [&runs] { return ++runs < 4; };  // the metric runs pass, the rounds are cut short
    EXPECT_TRUE(error_cost_points(x, requests, cpu, options).empty());
    options.proceed = {};
    options.repeats = 0;
    EXPECT_THROW(error_cost_points(x, requests, cpu, options), Error);
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
    ErrorCostOptions options;
    options.embedding = cosine;
    std::vector<ErrorCostPoint> pts = error_cost_points(x, requests, cpu, options);
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

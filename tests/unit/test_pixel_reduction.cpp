// What a picture keeps when it has fewer pixels than cells (issue 31): a figure shrunk by rank keeps a one-texel
// column that nearest sampling drops; the rank ceiling a lesson shows is the svd oracle's error; the CPU time a
// lesson's timing claims count is its own threads', not the renderer's.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>
#include <time.h>

#include "core/bench/timing.h"
#include "core/figure/render.h"
#include "core/lessons/lessons.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/session/experiment.h"
#include "core/session/metrics.h"
#include "core/session/worker.h"
#include "core/variants/registry.h"

namespace attnscope {
namespace {

/// A 100×100 black image with one white column (37) ranked above the rest.
figure::ImageCmd one_column_image(bool ranked) {
    figure::ImageCmd img;
    img.width = img.height = 100;
    img.rgb.assign(100 * 100 * 3, 0);
    if (ranked) img.rank.assign(100 * 100, 0.0f);
    for (int r = 0; r < 100; ++r) {
        for (int c = 0; c < 3; ++c) img.rgb[(size_t(r) * 100 + 37) * 3 + c] = 255;
        if (ranked) img.rank[size_t(r) * 100 + 37] = 1.0f;
    }
    return img;
}

/// Whether some output column is white in every row.
bool has_white_column(const std::vector<uint8_t>& rgb, int w, int h) {
    for (int x = 0; x < w; ++x) {
        bool white = true;
        for (int y = 0; y < h && white; ++y) white = rgb[(size_t(y) * w + x) * 3] == 255;
        if (white) return true;
    }
    return false;
}

TEST(FigureImage, ShrinkingByRankKeepsAOneTexelColumnThatNearestDrops) {
    for (int side : {23, 41, 64, 77}) {
        std::printf("[case] 100×100 image with one bright column shrunk to %d×%d\n", side, side);
        EXPECT_TRUE(has_white_column(figure::reduce_image(one_column_image(true), side, side), side, side)) << side;
    }
    // Without ranks a shrunk pixel takes the first texel it covers: at 23 the column falls between two of them.
    EXPECT_FALSE(has_white_column(figure::reduce_image(one_column_image(false), 23, 23), 23, 23));
}

TEST(FigureImage, RasterKeepsTheColumnAtEveryScale) {
    figure::Canvas canvas;
    canvas.width = canvas.height = 120;
    figure::ImageCmd img = one_column_image(true);
    img.x = img.y = 10, img.w = img.h = 100;
    canvas.images.push_back(img);
    for (float scale : {0.29f, 0.45f, 0.7f}) {
        std::printf("[case] canvas with a 100-cell image rasterised at scale %.2f\n", scale);
        int w = 0, h = 0;
        const std::vector<uint8_t> rgb = figure::rasterize(canvas, scale, w, h);
        bool found = false;
        for (int x = 0; x < w && !found; ++x) {
            int white = 0;
            for (int y = 0; y < h; ++y) white += rgb[(size_t(y) * w + x) * 3] == 255;
            found = white >= int(90 * scale);  // the image's rows, all white in that pixel column
        }
        EXPECT_TRUE(found) << "scale " << scale;
    }
}

TEST(RankCeiling, BestRankErrorFollowsEckartYoung) {
    std::printf("[case] σ = (3, 2, 1) and (1, 0, 0) over two heads at r = 1\n");
    // Head 0: sqrt((2² + 1²) / (3² + 2² + 1²)); head 1: rank 1 already, error 0; the mean over heads.
    const double head0 = std::sqrt(5.0 / 14.0);
    EXPECT_NEAR(best_rank_error({3, 2, 1, 1, 0, 0}, 2, 1), head0 / 2, 1e-12);
    EXPECT_NEAR(best_rank_error({3, 2, 1}, 1, 3), 0.0, 1e-12);
}

TEST(RankCeiling, EqualsTheSvdOraclesErrorAtEachRankBound) {
    std::printf("[case] local n=96 H=2 d=16: linformer k=8, performer m=8, linear (d=16) against svd at their ranks\n");
    RunBatchRequest r;
    r.input.scenario.kind = ScenarioKind::Local;
    r.input.scenario.n = 96, r.input.scenario.heads = 2, r.input.scenario.dim = 16;
    r.variants = {parse_variant_request("linformer", {{"k", "8"}}), parse_variant_request("performer", {{"features", "8"}}),
                  parse_variant_request("linear", {})};
    r.rank_ceilings = true;
    CpuBackend cpu;
    const auto snap = run_batch(r, cpu, nullptr);
    ASSERT_TRUE(snap && snap->input_error.empty());
    const Heads& heads = *snap->heads;
    for (const auto& [k, rank] : {std::pair<size_t, int>{0, 8}, {1, 8}, {2, 16}}) {
        const VariantView& v = snap->variants.at(k);
        ASSERT_TRUE(v.error.empty()) << v.error;
        ASSERT_TRUE(v.result->metrics.rank_ceiling) << v.id << " reported no rank ceiling";
        // The oracle itself: truncated SVD of P at that rank, its own code path (LAPACK's full factorisation).
        ReferenceCache refs(heads, true);
        RunOptions o;
        o.explain = true;
        const RunResult svd = run_variant(heads, parse_variant_request("svd", {{"rank", std::to_string(rank)}}), o, cpu, &refs);
        EXPECT_NEAR(*v.result->metrics.rank_ceiling, *svd.metrics.rel_err_attn, 1e-4 * std::max(1.0, *svd.metrics.rel_err_attn))
            << v.id << " at r = " << rank;
        EXPECT_GE(*v.result->metrics.rel_err_attn + 1e-6, *v.result->metrics.rank_ceiling) << v.id << " beat Eckart–Young";
    }
    r.rank_ceilings = false;  // not asked: not computed (an SVD per head costs)
    const auto plain = run_batch(r, cpu, nullptr);
    EXPECT_FALSE(plain->variants.at(0).result->metrics.rank_ceiling);
}

double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

TEST(WorkCpu, CountsTheCallersThreadsNotAnotherThreadsWork) {
    std::printf("[case] another thread burns 100 ms of CPU while the caller waits; then the caller's team works\n");
    const double work0 = work_cpu_ms(), process0 = process_cpu_ms();
    std::thread renderer([] {  // stands in for the GUI's render threads beside a lesson check
        volatile double x = 0;
        const double start = thread_cpu_ms();
        while (thread_cpu_ms() - start < 100) x = x + 1;
    });
    renderer.join();  // the caller blocks: it uses no CPU meanwhile
    const double work1 = work_cpu_ms(), process1 = process_cpu_ms();
    EXPECT_GE(process1 - process0, 99.0);  // the process did spend it
    EXPECT_LT(work1 - work0, 30.0) << "the other thread's CPU time was counted as the caller's";
    // Work on the caller's OpenMP team is counted.
    double iterations = 0;
#pragma omp parallel reduction(+ : iterations)
    {
        const double start = thread_cpu_ms();
        while (thread_cpu_ms() - start < 40) iterations += 1;
    }
    EXPECT_GT(iterations, 0);
    EXPECT_GE(work_cpu_ms() - work1, 39.0);
}

TEST(Lessons, BadgesNameKnownMetricsAndPointsTheirOwnViews) {
    const std::vector<std::string>& ids = metric_ids();
    for (const Lesson& l : all_lessons()) {
        std::printf("[case] lesson %s: %zu badge rules, %zu points\n", l.id.c_str(), l.badges.size(), l.points.size());
        for (const Lesson::BadgeRule& b : l.badges)
            EXPECT_NE(std::find(ids.begin(), ids.end(), b.metric), ids.end()) << l.id << ": unknown badge " << b.metric;
        for (const LookAtPoint& p : l.points) EXPECT_FALSE(p.label.empty()) << l.id;
    }
}

TEST(Lessons, PointsThatNameNothingOrTwoThingsAreRefused) {
    const std::string head = R"({"id": "x", "order": 99, "title": "t", "check": {"id": "ceiling"},
        "preset": {"variants": [{"id": "full", "params": {}}]}, "points": [)";
    auto error_of = [&](const std::string& point) -> std::string {
        try {
            parse_lesson(head + point + "]}");
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    };
    std::printf("[case] points with two kinds, a reversed range, an unknown view; a good one parses\n");
    EXPECT_NE(error_of(R"({"label": "a", "keys": [1, 2], "rows": [3, 4]})").find("exactly one of"), std::string::npos);
    EXPECT_NE(error_of(R"({"label": "b", "keys": [5, 3]})").find("first ≤ last"), std::string::npos);
    EXPECT_NE(error_of(R"({"label": "c", "keys": [0, 0], "views": ["sink"]})").find("does not show"), std::string::npos);
    EXPECT_EQ(error_of(R"({"label": "d", "diagonal": [-2, 3], "views": ["full"], "on_head": 1})"), "");
    const Lesson ok = parse_lesson(head + R"({"label": "d", "block": {"rows": [4, 7], "keys": [0, 3]}}]})");
    ASSERT_EQ(ok.points.size(), 1u);
    EXPECT_EQ(ok.points[0].kind, LookAtPoint::Kind::Block);
    EXPECT_EQ(ok.points[0].rows_first, 4);
    EXPECT_EQ(ok.points[0].last, 3);
}

}  // namespace
}  // namespace attnscope

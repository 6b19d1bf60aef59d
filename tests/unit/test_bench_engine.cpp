// The benchmark engine's logic (core/bench): timing statistics over a scripted fake clock, n-list parsing,
// the memory guard (a tiny fake available-memory figure skips points before anything is allocated), the
// time budget, each registered variant's memory estimate against its tracked peak, cancellation, and the
// JSON/CSV schema. No assertion depends on how fast this machine is.
#include <gtest/gtest.h>

#include <sstream>

#include "core/backend/factory/make_backend.h"
#include "core/bench/bench_job.h"
#include "core/bench/linformer_table.h"
#include "core/bench/report.h"
#include "core/bench/engine.h"
#include "core/bench/roof_gemm.h"
#include "core/data/scenarios.h"
#include "core/memory.h"
#include "core/variants/registry.h"

namespace attnscope::test {
namespace {

// [SECTION] timing

/// A fake timed function: returns the scripted durations in order and counts its calls.
struct ScriptedClock {
    std::vector<double> script;
    size_t calls = 0;
    double operator()() { return script.at(calls++); }
};

TEST(BenchTiming, MedianMinMaxOverTimedRunsOnly) {
    ScriptedClock clock{{100, 5, 1, 4, 2, 3}};
    std::cout << "[case] warmup=1 runs=5 script=100|5,1,4,2,3\n";
    const TimingStats s = time_repeated(std::ref(clock), TimingPlan{1, 5});
    EXPECT_EQ(clock.calls, 6u);
    EXPECT_DOUBLE_EQ(s.median_ms, 3);
    EXPECT_DOUBLE_EQ(s.min_ms, 1);
    EXPECT_DOUBLE_EQ(s.max_ms, 5);
    EXPECT_DOUBLE_EQ(s.mean_ms, 3);
    EXPECT_DOUBLE_EQ(s.warmup_ms, 100);
    EXPECT_EQ(s.warmup, 1);
    EXPECT_EQ(s.samples_ms, (std::vector<double>{5, 1, 4, 2, 3}));
    EXPECT_TRUE(s.complete);
}

TEST(BenchTiming, EvenCountMedianIsMeanOfMiddlePair) {
    ScriptedClock clock{{7, 8, 10, 1, 4, 9, 2}};
    std::cout << "[case] warmup=2 runs=5 then runs=4 script=7,8|10,1,4,9(,2)\n";
    const TimingStats s = time_repeated(std::ref(clock), TimingPlan{2, 4});
    EXPECT_DOUBLE_EQ(s.median_ms, 0.5 * (4 + 9));
    EXPECT_DOUBLE_EQ(s.min_ms, 1);
    EXPECT_DOUBLE_EQ(s.max_ms, 10);
    EXPECT_DOUBLE_EQ(s.warmup_ms, 15);
}

// The GUI's screenshot summary once printed "median 42.9 ms, p95 31.9 ms" from two samples: the median took
// the upper middle and the p95 rounded its rank down. The shared summary keeps median ≤ p95 ≤ max at every count.
TEST(BenchTiming, P95NeverBelowTheMedianAtAnySampleCount) {
    EXPECT_DOUBLE_EQ(summarize_times({31.9, 42.9}).p95_ms, 31.9 + 0.95 * 11.0);
    EXPECT_DOUBLE_EQ(summarize_times({5}).p95_ms, 5);
    std::vector<double> v;
    for (int k = 0; k < 41; ++k) {
        v.push_back(double((k * 37) % 23));
        const TimingStats s = summarize_times(v);
        EXPECT_LE(s.median_ms, s.p95_ms) << "count " << v.size();
        EXPECT_LE(s.p95_ms, s.max_ms) << "count " << v.size();
    }
}

TEST(BenchTiming, StopRequestEndsEarlyAndMarksIncomplete) {
    ScriptedClock clock{{1, 2, 3, 4, 5, 6}};
    int progress_calls = 0;
    std::cout << "[case] stop after 3 calls of 6\n";
    const TimingStats s = time_repeated(
        std::ref(clock), TimingPlan{1, 5}, [&] { return clock.calls >= 3; }, [&](int, int) { ++progress_calls; });
    EXPECT_EQ(clock.calls, 3u);
    EXPECT_EQ(progress_calls, 3);
    EXPECT_FALSE(s.complete);
    EXPECT_EQ(s.samples_ms, (std::vector<double>{2, 3}));
}

// [SECTION] n lists

TEST(BenchNList, PowerOfTwoRange) {
    std::cout << "[case] 1024:65536\n";
    EXPECT_EQ(parse_n_list("1024:65536"), (std::vector<int>{1024, 2048, 4096, 8192, 16384, 32768, 65536}));
    EXPECT_EQ(parse_n_list("1000:5000"), (std::vector<int>{1000, 2000, 4000}));
    EXPECT_EQ(parse_n_list("65536:262144"), (std::vector<int>{65536, 131072, 262144}));
}

TEST(BenchNList, ListsAndMixesAreSortedAndDeduplicated) {
    std::cout << "[case] 4096 | 8192,512 | 512,1024:4096,512\n";
    EXPECT_EQ(parse_n_list("4096"), (std::vector<int>{4096}));
    EXPECT_EQ(parse_n_list("8192,512"), (std::vector<int>{512, 8192}));
    EXPECT_EQ(parse_n_list("512, 1024:4096,512"), (std::vector<int>{512, 1024, 2048, 4096}));
}

TEST(BenchNList, MalformedInputsThrowWithTheAcceptedForms) {
    for (const char* bad : {"", "abc", "0", "-5", "4096:1024", "1024:", "12x", "1024:2048:4096"}) {
        std::cout << "[case] bad n list '" << bad << "'\n";
        try {
            parse_n_list(bad);
            ADD_FAILURE() << "no error for '" << bad << "'";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("1024"), std::string::npos) << e.what();
        }
    }
}

// [SECTION] memory guard and budget

BenchConfig tiny_config(std::vector<std::string> ids, std::vector<int> ns) {
    BenchConfig c;
    for (const std::string& id : ids) c.variants.push_back({id, default_params(find_variant(id).info().params), id});
    c.ns = std::move(ns);
    c.heads = 1, c.dim = 16, c.value_dim = 0;
    c.plan = {1, 5};
    c.budget_s = 0;
    c.measure_machine = false;
    c.rss_cross_check = false;
    return c;
}

TEST(BenchMemoryGuard, TinyAvailableMemorySkipsBeforeAllocatingTheInput) {
    auto backend = make_backend("cpu");
    BenchConfig c = tiny_config({"flash", "full"}, {512, 2048});
    c.available_bytes_override = 1 << 20;  // 1 MiB "available", minus the default 512 MiB margin: nothing fits
    std::cout << "[case] available=1MiB margin=default n=512,2048 flash,full\n";
    PeakMemoryScope scope;
    const BenchReport r = run_bench(c, *backend);
    ASSERT_EQ(r.points.size(), 4u);
    for (const BenchPoint& p : r.points) {
        EXPECT_EQ(p.status, PointStatus::SkippedMemory) << p.label << " n=" << p.n << ": " << p.reason;
        EXPECT_NE(p.reason.find("input"), std::string::npos) << p.reason;
        EXPECT_NE(p.reason.find("skipped before allocating"), std::string::npos) << p.reason;
    }
    // Nothing of input size was allocated: Q, K, V at n = 512 alone would be 4·512·(48 + 16) bytes.
    EXPECT_LT(scope.peak_bytes(), input_bytes_for(1, 512, 16, 16));
}

TEST(BenchMemoryGuard, VariantEstimateSkipsOnlyWhatDoesNotFit) {
    auto backend = make_backend("cpu");
    BenchConfig c = tiny_config({"flash", "full"}, {1024});
    c.memory_safety_fraction = 0, c.memory_safety_bytes = 0;
    c.available_bytes_override = 2 << 20;  // input (256 KiB) and flash fit; full's P (4 MiB) does not
    std::cout << "[case] available=2MiB no margin n=1024 H=1 d=16: flash runs, full skipped\n";
    PeakMemoryScope scope;
    const BenchReport r = run_bench(c, *backend);
    ASSERT_EQ(r.points.size(), 2u);
    EXPECT_EQ(r.points[0].status, PointStatus::Measured) << r.points[0].reason;
    EXPECT_EQ(r.points[1].status, PointStatus::SkippedMemory);
    EXPECT_NE(r.points[1].reason.find("full needs an estimated"), std::string::npos) << r.points[1].reason;
    EXPECT_GE(r.points[1].estimate_bytes, int64_t(4) * 1024 * 1024);
    EXPECT_LT(scope.peak_bytes(), r.points[1].estimate_bytes);  // P was never allocated
}

TEST(BenchMemoryGuard, UnknownAvailableMemoryNeverSkips) {
    BenchConfig c;
    std::cout << "[case] available=-1 need=1TiB\n";
    EXPECT_EQ(memory_skip_reason(int64_t(1) << 40, -1, c, "x"), "");
    EXPECT_NE(memory_skip_reason(int64_t(1) << 40, int64_t(1) << 30, c, "x"), "");
}

BenchPoint measured_point(int n, double median_ms, double total_ms) {
    BenchPoint p;
    p.n = n;
    p.time.median_ms = median_ms;
    p.time.samples_ms = {total_ms};
    return p;
}

TEST(BenchBudget, SkipsAfterASlowPointAndPredictsFromTheSlope) {
    std::cout << "[case] budget 10 s: slow point, quadratic prediction, linear prediction, no budget\n";
    const BenchPoint slow = measured_point(4096, 2000, 12000);
    EXPECT_NE(budget_skip_reason({&slow}, 8192, 10, TimingPlan{1, 5}).find("took"), std::string::npos);
    // One point: slope 2 assumed; 300 ms at 4096 → 1.2 s per run at 8192, 7.2 s for 6 runs: fits.
    const BenchPoint a = measured_point(4096, 300, 1800);
    EXPECT_EQ(budget_skip_reason({&a}, 8192, 10, TimingPlan{1, 5}), "");
    // ... but 4.8 s per run at 16384 (28.8 s for 6 runs) does not.
    EXPECT_NE(budget_skip_reason({&a}, 16384, 10, TimingPlan{1, 5}).find("predicted"), std::string::npos);
    // Two points with a linear slope: 600 ms at 8192 → 1.2 s per run at 16384, 7.2 s: fits.
    const BenchPoint b = measured_point(8192, 600, 3600);
    EXPECT_EQ(budget_skip_reason({&a, &b}, 16384, 10, TimingPlan{1, 5}), "");
    EXPECT_EQ(budget_skip_reason({&slow}, 65536, 0, TimingPlan{1, 5}), "");
    // One point and the cost model: a linear variant (FLOPs ×4 from 4096 to 16384) fits where n² would not.
    BenchPoint linear = a;
    linear.flops = 1e9;
    EXPECT_EQ(budget_skip_reason({&linear}, 16384, 10, TimingPlan{1, 5}, 4e9), "");
    EXPECT_NE(budget_skip_reason({&linear}, 16384, 10, TimingPlan{1, 5}, 16e9).find("the cost model's"), std::string::npos);
}

// [SECTION] estimates against tracked peaks

TEST(BenchEstimate, EveryRegisteredVariantEstimateBoundsItsTrackedPeak) {
    auto backend = make_backend("cpu");
    for (const auto& v : all_variants()) {
        for (int n : {256, 1000}) {
            ScenarioSpec s;
            s.n = n, s.heads = 2, s.dim = 32, s.value_dim = 24, s.seed = 3;
            const Heads heads = make_scenario(s);
            Params p;
            try {
                p = v->resolve(default_params(v->info().params), heads.shape());
            } catch (const Error& e) {
                std::cout << "[case] " << v->info().id << " n=" << n << " defaults refused (" << e.what() << "): skipped\n";
                continue;
            }
            const int64_t estimate = v->estimate_peak_bytes(2, n, 32, 24, p);
            RunOptions options;
            options.weights = v->make_weights(heads, p);  // made before the peak, as the bench engine does
            int64_t peak = 0;
            {
                PeakMemoryScope scope;
                RunResult r = v->run(heads, p, options, *backend);
                peak = scope.peak_bytes();
            }
            std::cout << "[case] " << v->info().id << " n=" << n << " H=2 d=32 dv=24 estimate=" << estimate
                      << " tracked peak=" << peak << "\n";
            EXPECT_GE(estimate, peak) << v->info().id << " underestimates its memory at n = " << n;
            if (v->info().id == "full" || v->info().id == "flash" || v->info().id == "linformer") {
                EXPECT_LE(estimate - peak, estimate / 100) << v->info().id << "'s estimate should be precise";
            }
        }
    }
}

TEST(BenchEstimate, SubquadraticEstimatesBoundTheirPeakOffTheDefaults) {
    // The layout-based estimates depend on every pattern parameter: bound the peak on settings that change the
    // layout block, the head split, permuted heads, the scale rerun, LSH's rounds, chunk and separate keys, and
    // Performer's feature count, kind and causal form.
    const std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> cases = {
        {"longformer", {{"window", "96"}, {"global", "none"}}},
        {"longformer", {{"window", "300"}, {"dilation", "2"}, {"dilation_per_head", "1"}, {"global", "0,17,500"}}},
        {"strided", {{"stride", "16"}, {"head_pattern", "split"}}},
        {"strided", {{"stride", "40"}, {"bidirectional", "1"}, {"scale", "0.5"}}},
        {"fixed", {{"block", "32"}, {"summary", "4"}, {"head_pattern", "split"}}},
        {"bigbird", {{"block", "32"}, {"random_blocks", "0"}, {"global_blocks", "1"}}},
        {"bigbird", {{"block", "8"}, {"window_blocks", "5"}, {"random_blocks", "4"}}},
        {"xl", {{"segment", "100"}, {"memory", "300"}, {"same_length", "1"}}},
        {"lsh", {{"rounds", "2"}, {"chunk", "32"}, {"look_back", "2"}, {"shared_qk", "0"}}},
        {"lsh", {{"rounds", "8"}, {"chunk", "128"}, {"buckets", "4"}}},
        {"performer", {{"kind", "trig"}, {"features", "64"}}},
        {"performer", {{"causal", "1"}, {"features", "300"}}},
        {"fnet", {}},
    };
    auto backend = make_backend("cpu");
    for (const auto& [id, assignments] : cases) {
        const Variant& v = find_variant(id);
        for (int n : {700, 2048}) {
            ScenarioSpec s;
            s.n = n, s.heads = 3, s.dim = 40, s.value_dim = 16, s.seed = 5;
            const Heads heads = make_scenario(s);
            const Params p = v.resolve(parse_params(id, v.info().params, assignments), heads.shape());
            const int64_t estimate = v.estimate_peak_bytes(3, n, 40, 16, p);
            int64_t peak = 0;
            {
                PeakMemoryScope scope;
                RunResult r = v.run(heads, p, RunOptions{}, *backend);
                peak = scope.peak_bytes();
            }
            std::string settings;
            for (const auto& [name, value] : assignments) settings += " " + name + "=" + value;
            std::cout << "[case] " << id << settings << " n=" << n << " H=3 d=40 dv=16 estimate=" << estimate
                      << " tracked peak=" << peak << "\n";
            EXPECT_GE(estimate, peak) << id << settings << " underestimates its memory at n = " << n;
        }
    }
}

// [SECTION] report schema, ratios, cancellation

std::vector<std::string> split_csv_row(const std::string& line) {
    std::vector<std::string> out;
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        if (quoted) {
            if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') field += '"', ++i;
            else if (ch == '"') quoted = false;
            else field += ch;
        } else if (ch == '"') {
            quoted = true;
        } else if (ch == ',') {
            out.push_back(field), field.clear();
        } else {
            field += ch;
        }
    }
    out.push_back(field);
    return out;
}

TEST(BenchReportSchema, JsonAndCsvCarryEveryPoint) {
    auto backend = make_backend("cpu");
    BenchConfig c = tiny_config({"flash", "full"}, {64, 128});
    c.rss_cross_check = true;
    std::cout << "[case] flash,full n=64,128 H=1 d=16 runs=5\n";
    BenchReport r = run_bench(c, *backend);
    r.notes.push_back("a note, with a comma and \"quotes\"");
    const nlohmann::json j = bench_report_to_json(r);
    EXPECT_EQ(j.at("schema"), kBenchSchema);
    for (const char* key : {"date_utc", "backend", "machine", "config", "points", "cancelled", "notes"})
        EXPECT_TRUE(j.contains(key)) << key;
    ASSERT_EQ(j.at("points").size(), 4u);
    for (const auto& p : j.at("points")) {
        for (const char* key : {"variant", "label", "n", "heads", "dim", "value_dim", "causal", "params", "status",
                                "reason", "time_ms", "flops", "bytes", "gflops", "gemm_fraction", "memory",
                                "speedup_vs_flash", "memory_saving_vs_full"})
            EXPECT_TRUE(p.contains(key)) << key;
        EXPECT_EQ(p.at("status"), "measured") << p.at("reason");
        EXPECT_EQ(p.at("time_ms").at("samples").size(), 5u);
        EXPECT_LE(p.at("time_ms").at("min").get<double>(), p.at("time_ms").at("median").get<double>());
        EXPECT_LE(p.at("time_ms").at("median").get<double>(), p.at("time_ms").at("max").get<double>());
        EXPECT_GT(p.at("flops").get<double>(), 0);
        for (const char* key : {"peak_bytes", "extra_bytes", "output_bytes", "estimate_bytes", "rss_peak_delta_bytes"})
            EXPECT_TRUE(p.at("memory").contains(key)) << key;
    }
    // The references compare to themselves exactly.
    EXPECT_DOUBLE_EQ(j.at("points")[0].at("speedup_vs_flash").get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(j.at("points")[1].at("memory_saving_vs_full").get<double>(), 1.0);
    // flash's saving is full's measured peak over its own at the same n (at tiny n flash's per-thread tile
    // scratch can outweigh full's P, so no direction is asserted).
    EXPECT_DOUBLE_EQ(j.at("points")[0].at("memory_saving_vs_full").get<double>(),
                     double(r.points[1].peak_bytes) / double(r.points[0].peak_bytes));

    std::istringstream csv(bench_report_to_csv(r));
    std::string line;
    std::getline(csv, line);
    EXPECT_EQ(split_csv_row(line), bench_csv_columns());
    int rows = 0;
    while (std::getline(csv, line)) {
        EXPECT_EQ(split_csv_row(line).size(), bench_csv_columns().size()) << line;
        ++rows;
    }
    EXPECT_EQ(rows, 4);
    const std::string table = format_bench_table(r);
    EXPECT_NE(table.find("flash"), std::string::npos);
    EXPECT_NE(table.find("not measured"), std::string::npos);  // --no-machine: ratios blank, and said so
}

// [SECTION] paired roof

TEST(BenchPairedRoof, ShareIsTheRatioOfPairedMediansWithThePerPairSpread) {
    // Pairs (roof, run) in ms: a slow phase (pair 3) slows both alike, so its per-pair share stays at 50%.
    const std::vector<double> run = {20, 22, 40, 21}, roof = {10, 11, 20, 10.5};
    const std::vector<double> run_cpu = {40, 44, 80, 42}, roof_cpu = {16, 16, 16, 16};
    std::cout << "[case] flops 100, roof flops 100: run ms 20,22,40,21 after roof ms 10,11,20,10.5\n";
    const RoofShare s = paired_roof_share(100, run, run_cpu, 100, roof, roof_cpu);
    EXPECT_EQ(s.pairs, 4);
    // Wall: medians 21.5 and 10.75 → 50%; every pair is at exactly 50%.
    EXPECT_DOUBLE_EQ(s.wall, 0.5);
    EXPECT_DOUBLE_EQ(s.wall_min, 0.5);
    EXPECT_DOUBLE_EQ(s.wall_max, 0.5);
    // CPU: median 43 against 16; per pair 16/80 … 16/40.
    EXPECT_DOUBLE_EQ(s.cpu, 16.0 / 43.0);
    EXPECT_DOUBLE_EQ(s.cpu_min, 16.0 / 80.0);
    EXPECT_DOUBLE_EQ(s.cpu_max, 16.0 / 40.0);
    EXPECT_DOUBLE_EQ(s.roof_gflops, 100 / (10.75 * 1e6));
    EXPECT_FALSE(s.fault());
    // A run "faster than the roof" is a fault, whichever clock shows it.
    EXPECT_TRUE(paired_roof_share(300, run, run_cpu, 100, roof, roof_cpu).fault());
    EXPECT_TRUE(paired_roof_share(100, run, {4, 4, 4, 4}, 100, roof, roof_cpu).fault());
    // Unequal lists use the common pairs only; none at all is no share.
    EXPECT_EQ(paired_roof_share(100, run, run_cpu, 100, {10, 11}, {16, 16}).pairs, 2);
    EXPECT_EQ(paired_roof_share(100, {}, {}, 100, roof, roof_cpu).pairs, 0);
}

TEST(BenchPairedRoof, EveryMeasuredPointCarriesItsPairedShareInTheReport) {
    auto backend = make_backend("cpu");
    BenchConfig c = tiny_config({"flash", "linear"}, {256});
    c.measure_machine = true;
    c.machine.gemm_size = 128;
    c.machine.triad_floats = 1 << 16;
    c.machine.plan = {1, 3};
    std::cout << "[case] flash,linear n=256 H=1 d=16, roof 128² paired with every run\n";
    const BenchReport r = run_bench(c, *backend);
    ASSERT_TRUE(r.machine_measured);
    const std::string roof = r.machine.roof_name;
    EXPECT_TRUE(roof == "openblas" || roof == "eigen") << roof;
    EXPECT_GT(r.machine.openblas_gflops, 0);  // both candidates were timed
    EXPECT_GT(r.machine.backend_gemm_gflops, 0);
    const nlohmann::json j = bench_report_to_json(r);
    EXPECT_EQ(j.at("machine").at("gemm").at("roof"), roof);
    for (size_t k = 0; k < r.points.size(); ++k) {
        const BenchPoint& p = r.points[k];
        ASSERT_TRUE(p.measured()) << p.reason;
        ASSERT_TRUE(p.roof_share) << p.label;
        EXPECT_EQ(p.roof_share->pairs, 5) << p.label;  // one roof run per timed run
        EXPECT_EQ(p.roof_share->roof, roof);
        EXPECT_GT(p.roof_share->roof_gflops, 0);
        EXPECT_LE(p.roof_share->wall_min, p.roof_share->wall_max);
        EXPECT_DOUBLE_EQ(p.gemm_fraction, p.roof_share->wall);  // the table's %GEMM is the paired share
        EXPECT_DOUBLE_EQ(p.cpu_gemm_fraction, p.roof_share->cpu);
        EXPECT_EQ(j.at("points")[k].at("roof").at("pairs"), 5);
        EXPECT_EQ(j.at("points")[k].at("roof").at("fault").get<bool>(), p.roof_share->fault());
    }
    EXPECT_NE(format_bench_table(r).find("paired roof shares"), std::string::npos);
    c.pair_roof = false;
    std::cout << "[case] the same without pairing: no share\n";
    for (const BenchPoint& p : run_bench(c, *backend).points) EXPECT_FALSE(p.roof_share) << p.label;
}

TEST(BenchPairedRoof, OpenBlasRoofComputesTheSameProductAsTheBackend) {
    auto backend = make_backend("cpu");
    RoofGemm roof(*backend, 96);
    std::cout << "[case] 96² product through OpenBLAS (one call per thread on a band of rows) and Eigen\n";
    EXPECT_EQ(roof.flops(), 2.0 * 96 * 96 * 96);
    EXPECT_GT(roof.run(RoofKind::OpenBlas).cpu_ms, 0);
    const Tensor3 from_openblas = roof.result();
    roof.run(RoofKind::Backend);
    double diff = 0;
    for (int64_t k = 0; k < from_openblas.size(); ++k)
        diff = std::max(diff, double(std::abs(from_openblas.data()[k] - roof.result().data()[k])));
    EXPECT_LE(diff, 1e-3);
    EXPECT_GT(std::abs(roof.result().data()[0]), 1.0f);  // a real product, not zeros
}

TEST(BenchSlopes, LogLogFitRecoversExponents) {
    BenchReport r;
    std::cout << "[case] synthetic points: time ∝ n², memory ∝ n, plus a skipped point that must be ignored\n";
    for (int n : {1024, 2048, 4096, 8192}) {
        BenchPoint p;
        p.label = p.variant = "quad";
        p.n = n;
        p.time.median_ms = 1e-6 * double(n) * n;
        p.peak_bytes = int64_t(16) * n;
        r.points.push_back(p);
    }
    BenchPoint skipped = r.points.back();
    skipped.n = 65536, skipped.status = PointStatus::SkippedBudget, skipped.time.median_ms = 1;
    r.points.push_back(skipped);
    const auto fits = fit_slopes(r);
    ASSERT_EQ(fits.size(), 1u);
    EXPECT_NEAR(fits[0].time_slope, 2.0, 1e-9);
    EXPECT_NEAR(fits[0].memory_slope, 1.0, 1e-9);
    EXPECT_EQ(fits[0].points, 4);
    EXPECT_EQ(fits[0].n_hi, 8192);
    EXPECT_EQ(fit_slopes(r, 4096).at(0).points, 2);
    EXPECT_TRUE(fit_slopes(r, 8192).empty());  // one point: no slope
}

TEST(BenchReportSchema, SkippedPointsKeepTheirReasonInCsv) {
    BenchReport r;
    BenchPoint p;
    p.variant = p.label = "flash";
    p.n = 65536;
    p.status = PointStatus::SkippedMemory;
    p.reason = "flash needs an estimated 9 MiB, but \"only\" 1 MiB";
    r.points.push_back(p);
    std::cout << "[case] one skipped point with a comma and quotes in its reason\n";
    std::istringstream csv(bench_report_to_csv(r));
    std::string header, row;
    std::getline(csv, header);
    std::getline(csv, row);
    const auto fields = split_csv_row(row);
    ASSERT_EQ(fields.size(), bench_csv_columns().size());
    EXPECT_EQ(fields.back(), p.reason);
    EXPECT_EQ(fields[7], "skipped-memory");
}

TEST(BenchEngine, CancellationStopsTheSweepAndSaysSo) {
    auto backend = make_backend("cpu");
    BenchConfig c = tiny_config({"flash"}, {64, 128, 256});
    int points = 0;
    BenchCallbacks cb;
    cb.on_point = [&](const BenchPoint&) { ++points; };
    cb.cancel_requested = [&] { return points >= 1; };
    std::cout << "[case] cancel after the first point of 3\n";
    const BenchReport r = run_bench(c, *backend, cb);
    ASSERT_EQ(r.points.size(), 3u);
    EXPECT_EQ(r.points[0].status, PointStatus::Measured);
    EXPECT_EQ(r.points[1].status, PointStatus::Cancelled);
    EXPECT_EQ(r.points[2].status, PointStatus::Cancelled);
    EXPECT_TRUE(r.cancelled);
}

TEST(BenchEngine, UnknownVariantIsAConfigurationError) {
    auto backend = make_backend("cpu");
    BenchConfig c = tiny_config({"flash"}, {64});
    c.variants.push_back({"no-such-variant", Params{}, ""});
    std::cout << "[case] unknown variant id\n";
    EXPECT_THROW(run_bench(c, *backend), Error);
}

TEST(BenchJob, SweepFinishesWithEveryPoint) {
    auto backend = make_backend("cpu");
    BenchJob job(tiny_config({"flash"}, {64, 128}));
    std::cout << "[case] sweep job flash n=64,128 H=1 d=16, run in place\n";
    InPlaceJobContext ctx(*backend, job);
    job.execute(ctx);
    ASSERT_EQ(job.state(), JobState::Done) << job.error();
    ASSERT_TRUE(job.report());
    EXPECT_EQ(job.report()->points.size(), 2u);
    EXPECT_EQ(job.sweep_progress().points_total, 2);
    EXPECT_FLOAT_EQ(job.progress(), 1.0f);
}

TEST(BenchJob, CancelStopsAndABadConfigFails) {
    auto backend = make_backend("cpu");
    BenchConfig c = tiny_config({"flash"}, {64, 128, 256, 512});
    std::cout << "[case] cancelled before it runs; then an empty variant list\n";
    {
        BenchJob job(c);
        job.cancel();
        InPlaceJobContext ctx(*backend, job);
        job.execute(ctx);
        EXPECT_EQ(job.state(), JobState::Cancelled);
        EXPECT_TRUE(job.report()->points.empty());
    }
    c.variants.clear();
    BenchJob job(c);
    InPlaceJobContext ctx(*backend, job);
    job.execute(ctx);
    EXPECT_EQ(job.state(), JobState::Failed);
    EXPECT_NE(job.error().find("no variant"), std::string::npos) << job.error();
}

// [SECTION] Linformer Table 3 (the table logic on hand-made points)

TEST(LinformerTable, RatiosComeFromTheMatchingPoints) {
    LinformerTable t;
    t.config.ns = {1024};
    t.config.ks = {128};
    auto point = [](std::string label, std::string id, double ms, int64_t peak) {
        BenchPoint p;
        p.variant = std::move(id), p.label = std::move(label);
        p.n = 1024, p.heads = 1, p.d = 64, p.dv = 64;
        p.time.median_ms = ms;
        p.peak_bytes = peak;
        return p;
    };
    t.report.points = {point("full", "full", 10, 1000), point("linformer[k=128]", "linformer", 2, 100)};
    std::cout << "[case] full 10 ms / 1000 B vs linformer[k=128] 2 ms / 100 B at n=1024\n";
    EXPECT_DOUBLE_EQ(t.time_saved(1024, 128), 5.0);
    EXPECT_DOUBLE_EQ(t.memory_saved(1024, 128), 10.0);
    EXPECT_EQ(t.time_saved(1024, 256), 0.0);  // no such point
    const std::string md = linformer_table_markdown(t);
    EXPECT_NE(md.find("5.0× (1.7×)"), std::string::npos) << md;   // ours (paper)
    EXPECT_NE(md.find("10× (3.0×)"), std::string::npos) << md;
    // full skipped: memory falls back on its exact estimate, flagged.
    t.report.points[0].status = PointStatus::SkippedMemory;
    bool estimated = false;
    const double saved = t.memory_saved(1024, 128, &estimated);
    EXPECT_TRUE(estimated);
    EXPECT_DOUBLE_EQ(saved, 4.0 * 1024 * (1024 + 64) / 100.0);
    EXPECT_EQ(t.time_saved(1024, 128), 0.0);
}

TEST(LinformerTable, TheRegisteredLinformerVariantIsAccepted) {
    std::cout << "[case] require_linformer_variant with the built-in registry\n";
    EXPECT_NO_THROW(require_linformer_variant());
}

}  // namespace
}  // namespace attnscope::test

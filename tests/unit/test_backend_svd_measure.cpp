// The singular-values primitive on every backend (exact and randomized top-k) against matrices with known
// singular values and against the CPU backend; and the device measurement seam: CostMeter / DeviceMeter /
// the bench engine take time and device memory from the backend, and device memory is checked before launch.
// The device logic is exercised on the host through FakeDevice, a CPU backend that pretends to have a device
// with scripted clock and memory figures; on a machine with a GPU the "cuda" cases check the real thing.
//
// Index: [SECTION] singular values  [SECTION] measurement  [SECTION] device memory guard
#include <Eigen/QR>
#include <chrono>
#include <cmath>
#include <thread>

#include "tests/unit/backend_suite.h"
#include "core/analysis/spectrum.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/interface/cost_meter.h"
#include "core/bench/backend_clock.h"
#include "core/bench/memory_guard.h"
#include "core/bench/report.h"
#include "core/bench/engine.h"
#include "core/data/scenarios.h"
#include "core/backend/cpu/cpu_primitives.h"
#include "core/backend/shared/random.h"
#include "core/session/experiment.h"
#include "core/session/result_json.h"
#include "core/session/worker.h"
#include "core/variants/registry.h"

namespace attnscope::test {
namespace {

// [SECTION] singular values

/// H heads of rows × cols matrices U_h·diag(σ)·V_hᵀ with seeded random orthonormal U_h, V_h (the same σ per head,
/// scaled by 1 + h so heads differ).
Tensor3 known_spectrum(int H, int rows, int cols, const std::vector<double>& sigma, uint64_t seed) {
    const int r = static_cast<int>(sigma.size());
    Tensor3 t(H, rows, cols);
    for (int h = 0; h < H; ++h) {
        auto orthonormal = [&](int n, uint64_t s) {
            Eigen::MatrixXd G(n, r);
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < r; ++j) G(i, j) = rng::normal(s, 31, uint64_t(i) * r + j);
            Eigen::HouseholderQR<Eigen::MatrixXd> qr(G);
            return Eigen::MatrixXd(qr.householderQ() * Eigen::MatrixXd::Identity(n, r));
        };
        Eigen::VectorXd s(r);
        for (int l = 0; l < r; ++l) s[l] = sigma[l] * (1 + h);
        const Eigen::MatrixXd M = orthonormal(rows, seed + 2 * h) * s.asDiagonal() * orthonormal(cols, seed + 2 * h + 1).transpose();
        t.head(h) = M.cast<float>();
    }
    return t;
}

struct SvdCase {
    std::string backend;
    int H, rows, cols;
    int top_k;  // 0 = exact
};

void PrintTo(const SvdCase& c, std::ostream* os) {
    *os << c.backend << " H=" << c.H << " " << c.rows << "x" << c.cols << " top_k=" << c.top_k;
}

class SingularValuesSuite : public testing::TestWithParam<SvdCase> {};

// Exact: every σ of every head equals the constructed one; the backend agrees with the CPU backend.
// Randomized: rank 12 plus nothing else, so the top 12 are recovered exactly and the rest are ~0; and the
// same seed gives the same sketch, so the backend agrees with the CPU estimate to fp32 rounding.
TEST_P(SingularValuesSuite, KnownValuesAndCpuAgreement) {
    const SvdCase c = GetParam();
    ATTNSCOPE_BACKEND_OR_SKIP(backend, c.backend);
    const int k_all = std::min(c.rows, c.cols);
    const int rank = c.top_k == 0 ? k_all : 12;
    std::vector<double> sigma(rank);
    for (int l = 0; l < rank; ++l) sigma[l] = 5.0 * std::pow(0.8, l);
    const Tensor3 M = known_spectrum(c.H, c.rows, c.cols, sigma, 40 + c.rows);
    const double tolerance = 2e-4;  // relative to σ_1 of the head; fp32 factorisations
    std::cout << "[case] singular_values backend=" << c.backend << " H=" << c.H << " " << c.rows << "x" << c.cols
              << " top_k=" << c.top_k << " tol=" << tolerance << "·σ1\n";
    std::vector<double> S, S_cpu;
    SingularValuesArgs a;
    a.M = &M, a.top_k = c.top_k, a.seed = 7, a.S = &S;
    backend->singular_values(a);
    const int k = c.top_k == 0 ? k_all : std::min(c.top_k, k_all);
    ASSERT_EQ(S.size(), size_t(c.H) * k);
    a.S = &S_cpu;
    cpu_singular_values(a);
    ASSERT_EQ(S_cpu.size(), S.size());
    for (int h = 0; h < c.H; ++h) {
        const double s1 = sigma[0] * (1 + h);
        for (int l = 0; l < k; ++l) {
            const double expected = l < rank ? sigma[l] * (1 + h) : 0.0;
            EXPECT_NEAR(S[size_t(h) * k + l], expected, tolerance * s1) << "head " << h << " σ_" << l;
            EXPECT_NEAR(S[size_t(h) * k + l], S_cpu[size_t(h) * k + l], tolerance * s1) << "vs cpu, head " << h << " σ_" << l;
            if (l > 0) {
                EXPECT_GE(S[size_t(h) * k + l - 1] + 1e-6 * s1, S[size_t(h) * k + l]) << "descending";
            }
        }
    }
}

std::vector<SvdCase> svd_cases() {
    std::vector<SvdCase> out;
    for (const std::string& b : suite_backends()) {
        // Batched Jacobi on CUDA (≤ 32×32, many heads), including non-square and 1×k.
        out.push_back({b, 12, 16, 16, 0});
        out.push_back({b, 6, 32, 20, 0});
        out.push_back({b, 6, 20, 32, 0});
        out.push_back({b, 3, 1, 9, 0});
        // gesvd per head on CUDA: rows ≥ cols as it lies, and rows < cols (transposed on the device).
        out.push_back({b, 2, 100, 60, 0});
        out.push_back({b, 2, 60, 100, 0});
        out.push_back({b, 1, 130, 130, 0});
        // Randomized top-k.
        out.push_back({b, 2, 300, 200, 20});
        out.push_back({b, 1, 150, 400, 16});
    }
    return out;
}

std::string svd_name(const testing::TestParamInfo<SvdCase>& info) {
    const SvdCase& c = info.param;
    return c.backend + "_H" + std::to_string(c.H) + "_" + std::to_string(c.rows) + "x" + std::to_string(c.cols) + "_k" +
           std::to_string(c.top_k);
}

INSTANTIATE_TEST_SUITE_P(Backends, SingularValuesSuite, testing::ValuesIn(svd_cases()), svd_name);

TEST(SingularValues, OneHeadEqualsItsRowOfAllHeadsAndSpectrumUsesTheBackend) {
    std::cout << "[case] head selection H=3 40x30 exact; compute_spectrum(M, h, cpu) = compute_spectrum(M, h)\n";
    const Tensor3 M = known_spectrum(3, 40, 30, {3, 2, 1, 0.5}, 5);
    CpuBackend cpu;
    std::vector<double> all, one;
    SingularValuesArgs a;
    a.M = &M, a.S = &all;
    cpu.singular_values(a);
    a.head = 2, a.S = &one;
    cpu.singular_values(a);
    ASSERT_EQ(one.size(), 30u);
    for (int l = 0; l < 30; ++l) EXPECT_EQ(one[l], all[2 * 30 + l]) << l;
    const Spectrum via_backend = compute_spectrum(M, 2, cpu), plain = compute_spectrum(M, 2);
    EXPECT_EQ(via_backend.singular_values, plain.singular_values);
    EXPECT_EQ(via_backend.cumulative, plain.cumulative);
    EXPECT_TRUE(via_backend.exact);
}

TEST(SingularValues, BadArgumentsAreRefusedWithTheFix) {
    std::cout << "[case] singular_values: missing output, bad head, empty matrix, negative top_k\n";
    const Tensor3 M(2, 4, 4, 1.0f), empty(1, 0, 4);
    std::vector<double> S;
    CpuBackend cpu;
    SingularValuesArgs a;
    a.M = &M;
    EXPECT_THROW(cpu.singular_values(a), Error);
    a.S = &S, a.head = 2;
    try {
        cpu.singular_values(a);
        ADD_FAILURE() << "head 2 of 2 accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("choose 0 ≤ head < 2"), std::string::npos) << e.what();
    }
    a.head = -1, a.M = &empty;
    EXPECT_THROW(cpu.singular_values(a), Error);
    a.M = &M, a.top_k = -1;
    EXPECT_THROW(cpu.singular_values(a), Error);
}

// [SECTION] measurement

/// A CPU backend that pretends to own a device: every primitive call adds `ms_per_call` device ms (of which
/// `copy_ms_per_call` copying `copy_bytes_per_call`) and `call_wall_ms` host ms to its clock and holds
/// `bytes_per_call` device bytes during the call; free device memory is `free_bytes`. It lets the measurement and guard logic run on any machine.
class FakeDevice : public CpuBackend {
public:
    double ms_per_call = 2.5, call_wall_per_call = 0.0, copy_ms_per_call = 1.0;
    int64_t bytes_per_call = 1000, free_bytes = int64_t(1) << 40, copy_bytes_per_call = 512;
    int calls = 0;
    std::string name() const override { return "fake-device"; }
    bool has_device() const override { return true; }
    DeviceClock device_clock() const override { return m_clock; }
    void set_device_peak(int64_t bytes) override { m_clock.peak_bytes = bytes; }
    int64_t device_free_bytes() const override { return free_bytes; }
    void dense_attention(const DenseAttentionArgs& args) override {
        hold();
        CpuBackend::dense_attention(args);
    }
    void gemm(const Tensor3& A, bool ta, const Tensor3& B, bool tb, float alpha, float beta, Tensor3& C) override {
        hold();
        CpuBackend::gemm(A, ta, B, tb, alpha, beta, C);
    }
    /// Inputs kept on the "device": their first floats, cleared by release_device_inputs.
    std::vector<const float*> kept;
    int releases = 0, calls_while_kept = 0;
    void keep_inputs_on_device(const std::vector<const Tensor3*>& tensors) override {
        for (const Tensor3* t : tensors) kept.push_back(t->data());
    }
    void release_device_inputs() override { kept.clear(), ++releases; }
    /// One call: the device bytes rise to live + bytes_per_call and fall back; the clocks advance.
    void hold() {
        ++calls;
        calls_while_kept += kept.size() == 3;
        m_clock.peak_bytes = std::max(m_clock.peak_bytes, m_clock.live_bytes + bytes_per_call);
        m_clock.ms_total += ms_per_call;
        m_clock.call_wall_ms_total += call_wall_per_call;
        m_clock.copy_ms_total += copy_ms_per_call;
        m_clock.copy_bytes_total += copy_bytes_per_call;
    }
    DeviceClock m_clock;
};

TEST(DeviceMeasurement, CpuBackendKeepsTheWallClock) {
    std::cout << "[case] CostMeter on the CPU backend: clock=wall, no device figures\n";
    CpuBackend cpu;
    Cost cost;
    {
        CostMeter meter(cpu);
        Tensor3 A(1, 64, 64, 1.0f), C(1, 64, 64);
        cpu.gemm(A, false, A, false, 1, 0, C);
        meter.stop(cost);
    }
    EXPECT_EQ(cost.clock, "wall");
    EXPECT_EQ(cost.time_ms, cost.wall_ms);
    EXPECT_EQ(cost.device_ms, 0);
    EXPECT_EQ(cost.peak_device_bytes, 0);
    EXPECT_GE(cost.peak_bytes, int64_t(64 * 64 * 4)) << "the host tensor C was made inside the meter";
}

TEST(DeviceMeasurement, DeviceBackendTimeIsEventsPlusHostWorkAndPeakIsDeviceMemory) {
    std::cout << "[case] CostMeter on a fake device: 3 calls × 2.5 device ms, 1000 B each over 500 B held\n";
    FakeDevice dev;
    dev.m_clock.live_bytes = 500, dev.m_clock.peak_bytes = 9999;  // an older peak from before the scope
    dev.call_wall_per_call = 0;  // calls take no host time: time_ms = device ms + the whole wall time
    Cost cost;
    {
        CostMeter meter(dev);
        for (int i = 0; i < 3; ++i) dev.hold();
        meter.stop(cost);
    }
    EXPECT_EQ(cost.clock, "cuda-events+host-wall");
    EXPECT_DOUBLE_EQ(cost.device_ms, 7.5);
    EXPECT_NEAR(cost.time_ms, 7.5 + cost.wall_ms, 1e-9);
    EXPECT_EQ(cost.peak_device_bytes, 1000) << "peak above the level held when the meter started";
    EXPECT_EQ(dev.m_clock.peak_bytes, 9999) << "the outer scope's older peak is restored when the meter ends";

    // Host time inside the calls is replaced by their device time (it can only lower time_ms below wall + device).
    dev.call_wall_per_call = 1e6;
    {
        CostMeter meter(dev);
        dev.hold();
        meter.stop(cost);
    }
    EXPECT_DOUBLE_EQ(cost.time_ms, cost.device_ms) << "host time outside the calls clamps at 0";
}

TEST(DeviceMeasurement, PairedComparisonsReadTheDeviceClockOnADevice) {
    std::cout << "[case] a lesson's paired timing: device ms of the calls on a device, CPU time on the CPU\n";
    FakeDevice dev;
    dev.call_wall_per_call = 1e6;  // host time inside the calls is replaced by their device time
    const PairedRatio t = paired_backend_ratio(dev, [&] { dev.hold(); }, [&] { dev.hold(), dev.hold(), dev.hold(); }, 5);
    EXPECT_EQ(t.runs, 5);
    EXPECT_DOUBLE_EQ(t.a_median_ms, 2.5) << "one call: 2.5 device ms";
    EXPECT_DOUBLE_EQ(t.b_median_ms, 7.5) << "three calls";
    EXPECT_DOUBLE_EQ(t.ratio, 3.0);
    EXPECT_STREQ(backend_time_name(dev), "device time");

    // Host work between the calls counts by wall clock on a device; a sleeping host uses no CPU time on the CPU.
    const auto sleep_30ms = [] { std::this_thread::sleep_for(std::chrono::milliseconds(30)); };
    dev.call_wall_per_call = 0;
    EXPECT_GE(backend_work_ms(dev, sleep_30ms), 30.0) << "the host's wait is part of the device run's time";
    CpuBackend cpu;
    EXPECT_LT(backend_work_ms(cpu, sleep_30ms), 15.0) << "on the CPU the clock is CPU time, not wall time";
    EXPECT_STREQ(backend_time_name(cpu), "CPU time");
}

TEST(DeviceMeasurement, NestedMetersSeeTheirOwnPeaks) {
    std::cout << "[case] DeviceMeter nesting: outer sees the inner scope's peak, inner restarts the mark\n";
    FakeDevice dev;
    DeviceMeter outer(dev);
    dev.bytes_per_call = 5000;
    dev.hold();
    {
        dev.bytes_per_call = 100;
        DeviceMeter inner(dev);
        dev.hold();
        EXPECT_EQ(inner.peak_device_bytes(), 100);
        EXPECT_DOUBLE_EQ(inner.device_ms(), 2.5);
    }
    EXPECT_EQ(outer.peak_device_bytes(), 5000);
    EXPECT_DOUBLE_EQ(outer.device_ms(), 5.0);
}

TEST(DeviceMeasurement, VariantCostAndJsonCarryDeviceFigures) {
    std::cout << "[case] full on a fake device: cost.device_ms = calls × 2.5, peak_device_bytes in the JSON\n";
    FakeDevice dev;
    ScenarioSpec s;
    s.n = 64, s.heads = 2, s.dim = 16;
    const Heads h = make_scenario(s);
    const RunResult r = run_variant(h, parse_variant_request("full", {}), RunOptions{}, dev, nullptr);
    ASSERT_GE(dev.calls, 1);
    EXPECT_EQ(r.cost.clock, "cuda-events+host-wall");
    EXPECT_DOUBLE_EQ(r.cost.device_ms, 2.5 * dev.calls);
    EXPECT_EQ(r.cost.peak_device_bytes, 1000);
    const nlohmann::json j = result_to_json(r);
    EXPECT_EQ(j["cost"]["peak_device_bytes"], 1000);
    EXPECT_EQ(j["cost"]["clock"], "cuda-events+host-wall");
}

/// A bench of flash at n = 64 and 128 (H = 2, d = 16) with `plan`'s warm-ups and runs, no machine roofs.
BenchConfig flash_bench(TimingPlan plan) {
    BenchConfig c;
    c.variants = {{"flash", default_params(find_variant("flash").info().params), ""}};
    c.ns = {64, 128};
    c.heads = 2, c.dim = 16, c.plan = plan, c.measure_machine = false, c.rss_cross_check = false;
    return c;
}

TEST(DeviceMeasurement, BenchTakesTheBackendClock) {
    std::cout << "[case] bench on a fake device (flash n=64,128): samples are device + host ms, copies apart, JSON "
                 "labels device bytes\n";
    FakeDevice dev;
    dev.bytes_per_call = 4096;
    dev.copy_ms_per_call = 0.75, dev.copy_bytes_per_call = 2048;
    const BenchReport r = run_bench(flash_bench({0, 3}), dev);
    ASSERT_EQ(r.points.size(), 2u);
    for (const BenchPoint& p : r.points) {
        ASSERT_TRUE(p.measured()) << p.reason;
        EXPECT_EQ(p.clock, "cuda-events+host-wall");
        EXPECT_GE(p.device_median_ms, 2.5);
        EXPECT_GE(p.time.median_ms, p.device_median_ms);
        EXPECT_EQ(p.peak_device_bytes, 4096);
        // Copies are the backend's copy clock over the same calls: 0.75 of every 2.5 device ms.
        const double calls = p.device_median_ms / 2.5;
        EXPECT_GE(calls, 1.0);
        EXPECT_DOUBLE_EQ(p.device_copy_median_ms, 0.75 * calls);
        EXPECT_EQ(p.device_copy_bytes, int64_t(2048 * calls));
    }
    const nlohmann::json j = bench_report_to_json(r);
    EXPECT_DOUBLE_EQ(j["points"][0]["device_copy_median_ms"].get<double>(), r.points[0].device_copy_median_ms);
    EXPECT_EQ(j["points"][0]["device_copy_bytes"], r.points[0].device_copy_bytes);
    EXPECT_EQ(j["points"][0]["memory"]["peak_device_bytes"], 4096);
    EXPECT_EQ(j["points"][0]["clock"], "cuda-events+host-wall");
}

TEST(DeviceMeasurement, BenchKeepsQKVOnTheDeviceAcrossAPointsRuns) {
    std::cout << "[case] bench on a fake device (flash n=64,128, 1 warm-up + 3 runs): every primitive call happens "
                 "while Q, K, V are kept, and they are released after each point\n";
    FakeDevice dev;
    const BenchReport r = run_bench(flash_bench({1, 3}), dev);
    ASSERT_EQ(r.points.size(), 2u);
    EXPECT_GE(dev.calls, 8) << "4 runs of each point";
    EXPECT_EQ(dev.calls_while_kept, dev.calls) << "a run whose inputs were not kept would copy them again";
    EXPECT_EQ(dev.releases, 2) << "one release per point";
    EXPECT_TRUE(dev.kept.empty());
}

/// On every backend of the suite: a real run reports figures from the backend's own clock and memory.
class MeasurementSuite : public testing::TestWithParam<std::string> {};

TEST_P(MeasurementSuite, RunCostComesFromTheBackend) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] measurement backend=" << GetParam() << " flash H=2 n=256 d=32\n";
    ScenarioSpec s;
    s.n = 256, s.heads = 2, s.dim = 32;
    const Heads h = make_scenario(s);
    const RunResult r = run_variant(h, parse_variant_request("flash", {}), RunOptions{}, *backend, nullptr);
    EXPECT_GT(r.cost.wall_ms, 0);
    if (backend->has_device()) {
        EXPECT_EQ(r.cost.clock, "cuda-events+host-wall");
        EXPECT_GT(r.cost.device_ms, 0);
        // Q, K, V and O at least were on the device at once.
        EXPECT_GE(r.cost.peak_device_bytes, int64_t(4) * 2 * 256 * 32 * 4);
        // The copy clock: Q, K, V went up and O came down, within the call's device time.
        DeviceMeter meter(*backend);
        (void)run_variant(h, parse_variant_request("flash", {}), RunOptions{}, *backend, nullptr);
        EXPECT_GE(meter.copy_bytes(), int64_t(4) * 2 * 256 * 32 * 4);
        EXPECT_GT(meter.copy_ms(), 0);
        EXPECT_LT(meter.copy_ms(), meter.device_ms());
    } else {
        EXPECT_EQ(r.cost.clock, "wall");
        EXPECT_EQ(r.cost.peak_device_bytes, 0);
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, MeasurementSuite, testing::ValuesIn(suite_backends()));

// [SECTION] device memory guard

TEST(DeviceMemoryGuard, RunRefusedBeforeLaunchWithNeededAndFree) {
    std::cout << "[case] flash n=512 H=4 on a fake device with 1 MiB free: DeviceMemoryError before any call\n";
    FakeDevice dev;
    dev.free_bytes = 1 << 20;
    ScenarioSpec s;
    s.n = 512, s.heads = 4, s.dim = 64;
    const Heads h = make_scenario(s);
    try {
        run_variant(h, parse_variant_request("flash", {}), RunOptions{}, dev, nullptr);
        ADD_FAILURE() << "the run was not refused";
    } catch (const DeviceMemoryError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("needs an estimated"), std::string::npos) << m;
        EXPECT_NE(m.find("1.0 MiB are free"), std::string::npos) << m;
        EXPECT_NE(m.find("--backend cpu"), std::string::npos) << m;
    }
    EXPECT_EQ(dev.calls, 0) << "nothing may run once the estimate does not fit";
    dev.free_bytes = int64_t(1) << 40;
    EXPECT_NO_THROW(run_variant(h, parse_variant_request("flash", {}), RunOptions{}, dev, nullptr));
}

TEST(DeviceMemoryGuard, BenchSkipsAndWorkerOffersTheCpu) {
    std::cout << "[case] 1 MiB free: bench point skipped-memory; worker batch marks device_memory, backend=cpu runs\n";
    FakeDevice dev;
    dev.free_bytes = 1 << 20;
    BenchConfig c;
    c.variants = {{"flash", default_params(find_variant("flash").info().params), ""}};
    c.ns = {1024};
    c.heads = 4, c.dim = 64, c.plan = {0, 1}, c.measure_machine = false, c.rss_cross_check = false;
    const BenchReport r = run_bench(c, dev);
    ASSERT_EQ(r.points.size(), 1u);
    EXPECT_EQ(r.points[0].status, PointStatus::SkippedMemory);
    EXPECT_NE(r.points[0].reason.find("device memory"), std::string::npos) << r.points[0].reason;

    RunBatchRequest batch;
    batch.input.scenario.n = 1024, batch.input.scenario.heads = 4, batch.input.scenario.dim = 64;
    batch.variants = {parse_variant_request("flash", {})};
    batch.max_matrix_n = 0;
    const auto snap = run_batch(batch, dev, nullptr);
    ASSERT_TRUE(snap && snap->variants.size() == 1);
    EXPECT_TRUE(snap->variants[0].device_memory) << snap->variants[0].error;
    EXPECT_NE(snap->variants[0].error.find("--backend cpu"), std::string::npos);
    CpuBackend cpu;  // what "Run on CPU" gives the batch
    const auto on_cpu = run_batch(batch, cpu, nullptr);
    ASSERT_TRUE(on_cpu && on_cpu->variants.size() == 1);
    EXPECT_TRUE(on_cpu->variants[0].error.empty()) << on_cpu->variants[0].error;
    EXPECT_FALSE(on_cpu->variants[0].device_memory);
}

}  // namespace
}  // namespace attnscope::test

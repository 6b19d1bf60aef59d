// attnscope micro-benchmarks — the kernel variants (performer, linear, efficient, taylor, fnet) against flash
// over n, on the CPU backend, through run_variant (the same path as the CLI, without metrics).
// Time is the run's own CostMeter wall time (what `attnscope run` reports as time_ms: the algorithm with its
// allocations, not input validation or display extras), fed to Google Benchmark as manual time.
// Counters: peak_MiB = peak tracked bytes of the run (outputs included), bytes_per_n = peak / n (flat when
// memory grows linearly).
//   ./build/bench/attnscope_microbench --benchmark_filter='core/backend/cuda/' --benchmark_format=json > kernels.json
#include <benchmark/benchmark.h>

#include <string>
#include <utility>
#include <vector>

#include "core/backend/factory/make_backend.h"
#include "core/data/scenarios.h"
#include "core/session/experiment.h"

namespace attnscope {
namespace {

using Sets = std::vector<std::pair<std::string, std::string>>;

void bm_variant(benchmark::State& state, const std::string& id, const Sets& sets) {
    ScenarioSpec spec;
    spec.n = static_cast<int>(state.range(0));
    spec.heads = 1, spec.dim = 64, spec.seed = 1;
    const Heads in = make_scenario(spec);
    auto backend = make_backend("cpu");
    const VariantRequest request = parse_variant_request(id, sets);
    const RunOptions options;
    int64_t peak = 0;
    for (auto _ : state) {
        RunResult r = run_variant(in, request, options, *backend, nullptr);
        state.SetIterationTime(r.cost.time_ms / 1000.0);
        peak = std::max(peak, r.cost.peak_bytes);
        benchmark::DoNotOptimize(r.O.data());
    }
    state.counters["peak_MiB"] = double(peak) / (1 << 20);
    state.counters["bytes_per_n"] = double(peak) / spec.n;
}

// n = 4096 … 65536 (×2) for the linear-time variants; flash only up to 16384 (quadratic: minutes beyond).
void linear_range(benchmark::internal::Benchmark* b) {
    b->RangeMultiplier(2)->Range(4096, 65536)->Unit(benchmark::kMillisecond)->UseManualTime();
}

BENCHMARK_CAPTURE(bm_variant, core/backend/cuda/performer_m256, std::string("performer"), Sets{{"features", "256"}})
    ->Apply(linear_range);
BENCHMARK_CAPTURE(bm_variant, core/backend/cuda/performer_m256_causal, std::string("performer"),
                  Sets{{"features", "256"}, {"causal", "1"}})
    ->Apply(linear_range);
BENCHMARK_CAPTURE(bm_variant, core/backend/cuda/linear, std::string("linear"), Sets{})->Apply(linear_range);
BENCHMARK_CAPTURE(bm_variant, core/backend/cuda/linear_causal, std::string("linear"), Sets{{"causal", "1"}})->Apply(linear_range);
BENCHMARK_CAPTURE(bm_variant, core/backend/cuda/efficient, std::string("efficient"), Sets{})->Apply(linear_range);
BENCHMARK_CAPTURE(bm_variant, core/backend/cuda/taylor, std::string("taylor"), Sets{})->Apply(linear_range);
BENCHMARK_CAPTURE(bm_variant, core/backend/cuda/taylor_causal, std::string("taylor"), Sets{{"causal", "1"}})->Apply(linear_range);
BENCHMARK_CAPTURE(bm_variant, core/backend/cuda/fnet, std::string("fnet"), Sets{})->Apply(linear_range);
BENCHMARK_CAPTURE(bm_variant, core/backend/cuda/flash, std::string("flash"), Sets{})
    ->RangeMultiplier(2)
    ->Range(4096, 16384)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

}  // namespace
}  // namespace attnscope

// attnscope micro-benchmark — the masked family's scaling claims (issue 3):
//   * longformer (w = 256) and bigbird (b = 64) cost the same per allowed cell from n = 4096 to 65536
//     (counter ns_per_cell), i.e. they grow linearly in n;
//   * at n = 16384 longformer (w = 256) is ≥ 10× faster than flash.
// Each iteration is one Variant::run (layout build + block-sparse attention; no metrics, no reference),
// timed by the run's own CostMeter (manual time). Gaussian input, H = 4, d = dv = 64.
// Run: ./build/bench/attnscope_microbench --benchmark_filter='SparseLongformer|SparseBigBird|Flash16k'
#include <benchmark/benchmark.h>

#include <algorithm>

#include "core/backend/cpu/cpu_backend.h"
#include "core/data/scenarios.h"
#include "core/variants/registry.h"

namespace attnscope {
namespace {

constexpr int kHeads = 4, kDim = 64;

void run_variant_bench(benchmark::State& state, const std::string& id,
                       const std::vector<std::pair<std::string, std::string>>& sets) {
    ScenarioSpec spec;
    spec.n = static_cast<int>(state.range(0)), spec.heads = kHeads, spec.dim = kDim, spec.seed = 1;
    const Heads x = make_scenario(spec);
    const Variant& v = find_variant(id);
    const Params p = v.resolve(parse_params(id, v.info().params, sets), x.shape());
    CpuBackend backend;
    RunOptions options;
    double cells = 0, total_ms = 0;
    int runs = 0;
    for (auto _ : state) {
        const RunResult r = v.run(x, p, options, backend);
        state.SetIterationTime(r.cost.time_ms / 1e3);
        total_ms += r.cost.time_ms, ++runs;
        const double denom = r.causal ? 0.5 * double(x.n()) * (x.n() + 1.0) : double(x.n()) * x.n();
        cells = r.structure.density.value_or(1.0) * denom * kHeads;
    }
    state.counters["allowed_cells"] = cells;
    state.counters["ns_per_cell"] = total_ms * 1e6 / (std::max(1, runs) * std::max(1.0, cells));
}

void SparseLongformerW256(benchmark::State& s) { run_variant_bench(s, "longformer", {{"window", "256"}}); }
void SparseBigBirdB64(benchmark::State& s) { run_variant_bench(s, "bigbird", {{"block", "64"}}); }
void Flash16k(benchmark::State& s) { run_variant_bench(s, "flash", {}); }
// The rest of the family at its defaults, for the same per-cell view (not part of the targets).
void SparseStrided(benchmark::State& s) { run_variant_bench(s, "strided", {}); }
void SparseFixed(benchmark::State& s) { run_variant_bench(s, "fixed", {}); }
void SparseXl(benchmark::State& s) { run_variant_bench(s, "xl", {}); }

BENCHMARK(SparseLongformerW256)
    ->RangeMultiplier(4)
    ->Range(4096, 65536)
    ->Iterations(3)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(SparseBigBirdB64)
    ->RangeMultiplier(4)
    ->Range(4096, 65536)
    ->Iterations(3)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(SparseStrided)->RangeMultiplier(4)->Range(4096, 65536)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(SparseFixed)->RangeMultiplier(4)->Range(4096, 65536)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(SparseXl)->RangeMultiplier(4)->Range(4096, 65536)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(Flash16k)->Arg(16384)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace attnscope

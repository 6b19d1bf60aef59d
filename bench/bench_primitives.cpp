// attnscope — Google Benchmark micro-benchmarks of each CPU primitive: gemm, dense attention (tiled online
// softmax and materialised P) and the pooled view. Built as attnscope_microbench, never run by ctest.
//   ./build/bench/attnscope_microbench --benchmark_filter=DenseTiled --benchmark_min_time=0.5
// Counters: GFLOP (shown per second) from the same analytic FLOPs the variants report (4·n²·d per head for exact attention).
#include <benchmark/benchmark.h>

#include <cmath>

#include "core/backend/cpu/cpu_primitives.h"
#include "core/backend/shared/random.h"

namespace attnscope {
namespace {

Tensor3 random_tensor(int H, int rows, int cols, uint64_t seed) {
    Tensor3 t(H, rows, cols);
    for (int64_t k = 0; k < t.size(); ++k) t.data()[k] = static_cast<float>(rng::normal(seed, 11, k));
    return t;
}

void set_rate(benchmark::State& state, double flops_per_iteration) {
    state.counters["GFLOP"] = benchmark::Counter(flops_per_iteration * 1e-9 * double(state.iterations()),
                                                   benchmark::Counter::kIsRate);
}

void BM_GemmSquare(benchmark::State& state) {
    const int n = static_cast<int>(state.range(0));
    const Tensor3 A = random_tensor(1, n, n, 1), B = random_tensor(1, n, n, 2);
    Tensor3 C(1, n, n);
    for (auto _ : state) {
        cpu_gemm(A, false, B, false, 1.0f, 0.0f, C);
        benchmark::DoNotOptimize(C.data());
    }
    set_rate(state, 2.0 * n * n * double(n));
}
BENCHMARK(BM_GemmSquare)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_GemmHeadsQKt(benchmark::State& state) {
    const int n = static_cast<int>(state.range(0)), H = 8, d = 64;
    const Tensor3 Q = random_tensor(H, n, d, 1), K = random_tensor(H, n, d, 2);
    Tensor3 S(H, n, n);
    for (auto _ : state) {
        cpu_gemm(Q, false, K, true, 1.0f, 0.0f, S);
        benchmark::DoNotOptimize(S.data());
    }
    set_rate(state, 2.0 * H * double(n) * n * d);
}
BENCHMARK(BM_GemmHeadsQKt)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

/// args: n, H, d, tile (Br = Bc); materialised when `materialise`.
void dense(benchmark::State& state, bool materialise) {
    const int n = static_cast<int>(state.range(0)), H = static_cast<int>(state.range(1));
    const int d = static_cast<int>(state.range(2)), tile = static_cast<int>(state.range(3));
    const Tensor3 Q = random_tensor(H, n, d, 1), K = random_tensor(H, n, d, 2), V = random_tensor(H, n, d, 3);
    Tensor3 O(H, n, d), lse(H, n, 1);
    Tensor3 P = materialise ? Tensor3(H, n, n) : Tensor3();
    DenseAttentionArgs a;
    a.Q = &Q, a.K = &K, a.V = &V, a.O = &O, a.lse = &lse, a.P = materialise ? &P : nullptr;
    a.scale = 1.0f / std::sqrt(float(d));
    a.tile_rows = a.tile_cols = tile;
    for (auto _ : state) {
        cpu_dense_attention(a);
        benchmark::DoNotOptimize(O.data());
    }
    set_rate(state, 4.0 * H * double(n) * n * d);
}

void BM_DenseTiled(benchmark::State& state) { dense(state, false); }
BENCHMARK(BM_DenseTiled)
    ->ArgNames({"n", "H", "d", "tile"})
    ->Args({1024, 8, 64, 64})
    ->Args({4096, 8, 64, 64})
    ->Args({4096, 8, 64, 128})
    ->Args({4096, 1, 64, 64})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_DenseMaterialised(benchmark::State& state) { dense(state, true); }
BENCHMARK(BM_DenseMaterialised)
    ->ArgNames({"n", "H", "d", "tile"})
    ->Args({1024, 8, 64, 64})
    ->Args({4096, 8, 64, 64})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_PooledView(benchmark::State& state) {
    const int n = static_cast<int>(state.range(0)), size = static_cast<int>(state.range(1));
    const PoolMode mode = state.range(2) ? PoolMode::Mean : PoolMode::Max;
    const Tensor3 M = random_tensor(1, n, n, 4);
    Tensor3 out;
    for (auto _ : state) {
        cpu_pooled_view(M, size, mode, out);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * M.bytes());
}
BENCHMARK(BM_PooledView)
    ->ArgNames({"n", "size", "mean"})
    ->Args({4096, 1024, 0})
    ->Args({4096, 1024, 1})
    ->Args({8192, 2048, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace attnscope

BENCHMARK_MAIN();

// attnscope micro-benchmarks — the one main() of attnscope_microbench (every bench/*.cpp registers cases).
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();

// Decoder prefill of the installed SmolLM2-135M-Instruct at n tokens: one forward pass over the whole text, as
// llama.cpp's prompt evaluation is (bench/peers/decoder_prefill.py pairs it with llama-cpp-python and reports tokens
// per second and peak memory in docs/PERFORMANCE.md). keep_qkv = 1 is what the views need (Q, K, V of every layer).
// Run: build/bench/attnscope_microbench --benchmark_filter=DecoderPrefill
// Skips (with a message) when the model is not installed (scripts/setup.sh).
#include <benchmark/benchmark.h>

#include <filesystem>

#include "core/data/text_model.h"

namespace {

void BM_DecoderPrefill(benchmark::State& state) {
    const std::string path = attnscope::default_decoder_path();
    if (!std::filesystem::exists(path)) {
        state.SkipWithError(("model not installed at " + path + ": run scripts/setup.sh").c_str());
        return;
    }
    const auto model = attnscope::load_decoder_model(path);
    // Real token ids: a sentence's pieces repeated to n.
    const std::vector<int> base = model->tokenizer.encode(
        "Efficient attention replaces the quadratic softmax with sparse, low-rank or kernelised approximations. ");
    const int n = static_cast<int>(state.range(0));
    std::vector<int> ids;
    for (size_t k = 0; static_cast<int>(ids.size()) < n; k = (k + 1) % base.size()) ids.push_back(base[k]);
    attnscope::DecoderOptions options;
    options.keep_qkv = state.range(1) != 0;
    for (auto _ : state) {
        auto out = model->decoder.forward(ids, options);
        benchmark::DoNotOptimize(out.hidden.data());
    }
    state.counters["tokens_per_s"] = benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DecoderPrefill)->ArgsProduct({{128, 512, 2048}, {0, 1}})->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();

}  // namespace

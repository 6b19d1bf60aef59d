// Encoder forward pass of the installed all-MiniLM-L6-v2 at n tokens (target: ≤ 50 ms at n = 128 on CPU).
// Run: build/bench/attnscope_microbench --benchmark_filter=EncoderForward
// Skips (with a message) when the model is not installed (scripts/setup.sh).
#include <benchmark/benchmark.h>

#include <filesystem>

#include "core/data/text_input.h"
#include "core/data/text_model.h"

namespace {

void BM_EncoderForward(benchmark::State& state) {
    const std::string dir = attnscope::default_model_dir();
    if (!std::filesystem::exists(std::filesystem::path(dir) / "model.safetensors")) {
        state.SkipWithError(("model not installed at " + dir + ": run scripts/setup.sh").c_str());
        return;
    }
    const auto model = attnscope::load_text_model(dir);
    // Real token ids: the sample text's pieces repeated to n, framed by [CLS] … [SEP].
    const std::vector<int> base = model->tokenizer.encode(
        "Efficient attention replaces the quadratic softmax with sparse, low-rank or kernelised approximations.").ids;
    const int n = static_cast<int>(state.range(0));
    std::vector<int> ids{base.front()};
    for (size_t k = 1; static_cast<int>(ids.size()) < n - 1; k = k + 1 < base.size() - 1 ? k + 1 : 1) ids.push_back(base[k]);
    ids.push_back(base.back());
    attnscope::EncoderOptions options;
    options.keep_probs = state.range(1) != 0;  // what the views need (probabilities of every layer) or not
    for (auto _ : state) {
        auto out = model->encoder.forward(ids, options);
        benchmark::DoNotOptimize(out.embedding.data());
    }
    state.counters["tokens"] = n;
}
BENCHMARK(BM_EncoderForward)->ArgsProduct({{32, 128, 512}, {0, 1}})->Unit(benchmark::kMillisecond)->MinTime(0.5);

}  // namespace

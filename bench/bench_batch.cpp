// The GUI worker's batch for an edit of the latency claim (edit → views p95 ≤ 100 ms): a 128-token text,
// six variants (full, flash, bigbird, lsh, linformer, performer), spectra on; cold (a new text each time) and warm
// (the same text: what the worker's caches leave to compute). The GUI prints the same split per stage with
// `attnscope gui --measure-latency 30`; this is the repeatable, renderer-free figure for perf.
// Run: build/bench/attnscope_microbench --benchmark_filter=RunBatch
#include <benchmark/benchmark.h>

#include <filesystem>
#include <chrono>
#include <map>
#include <thread>
#include <string>

#include "core/backend/factory/make_backend.h"
#include "core/data/samples.h"
#include "core/data/text_input.h"
#include "core/session/worker.h"

namespace {

/// The latency claim's batch: the sample texts cut to ≤ 127 tokens (as --measure-latency does), encoder layer 5,
/// spectra on, six variants. False (and the benchmark skipped) when the model is not installed.
bool text128_request(benchmark::State& state, attnscope::RunBatchRequest& r, std::string& text) {
    const std::string dir = attnscope::default_model_dir();
    if (!std::filesystem::exists(std::filesystem::path(dir) / "model.safetensors")) {
        state.SkipWithError(("model not installed at " + dir + ": run scripts/setup.sh").c_str());
        return false;
    }
    for (const auto& s : attnscope::sample_texts()) text += (text.empty() ? "" : " ") + s.text;
    text.resize(text.rfind(' ', 2000));  // far more than 127 tokens: the word-by-word cut below stays short
    while (attnscope::tokenize_text(text, dir).size() > 127) text.resize(text.find_last_of(' '));
    r.input.mode = attnscope::InputMode::Text;
    r.input.layer = 5;
    r.want_spectrum = true;
    // Through the parser, as the GUI's requests are: an empty Params leaves the defaults unset and the run fails.
    for (const char* id : {"full", "flash", "bigbird", "lsh", "linformer", "performer"})
        r.variants.push_back(attnscope::parse_variant_request(id, {}));
    return true;
}

/// Adds `snap`'s stage CPU times to cpu_ms (by the stage's first word: run, pool, spectrum, …); false (and the
/// benchmark stopped with the message) when a view failed, which would time the failure instead of the work.
bool add_stages(benchmark::State& state, const attnscope::RunSnapshot& snap, std::map<std::string, double>& cpu_ms) {
    for (const auto& v : snap.variants)
        if (!v.error.empty()) {
            state.SkipWithError((v.id + " failed: " + v.error).c_str());
            return false;
        }
    for (const auto& t : snap.stages) cpu_ms[t.name.substr(0, t.name.find(' '))] += t.cpu_ms;
    return true;
}

void BM_RunBatchText128(benchmark::State& state) {
    attnscope::RunBatchRequest r;
    std::string text;
    if (!text128_request(state, r, text)) return;
    auto backend = attnscope::make_backend("cpu");
    attnscope::use_interactive_cpu_threads();
    const bool cold = state.range(0) != 0;
    int edit = 0;
    std::map<std::string, double> cpu_ms;  // stage → summed thread CPU time
    for (auto _ : state) {
        r.input.text = cold && (++edit % 2) ? text + " x" : text;
        auto snap = attnscope::run_batch(r, *backend, nullptr);
        if (!add_stages(state, *snap, cpu_ms)) return;
        benchmark::DoNotOptimize(snap.get());
    }
    for (const auto& [stage, ms] : cpu_ms) state.counters[stage + "_cpu_ms"] = ms / double(state.iterations());
}
BENCHMARK(BM_RunBatchText128)->Arg(1)->Unit(benchmark::kMillisecond)->MinTime(1.0);

/// The same batches posted to a Worker, as the GUI does (its thread, its OpenMP setting, its caches).
void BM_WorkerBatchText128(benchmark::State& state) {
    attnscope::RunBatchRequest r;
    std::string text;
    if (!text128_request(state, r, text)) return;
    attnscope::Worker worker(attnscope::make_backend, "cpu", attnscope::interactive_cpu_threads());
    int edit = 0;
    std::map<std::string, double> cpu_ms;
    for (auto _ : state) {
        r.input.text = (++edit % 2) ? text + " x" : text;
        const uint64_t g = worker.post(r);
        std::shared_ptr<const attnscope::RunSnapshot> snap;
        while (!(snap = worker.run_snapshot()) || snap->generation != g || !snap->complete)
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (!add_stages(state, *snap, cpu_ms)) return;
    }
    for (const auto& [stage, ms] : cpu_ms) state.counters[stage + "_cpu_ms"] = ms / double(state.iterations());
}
BENCHMARK(BM_WorkerBatchText128)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();

}  // namespace

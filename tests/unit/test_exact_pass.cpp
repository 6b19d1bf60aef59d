// attnscope tests — the batch's one exact pass: above the materialise limit flash's O and L stand as the reference
// and its picture comes out of the same pass; no metric of a view may change for it.
#include <gtest/gtest.h>

#include <cmath>

#include "core/backend/cpu/cpu_backend.h"
#include "core/session/metric_table.h"
#include "core/session/worker.h"
#include "tests/unit/sparse_test_util.h"

namespace attnscope::test {
namespace {

/// The five variants of the n = 65536 first-view case, on the local scenario at n = 4096 (H = 1, d = 32).
RunBatchRequest five_variant_batch(int max_matrix_n) {
    RunBatchRequest r;
    r.input.scenario.kind = ScenarioKind::Local;
    r.input.scenario.n = 4096;
    r.input.scenario.heads = 1;
    r.input.scenario.dim = 32;
    for (const char* id : {"flash", "longformer", "lsh", "linformer", "performer"})
        r.variants.push_back(parse_variant_request(id, {}));
    r.view_size = 1024;
    r.max_matrix_n = max_matrix_n;
    return r;
}

/// Every metric of `got` equals `want`'s: the same ones present, each value to float rounding (absolute 1e-6 for
/// errors that are 0 up to rounding, as flash's against the reference it now is).
void expect_same_metrics(const MetricValues& got, const MetricValues& want, const std::string& what) {
    for (const MetricSpec& f : metric_table()) {
        if (!f.field) continue;
        const char* name = f.id;
        const std::optional<double>& g = got.*f.field;
        const std::optional<double>& w = want.*f.field;
        ASSERT_EQ(g.has_value(), w.has_value()) << what << " " << name;
        if (w && std::isinf(*w)) {  // a KL where P̃ drops mass P has
            EXPECT_EQ(*g, *w) << what << " " << name;
        } else if (w) {
            EXPECT_NEAR(*g, *w, 1e-6 + 1e-5 * std::fabs(*w)) << what << " " << name;
        }
    }
}

/// The metrics of every main view of `snap` against run_variant with a reference cache of its own, which computes the
/// softmax reference in a pass of its own (the path before the batch shared flash's).
void expect_metrics_of_separate_passes(const RunSnapshot& snap, const RunBatchRequest& request, bool want_P) {
    CpuBackend backend;
    const Heads& x = *snap.heads;
    ReferenceCache refs(x, want_P);
    size_t k = 0;
    for (const VariantView& view : snap.variants) {
        if (view.auxiliary) continue;
        ASSERT_TRUE(view.error.empty()) << view.id << ": " << view.error;
        ASSERT_TRUE(view.result) << view.id;
        RunOptions options;
        options.explain = want_P;
        options.max_matrix_n = request.max_matrix_n;
        const RunResult alone = run_variant(x, request.variants[k++], options, backend, &refs);
        const std::string what = view.id + (want_P ? " (materialised)" : " (one exact pass)");
        expect_same_metrics(view.result->metrics, alone.metrics, what);
        ASSERT_EQ(view.result->metrics.heads.size(), alone.metrics.heads.size()) << what;
        for (size_t h = 0; h < alone.metrics.heads.size(); ++h)
            expect_same_metrics(view.result->metrics.heads[h], alone.metrics.heads[h], what + " head " + std::to_string(h));
    }
    EXPECT_EQ(k, request.variants.size());
}

TEST(ExactPass, TheFiveVariantBatchKeepsEveryMetric) {
    CpuBackend backend;
    // Materialised (n ≤ the limit): P̃ and the exact P exist, the views pool them.
    const RunBatchRequest full = five_variant_batch(4096);
    const auto materialised = run_batch(full, backend, nullptr);
    ASSERT_TRUE(materialised && materialised->input_error.empty());
    expect_metrics_of_separate_passes(*materialised, full, true);
    // Above the limit: flash's pass is the reference and draws its picture.
    const RunBatchRequest streamed = five_variant_batch(1024);
    const auto one_pass = run_batch(streamed, backend, nullptr);
    ASSERT_TRUE(one_pass && one_pass->input_error.empty());
    expect_metrics_of_separate_passes(*one_pass, streamed, false);
    for (const StageTime& t : one_pass->stages) EXPECT_NE(t.name, "picture flash") << "a second pass drew flash's picture";

    // Flash's picture from its pass equals max-pooling its materialised P̃.
    const VariantView& pass = one_pass->variants.front();
    const VariantView& pooled = materialised->variants.front();
    ASSERT_EQ(pass.id, "flash");
    ASSERT_TRUE(pass.pooled && pooled.pooled);
    ASSERT_EQ(pass.pooled->size(), pooled.pooled->size());
    for (int64_t i = 0; i < pooled.pooled->size(); ++i)
        ASSERT_NEAR(pass.pooled->data()[i], pooled.pooled->data()[i], 1e-7 + 1e-5 * pooled.pooled->data()[i]) << "bin " << i;
}

TEST(FlashKernelChoice, TheCpuComputesFp32AndSaysThePrecisionAndKernelApplyOnCudaOnly) {
    std::cout << "[case] flash precision=bf16 kernel=cutlass on the CPU: the fp32 result, and a note saying so\n";
    CpuBackend backend;
    const Heads x = random_heads(2, 100, 16, 8, 3);
    const RunResult plain = run_variant(x, parse_variant_request("flash", {}), RunOptions{}, backend, nullptr);
    const RunResult asked = run_variant(x, parse_variant_request("flash", {{"precision", "bf16"}, {"kernel", "cutlass"}}),
                                        RunOptions{}, backend, nullptr);
    EXPECT_EQ((asked.O.head(1) - plain.O.head(1)).cwiseAbs().maxCoeff(), 0.0f) << "the CPU has one fp32 kernel";
    ASSERT_FALSE(asked.structure.notes.empty());
    EXPECT_EQ(asked.structure.notes.back(),
              "precision bf16 and kernel cutlass apply on CUDA only: the cpu backend computed fp32");
    EXPECT_TRUE(plain.structure.notes.empty() ||
                plain.structure.notes.back().find("CUDA only") == std::string::npos);
}

TEST(ExactPass, AdoptsOnlyFlashRunsOfTheReferencesOwnDefinition) {
    CpuBackend backend;
    const Heads x = random_heads(2, 300, 16, 8, 7);
    auto flash = [&](const std::vector<std::pair<std::string, std::string>>& params) {
        return run_variant(x, parse_variant_request("flash", params), RunOptions{}, backend, nullptr);
    };
    {
        ReferenceCache refs(x, false);
        const RunResult plain = flash({});
        EXPECT_FALSE(refs.adopt(flash({{"scale", "0.5"}}))) << "another scale is another model";
        EXPECT_FALSE(refs.adopt(flash({{"score_mod", "alibi"}}))) << "a score modifier changes the model";
        EXPECT_FALSE(refs.adopt(flash({{"precision", "tf32"}}))) << "tf32 is not the fp32 reference";
        EXPECT_FALSE(refs.adopt(flash({{"kernel", "cutlass"}}))) << "on CUDA another kernel (3×TF32), not the same bits";
        EXPECT_FALSE(refs.adopt(run_variant(x, parse_variant_request("longformer", {}), RunOptions{}, backend, nullptr)));
        ASSERT_TRUE(refs.adopt(plain));
        EXPECT_FALSE(refs.adopt(plain)) << "a reference of that causality exists";
        // The adopted reference is the one compute_reference gives (same kernel, same tiles: the same bits).
        const Reference separate = compute_reference(x, false, false, backend);
        const Reference& adopted = refs.get(false, backend);
        EXPECT_EQ((adopted.O.head(0) - separate.O.head(0)).cwiseAbs().maxCoeff(), 0.0f);
        EXPECT_EQ((adopted.O.head(1) - separate.O.head(1)).cwiseAbs().maxCoeff(), 0.0f);
        EXPECT_EQ((adopted.lse.head(1) - separate.lse.head(1)).cwiseAbs().maxCoeff(), 0.0f);
        EXPECT_TRUE(refs.adopt(flash({{"causal", "1"}}))) << "the causal reference is another one";
    }
    ReferenceCache with_P(x, true);
    EXPECT_FALSE(with_P.adopt(flash({}))) << "a materialised reference needs P, which flash's pass does not keep";
}

}  // namespace
}  // namespace attnscope::test

// attnscope tests — the streamed picture above the materialise limit equals pooling the materialised P̃.
#include <gtest/gtest.h>

#include <cmath>

#include "core/backend/cpu/cpu_backend.h"
#include "core/session/streamed_view.h"
#include "core/session/worker.h"
#include "tests/unit/sparse_test_util.h"
#include "tests/unit/worker_test_util.h"

namespace attnscope::test {
namespace {

struct StreamCase {
    std::string id;
    std::vector<std::pair<std::string, std::string>> params;
};

/// Max-pooled P̃ of a run with the matrix materialised: what the GUI draws below the limit.
Tensor3 pooled_reference(const RunResult& r, int size, Backend& backend) {
    Tensor3 out;
    backend.pooled_view(*r.P_eff, size, PoolMode::Max, out);
    return out;
}

TEST(StreamedView, EqualsPoolingTheMaterialisedMatrix) {
    CpuBackend backend;
    const std::vector<StreamCase> cases = {
        {"full", {}},
        {"full", {{"causal", "1"}}},
        {"flash", {{"causal", "1"}}},
        {"longformer", {{"window", "24"}, {"global", "0,77"}}},
        {"longformer", {{"window", "16"}, {"global", "none"}, {"causal", "1"}}},
        {"bigbird", {{"block", "16"}}},
        {"sink", {{"window", "20"}, {"sinks", "3"}}},
        {"vslash", {{"verticals", "6"}, {"slashes", "6"}}},
        {"xl", {}},
    };
    // n = 301 into 64 bins (bins of 4–5 rows and columns), and n = 50 with one cell per bin.
    for (const int n : {301, 50})
        for (const StreamCase& c : cases) {
            const Heads x = random_heads(2, n, 16, 8, 17 + n);
            RunOptions options;
            options.explain = true;
            options.max_matrix_n = n;
            const RunResult r = run_variant(x, parse_variant_request(c.id, c.params), options, backend, nullptr);
            ASSERT_TRUE(r.P_eff) << c.id;
            std::string why;
            ASSERT_TRUE(can_stream_view(r, why)) << c.id << ": " << why;
            const Tensor3 want = pooled_reference(r, 64, backend);
            const std::optional<Tensor3> got = streamed_view(r, x, 64, nullptr);
            ASSERT_TRUE(got);
            ASSERT_EQ(got->rows(), want.rows());
            ASSERT_EQ(got->cols(), want.cols());
            std::cout << "[case] " << c.id << " n=" << n << " bins=" << want.rows() << "\n";
            for (int64_t k = 0; k < want.size(); ++k)
                ASSERT_NEAR(got->data()[k], want.data()[k], 1e-5 + 1e-4 * want.data()[k])
                    << c.id << " n=" << n << " flat index " << k;
        }
}

TEST(StreamedView, SaysWhichViewsItCannotDraw) {
    CpuBackend backend;
    const Heads x = random_heads(2, 64, 16, 8, 3);
    RunOptions options;
    std::string why;
    const RunResult lsh = run_variant(x, parse_variant_request("lsh", {}), options, backend, nullptr);
    EXPECT_FALSE(can_stream_view(lsh, why));
    EXPECT_NE(why.find("block layout"), std::string::npos) << why;
    const RunResult alibi = run_variant(x, parse_variant_request("full", {{"score_mod", "alibi"}}), options, backend, nullptr);
    EXPECT_FALSE(can_stream_view(alibi, why));
    EXPECT_NE(why.find("score modifier"), std::string::npos) << why;
    EXPECT_THROW(streamed_view(lsh, x, 64, nullptr), Error);
}

TEST(StreamedView, StopsWhenCancelled) {
    CpuBackend backend;
    const Heads x = random_heads(1, 128, 16, 8, 5);
    const RunResult r = run_variant(x, parse_variant_request("full", {}), RunOptions{}, backend, nullptr);
    EXPECT_FALSE(streamed_view(r, x, 32, [] { return true; }));
}

TEST(StreamedView, ABatchAboveTheLimitDrawsTheViewsItCanAndSaysWhyNotTheOthers) {
    CpuBackend backend;
    RunBatchRequest r = small_batch(600, 128);
    r.max_matrix_n = 256;  // below n: nothing is materialised
    r.variants = {parse_variant_request("flash", {}), parse_variant_request("longformer", {}),
                  parse_variant_request("lsh", {})};
    const auto snap = run_batch(r, backend, nullptr);
    ASSERT_TRUE(snap);
    ASSERT_EQ(snap->variants.size(), 3u);
    for (const VariantView& v : snap->variants) {
        EXPECT_FALSE(v.matrix) << v.id;  // above the limit no n×n matrix is held
        if (v.id == "lsh") {
            EXPECT_FALSE(v.pooled);
            EXPECT_NE(v.matrix_note.find("was not built"), std::string::npos) << v.matrix_note;
            continue;
        }
        ASSERT_TRUE(v.pooled) << v.id;
        EXPECT_EQ(v.pooled->rows(), 128) << v.id;
        ASSERT_EQ(v.head_max.size(), 2u) << v.id;
        EXPECT_GT(v.head_max[0], 0.0f) << v.id;
        // Each row of P̃ sums to 1, so every bin row holds a weight of at least 1 / (keys in the row).
        for (int bi = 0; bi < 128; ++bi) EXPECT_GE(v.pooled->head(0).row(bi).maxCoeff(), 1.0f / 600) << v.id << " bin row " << bi;
    }
}

}  // namespace
}  // namespace attnscope::test

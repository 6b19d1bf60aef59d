// The composed masks (core/variants/mask_compose.h, compose.cpp): a composition of predicates is the pattern it names,
// so compose:window=w+sinks=s+causal keeps exactly StreamingLLM's cells for the same reasons, and a mask modifier
// cuts a composition as it cuts any masked variant.
#include <gtest/gtest.h>

#include <tuple>

#include "core/backend/cpu/cpu_backend.h"
#include "core/session/experiment.h"
#include "core/session/variant_spec.h"
#include "tests/unit/sparse_test_util.h"

namespace attnscope::test {
namespace {

/// The run (explained) of the one instance `text` names (CLI form), on x.
RunResult run_of(const std::string& text, const Heads& x, Backend& backend) {
    const std::vector<VariantSpec> specs = parse_variant_specs({text});
    EXPECT_EQ(specs.size(), 1u) << text;
    RunOptions options;
    options.explain = true;
    return run_variant(x, parse_variant_request(specs[0].id, specs[0].assignments), options, backend, nullptr);
}

/// The reason mask of the one instance `text` names (CLI form), on x.
ReasonMask reasons_of(const std::string& text, const Heads& x, Backend& backend) {
    const RunResult r = run_of(text, x, backend);
    EXPECT_TRUE(r.structure.mask.has_value()) << text;
    return r.structure.mask.value_or(ReasonMask{});
}

TEST(Compose, WindowPlusSinksPlusCausalIsStreamingLlm) {
    CpuBackend cpu;
    for (const auto& [n, w, s] : std::vector<std::tuple<int, int, int>>{{40, 6, 2}, {97, 16, 4}, {130, 1, 0}, {64, 80, 3}}) {
        std::cout << "[case] n=" << n << " w=" << w << " s=" << s << "\n";
        const Heads x = random_heads(2, n, 8, 3, uint64_t(n));
        const std::string terms = "window=" + std::to_string(w) + "+sinks=" + std::to_string(s);
        const ReasonMask composed = reasons_of("compose:" + terms + "+causal", x, cpu);
        const ReasonMask sink = reasons_of("sink:" + terms, x, cpu);
        EXPECT_EQ(composed.cells, sink.cells) << terms;
        // Without causal the window reaches forward as well: the same cells below the diagonal, more above it.
        const ReasonMask both_ways = reasons_of("compose:" + terms, x, cpu);
        int64_t above = 0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                if (j <= i) {
                    EXPECT_EQ(both_ways.at(0, i, j), sink.at(0, i, j)) << i << "," << j;
                }
                above += j > i && both_ways.at(0, i, j) != Reason::None;
            }
        if (w > 1 || s > 1) {
            EXPECT_GT(above, 0);
        }
    }
}

TEST(Compose, DocumentCutsTheCompositionAtItsBoundaries) {
    CpuBackend cpu;
    const int n = 60;
    const Heads x = random_heads(1, n, 8, 5, 7);
    std::cout << "[case] compose:window=8+sinks=2+document:boundaries=0,25,41 on n = 60\n";
    const RunResult r = run_of("compose:window=8+sinks=2+document:boundaries=0,25,41", x, cpu);
    ASSERT_TRUE(r.structure.mask && r.structure.density);
    const auto doc = [](int p) { return p < 25 ? 0 : p < 41 ? 1 : 2; };
    int64_t kept = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            Reason want = Reason::None;
            if (doc(i) == doc(j)) want = j < 2 ? Reason::Sink : std::abs(i - j) < 8 ? Reason::Window : Reason::None;
            ASSERT_EQ(r.structure.mask->at(0, i, j), want) << "i=" << i << " j=" << j;
            kept += want != Reason::None;
        }
    // The density comes from the layout the kernel ran, so the fast row paths are held to the same cells.
    EXPECT_NEAR(*r.structure.density, double(kept) / (double(n) * n), 1e-12);
}

}  // namespace
}  // namespace attnscope::test

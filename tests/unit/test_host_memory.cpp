// Host memory guard: a request whose estimate exceeds the limit is refused before it allocates, with a sentence
// naming the estimate and the limit.
#include <gtest/gtest.h>

#include "core/bench/memory_guard.h"
#include "core/data/scenarios.h"
#include "core/error.h"
#include "core/host_memory.h"
#include "core/memory.h"
#include "core/session/experiment.h"
#include "core/variants/registry.h"
#include "core/backend/factory/make_backend.h"

namespace attnscope {
namespace {

TEST(HostMemory, ShortfallNamesEstimateLimitAndSource) {
    const HostMemoryLimit limit{int64_t(1) << 30, "available memory (MemAvailable)"};
    EXPECT_EQ(host_memory_shortfall(int64_t(1) << 29, limit, "x", "y"), "");
    EXPECT_EQ(host_memory_shortfall(int64_t(1) << 40, HostMemoryLimit{}, "x", "y"), "");  // unknown limit: no refusal
    const std::string why = host_memory_shortfall(int64_t(10) << 30, limit, "flash at n = 9", "lower n");
    EXPECT_NE(why.find("flash at n = 9 needs an estimated 10.00 GiB"), std::string::npos) << why;
    EXPECT_NE(why.find("only 1.00 GiB are free (available memory (MemAvailable)): lower n"), std::string::npos) << why;
}

TEST(HostMemory, TheLimitIsKnownOnLinux) {
    const HostMemoryLimit limit = host_memory_limit();
    EXPECT_GT(limit.bytes, 0);
    EXPECT_FALSE(limit.source.empty());
}

TEST(HostMemory, ARunThatCannotFitIsRefusedBeforeItAllocates) {
    ScenarioSpec spec;
    spec.n = 300000, spec.heads = 4, spec.dim = 2;  // full would hold 4·n² floats = 1.4 TB
    const Heads heads = make_scenario(spec);
    const auto cpu = make_backend("cpu");
    const int64_t before = memory_counters().live.load();
    PeakMemoryScope scope;
    try {
        run_variant(heads, parse_variant_request("full", {}), RunOptions{}, *cpu, nullptr);
        FAIL() << "full at n = 300000 ran";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("full at n = 300000, H = 4 needs an estimated"), std::string::npos) << e.what();
    }
    EXPECT_EQ(scope.peak_bytes(), 0);  // nothing was allocated on the way to the refusal
    EXPECT_EQ(memory_counters().live.load(), before);
}

TEST(HostMemory, AnInputThatCannotFitIsRefused) {
    ScenarioSpec spec;
    spec.n = 1 << 20, spec.heads = 64, spec.dim = 1024;  // Q, K, V alone: 805 GB
    try {
        make_scenario(spec);
        FAIL() << "the input was built";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("needs an estimated"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace attnscope

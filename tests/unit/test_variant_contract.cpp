// Contracts every registered variant keeps, checked for each one the registry lists (a new variant is covered
// the moment it is registered).
#include <gtest/gtest.h>

#include "core/primitives/cpu_backend.h"
#include "core/data/scenarios.h"
#include "core/session/experiment.h"
#include "core/variants/registry.h"

namespace attnscope::test {
namespace {

/// The cost model the Performance panel draws before measuring (estimate_flops) is the figure run() reports.
TEST(VariantContract, EstimatedFlopsAreTheFlopsRunReports) {
    CpuBackend cpu;
    for (const auto& [n, H, d, dv] : std::vector<std::array<int, 4>>{{96, 2, 16, 16}, {200, 3, 8, 12}}) {
        ScenarioSpec spec;
        spec.kind = ScenarioKind::Gaussian, spec.n = n, spec.heads = H, spec.dim = d, spec.value_dim = dv;
        const Heads heads = make_scenario(spec);
        for (const auto& variant : all_variants()) {
            const VariantInfo& info = variant->info();
            std::vector<std::vector<std::pair<std::string, std::string>>> settings = {{}};
            if (find_param(info.params, "causal")) settings.push_back({{"causal", "1"}});
            for (const auto& sets : settings) {
                const VariantRequest request = parse_variant_request(info.id, sets);
                const Params resolved = variant->resolve(request.params, heads.shape());
                const RunResult r = run_variant(heads, request, RunOptions{}, cpu, nullptr);
                const double estimate = variant->estimate_flops(H, n, d, dv, resolved);
                std::cout << "[case] " << info.id << (sets.empty() ? "" : " causal") << " n = " << n << " H = " << H
                          << " d = " << d << " dv = " << dv << ": run " << r.cost.flops << ", estimate " << estimate
                          << "\n";
                EXPECT_GT(r.cost.flops, 0) << info.id;
                EXPECT_DOUBLE_EQ(estimate, r.cost.flops) << info.id << (sets.empty() ? "" : " causal");
            }
        }
    }
}

}  // namespace
}  // namespace attnscope::test

// Contracts every registered variant keeps, checked for each one the registry lists (a new variant is covered
// the moment it is registered): the cost model, O = P̃·V, distributions, causality, mask and P̃ agreeing, seeds.
#include <gtest/gtest.h>

#include <cstring>

#include "core/backend/cpu/cpu_backend.h"
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
                if (variant->flops_estimate_is_bound(resolved)) {
                    // A pattern chosen from the input's values: the cost model bounds the run from above.
                    EXPECT_LE(r.cost.flops, estimate) << info.id << (sets.empty() ? "" : " causal");
                    EXPECT_GE(r.cost.flops, 0.25 * estimate) << info.id << (sets.empty() ? "" : " causal");
                } else {
                    EXPECT_DOUBLE_EQ(estimate, r.cost.flops) << info.id << (sets.empty() ? "" : " causal");
                }
            }
        }
    }
}

/// Every variant at its defaults and, where it has one, its causal form; P̃ and the mask materialised.
struct ContractRun {
    std::string label;
    RunResult result;
    Heads heads;
};

std::vector<ContractRun> contract_runs(CpuBackend& cpu) {
    ScenarioSpec spec;
    spec.kind = ScenarioKind::Gaussian, spec.n = 72, spec.heads = 2, spec.dim = 16, spec.value_dim = 12, spec.seed = 5;
    const Heads heads = make_scenario(spec);
    RunOptions options;
    options.explain = true;
    std::vector<ContractRun> out;
    for (const auto& variant : all_variants()) {
        const VariantInfo& info = variant->info();
        std::vector<std::vector<std::pair<std::string, std::string>>> settings = {{}};
        if (find_param(info.params, "causal")) settings.push_back({{"causal", "1"}});
        for (const auto& sets : settings) {
            const RunResult r = run_variant(heads, parse_variant_request(info.id, sets), options, cpu, nullptr);
            out.push_back({info.id + (sets.empty() ? "" : " causal"), r, heads});
        }
    }
    return out;
}

/// O = P̃·V wherever P̃ is an attention matrix (FNet's titled C_n is a mixing matrix of a different operator).
TEST(VariantContract, OutputIsTheEffectiveMatrixTimesV) {
    CpuBackend cpu;
    for (const ContractRun& c : contract_runs(cpu)) {
        if (!c.result.P_eff || !c.result.structure.matrix_title.empty()) continue;
        double worst = 0;
        for (int h = 0; h < c.heads.heads(); ++h) {
            const Eigen::MatrixXf PV = c.result.P_eff->head(h) * c.heads.V.head(h);
            worst = std::max<double>(worst, (PV - c.result.O.head(h)).norm() / std::max(1e-12f, c.result.O.head(h).norm()));
        }
        std::cout << "[case] " << c.label << ": ‖P̃V − O‖/‖O‖ = " << worst << "\n";
        EXPECT_LE(worst, 1e-4) << c.label;
    }
}

/// A normalised variant's rows are distributions; a causal run puts no weight above the diagonal; a cell the mask
/// forbids has no weight.
TEST(VariantContract, RowsCausalityAndMaskAgreeWithTheEffectiveMatrix) {
    CpuBackend cpu;
    for (const ContractRun& c : contract_runs(cpu)) {
        if (!c.result.P_eff) continue;
        const Tensor3& P = *c.result.P_eff;
        const VariantInfo& info = find_variant(c.result.variant).info();
        double worst_row = 0, above = 0, outside_mask = 0;
        bool negative = false;
        for (int h = 0; h < P.heads(); ++h)
            for (int i = 0; i < P.rows(); ++i) {
                double sum = 0;
                for (int j = 0; j < P.cols(); ++j) {
                    const float w = P.at(h, i, j);
                    sum += w, negative = negative || w < 0;
                    if (c.result.causal && j > i) above = std::max<double>(above, std::abs(w));
                    if (c.result.structure.mask && c.result.structure.mask->at(h, i, j) == Reason::None)
                        outside_mask = std::max<double>(outside_mask, std::abs(w));
                }
                worst_row = std::max(worst_row, std::abs(sum - 1.0));
            }
        std::cout << "[case] " << c.label << ": max |row sum − 1| " << worst_row << ", max |w| above the diagonal "
                  << above << ", outside the mask " << outside_mask << "\n";
        if (info.normalised && !negative) {
            EXPECT_LE(worst_row, 1e-4) << c.label;
        }
        EXPECT_EQ(above, 0.0) << c.label;
        EXPECT_EQ(outside_mask, 0.0) << c.label;
    }
}

/// The same seed gives the same output, bit for bit.
TEST(VariantContract, SameSeedSameOutput) {
    CpuBackend cpu;
    const std::vector<ContractRun> a = contract_runs(cpu), b = contract_runs(cpu);
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) {
        const Tensor3 &x = a[k].result.O, &y = b[k].result.O;
        const bool same = x.size() == y.size() && std::memcmp(x.data(), y.data(), size_t(x.bytes())) == 0;
        std::cout << "[case] " << a[k].label << ": two runs " << (same ? "identical" : "DIFFER") << "\n";
        EXPECT_TRUE(same) << a[k].label;
    }
}

}  // namespace
}  // namespace attnscope::test

// attnscope tests — the Sinks view's data is made in one place (core/session/sinks_data.h): the GUI's (from a batch's
// snapshot) and the figure's and CSV's (from the instances) are equal for one session, and both average the exact P
// shown_reference_causal picks — the causal one when every instance runs causal, where the figure once always took
// the full P.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "core/backend/cpu/cpu_backend.h"
#include "core/session/shown_reference.h"
#include "core/session/sinks_data.h"
#include "core/session/worker.h"

namespace attnscope::test {
namespace {

/// The mean over heads and rows of the exact softmax P of `x`, per key, from the definition: P_ij ∝ exp(s·q_i·k_j)
/// over j (j ≤ i when causal), in double.
std::vector<double> received_by_definition(const Heads& x, bool causal) {
    const int H = x.heads(), n = x.n(), d = x.d();
    const double s = 1.0 / std::sqrt(double(d));
    std::vector<double> out(size_t(n), 0.0);
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) {
            std::vector<double> logit(size_t(n), -INFINITY);
            double top = -INFINITY, sum = 0;
            for (int j = 0; j < (causal ? i + 1 : n); ++j) {
                double dot = 0;
                for (int c = 0; c < d; ++c) dot += double(x.Q.at(h, i, c)) * x.K.at(h, j, c);
                logit[size_t(j)] = s * dot, top = std::max(top, s * dot);
            }
            for (double& l : logit) sum += std::exp(l - top);
            for (int j = 0; j < n; ++j) out[size_t(j)] += std::exp(logit[size_t(j)] - top) / sum / (double(H) * n);
        }
    return out;
}

RunBatchRequest session_of(const std::vector<VariantRequest>& instances) {
    RunBatchRequest r;
    r.input.scenario.kind = ScenarioKind::Hubs;
    r.input.scenario.n = 48, r.input.scenario.heads = 2, r.input.scenario.dim = 16;
    r.variants = instances;
    r.view_size = 64;
    return r;
}

TEST(SinksData, TheGuiAndTheFigureOfOneSessionShowTheSameBars) {
    CpuBackend backend;
    const std::vector<std::vector<VariantRequest>> sessions = {
        {parse_variant_request("sink", {{"window", "8"}, {"sinks", "2"}}),
         parse_variant_request("flash", {{"causal", "1"}})},  // every instance causal (sink is by construction)
        {parse_variant_request("sink", {{"window", "8"}, {"sinks", "2"}}),
         parse_variant_request("longformer", {{"window", "8"}})},  // one full
        {parse_variant_request("xl", {{"segment", "16"}})},        // causal by construction
    };
    for (const std::vector<VariantRequest>& instances : sessions) {
        const auto snap = run_batch(session_of(instances), backend, nullptr);
        ASSERT_TRUE(snap && snap->heads);
        std::string why_not;
        const std::optional<KeyAttentionProfile> gui = sinks_profile(*snap, why_not);
        ASSERT_TRUE(gui) << why_not;
        ReferenceCache refs(*snap->heads, true);
        const KeyAttentionProfile figure = sinks_profile(*snap->heads, instances, refs, backend, 4096, "--view sinks");
        const bool causal = shown_reference_causal(instances);
        std::printf("[case] %s + %zu more: causal P %d; %s\n", instances[0].id.c_str(), instances.size() - 1, causal,
                    figure.over.c_str());
        EXPECT_EQ(causal, instances[1 % instances.size()].id != "longformer");
        EXPECT_EQ(gui->over, figure.over);
        EXPECT_EQ(gui->tokens, figure.tokens);
        ASSERT_EQ(gui->received.size(), figure.received.size());
        const std::vector<double> want = received_by_definition(*snap->heads, causal);
        const std::vector<double> other = received_by_definition(*snap->heads, !causal);
        double gap = 0, other_gap = 0;
        for (size_t j = 0; j < want.size(); ++j) {
            EXPECT_NEAR(gui->received[j], figure.received[j], 1e-12) << "key " << j;
            gap = std::max(gap, std::fabs(figure.received[j] - want[j]));
            other_gap = std::max(other_gap, std::fabs(figure.received[j] - other[j]));
        }
        EXPECT_LT(gap, 1e-5) << "the bars are not the picked P's";
        EXPECT_GT(other_gap, 1e-2) << "the input does not tell the causal P from the full one";
    }
}

TEST(SinksData, TheShownReferenceIsCausalOnlyWhenEveryInstanceIs) {
    EXPECT_FALSE(shown_reference_causal(std::vector<bool>{}));
    EXPECT_TRUE(shown_reference_causal(std::vector<bool>{true, true}));
    EXPECT_FALSE(shown_reference_causal(std::vector<bool>{true, false}));
    EXPECT_TRUE(shown_reference_causal({parse_variant_request("xl", {})}));  // causal by construction
    EXPECT_FALSE(shown_reference_causal({parse_variant_request("flash", {})}));
}

}  // namespace
}  // namespace attnscope::test

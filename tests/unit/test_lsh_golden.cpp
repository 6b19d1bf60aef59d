// `lsh` against a peer: reformer-pytorch's LSHAttention run with our rotations fed in
// (tests/golden/reformer_peer.py writes tests/golden/reformer_lsh.json). Buckets must agree exactly; outputs and
// P̃ rows agree wherever the two conventions coincide: every row for one round; for several rounds, the rows
// that never sit in the first chunk of a round (the peer wraps that chunk's look-back into the previous
// round, we wrap within the round, as the paper's independent rounds do — see the script's docstring).
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/unit/backend_suite.h"
#include "core/session/experiment.h"
#include "core/variants/lsh.h"
#include "core/variants/registry.h"

namespace attnscope::test {
namespace {

nlohmann::json load_fixture() {
    const std::string path = std::string(ATTNSCOPE_TEST_DATA_DIR) + "/reformer_lsh.json";
    std::ifstream in(path);
    if (!in) throw Error("missing golden fixture " + path + ": run tests/golden/reformer_peer.py");
    return nlohmann::json::parse(in);
}

Tensor3 tensor_from(const nlohmann::json& values, int heads, int rows, int cols) {
    Tensor3 t(heads, rows, cols);
    if (static_cast<int64_t>(values.size()) != t.size()) throw Error("fixture array has the wrong size");
    for (int64_t k = 0; k < t.size(); ++k) t.data()[k] = values[static_cast<size_t>(k)].get<float>();
    return t;
}

class LshGolden : public testing::TestWithParam<std::string> {};

TEST_P(LshGolden, MatchesReformerPytorchWhereConventionsAgree) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const nlohmann::json fixture = load_fixture();
    ASSERT_GE(fixture["cases"].size(), 1u);
    for (const nlohmann::json& c : fixture["cases"]) {
        const int n = c["n"], d = c["d"], chunk = c["chunk"], nb = c["buckets"], R = c["rounds"];
        const bool causal = c["causal"];
        const double tol_out = 1e-4, tol_p = 2e-6;
        std::cout << "[case] backend=" << GetParam() << " peer=reformer-pytorch n=" << n << " d=" << d << " c=" << chunk
                  << " n_b=" << nb << " rounds=" << R << " causal=" << causal << " tol_out=" << tol_out
                  << " tol_P=" << tol_p << "\n";
        Heads in;
        in.Q = tensor_from(c["qk"], 1, n, d);
        in.K = in.Q;
        in.V = tensor_from(c["v"], 1, n, d);
        const Tensor3 rotations = tensor_from(c["rotations"], R, d, nb / 2);
        const VariantRequest req = parse_variant_request(
            "lsh", {{"rounds", std::to_string(R)}, {"buckets", std::to_string(nb)}, {"chunk", std::to_string(chunk)},
                    {"look_back", "1"}, {"shared_qk", "1"}, {"causal", causal ? "1" : "0"}});
        RunOptions options;
        options.explain = true;
        const RunResult r = lsh_run(in, find_variant("lsh").resolve(req.params, in.shape()), rotations, options, *backend);
        const Tensor3 peer_out = tensor_from(c["peer_out"], 1, n, d);
        const Tensor3 peer_P = tensor_from(c["peer_P"], 1, n, n);

        std::vector<bool> comparable(n, true);
        for (int rr = 0; rr < R; ++rr) {
            const std::vector<int>& buckets = r.structure.lsh.value().bucket_q.at(rr);
            const std::vector<int>& perm = r.structure.lsh.value().perm_q.at(rr);
            for (int i = 0; i < n; ++i)
                EXPECT_EQ(buckets[i], c["peer_buckets"][size_t(rr) * n + i].get<int>()) << "round " << rr << " pos " << i;
            if (R > 1)
                for (int s = 0; s < chunk; ++s) comparable[perm[s]] = false;
        }
        int compared = 0;
        double worst_other = 0;
        for (int i = 0; i < n; ++i) {
            const double scale = 1.0 + peer_out.head(0).row(i).norm();
            const double diff = (r.O.head(0).row(i) - peer_out.head(0).row(i)).norm();
            if (!comparable[i]) {
                worst_other = std::max(worst_other, diff / scale);
                continue;
            }
            if (r.P_eff->at(0, i, i) == 1.0f) {
                // Only the self cell is allowed (causal row 0): the output is v_i exactly. The peer combines rounds
                // through an absolute log-sum-exp near −5e4, where float32 spacing costs it ~4e-4 of the row's mass;
                // we form the round weights from differences (core/backend/interface/lsh_rules.h), so we only bound the peer.
                EXPECT_EQ((r.O.head(0).row(i) - in.V.head(0).row(i)).cwiseAbs().maxCoeff(), 0.0f) << "self-only row " << i;
                EXPECT_LE(diff, 2e-3 * scale) << "self-only row " << i;
                continue;
            }
            ++compared;
            EXPECT_LE(diff, tol_out * scale) << "row " << i;
            EXPECT_LE((r.P_eff->head(0).row(i) - peer_P.head(0).row(i)).cwiseAbs().maxCoeff(), tol_p + 1e-6) << "P̃ row " << i;
        }
        EXPECT_GE(compared, n / 4) << "too few rows outside the first chunks to compare";
        // The documented difference is real: some first-chunk row differs (non-causal, several rounds).
        if (R > 1 && !causal) {
            EXPECT_GT(worst_other, 1e-3) << "first-chunk rows agree with the peer: the convention note would be wrong";
        }
        std::cout << "    compared " << compared << " of " << n << " rows; largest first-chunk difference " << worst_other << "\n";
    }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, LshGolden, testing::ValuesIn(suite_backends()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace attnscope::test

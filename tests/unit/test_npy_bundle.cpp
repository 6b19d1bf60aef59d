// `attnscope run --npy DIR`: the bundle holds exactly the run's tensors, index.json names them, and the folder
// reads back as a --tensors input.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/backend/cpu/cpu_backend.h"
#include "core/data/npy.h"
#include "core/data/scenarios.h"
#include "core/data/tensor_import.h"
#include "core/session/experiment.h"
#include "core/session/npy_bundle.h"
#include "tests/unit/text_test_util.h"

namespace attnscope::test {
namespace {

/// The .npy file holds exactly `t` (written as float32, so equality is exact).
void expect_same(const std::string& path, const Tensor3& t) {
    const NpyArray a = read_npy(path);
    ASSERT_EQ(a.shape, (std::vector<int64_t>{t.heads(), t.rows(), t.cols()})) << path;
    ASSERT_EQ(a.data.size(), static_cast<size_t>(t.size())) << path;
    for (int64_t k = 0; k < t.size(); ++k) ASSERT_EQ(a.data[size_t(k)], t.data()[k]) << path << " element " << k;
}

TEST(NpyBundle, WritesInputsOutputsAndAnIndexThatReadsBack) {
    TempDir dir("bundle");
    ScenarioSpec spec;
    spec.kind = ScenarioKind::Clustered, spec.n = 24, spec.heads = 2, spec.dim = 8, spec.value_dim = 6;
    Heads heads = make_scenario(spec);
    heads.tokens.clear();
    for (int i = 0; i < heads.n(); ++i) heads.tokens.push_back("tok" + std::to_string(i));
    CpuBackend cpu;
    ReferenceCache refs(heads, true);
    RunOptions options;
    options.explain = true;
    std::vector<RunResult> results;
    for (const char* id : {"full", "longformer", "longformer", "fnet"})
        results.push_back(run_variant(heads, parse_variant_request(id, {}), options, cpu, &refs));
    std::cout << "[case] full, longformer twice, fnet on clustered n = 24, H = 2, d = 8, dv = 6, with tokens\n";
    const nlohmann::json index = write_npy_bundle(dir.path().string(), heads, results, {{"layer", 3}});

    expect_same(dir.file("q.npy"), heads.Q);
    expect_same(dir.file("k.npy"), heads.K);
    expect_same(dir.file("v.npy"), heads.V);
    EXPECT_EQ(index["input"]["layer"], 3);
    EXPECT_EQ(index["input"]["files"]["tokens"], "tokens.txt");
    ASSERT_EQ(index["results"].size(), 4u);
    // Files are named by instance (w = 6: the window default at n = 24); an exact repeat gets -2.
    const std::vector<std::string> labels = {"full", "longformer-w6", "longformer-w6-2", "fnet"};
    for (size_t k = 0; k < results.size(); ++k) {
        const auto& entry = index["results"][k];
        EXPECT_EQ(entry["label"], labels[k]);
        expect_same(dir.file(entry["O"]), results[k].O);
        if (results[k].P_eff) expect_same(dir.file(entry["P_eff"]), *results[k].P_eff);
        else EXPECT_TRUE(entry["P_eff"].is_null()) << labels[k];
    }
    std::ifstream in(dir.file("index.json"));
    EXPECT_EQ(nlohmann::json::parse(in), index);

    // The folder is a --tensors input: the same Q, K, V and tokens come back.
    const Heads back = load_tensor_input(dir.path().string());
    EXPECT_EQ(back.tokens, heads.tokens);
    ASSERT_EQ(back.Q.size(), heads.Q.size());
    for (int64_t k = 0; k < heads.Q.size(); ++k) ASSERT_EQ(back.Q.data()[k], heads.Q.data()[k]);
    for (int64_t k = 0; k < heads.V.size(); ++k) ASSERT_EQ(back.V.data()[k], heads.V.data()[k]);
}

TEST(NpyBundle, UnwritableFolderIsAClearError) {
    std::cout << "[case] a folder under a regular file cannot be created\n";
    TempDir dir("bundle-bad");
    write_bytes(dir.file("file"), "x");
    ScenarioSpec spec;
    spec.n = 4, spec.heads = 1, spec.dim = 2;
    try {
        write_npy_bundle(dir.file("file") + "/sub", make_scenario(spec), {});
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot create the folder"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace attnscope::test

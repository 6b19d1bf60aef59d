// Every panel's numbers as CSV (core/session/panel_csv.h, core/csv.h): the quoting a spreadsheet reads back, the
// metrics table the GUI copies and `run --metrics-csv` writes, and a row per point, rank, layer × head and key.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "core/backend/cpu/cpu_backend.h"
#include "core/csv.h"
#include "core/data/scenarios.h"
#include "core/error.h"
#include "core/session/export.h"
#include "core/session/panel_csv.h"

namespace attnscope::test {
namespace {

/// The records of CSV text, each a list of fields (quotes undone): the reading a spreadsheet does.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
    bool quoted = false;
    for (size_t k = 0; k < text.size(); ++k) {
        const char c = text[k];
        if (quoted && c == '"' && k + 1 < text.size() && text[k + 1] == '"') rows.back().back() += '"', ++k;
        else if (c == '"') quoted = !quoted;
        else if (!quoted && c == ',') rows.back().emplace_back();
        else if (!quoted && c == '\n') rows.emplace_back(1);
        else rows.back().back() += c;
    }
    rows.pop_back();  // after the last line break
    return rows;
}

Heads hubs(int n, int heads) {
    ScenarioSpec spec;
    spec.kind = ScenarioKind::Hubs, spec.n = n, spec.heads = heads, spec.dim = 16, spec.seed = 3;
    return make_scenario(spec);
}

TEST(Csv, QuotesOnlyWhatNeedsItAndReadsBack) {
    EXPECT_EQ(csv_field("Longformer w = 8"), "Longformer w = 8");
    EXPECT_EQ(csv_field("Sink w = 8, s = 2"), "\"Sink w = 8, s = 2\"");
    EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csv_field(" edge"), "\" edge\"");
    const std::string line = csv_record({"a,b", "c\"d", "", "e\nf"});
    EXPECT_EQ(parse_csv(line), (std::vector<std::vector<std::string>>{{"a,b", "c\"d", "", "e\nf"}}));
    EXPECT_EQ(csv_number(std::nullopt), "");
    EXPECT_EQ(csv_number(0.1234567891234), "0.123456789");
}

TEST(PanelCsv, MetricsTableHasMeansThenEveryHeadOfEveryInstance) {
    CpuBackend cpu;
    const Heads in = hubs(48, 3);
    ReferenceCache refs(in, true);
    RunOptions options;
    options.explain = true;
    std::vector<RunResult> results;
    for (const VariantRequest& r : {parse_variant_request("longformer", {{"window", "8"}}),
                                    parse_variant_request("sink", {{"window", "8"}, {"sinks", "2"}})})
        results.push_back(run_variant(in, r, options, cpu, &refs));
    const auto rows = parse_csv(metrics_csv({&results[0], &results[1]}));
    ASSERT_EQ(rows.size(), 1u + 2 * (1 + 3));
    EXPECT_EQ(rows[0][0], "variant");
    EXPECT_EQ(rows[0][9], "mass_recall");
    for (const auto& row : rows) EXPECT_EQ(row.size(), rows[0].size());
    EXPECT_EQ(rows[1][1], "Longformer w = 8");
    EXPECT_EQ(rows[1][3], "mean over heads");
    EXPECT_EQ(rows[4][3], "head 2");
    EXPECT_EQ(rows[5][1], "Sink w = 8, s = 2");  // the comma inside the label stays one field
    EXPECT_NEAR(std::stod(rows[5][9]), *results[1].metrics.mass_recall, 1e-7);
    EXPECT_NEAR(std::stod(rows[6][9]), *results[1].metrics.heads[0].mass_recall, 1e-7);
}

TEST(PanelCsv, SweepTableHasARowPerValuePerCurve) {
    const std::vector<SweepCurveTable> curves = {
        {"svd", "SVD", "rank", {{4, 0.5, 0.4, 0.6, 2}, {8, 0.3, 0.2, 0.4, 2}, {16, 0, 0, 0, 0}}},
        {"linformer", "Linformer projection pool", "k", {{4, 0.7, 0.6, 0.8, 2}, {8, 0.6, 0.5, 0.7, 2}, {16, 0.5, 0.4, 0.6, 2}}}};
    const auto rows = parse_csv(sweep_csv(curves, "rel_err_out"));
    ASSERT_EQ(rows.size(), 1u + 6);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"variant", "instance", "param", "value", "metric", "mean", "min", "max", "seeds"}));
    EXPECT_EQ(rows[2], (std::vector<std::string>{"svd", "SVD", "rank", "8", "rel_err_out", "0.3", "0.2", "0.4", "2"}));
    // No seed measured the point: no number pretends it did.
    EXPECT_EQ(rows[3], (std::vector<std::string>{"svd", "SVD", "rank", "16", "rel_err_out", "", "", "", "0"}));
    EXPECT_EQ(rows[6][1], "Linformer projection pool");
}

TEST(PanelCsv, SpectrumTableDescendsAndItsCumulativeEndsAtOne) {
    CpuBackend cpu;
    const Heads in = hubs(24, 2);
    ReferenceCache refs(in, true);
    const Reference& ref = refs.get(false, cpu);
    std::vector<SpectrumTable> spectra;
    for (int h = 0; h < 2; ++h) spectra.push_back({"exact", "P", h, compute_spectrum(*ref.P, h, 256)});
    const auto rows = parse_csv(spectrum_csv(spectra, 256));
    ASSERT_EQ(rows.size(), 1u + 2 * 24);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"variant", "instance", "head", "svd", "k", "sigma", "cumulative"}));
    for (size_t k = 2; k <= 24; ++k) EXPECT_LE(std::stod(rows[k][5]), std::stod(rows[k - 1][5])) << "rank " << k;
    EXPECT_NEAR(std::stod(rows[24][6]), 1.0, 1e-6);
    EXPECT_EQ(rows[25][2], "1");
    EXPECT_EQ(rows[25][4], "1");
    EXPECT_EQ(parse_csv(spectrum_csv(spectra, 5)).size(), 1u + 2 * 5);  // --top keeps the largest
}

TEST(PanelCsv, HeadsTableHasLayersTimesHeadsRowsPerInstance) {
    LayerHeadMass m;
    m.layers = 2, m.heads = 3, m.n = 16;
    m.grids.push_back({"sink", "Sink w = 8, s = 2", {0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, ""});
    m.grids.push_back({"full", "Full softmax", {}, "keeps no subset of the cells (no mask), so it has no mass kept"});
    const auto rows = parse_csv(head_mass_csv(m));
    ASSERT_EQ(rows.size(), 1u + 2 * 2 * 3);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"variant", "instance", "layer", "head", "mass_recall", "note"}));
    EXPECT_EQ(rows[6], (std::vector<std::string>{"sink", "Sink w = 8, s = 2", "1", "2", "0.6", ""}));  // layer 1, head 2
    EXPECT_EQ(rows[7][4], "");
    EXPECT_NE(rows[7][5].find("no mask"), std::string::npos);
}

TEST(PanelCsv, SinksTableHasARowPerKeyAgainstTheUniformShare) {
    const auto rows = parse_csv(key_attention_csv({"[CLS]", "hello", ",", "[SEP]"}, {0.5, 0.2, 0.1, 0.2}));
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(rows[1], (std::vector<std::string>{"0", "[CLS]", "special", "0.5", "0.25"}));
    EXPECT_EQ(rows[3][1], ",");
    EXPECT_EQ(rows[3][2], "punctuation");
    EXPECT_EQ(parse_csv(key_attention_csv({}, {0.5, 0.5}))[2][1], "1");  // no tokens: the position
    EXPECT_THROW(key_attention_csv({"a"}, {0.5, 0.5}), Error);
}

TEST(Export, ABareFileNameNeedsNoFolderAndANestedOneIsCreated) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "attnscope_parent_folder_test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::filesystem::path before = std::filesystem::current_path();
    std::filesystem::current_path(dir);
    EXPECT_NO_THROW(create_parent_folder("bare.json"));  // was "cannot create directories: Invalid argument []"
    EXPECT_NO_THROW(write_file_atomically("bare.json", "{}\n"));
    EXPECT_TRUE(std::filesystem::exists(dir / "bare.json"));
    EXPECT_NO_THROW(create_parent_folder("a/b/c.json"));
    EXPECT_TRUE(std::filesystem::is_directory(dir / "a" / "b"));
    std::filesystem::current_path(before);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace attnscope::test

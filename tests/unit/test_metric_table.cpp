// The metric table (core/session/metric_table.cpp) against docs/VARIANTS.md, which lists every metric with its names,
// format and direction, and against the lists that read it: none may drift from the code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/session/metric_sweep.h"
#include "core/session/metric_table.h"
#include "core/session/metrics.h"
#include "core/session/panel_csv.h"
#include "tests/unit/doc_test_util.h"

namespace attnscope {
namespace {

using test::read_doc;

/// The docs/VARIANTS.md row of a metric, as the table has it.
std::string doc_row(const MetricSpec& m) {
    const std::string json = m.json_key ? "`" + std::string(m.json_key) + "`" : "—";
    return "| `" + std::string(m.id) + "` | " + json + " | " + m.label + " | " + m.axis_label + " | `" + m.format +
           "` | " + direction_text(m.direction) + " | " + m.sentence + " |";
}

TEST(MetricTable, VariantsDocListsEveryMetricAsTheTableHasIt) {
    const std::string doc = read_doc("VARIANTS.md");
    for (const MetricSpec& m : metric_table())
        EXPECT_NE(doc.find("\n" + doc_row(m) + "\n"), std::string::npos) << "docs/VARIANTS.md lacks the metric row\n"
                                                                           << doc_row(m);
    // No row for a metric the code no longer has: the rows' shape is "| `id` | `key` or — | ... | `format` | ...".
    const std::regex row(R"(\n\| `[a-z0-9_]+` \| (`[a-z0-9_]+`|—) \| [^\n]* \| `[^`\n]+` \| (lower is better|higher is better|describes) \| )");
    const auto rows = std::distance(std::sregex_iterator(doc.begin(), doc.end(), row), std::sregex_iterator());
    EXPECT_EQ(rows, long(metric_table().size())) << "docs/VARIANTS.md's metric list has rows the code does not";
}

TEST(MetricTable, DefinitionsInTheDocsNameOnlyMetricsOfTheTable) {
    const std::string doc = read_doc("VARIANTS.md");
    const auto start = doc.find("## Metrics");
    const auto end = doc.find("\n## ", start + 1);
    ASSERT_NE(start, std::string::npos);
    const std::string section = doc.substr(start, end - start);
    const std::regex definition(R"(\n\| `([a-z0-9_]+)` \|)");
    int seen = 0;
    for (auto it = std::sregex_iterator(section.begin(), section.end(), definition); it != std::sregex_iterator(); ++it) {
        const std::string id = (*it)[1];
        const bool variant = id == "lsh" || id == "fnet" || id == "linformer";  // the own-exact-model table's rows
        EXPECT_TRUE(variant || find_metric(id)) << "docs/VARIANTS.md defines '" << id << "', which is no metric";
        ++seen;
    }
    EXPECT_GT(seen, int(metric_table().size()));  // the definitions and the names table
}

TEST(MetricTable, IdsAreUniqueAndEveryRowIsComplete) {
    std::set<std::string> ids, keys;
    for (const MetricSpec& m : metric_table()) {
        EXPECT_TRUE(ids.insert(m.id).second) << "two rows named " << m.id;
        EXPECT_TRUE(!m.json_key || keys.insert(m.json_key).second) << "two rows with the JSON key " << m.json_key;
        for (const char* text : {m.label, m.short_label, m.axis_label, m.sentence, m.help, m.format})
            EXPECT_TRUE(text && *text) << m.id << ": an empty text";
        EXPECT_FALSE(m.field && m.run_value) << m.id << ": two places for one value";
        EXPECT_EQ(m.json_key != nullptr, m.field != nullptr) << m.id << ": the JSON holds exactly the per-head fields";
        EXPECT_TRUE(!(m.lists & (kInCsv | kAllHeadsOnly)) || m.field) << m.id << ": a CSV column needs a field";
        EXPECT_TRUE(!measured_outside_run(m) || (m.lists & kSweepable)) << m.id << ": measured nowhere";
    }
}

// Every list the issue named reads the table: a metric's presence in each follows its row's bits.
TEST(MetricTable, TheListsFollowTheTable) {
    std::vector<std::string> sweepable, csv_columns;
    for (const MetricSpec& m : metric_table()) {
        if (m.lists & kSweepable) sweepable.push_back(m.id);
        if (m.lists & kInCsv) csv_columns.push_back(m.id);
        const bool in_ids = std::find(metric_ids().begin(), metric_ids().end(), m.id) != metric_ids().end();
        EXPECT_EQ(in_ids, !measured_outside_run(m)) << m.id;
    }
    std::vector<std::string> menu;
    for (const MetricSpec* m : sweep_metrics()) menu.push_back(m->id);
    EXPECT_EQ(menu, sweepable);
    const std::string header = metrics_csv({}).substr(0, metrics_csv({}).find('\n'));
    std::string want = "variant,instance,model,heads";
    for (const std::string& c : csv_columns) want += "," + c;
    EXPECT_EQ(header, want + ",time_ms,peak_bytes,flops");
    EXPECT_THROW(parse_sweep_metric("keys_for_90"), Error);  // in the table, not sweepable
}

TEST(MetricTable, ValuesComeFromTheirPlaceInARun) {
    RunResult r;
    r.metrics.rel_err_out = 0.25;
    r.metrics.density = 0.5;
    r.cost.time_ms = 12.5;
    r.cost.peak_bytes = 3 * 1048576;
    EXPECT_EQ(metric_by_id(r, "rel_err_out"), 0.25);
    EXPECT_EQ(metric_by_id(r, "density"), 0.5);
    EXPECT_EQ(metric_by_id(r, "time"), 12.5);
    EXPECT_EQ(metric_by_id(r, "memory"), 3.0 * 1048576);
    EXPECT_FALSE(metric_by_id(r, "rel_err_attn").has_value());
    EXPECT_FALSE(metric_by_id(r, "embedding_cosine").has_value());  // measured by a sweep's evaluator
    EXPECT_FALSE(metric_by_id(r, "accuracy").has_value());
    EXPECT_EQ(sweep_metric_value(parse_sweep_metric("memory"), r), 3.0);  // MiB on a sweep's axis
    r.metrics.row_kl = INFINITY;
    EXPECT_FALSE(sweep_metric_value(parse_sweep_metric("row_kl"), r).has_value());
    EXPECT_EQ(format_metric_value(*find_metric("row_kl"), INFINITY), "inf");
    EXPECT_EQ(format_metric_value(*find_metric("keys_for_90"), 12.25), "12.2 keys");
    EXPECT_EQ(metric_help(*find_metric("rel_err_model"), "head 1", "softmax(QQᵀ)"), "softmax(QQᵀ) (head 1)");
}

}  // namespace
}  // namespace attnscope

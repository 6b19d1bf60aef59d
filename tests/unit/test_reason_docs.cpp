// The reasons' table (core/reason.cpp) against the docs that describe it: docs/GUI.md lists every reason with its
// colour, salience and hover sentence, and docs/VARIANTS.md names reasons per variant; neither may drift from the code.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "core/reason.h"
#include "tests/unit/doc_test_util.h"

namespace attnscope {
namespace {

using test::read_doc;

/// "#rrggbb" of a colour in [0, 1].
std::string hex(const std::array<float, 3>& rgb) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", int(std::lround(rgb[0] * 255)), int(std::lround(rgb[1] * 255)),
                  int(std::lround(rgb[2] * 255)));
    return buf;
}

/// The docs/GUI.md row of a reason: name, colour, salience and sentence, as the code has them.
std::string gui_doc_row(Reason r) {
    return "| `" + std::string(reason_name(r)) + "` | `" + hex(reason_rgb(r)) + "` | " +
           std::to_string(reason_salience(r)) + " | " + reason_sentence(r) + " |";
}

TEST(ReasonDocs, GuiDocListsEveryReasonAsTheTableHasIt) {
    const std::string doc = read_doc("GUI.md");
    for (int k = 0; k < int(Reason::Count); ++k) {
        const std::string row = gui_doc_row(static_cast<Reason>(k));
        EXPECT_NE(doc.find("\n" + row + "\n"), std::string::npos) << "docs/GUI.md lacks the reason row\n" << row;
    }
    // No row for a reason the code no longer has.
    const std::regex row(R"(\n\| `[a-z-]+` \| `#[0-9a-f]{6}` \| \d+ \| )");
    const auto rows = std::distance(std::sregex_iterator(doc.begin(), doc.end(), row), std::sregex_iterator());
    EXPECT_EQ(rows, int(Reason::Count)) << "docs/GUI.md's reason list has rows the code does not";
}

TEST(ReasonDocs, VariantsDocNamesOnlyReasonsTheCodeHas) {
    std::set<std::string> names;
    for (int k = 0; k < int(Reason::Count); ++k) names.insert(reason_name(static_cast<Reason>(k)));
    const std::string doc = read_doc("VARIANTS.md");
    // "reasons *sink* and *window*", "reasons *local*, *sink*, *selected*", "reason *global*".
    const std::regex mention(R"(reasons? ((\*[a-z-]+\*(, | and |, and )?)+))");
    const std::regex name(R"(\*([a-z-]+)\*)");
    int mentioned = 0;
    for (auto m = std::sregex_iterator(doc.begin(), doc.end(), mention); m != std::sregex_iterator(); ++m) {
        const std::string list = (*m)[1];
        for (auto n = std::sregex_iterator(list.begin(), list.end(), name); n != std::sregex_iterator(); ++n, ++mentioned)
            EXPECT_TRUE(names.count((*n)[1])) << "docs/VARIANTS.md names reason '" << (*n)[1] << "', which the code lacks";
    }
    EXPECT_GE(mentioned, 6) << "the parse of docs/VARIANTS.md found too few reason names";
}

}  // namespace
}  // namespace attnscope

// The --variant text form (core/session/variant_spec.h): list values keep their commas wherever they stand in an
// instance, and every error names a form that parses.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/session/experiment.h"
#include "core/session/variant_spec.h"
#include "core/variants/registry.h"

namespace attnscope::test {
namespace {

using Assignments = std::vector<std::pair<std::string, std::string>>;

std::string error_of(const std::vector<std::string>& texts) {
    try {
        parse_variant_specs(texts);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

/// The example an error message offers ("… e.g. FORM"), which a user would paste back into --variant.
std::string example_in(const std::string& message) {
    const auto at = message.rfind("e.g. ");
    return at == std::string::npos ? "" : message.substr(at + 5);
}

TEST(VariantSpec, ListValueKeepsItsCommasAtTheEnd) {
    std::cout << "[case] topk:k=6:mask_mod=document:boundaries=13,30 alone and before full\n";
    for (const std::string text : {"topk:k=6:mask_mod=document:boundaries=13,30",
                                   "topk:k=6:mask_mod=document:boundaries=13,30,full"}) {
        const std::vector<VariantSpec> specs = parse_variant_specs({text});
        ASSERT_GE(specs.size(), 1u) << text;
        EXPECT_EQ(specs[0].id, "topk");
        EXPECT_EQ(specs[0].assignments,
                  (Assignments{{"k", "6"}, {"mask_mod", "document"}, {"boundaries", "13,30"}})) << text;
        const VariantRequest request = parse_variant_request(specs[0].id, specs[0].assignments);
        EXPECT_EQ(request.params.get_list("boundaries"), (std::vector<int>{13, 30})) << text;
    }
    const std::vector<VariantSpec> two = parse_variant_specs({"topk:k=6:mask_mod=document:boundaries=13,30,full"});
    ASSERT_EQ(two.size(), 2u);
    EXPECT_EQ(two[1].id, "full");
    EXPECT_TRUE(two[1].assignments.empty());
}

TEST(VariantSpec, ListValueMayBeFollowedByMoreParameters) {
    std::cout << "[case] topk:mask_mod=document:boundaries=0,100,250:k=6,longformer:global=0,5:window=4\n";
    const std::vector<VariantSpec> specs =
        parse_variant_specs({"topk:mask_mod=document:boundaries=0,100,250:k=6,longformer:global=0,5:window=4"});
    ASSERT_EQ(specs.size(), 2u);
    EXPECT_EQ(specs[0].assignments, (Assignments{{"mask_mod", "document"}, {"boundaries", "0,100,250"}, {"k", "6"}}));
    EXPECT_EQ(specs[1].id, "longformer");
    EXPECT_EQ(specs[1].assignments, (Assignments{{"global", "0,5"}, {"window", "4"}}));
}

TEST(VariantSpec, SpacesAroundCommasAndBlankPiecesAreIgnored) {
    std::cout << "[case] 'longformer:global=0, 5 ,, full' and repeated options\n";
    const std::vector<VariantSpec> specs = parse_variant_specs({"longformer:global=0, 5 ,, full", "svd:rank=8"});
    ASSERT_EQ(specs.size(), 3u);
    EXPECT_EQ(specs[0].assignments, (Assignments{{"global", "0,5"}}));
    EXPECT_EQ(specs[1].id, "full");
    EXPECT_EQ(specs[2].id, "svd");
}

TEST(VariantSpec, NumberAfterAOneValueParameterNamesAFormThatParses) {
    std::cout << "[case] topk:k=6,7: k takes one value; the suggested form is two instances\n";
    const std::string message = error_of({"topk:k=6,7"});
    EXPECT_NE(message.find("k takes one value"), std::string::npos) << message;
    EXPECT_NE(message.find("boundaries"), std::string::npos) << message;  // the list parameters topk does have
    const std::vector<VariantSpec> fixed = parse_variant_specs({example_in(message)});
    ASSERT_EQ(fixed.size(), 2u) << message;
    EXPECT_EQ(fixed[0].assignments, (Assignments{{"k", "6"}}));
    EXPECT_EQ(fixed[1].assignments, (Assignments{{"k", "7"}}));
}

TEST(VariantSpec, NumberWhereAnIdBelongsNamesAFormThatParses) {
    std::cout << "[case] a number first, after a bare id, and at the start of a repeated --variant\n";
    for (const std::vector<std::string>& texts : std::vector<std::vector<std::string>>{
             {"13,full"}, {"full,13"}, {"topk:mask_mod=document:boundaries=13", "30"}}) {
        const std::string message = error_of(texts);
        EXPECT_NE(message.find("where a variant id belongs"), std::string::npos) << texts.back() << ": " << message;
        const std::vector<VariantSpec> fixed = parse_variant_specs({example_in(message)});
        ASSERT_EQ(fixed.size(), 1u) << message;
        EXPECT_EQ(fixed[0].assignments.back(), (std::pair<std::string, std::string>{"boundaries", "13,30"}));
    }
}

TEST(VariantSpec, UnknownIdsAndPartsWithoutValuesAreErrors) {
    std::cout << "[case] nosuch, svd:rank, topk::k=6\n";
    EXPECT_NE(error_of({"full,nosuch"}).find("unknown variant 'nosuch'"), std::string::npos);
    EXPECT_NE(error_of({"svd:rank"}).find("'rank' is not NAME=VALUE"), std::string::npos);
    EXPECT_NE(error_of({"topk::k=6"}).find("is not NAME=VALUE"), std::string::npos);
}

TEST(VariantSpec, PlusJoinsTermsAndBareWordsAreSwitches) {
    std::cout << "[case] compose:window=64+sinks=4+document, +prefix=16+causal, full:scale=1e+3\n";
    const std::vector<VariantSpec> specs =
        parse_variant_specs({"compose:window=64+sinks=4+document,compose:window=8+prefix=16+causal,full:scale=1e+3"});
    ASSERT_EQ(specs.size(), 3u);
    EXPECT_EQ(specs[0].id, "compose");
    EXPECT_EQ(specs[0].assignments, (Assignments{{"window", "64"}, {"sinks", "4"}, {"mask_mod", "document"}}));
    // prefix matters only under mask_mod=prefix, so writing it switches the prefix-LM mask on.
    EXPECT_EQ(specs[1].assignments,
              (Assignments{{"window", "8"}, {"mask_mod", "prefix"}, {"prefix", "16"}, {"causal", "1"}}));
    // A '+' before a digit belongs to the number.
    EXPECT_EQ(specs[2].assignments, (Assignments{{"scale", "1e+3"}}));
    const VariantRequest request = parse_variant_request(specs[1].id, specs[1].assignments);
    EXPECT_EQ(request.params.get_int("mask_mod"), 1);
    EXPECT_EQ(request.params.get_int("prefix"), 16);
    EXPECT_TRUE(request.params.get_bool("causal"));
    // An explicit switch is kept as written: prefix after mask_mod=none adds nothing.
    EXPECT_EQ(parse_variant_specs({"sink:mask_mod=none+prefix=4"})[0].assignments,
              (Assignments{{"mask_mod", "none"}, {"prefix", "4"}}));
    EXPECT_NE(error_of({"compose:window=4+diagonal"}).find("'diagonal' is not NAME=VALUE"), std::string::npos);
    EXPECT_NE(error_of({"compose:window=4+diagonal"}).find("nor a switch of compose"), std::string::npos);
}

// "auto" is the keyword for a parameter's automatic default (sessions write it), so no choice may carry that name:
// a choice called auto would be saved and then read back as the keyword.
TEST(VariantSpec, EveryChoiceRoundTripsByItsName) {
    for (const auto& v : all_variants())
        for (const ParamSpec& spec : v->info().params) {
            if (spec.kind != ParamKind::Choice) continue;
            for (const std::string& choice : spec.choices) {
                SCOPED_TRACE(v->info().id + ": " + spec.name + " = " + choice);
                EXPECT_NE(choice, "auto");
                const VariantRequest r = parse_variant_request(v->info().id, {{spec.name, choice}});
                EXPECT_EQ(spec.choices[size_t(r.params.get_int(spec.name))], choice);
            }
        }
}

}  // namespace
}  // namespace attnscope::test

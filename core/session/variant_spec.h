// attnscope — the text form of variant instances on the command line: "ID[:NAME=VALUE…]" separated by commas,
// where a list parameter keeps its own commas ("topk:mask_mod=document:boundaries=13,30:k=6,full"). Every
// command that takes --variant reads it through here, so the rule is the same everywhere.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace attnscope {

/// One instance as written: its variant id and its NAME=VALUE assignments in order (not yet validated).
struct VariantSpec {
    std::string id;                                                // variant id, e.g. "topk"
    std::vector<std::pair<std::string, std::string>> assignments;  // e.g. {"boundaries", "13,30"}
};

/// The rule of parse_variant_specs in one sentence, for --help texts.
inline constexpr char kVariantSpecRule[] =
    "ID or ID:NAME=VALUE[:NAME=VALUE...], comma-separated or repeated; numbers after a comma continue the list "
    "parameter just before them (e.g. topk:k=6:mask_mod=document:boundaries=13,30,full)";

/// The instances in `texts` (each one --variant value, possibly several instances). A comma-separated piece that
/// starts with a number continues the list parameter assigned just before it (boundaries=13,30), and may go on
/// with :NAME=VALUE for the same instance; any other piece starts an instance with its id. Blank pieces are
/// skipped. Throws Error for an unknown id, a part that is not NAME=VALUE, or a number that follows no list
/// parameter (e.g. topk:k=6,7), saying how to write it instead.
std::vector<VariantSpec> parse_variant_specs(const std::vector<std::string>& texts);

}  // namespace attnscope

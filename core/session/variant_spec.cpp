#include "core/session/variant_spec.h"

#include <algorithm>
#include <cctype>

#include "core/error.h"
#include "core/variants/modifiers.h"
#include "core/variants/registry.h"

namespace attnscope {

namespace {

std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

/// Variant ids start with a letter, list items with a digit (or a sign or point before one): that is what
/// tells "13" (more of a list) from "full" (the next instance) after a comma.
bool starts_number(const std::string& piece) {
    const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    if (piece.empty()) return false;
    if (digit(piece[0])) return true;
    return (piece[0] == '-' || piece[0] == '+' || piece[0] == '.') && piece.size() > 1 && digit(piece[1]);
}

std::string list_params_of(const VariantInfo& info) {
    std::string names;
    for (const ParamSpec& p : info.params)
        if (p.kind == ParamKind::IntList) names += (names.empty() ? "" : ", ") + p.name;
    return names;
}

/// Appends `item` to the list value assigned last in `spec`, or says why a number cannot stand there.
void continue_list(VariantSpec* spec, const std::string& item, const std::string& text) {
    const std::string where = "--variant '" + text + "': '" + item + "' ";
    if (!spec || spec->assignments.empty())
        throw Error(where + "is a number where a variant id belongs: after a comma each instance starts with its id "
                            "(ID[:NAME=VALUE...]), and numbers continue only a list parameter written just before "
                            "them, e.g. topk:mask_mod=document:boundaries=13,30");
    auto& [name, value] = spec->assignments.back();
    const VariantInfo& info = find_variant(spec->id).info();
    const ParamSpec* param = find_param(info.params, name);
    // An unknown name is left to parse_variant_request, whose message lists the variant's parameters.
    if (param && param->kind != ParamKind::IntList) {
        const std::string lists = list_params_of(info);
        throw Error(where + "follows " + name + "=" + value + ", but " + name + " takes one value; only list "
                    "parameters (" + (lists.empty() ? spec->id + " has none" : lists) + ") take comma-separated "
                    "numbers. For another instance write its id again, e.g. " + spec->id + ":" + name + "=" + value +
                    "," + spec->id + ":" + name + "=" + item);
    }
    value += (value.empty() ? "" : ",") + item;
}

/// The '+'-joined terms of one part ("window=64+sinks=4+document"); a '+' before anything but a letter stays in its
/// value, so numbers such as 1e+3 are not split.
std::vector<std::string> terms_of(const std::string& part) {
    std::vector<std::string> terms;
    size_t begin = 0;
    for (size_t k = 0; k < part.size(); ++k)
        if (part[k] == '+' && k + 1 < part.size() && std::isalpha(static_cast<unsigned char>(part[k + 1]))) {
            terms.push_back(trimmed(part.substr(begin, k - begin)));
            begin = k + 1;
        }
    terms.push_back(trimmed(part.substr(begin)));
    return terms;
}

bool assigns(const VariantSpec& spec, const std::string& name) {
    for (const auto& [n, v] : spec.assignments)
        if (n == name) return true;
    return false;
}

/// The assignment a bare word stands for: an on/off parameter switched on (causal → causal=1) or a choice by its
/// name (document → mask_mod=document); empty names when the word is neither.
std::pair<std::string, std::string> switch_of(const VariantInfo& info, const std::string& word) {
    for (const ParamSpec& p : info.params) {
        if (p.kind == ParamKind::Bool && p.name == word) return {p.name, "1"};
        if (p.kind == ParamKind::Choice && std::find(p.choices.begin(), p.choices.end(), word) != p.choices.end())
            return {p.name, word};
    }
    return {};
}

/// Adds one term of an instance: NAME=VALUE (with the modifier switch the name needs, when not given) or a bare
/// switch word.
void add_term(VariantSpec& spec, const std::string& term, const std::string& text) {
    const auto eq = term.find('=');
    if (eq == 0 || (eq == std::string::npos && term.empty()))
        throw Error("--variant '" + text + "': '" + term + "' is not NAME=VALUE (e.g. --variant svd:rank=8)");
    const VariantInfo& info = find_variant(spec.id).info();
    if (eq == std::string::npos) {
        const auto [name, value] = switch_of(info, term);
        if (name.empty())
            throw Error("--variant '" + text + "': '" + term + "' is not NAME=VALUE (e.g. --variant svd:rank=8), nor a " +
                        "switch of " + spec.id + " (an on/off parameter such as causal, or a choice such as document)");
        spec.assignments.emplace_back(name, value);
        return;
    }
    const std::string name = trimmed(term.substr(0, eq));
    const auto [switch_name, switch_value] = modifier_switch_for(name);
    if (!switch_name.empty() && find_param(info.params, switch_name) && !assigns(spec, switch_name))
        spec.assignments.emplace_back(switch_name, switch_value);
    spec.assignments.emplace_back(name, trimmed(term.substr(eq + 1)));
}

}  // namespace

std::vector<VariantSpec> parse_variant_specs(const std::vector<std::string>& texts) {
    std::vector<VariantSpec> out;
    for (const std::string& text : texts) {
        // A list continues only within one --variant value: a repeated option always starts an instance.
        VariantSpec* current = nullptr;
        size_t start = 0;
        while (start <= text.size()) {
            const size_t comma = text.find(',', start);
            const std::string piece =
                trimmed(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
            start = comma == std::string::npos ? text.size() + 1 : comma + 1;
            if (piece.empty()) continue;
            const size_t colon = piece.find(':');
            const std::string head = trimmed(piece.substr(0, colon));
            if (starts_number(head)) {
                continue_list(current, head, text);
            } else {
                find_variant(head);  // an unknown id fails here, naming the known ones
                out.push_back({head, {}});
                current = &out.back();
            }
            for (size_t at = colon; at != std::string::npos;) {
                const size_t next = piece.find(':', at + 1);
                const std::string part =
                    trimmed(piece.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1));
                for (const std::string& term : terms_of(part)) add_term(*current, term, text);
                at = next;
            }
        }
    }
    return out;
}

}  // namespace attnscope

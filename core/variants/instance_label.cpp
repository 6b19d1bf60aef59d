// attnscope — instance labels and file stems (see instance_label.h).
#include "core/variants/instance_label.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/variants/modifiers.h"

namespace attnscope {

namespace {

/// Parameters an instance names: the key parameters first, then the others whose value is not the default.
/// An auto default left to the variant is named only when it is a key parameter (the resolved value then
/// depends on n, which the rest of the label does not).
std::vector<const ParamSpec*> named_params(const VariantInfo& info, const Params& params) {
    std::vector<const ParamSpec*> out;
    for (const std::string& key : info.key_params)
        if (const ParamSpec* spec = find_param(info.params, key); spec && params.has(key)) out.push_back(spec);
    for (const ParamSpec& spec : info.params) {
        if (std::find(out.begin(), out.end(), &spec) != out.end() || !params.has(spec.name) || spec.auto_default)
            continue;
        const bool differs = spec.kind == ParamKind::IntList
                                 ? params.get_list(spec.name) != default_params({spec}).get_list(spec.name)
                                 : params.get(spec.name) != spec.def;
        if (differs) out.push_back(&spec);
    }
    return out;
}

std::string number_text(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

bool is_ascii_word(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

}  // namespace

std::string instance_label(const VariantInfo& info, const Params& params) {
    std::string label = info.short_name.empty() ? info.name : info.short_name;
    bool first = true;
    for (const ParamSpec* spec : named_params(info, params)) {
        if (is_modifier_param(spec->name)) continue;  // named together, in words, below
        std::string part;
        switch (spec->kind) {
            case ParamKind::Bool: part = params.get_bool(spec->name) ? spec->name : spec->name + " off"; break;
            case ParamKind::Choice: part = spec->name + " " + params.value_text(*spec); break;
            case ParamKind::IntList: part = spec->symbol + " = {" + params.value_text(*spec) + "}"; break;
            default: part = spec->symbol + " = " + number_text(params.get(spec->name)); break;
        }
        label += (first ? " " : ", ") + part;
        first = false;
    }
    if (const std::string mods = modifier_summary(params); mods != "none") label += ", " + mods;
    return label;
}

std::string curve_label(const VariantInfo& info, const Params& params, const std::string& swept) {
    Params shown;
    for (const auto& [name, value] : params.numbers())
        if (name != swept && name != "seed") shown.set(name, value);
    for (const auto& [name, value] : params.lists())
        if (name != swept) shown.set_list(name, value);
    return instance_label(info, shown);
}

std::string instance_slug(const VariantInfo& info, const Params& params) {
    std::string slug = info.id;
    for (const ParamSpec* spec : named_params(info, params)) {
        std::string part;
        const std::string tag = is_ascii_word(spec->symbol) && spec->symbol.size() <= 2 ? spec->symbol : spec->name;
        switch (spec->kind) {
            case ParamKind::Bool: part = params.get_bool(spec->name) ? spec->name : "no-" + spec->name; break;
            case ParamKind::Choice: part = params.value_text(*spec); break;
            case ParamKind::IntList: part = tag + params.value_text(*spec); break;
            default: part = tag + number_text(params.get(spec->name)); break;
        }
        slug += "-" + part;
    }
    for (char& c : slug)  // file-safe: "elu+1" → "elu-1", "0,5" → "0-5", "0.5" stays
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '-';
    return slug;
}

}  // namespace attnscope

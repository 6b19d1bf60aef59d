#include "core/variants/params.h"

#include <cmath>
#include <sstream>

#include "core/error.h"
#include "core/format.h"

namespace attnscope {

namespace {

std::string format_number(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

double parse_number(const std::string& variant_id, const std::string& name, const std::string& text) {
    if (text == "true" || text == "on") return 1.0;
    if (text == "false" || text == "off") return 0.0;
    const std::optional<double> v = parse_finite(text);
    if (!v) throw Error(variant_id + ": parameter " + name + "='" + text + "' is not a finite number");
    return *v;
}

std::vector<int> parse_int_list(const std::string& variant_id, const std::string& name, const std::string& text) {
    std::vector<int> out;
    if (text.empty() || text == "none") return out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        const double v = parse_number(variant_id, name, item);
        if (v != std::floor(v) || std::fabs(v) > 1e9)
            throw Error(variant_id + ": parameter " + name + " item '" + item + "' is not an integer position");
        out.push_back(static_cast<int>(v));
    }
    return out;
}

}  // namespace

double Params::get(const std::string& name) const {
    auto it = m_numbers.find(name);
    if (it == m_numbers.end()) throw Error("parameter '" + name + "' has no value (internal: resolve auto defaults first)");
    return it->second;
}

double Params::get_or(const std::string& name, double fallback) const {
    auto it = m_numbers.find(name);
    return it == m_numbers.end() ? fallback : it->second;
}

const std::vector<int>& Params::get_list(const std::string& name) const {
    auto it = m_lists.find(name);
    if (it == m_lists.end()) throw Error("list parameter '" + name + "' has no value");
    return it->second;
}

std::string Params::value_text(const ParamSpec& spec) const {
    if (spec.kind == ParamKind::IntList) {
        auto it = m_lists.find(spec.name);
        if (it == m_lists.end()) return "auto";
        std::string s;
        for (size_t i = 0; i < it->second.size(); ++i) s += (i ? "," : "") + std::to_string(it->second[i]);
        return s.empty() ? "none" : s;
    }
    auto it = m_numbers.find(spec.name);
    if (it == m_numbers.end()) return "auto";
    if (spec.kind == ParamKind::Choice) {
        const int idx = static_cast<int>(it->second);
        return idx >= 0 && idx < static_cast<int>(spec.choices.size()) ? spec.choices[idx] : format_number(it->second);
    }
    if (spec.kind == ParamKind::Bool) return it->second != 0 ? "on" : "off";
    return format_number(it->second);
}

Params default_params(const std::vector<ParamSpec>& specs) {
    Params p;
    for (const ParamSpec& s : specs) {
        if (s.auto_default) continue;
        if (s.kind == ParamKind::IntList)
            p.set_list(s.name, parse_int_list("defaults", s.name, s.list_default));
        else
            p.set(s.name, s.def);
    }
    return p;
}

const ParamSpec* find_param(const std::vector<ParamSpec>& specs, const std::string& name) {
    for (const ParamSpec& s : specs)
        if (s.name == name) return &s;
    return nullptr;
}

std::string describe_range(const ParamSpec& spec) {
    switch (spec.kind) {
        case ParamKind::Bool: return "0 or 1 (off/on)";
        case ParamKind::Choice: {
            std::string s = "{";
            for (size_t i = 0; i < spec.choices.size(); ++i) s += (i ? ", " : "") + spec.choices[i];
            return s + "}";
        }
        case ParamKind::IntList: return "comma-separated integer positions, or 'none'";
        case ParamKind::Int:
        case ParamKind::Real: return "[" + format_number(spec.lo) + ", " + format_number(spec.hi) + "]";
    }
    return "";
}

void validate_param(const std::string& variant_id, const ParamSpec& spec, double value) {
    const std::string prefix = variant_id + ": parameter " + spec.name + "=" + format_number(value);
    if (!std::isfinite(value)) throw Error(prefix + " is not finite; allowed " + describe_range(spec));
    switch (spec.kind) {
        case ParamKind::Bool:
            if (value != 0.0 && value != 1.0) throw Error(prefix + " must be 0 or 1 (off/on)");
            return;
        case ParamKind::Choice:
            if (value != std::floor(value) || value < 0 || value >= static_cast<double>(spec.choices.size()))
                throw Error(prefix + " is not a valid choice; allowed " + describe_range(spec));
            return;
        case ParamKind::Int:
            if (value != std::floor(value)) throw Error(prefix + " must be an integer in " + describe_range(spec));
            [[fallthrough]];
        case ParamKind::Real:
            if (value < spec.lo || value > spec.hi)
                throw Error(prefix + " is out of range; allowed " + describe_range(spec));
            return;
        case ParamKind::IntList: return;
    }
}

Params parse_params(const std::string& variant_id, const std::vector<ParamSpec>& specs,
                    const std::vector<std::pair<std::string, std::string>>& assignments) {
    Params p = default_params(specs);
    for (const auto& [name, text] : assignments) {
        const ParamSpec* spec = find_param(specs, name);
        if (!spec) {
            std::string known;
            for (const ParamSpec& s : specs) known += (known.empty() ? "" : ", ") + s.name;
            throw Error(variant_id + " has no parameter '" + name + "'; its parameters are: " +
                        (known.empty() ? std::string("(none)") : known));
        }
        if (spec->kind == ParamKind::IntList) {
            p.set_list(name, parse_int_list(variant_id, name, text));
            continue;
        }
        if (text == "auto") {
            if (!spec->auto_default) throw Error(variant_id + ": parameter " + name + " has no automatic default");
            continue;
        }
        double value = 0;
        if (spec->kind == ParamKind::Choice) {
            bool found = false;
            for (size_t i = 0; i < spec->choices.size(); ++i)
                if (spec->choices[i] == text) value = static_cast<double>(i), found = true;
            if (!found) {
                // An index still works (older sessions), anything else names the choices.
                if (!parse_finite(text)) {
                    std::string names;
                    for (const std::string& c : spec->choices) names += (names.empty() ? "" : ", ") + c;
                    throw Error(variant_id + ": parameter " + name + "='" + text + "' is not one of " + names);
                }
                value = parse_number(variant_id, name, text);
            }
        } else {
            value = parse_number(variant_id, name, text);
        }
        validate_param(variant_id, *spec, value);
        p.set(name, value);
    }
    return p;
}

}  // namespace attnscope

// attnscope — variant parameters: their specs (default, range, help in the paper's notation) and values.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace attnscope {

/// What kind of value a parameter holds (decides the GUI widget and the validation).
enum class ParamKind {
    Real,     // a real number in [lo, hi]
    Int,      // an integer in [lo, hi]
    Bool,     // 0 or 1
    Choice,   // an index into `choices`
    IntList,  // a comma-separated list of integers (e.g. global token positions)
};

/// The contract of one parameter.
struct ParamSpec {
    std::string name;                  // identifier used by --set NAME=VALUE and JSON
    std::string symbol;                // the paper's symbol, e.g. "w", "δ", "n_b"
    std::string help;                  // one line in the paper's notation
    ParamKind kind = ParamKind::Real;  // widget and validation
    double def = 0;                    // default (ignored when auto_default is set)
    double lo = 0, hi = 0;             // inclusive range for Real/Int
    bool auto_default = false;         // default depends on the input shape; see auto_help
    std::string auto_help;             // e.g. "⌈√n⌉"
    std::vector<std::string> choices;  // names for Choice
    std::string list_default;          // default for IntList, e.g. "0"
    bool log_scale = false;            // GUI slider on a log scale
};

/// A real parameter in [lo, hi].
inline ParamSpec real_param(std::string name, std::string symbol, std::string help, double def, double lo, double hi) {
    ParamSpec p;
    p.name = std::move(name), p.symbol = std::move(symbol), p.help = std::move(help);
    p.kind = ParamKind::Real, p.def = def, p.lo = lo, p.hi = hi;
    return p;
}
/// An integer parameter in [lo, hi].
inline ParamSpec int_param(std::string name, std::string symbol, std::string help, int def, double lo, double hi) {
    ParamSpec p = real_param(std::move(name), std::move(symbol), std::move(help), def, lo, hi);
    p.kind = ParamKind::Int;
    return p;
}
/// An on/off parameter.
inline ParamSpec bool_param(std::string name, std::string symbol, std::string help, bool def) {
    ParamSpec p = real_param(std::move(name), std::move(symbol), std::move(help), def ? 1 : 0, 0, 1);
    p.kind = ParamKind::Bool;
    return p;
}
/// A choice among named options; `def` is the index of the default.
inline ParamSpec choice_param(std::string name, std::string symbol, std::string help, std::vector<std::string> choices,
                              int def) {
    ParamSpec p = real_param(std::move(name), std::move(symbol), std::move(help), def, 0, double(choices.size()) - 1);
    p.kind = ParamKind::Choice, p.choices = std::move(choices);
    return p;
}
/// A list of integer positions, e.g. "0,5".
inline ParamSpec list_param(std::string name, std::string symbol, std::string help, std::string def) {
    ParamSpec p = real_param(std::move(name), std::move(symbol), std::move(help), 0, 0, 0);
    p.kind = ParamKind::IntList, p.list_default = std::move(def);
    return p;
}
/// Marks a spec's default as depending on the input shape (resolved by Variant::resolve), e.g. "⌈√n⌉".
inline ParamSpec with_auto_default(ParamSpec p, std::string auto_help) {
    p.auto_default = true, p.auto_help = std::move(auto_help);
    return p;
}

/// Concrete parameter values after validation; absent "auto" values are resolved by the variant.
class Params {
public:
    /// Sets a numeric value (Real/Int/Bool/Choice).
    void set(const std::string& name, double value) { m_numbers[name] = value; }
    /// Sets a list value.
    void set_list(const std::string& name, std::vector<int> value) { m_lists[name] = std::move(value); }
    /// True when the value is present (not left to the variant's auto default).
    bool has(const std::string& name) const { return m_numbers.count(name) || m_lists.count(name); }
    /// Numeric value; throws Error when absent.
    double get(const std::string& name) const;
    /// Numeric value, or `fallback` when absent.
    double get_or(const std::string& name, double fallback) const;
    int get_int(const std::string& name) const { return static_cast<int>(get(name)); }
    bool get_bool(const std::string& name) const { return get(name) != 0.0; }
    /// List value; throws Error when absent.
    const std::vector<int>& get_list(const std::string& name) const;
    const std::map<std::string, double>& numbers() const { return m_numbers; }
    const std::map<std::string, std::vector<int>>& lists() const { return m_lists; }
    /// "name=value" text of one value (choices by name), for tables and JSON.
    std::string value_text(const ParamSpec& spec) const;
    bool operator==(const Params&) const = default;

private:
    std::map<std::string, double> m_numbers;
    std::map<std::string, std::vector<int>> m_lists;
};

/// Default values for every spec (auto defaults are left unset for the variant to resolve).
Params default_params(const std::vector<ParamSpec>& specs);

/// Parses and validates NAME=VALUE assignments on top of the defaults. Unknown names, malformed numbers,
/// non-integers for Int, out-of-range values and unknown choices throw Error naming what is allowed.
/// `variant_id` is used in messages.
Params parse_params(const std::string& variant_id, const std::vector<ParamSpec>& specs,
                    const std::vector<std::pair<std::string, std::string>>& assignments);

/// Validates one numeric value against its spec; throws Error with the allowed range.
void validate_param(const std::string& variant_id, const ParamSpec& spec, double value);

/// Finds a spec by name, or nullptr.
const ParamSpec* find_param(const std::vector<ParamSpec>& specs, const std::string& name);

/// Human-readable range, e.g. "[1, 65536]", "{positive, hyperbolic, trig, relu}", "0 or 1".
std::string describe_range(const ParamSpec& spec);

}  // namespace attnscope

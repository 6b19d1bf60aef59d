// attnscope — numbers as text and back, for notes, check reports, messages and parameter parsing.
#pragma once
#include <cmath>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnscope {

/// v with `decimals` digits after the point ("12.35" for 12.345, 2).
inline std::string format_fixed(double v, int decimals) {
    std::ostringstream os;
    os.setf(std::ios::fixed);
    os.precision(decimals);
    os << v;
    return os.str();
}

/// v with `digits` significant digits, exponent when shorter ("0.0001234", "1.5e+06").
inline std::string format_significant(double v, int digits) {
    std::ostringstream os;
    os.precision(digits);
    os << v;
    return os.str();
}

/// The finite number that is the whole of `text`, or nothing (empty, trailing characters, NaN, ±Inf).
inline std::optional<double> parse_finite(const std::string& text) {
    size_t used = 0;
    double v = 0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (used != text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

/// A byte count in binary units: "512 KiB", "12.5 MiB", "1.25 GiB" (the one byte formatter of notes, tables and
/// messages).
inline std::string format_bytes(double bytes) {
    const double kib = 1024.0, mib = kib * 1024, gib = mib * 1024;
    if (std::abs(bytes) >= gib) return format_fixed(bytes / gib, 2) + " GiB";
    if (std::abs(bytes) >= mib) return format_fixed(bytes / mib, 1) + " MiB";
    return format_fixed(bytes / kib, 0) + " KiB";
}

/// A fraction as a percentage with `digits` significant digits ("17.9%" for 0.1792, 3).
inline std::string format_percent(double fraction, int digits) {
    return format_significant(100 * fraction, digits) + "%";
}

/// Words as a list in a sentence: "a, b or c" (`last` joins the last two; ", " for a plain list).
inline std::string join_words(const std::vector<std::string>& words, const std::string& last = " or ") {
    std::string out;
    for (size_t k = 0; k < words.size(); ++k) out += (k == 0 ? "" : k + 1 == words.size() ? last : ", ") + words[k];
    return out;
}

}  // namespace attnscope

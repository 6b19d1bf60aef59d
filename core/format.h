// attnscope — numbers as text for notes, check reports and messages (one place for the formatting rules).
#pragma once
#include <sstream>
#include <string>

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

/// A fraction as a percentage with `digits` significant digits ("17.9%" for 0.1792, 3).
inline std::string format_percent(double fraction, int digits) {
    return format_significant(100 * fraction, digits) + "%";
}

}  // namespace attnscope
